//! What kind of page this is: declared types (JSON-LD, OpenGraph) when they are specific,
//! then the URL's shape, then the page's structure (repeated items, prices, code blocks,
//! dates). The answer also decides how wide the main content is (see `lib.rs`).

use trawl_core::PageType;
use url::Url;

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};
use crate::metadata::{Metadata, page_type_of_url};

/// Structure counted in one pass over the page.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Shape {
    /// `<pre>` blocks with text.
    pub(crate) code_blocks: u32,
    /// Text nodes that read as a price (`$12.99`, `12,99 €`).
    pub(crate) prices: u32,
    /// The largest group of sibling elements sharing a class, each holding a link.
    pub(crate) repeated_items: u32,
    /// `<p>` elements with at least 80 characters: running prose.
    pub(crate) long_paragraphs: u32,
}

pub(crate) fn shape(dom: &Dom) -> Shape {
    let n = dom.nodes.len();
    let mut shape = Shape::default();
    let mut has_link = vec![false; n];
    let mut text = vec![0u32; n];
    for i in (1..n).rev() {
        let node = &dom.nodes[i];
        if node.kind == Kind::Element && matches!(node.tag, Tag::Script | Tag::Style) {
            continue;
        }
        if node.kind == Kind::Text {
            let t = dom.text(i as NodeId);
            text[i] = t.len() as u32;
            if t.len() < 40 && is_price(t) {
                shape.prices += 1;
            }
        } else if node.tag == Tag::A {
            has_link[i] = true;
        } else if node.tag == Tag::Pre && text[i] > 20 {
            shape.code_blocks += 1;
        } else if node.tag == Tag::P && text[i] >= 80 {
            shape.long_paragraphs += 1;
        }
        let p = node.parent as usize;
        has_link[p] |= has_link[i];
        text[p] += text[i];
    }
    // Repeated items: per parent, the commonest class among linked element children.
    // Classes are compared by hash: sorting strings cost more than the rest of the pass.
    let mut classes: Vec<u64> = Vec::new();
    for parent in 0..n as NodeId {
        if dom.node(parent).kind == Kind::Text {
            continue;
        }
        classes.clear();
        for c in dom.children(parent) {
            let node = dom.node(c);
            if node.kind == Kind::Element
                && has_link[c as usize]
                && (20..2000).contains(&text[c as usize])
            {
                classes.push(fnv(dom
                    .attr(c, AttrName::Class)
                    .unwrap_or(tag_key(node.tag))));
            }
        }
        if classes.len() < 4 {
            continue;
        }
        classes.sort_unstable();
        let mut best = 0;
        let mut run = 0;
        for (k, c) in classes.iter().enumerate() {
            run = if k > 0 && classes[k - 1] == *c {
                run + 1
            } else {
                1
            };
            best = best.max(run);
        }
        shape.repeated_items = shape.repeated_items.max(best);
    }
    shape
}

/// FNV-1a: a hash good enough to group equal class strings.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn tag_key(tag: Tag) -> &'static str {
    match tag {
        Tag::Li => "<li>",
        Tag::Article => "<article>",
        Tag::Tr => "<tr>",
        _ => "<element>",
    }
}

/// `$12.99`, `€ 5`, `12,99 €`, `USD 40`: a short text that names a currency next to digits.
fn is_price(t: &str) -> bool {
    let t = t.trim();
    let has_digit = t.bytes().any(|b| b.is_ascii_digit());
    has_digit
        && (t.contains('$')
            || t.contains('€')
            || t.contains('£')
            || t.contains('¥')
            || t.contains("USD")
            || t.contains("EUR")
            || t.contains("лв"))
}

/// Decide the page type.
pub(crate) fn page_type(meta: &Metadata, url: &Url, shape: Shape) -> PageType {
    let declared = meta.declared_type();
    let by_url = page_type_of_url(url);
    let many_prices = shape.prices >= 8 && shape.repeated_items >= 6;
    match declared {
        Some(t @ (PageType::Forum | PageType::Video | PageType::Profile)) => return t,
        Some(PageType::Documentation) => return PageType::Documentation,
        Some(PageType::Product) if !(many_prices && by_url == PageType::Listing) => {
            return PageType::Product;
        }
        Some(PageType::Listing | PageType::Product) => {
            return if shape.prices >= 4 {
                PageType::Collection
            } else {
                PageType::Listing
            };
        }
        _ => {}
    }
    if matches!(by_url, PageType::Forum | PageType::Documentation) {
        return by_url;
    }
    let articleish = declared == Some(PageType::Article)
        || by_url == PageType::Article
        || meta.published.is_some();
    if articleish && shape.long_paragraphs >= 4 {
        return PageType::Article;
    }
    if meta.title_says_docs() || shape.code_blocks >= 3 {
        return PageType::Documentation;
    }
    if many_prices {
        return PageType::Collection;
    }
    if by_url == PageType::Product || (1..=5).contains(&shape.prices) && shape.long_paragraphs < 6 {
        return PageType::Product;
    }
    if by_url == PageType::Listing
        || shape.repeated_items >= 6 && shape.long_paragraphs < shape.repeated_items
    {
        return if shape.prices >= 4 {
            PageType::Collection
        } else {
            PageType::Listing
        };
    }
    if articleish {
        return PageType::Article;
    }
    match by_url {
        PageType::Homepage | PageType::Other => PageType::Service,
        t => t,
    }
}
