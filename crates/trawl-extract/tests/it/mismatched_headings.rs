//! A heading closed by another level's end tag (issue 42 item 2; test page written for
//! trawl): `<h3>Overview</h2>` is a slip CMS templates make. HTML5 closes any open h1–h6 at
//! any h1–h6 end tag, so the paragraphs after it are the article, not part of the heading.

use crate::common;

const PAGE: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Tide gauges | Coast Notes</title></head>
<body><main><article><h1>Tide gauges</h1>
<p>A tide gauge records the height of the sea at one place, minute by minute, and the
longest records now run for more than two centuries.</p>
<h3>Overview</h2>
<p>One: the gauge sits in a stilling well, so that waves do not shake its float.</p>
<p>Two: its readings are tied to a benchmark on land, so that a sinking quay shows.</p>
</article></main></body></html>"#;

#[test]
fn a_heading_closed_by_another_levels_end_tag_ends_there() {
    let doc = common::read_html("https://coast.example/notes/tide-gauges", PAGE);
    let md = doc.markdown;
    let heading = md
        .lines()
        .find(|l| l.starts_with("### "))
        .unwrap_or_else(|| panic!("no h3 in:\n{md}"));
    assert_eq!(heading, "### Overview", "{md}");
    assert!(
        md.contains("\n\nOne: the gauge sits in a stilling well"),
        "{md}"
    );
    assert!(
        md.contains("\n\nTwo: its readings are tied to a benchmark"),
        "{md}"
    );
}
