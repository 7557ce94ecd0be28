//! Class names whose words say the opposite of what a word list reads in them (test pages
//! written for trawl; the rules are in `token_signal`, `boilerplate.rs`).

use crate::common;

fn markdown(page: &str, url: &str) -> String {
    common::read_html(url, page).markdown
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

/// Kadence's headings in the WordPress block editor (`kt-adv-heading…`, "advanced
/// heading"): `adv` there is not an advert, and the post's headings stay.
const ADVANCED_HEADING: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Choosing a standing desk | Back Care Clinic</title></head>
<body><header class="site-header"><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav></header>
<main><article class="post">
<h1>Choosing a standing desk</h1>
<p>A standing desk helps only when it fits you: the wrong height moves the strain from your
lower back to your shoulders and wrists, and most people stop standing within a month.</p>
<h2 class="kt-adv-heading1042_49ba8b-b6 wp-block-kadence-advancedheading">Set the height first</h2>
<p>Stand with your elbows at a right angle and your shoulders relaxed; the desk top belongs
just under your forearms, and the screen's top edge at eye level.</p>
<h3 class="kt-adv-heading1042_b37cab-ab wp-block-kadence-advancedheading">Alternate through the day</h3>
<p>Change position every half hour or so, and use a mat when you stand: the aim is to move
more, not to stand all day instead of sitting all day.</p>
</article></main>
<footer class="site-footer"><p>Back Care Clinic, all rights reserved.</p></footer></body></html>"#;

#[test]
fn an_advanced_heading_is_not_an_advert() {
    let md = markdown(
        ADVANCED_HEADING,
        "https://backcare.example/blog/standing-desk",
    );
    assert!(md.contains("## Set the height first"), "{md}");
    assert!(md.contains("### Alternate through the day"), "{md}");
    assert!(md.contains("all day instead of sitting"), "{md}");
}
