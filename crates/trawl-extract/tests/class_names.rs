//! Class names whose words say the opposite of what a word list reads in them (test pages
//! written for trawl; the rules are in `token_signal`, `boilerplate.rs`).

use trawl_extract::{ExtractOptions, extract};
use url::Url;

fn markdown(page: &str, url: &str) -> String {
    extract(
        page.as_bytes(),
        Some("text/html; charset=utf-8"),
        &Url::parse(url).unwrap(),
        &ExtractOptions::default(),
    )
    .expect("extract")
    .markdown
}

/// Google's `nocontent` marks what a site's own search must not index; it held the word
/// `content` and read as the page's text.
const NOCONTENT: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Tuning the cache | Widget Docs</title></head>
<body><nav class="nocontent"><a href="/">Docs</a> <a href="/guides">Guides</a></nav>
<main><article class="doc-article">
<h1>Tuning the cache</h1>
<p>The cache keeps the last thousand answers in memory and writes them to disk every minute,
so a restart loses at most a minute of work. Give it more memory when the hit rate falls.</p>
<h2>Sizing</h2>
<p>Start with one entry per expected request a second, times sixty; watch the hit rate for a
day, then double the size until the rate stops rising.</p>
<div class="nocontent"><p>Except as otherwise noted, the content of this page is
licensed under a Creative Commons licence, and code samples under the Apache 2.0 licence.</p>
<p>Last updated 2025-01-01 UTC.</p></div>
</article></main></body></html>"#;

#[test]
fn nocontent_is_not_content() {
    let md = markdown(NOCONTENT, "https://docs.widget.example/guides/cache");
    assert!(md.contains("double the size"), "{md}");
    assert!(!md.contains("Except as otherwise noted"), "{md}");
    assert!(!md.contains("Last updated"), "{md}");
}

/// A heading kept out of the page's table of contents (`hide-from-toc`) is a heading of the
/// text, not a table of contents.
const TOC_OPT_OUT: &str = r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Get started | Gadget Developers</title></head>
<body><nav class="toc"><a href="#a">Install</a> <a href="#b">First app</a></nav>
<main><article class="devsite-article"><h1>Get started</h1>
<p>Everything you need to build your first gadget app, from the toolkit to the store.</p>
<h3 class="hide-from-toc no-link" id="a">Install the toolkit</h3>
<p>Download the toolkit for your system and run the installer; it sets up the compiler, the
emulator and the command line tools in one go.</p>
<h3 class="hide-from-toc no-link" id="b">Build for every screen size</h3>
<p>Lay out your screens with flexible rows and columns so that one app fits a watch, a phone
and a tablet without a second code base.</p>
</article></main></body></html>"##;

#[test]
fn a_heading_hidden_from_the_toc_is_a_heading() {
    let md = markdown(TOC_OPT_OUT, "https://developers.gadget.example/get-started");
    assert!(md.contains("### Install the toolkit"), "{md}");
    assert!(md.contains("### Build for every screen size"), "{md}");
}
