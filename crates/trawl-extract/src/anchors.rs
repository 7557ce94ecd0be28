//! Every link an HTML page writes, as written (nothing resolved), read with the extractor's
//! own parser: a crawler needs the anchors that extraction drops (navigation, sidebars),
//! the `<base href>` and the `<link>` tags. The parser is several times faster than a
//! full HTML5 tree builder, which a crawler would otherwise run a second time per page.

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};
use crate::parse::parse;

/// One `<a href>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// The `href` as written (entities decoded).
    pub href: String,
    /// The anchor's text, whitespace collapsed (may be empty).
    pub text: String,
}

/// One `<link href>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTag {
    /// Its `rel`, lower-cased.
    pub rel: String,
    /// Its `type`, lower-cased (empty when absent).
    pub kind: String,
    /// The `href` as written.
    pub href: String,
}

/// What a page links to, in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageAnchors {
    /// The first `<base href>`.
    pub base: Option<String>,
    /// Every `<a href>`.
    pub anchors: Vec<Anchor>,
    /// Every `<link href>`.
    pub link_tags: Vec<LinkTag>,
}

/// The links written in `html`.
pub fn page_anchors(html: &str) -> PageAnchors {
    of_dom(&parse(html))
}

/// The links written in a parsed page (the extractor's own parse, when a crawler asks for
/// the page's content and its links at once: [`crate::extract_with_anchors`]).
pub(crate) fn of_dom(dom: &Dom) -> PageAnchors {
    let mut out = PageAnchors::default();
    // Sized once for the `<a>` elements, which are most of a page's links.
    out.anchors
        .reserve(dom.nodes.iter().filter(|n| n.tag == Tag::A).count());
    for id in 0..dom.nodes.len() as NodeId {
        let node = dom.node(id);
        if node.kind != Kind::Element {
            continue;
        }
        let Some(href) = dom.attr(id, AttrName::Href) else {
            continue;
        };
        match node.tag {
            Tag::A => out.anchors.push(Anchor {
                href: href.to_owned(),
                text: anchor_text(dom, id),
            }),
            Tag::Link => out.link_tags.push(LinkTag {
                rel: dom
                    .attr(id, AttrName::Rel)
                    .unwrap_or("")
                    .to_ascii_lowercase(),
                kind: dom
                    .attr(id, AttrName::Type)
                    .unwrap_or("")
                    .to_ascii_lowercase(),
                href: href.to_owned(),
            }),
            Tag::Base if out.base.is_none() => out.base = Some(href.to_owned()),
            _ => {}
        }
    }
    out
}

/// The text under `id`, its text nodes joined by a space and whitespace collapsed; script
/// and style bodies are not text.
fn anchor_text(dom: &Dom, id: NodeId) -> String {
    let end = dom.subtree_end(id);
    // Sized once: the text collapsed is never longer than the texts' lengths and the
    // spaces between them, and growing a word at a time reallocates several times a link.
    let texts = (id + 1..end).filter(|&i| dom.node(i).kind == Kind::Text);
    let (count, len) = texts.fold((0, 0), |(n, len), i| (n + 1, len + dom.text(i).len()));
    let mut out = String::with_capacity(len + count);
    for i in id + 1..end {
        let node = dom.node(i);
        if node.kind != Kind::Text || matches!(dom.node(node.parent).tag, Tag::Script | Tag::Style)
        {
            continue;
        }
        for word in dom.text(i).split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_link_tags_and_base_as_written() {
        let html = r##"<html><head>
<base href="https://example.com/docs/"><base href="/ignored/">
<link rel="Canonical" href="/docs/intro">
<link rel="alternate" type="application/RSS+xml" href="/feed.xml">
</head><body>
<nav><a href="a?x=1&amp;y=2">  Alpha
  <b>page</b><script>var no = 1;</script></a><a name="top">no href</a></nav>
<p>Text <a href="#top">top</a> and <a href="https://other.org/x#frag">Oth<i>er</i></a>
</body></html>"##;
        let page = page_anchors(html);
        assert_eq!(page.base.as_deref(), Some("https://example.com/docs/"));
        let anchors: Vec<(&str, &str)> = page
            .anchors
            .iter()
            .map(|a| (a.href.as_str(), a.text.as_str()))
            .collect();
        assert_eq!(
            anchors,
            [
                ("a?x=1&y=2", "Alpha page"),
                ("#top", "top"),
                ("https://other.org/x#frag", "Oth er"),
            ]
        );
        assert_eq!(page.link_tags.len(), 2);
        assert_eq!(page.link_tags[0].rel, "canonical");
        assert_eq!(page.link_tags[1].kind, "application/rss+xml");
        assert_eq!(page.link_tags[1].href, "/feed.xml");
    }
}
