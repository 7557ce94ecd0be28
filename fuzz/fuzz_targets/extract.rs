//! Fuzz the extractor: any bytes, under each content type, must give a Document or a
//! clean error, never a panic or a hang.
//!
//! `cargo fuzz run extract` (with `RUSTC_BOOTSTRAP=1` on a stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::{ExtractOptions, decode_html, extract};

fuzz_target!(|data: &[u8]| {
    let url = url::Url::parse("https://example.com/a/b.html").expect("static URL");
    // The first byte picks the content type, so one corpus explores every path.
    let (selector, body) = match data.split_first() {
        Some((s, rest)) => (*s, rest),
        None => (0, data),
    };
    let content_type = match selector % 6 {
        0 => Some("text/html"),
        1 => None,
        2 => Some("application/pdf"),
        3 => Some("text/plain; charset=windows-1251"),
        4 => Some("application/json"),
        _ => Some("application/octet-stream"),
    };
    let opts = ExtractOptions { include_comments: selector & 0x80 != 0, ..ExtractOptions::default() };
    let _ = extract(body, content_type, &url, &opts);
    let _ = decode_html(body, content_type);
});
