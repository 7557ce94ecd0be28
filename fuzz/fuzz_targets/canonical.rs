//! Fuzz URL canonicalization: any URL that parses must canonicalize without a panic, and
//! canonicalizing twice must give the same URL as once (fusion dedups on this form).
//!
//! `cargo fuzz run canonical` (with `RUSTC_BOOTSTRAP=1` on a stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_core::{canonical_url, handle_for_url, unwrap_redirect};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(url) = url::Url::parse(text) else {
        return;
    };
    let _ = unwrap_redirect(&url);
    let once = canonical_url(&url);
    let twice = canonical_url(&once);
    assert_eq!(once.as_str(), twice.as_str(), "not idempotent for {text:?}");
    let _ = handle_for_url(&url);
});
