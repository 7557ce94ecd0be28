//! What the page-shape tests share: one HTML page read as `trawl read` reads a page.

use trawl_core::Document;
use trawl_extract::{ExtractOptions, extract};
use url::Url;

/// `page` extracted as an HTML response from `url`, with the default options.
pub fn read_html(url: &str, page: &str) -> Document {
    extract(
        page.as_bytes(),
        Some("text/html; charset=utf-8"),
        &Url::parse(url).expect("a test URL"),
        &ExtractOptions::default(),
    )
    .expect("extract")
}
