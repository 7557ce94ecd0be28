//! Fuzz the PDF path within a budget: any bytes, the bomb shapes of trawl-testkit::pdf
//! among the seeds (a content stream, an object stream and a cross-reference stream that
//! inflate far past their size, forms drawn 2^24 times, a form that draws itself), must
//! give text or a clean `too_large` / `unsupported_content`, never a panic, a stack
//! overflow, or memory past libFuzzer's `-rss_limit_mb`.
//!
//! `cargo fuzz run pdf` (with `RUSTC_BOOTSTRAP=1` on a stable toolchain).
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use trawl_core::ErrorCode;
use trawl_extract::{ExtractOptions, PdfLimits, extract};

fuzz_target!(|data: &[u8]| {
    let url = url::Url::parse("https://example.com/f.pdf").expect("static URL");
    // Tighter than the defaults, so a replay stays well inside -timeout and -rss_limit_mb.
    let opts = ExtractOptions {
        pdf: PdfLimits {
            max_decoded_bytes: 32 << 20,
            max_page_content_bytes: 1 << 20,
            max_time: Duration::from_secs(5),
        },
        ..ExtractOptions::default()
    };
    if let Err(err) = extract(data, Some("application/pdf"), &url, &opts) {
        assert!(
            matches!(err.code, ErrorCode::TooLarge | ErrorCode::UnsupportedContent),
            "{:?}: {}",
            err.code,
            err.message
        );
    }
});
