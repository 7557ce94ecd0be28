//! A heading's id is its own text's slug (test page written for trawl): WordPress and most
//! Markdown tools give each heading an anchor made of its words, and a heading about sharing
//! the load (`id="how-to-share-the-load"`) read as a share bar and went. The id is not read
//! as a name when its words are the heading's (`names_its_heading` in `boilerplate.rs`); a
//! heading named otherwise (`comments-title`) still is.

use crate::common;

const PAGE: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Moving house with children | Family Notes</title></head>
<body><header class="site-header"><nav><a href="/">Home</a> <a href="/topics">Topics</a></nav></header>
<main><article><h1>Moving house with children</h1>
<p>A move is a long list of small jobs, and children notice every one of them: the boxes,
the strange rooms, the friends left behind. Plan it with them, not around them.</p>
<h2 id="how-to-share-the-load">How to share the load</h2>
<p>Give each child a box of their own to pack and label, and let them choose where it goes
in the new house; a job they own is a job they do not dread.</p>
<h2 id="related-reading-for-parents">Related reading for parents</h2>
<p>The school's own guide to starting mid-year answers most questions about records,
uniforms and the first week, and it is worth reading together.</p>
<h3 id="comments-title">4 comments</h3>
</article></main>
<footer class="site-footer"><p>Family Notes, all rights reserved.</p></footer></body></html>"#;

#[test]
fn a_headings_slug_id_does_not_name_it() {
    let doc = common::read_html("https://family.example/notes/moving-house", PAGE);
    let md = doc.markdown;
    assert!(md.contains("## How to share the load"), "{md}");
    assert!(md.contains("## Related reading for parents"), "{md}");
    assert!(md.contains("a job they own"), "{md}");
    assert!(!md.contains("4 comments"), "{md}");
}
