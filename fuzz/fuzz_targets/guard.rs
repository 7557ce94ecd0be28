//! Fuzz the SSRF guard's URL check (no network: only the checks that need no DNS). Any
//! string must give a URL or a refusal, never a panic; an accepted URL with a literal IP
//! host must name a public address.
//!
//! `cargo fuzz run guard` (with `RUSTC_BOOTSTRAP=1` on a stable toolchain).
#![no_main]

use std::net::IpAddr;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use trawl_fetch::{Guard, GuardPolicy, non_public_reason};

fn guard() -> &'static Guard {
    static G: OnceLock<Guard> = OnceLock::new();
    G.get_or_init(|| Guard::new(GuardPolicy::default()))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let base = url::Url::parse("http://public.example/a/b").expect("static URL");
    for base in [None, Some(&base)] {
        let Ok(url) = guard().check_raw(text, base) else {
            continue;
        };
        assert!(
            matches!(url.scheme(), "http" | "https"),
            "{text:?} -> {url}"
        );
        assert!(
            url.username().is_empty() && url.password().is_none(),
            "{text:?}"
        );
        let ip: Option<IpAddr> = match url.host() {
            Some(url::Host::Ipv4(v4)) => Some(v4.into()),
            Some(url::Host::Ipv6(v6)) => Some(v6.into()),
            _ => None,
        };
        if let Some(ip) = ip {
            assert!(non_public_reason(ip).is_none(), "{text:?} let {ip} through");
        }
    }
});
