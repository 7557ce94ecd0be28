//! Fuzz the fence: whatever a page says, the wrapped text holds exactly one open and one
//! close marker (the fence's own), and neutralizing is idempotent.
//!
//! `cargo fuzz run fence` (with `RUSTC_BOOTSTRAP=1` on a stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_agent::fence::{Fence, neutralize};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // A fresh nonce, as trawl makes one per answer: a page cannot guess it.
    let fence = Fence::new().expect("the OS RNG");
    let nonce = fence.nonce().to_owned();
    let out = fence.wrap(&text);
    assert!(out.starts_with(&fence.directive()));
    assert!(out.ends_with(&format!("{}\n", fence.close_marker())));
    assert_eq!(out.matches(&fence.open_marker()).count(), 1);
    assert_eq!(out.matches(&fence.close_marker()).count(), 1);
    // The nonce appears only in the directive and the two markers.
    assert_eq!(out.matches(nonce.as_str()).count(), 3);
    let once = neutralize(&text, Some(&nonce));
    assert_eq!(neutralize(&once, Some(&nonce)), once);
    assert!(!once.to_ascii_lowercase().contains("trawl_untrusted"));
});
