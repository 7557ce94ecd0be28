//! What the page's markup shows, counted in one pass: prose, code, prices, dated entries,
//! post and cart markup, and the largest group of repeated linked items.

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

/// Structure counted in one pass over the page.
#[derive(Clone, Copy)]
pub(crate) struct Shape<'a> {
    /// The page, for counts only some decisions need (see [`Shape::marks`]).
    dom: &'a Dom,
    /// `<pre>` blocks with text.
    pub(crate) code_blocks: u32,
    /// `<code>` elements, inline or in blocks: API references and tutorials are full of them.
    pub(crate) code_spans: u32,
    /// Text nodes that read as a price (`$12.99`, `12,99 €`).
    pub(crate) prices: u32,
    /// "Add to cart" (bag, basket) labels: one per item on a shop grid, a few on a product.
    pub(crate) cart_buttons: u32,
    /// `<article>` elements: one per entry on a feed page.
    pub(crate) articles: u32,
    /// `<time>` elements: one per entry (or post) on a feed or a thread.
    pub(crate) times: u32,
    /// The largest group of sibling elements sharing a class, each holding a link.
    pub(crate) repeated_items: u32,
    /// How many items of that group show a price: a shop grid.
    pub(crate) priced_items: u32,
    /// Text in that group, against `text_chars`: on a listing the items are the page, on a
    /// landing page a repeated group is a menu or a row of logos.
    pub(crate) repeated_chars: u32,
    /// Visible text on the page (whitespace-only text nodes and scripts excluded).
    pub(crate) text_chars: u32,
    /// Of that, the text of links.
    pub(crate) link_chars: u32,
    /// `<p>` elements with at least 80 characters: running prose.
    pub(crate) long_paragraphs: u32,
}

/// Class and id words and microdata, counted on demand: scanning every class string costs
/// as much as the rest of the pass (utility-class pages carry long ones).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Marks {
    /// Elements whose class or id names a post, a comment or a reply (thread markup).
    pub(crate) posts: u32,
    /// Elements whose class or id names a cart or basket ("add to cart").
    pub(crate) carts: u32,
    /// `itemprop` naming a price or an offer (microdata on shop pages).
    pub(crate) offers: u32,
}

impl Shape<'_> {
    pub(crate) fn marks(&self) -> Marks {
        let mut marks = Marks::default();
        for (i, node) in self.dom.nodes.iter().enumerate() {
            if node.kind == Kind::Element {
                count_marks(self.dom, i as NodeId, &mut marks);
            }
        }
        marks
    }
}

pub(crate) fn shape(dom: &Dom) -> Shape<'_> {
    let n = dom.nodes.len();
    let mut shape = Shape {
        dom,
        code_blocks: 0,
        code_spans: 0,
        prices: 0,
        cart_buttons: 0,
        articles: 0,
        times: 0,
        repeated_items: 0,
        priced_items: 0,
        repeated_chars: 0,
        text_chars: 0,
        link_chars: 0,
        long_paragraphs: 0,
    };
    let mut has_link = vec![false; n];
    let mut has_price = vec![false; n];
    let mut text = vec![0u32; n];
    // Per element, how many of its children are linked items (see below): most elements
    // have fewer than four, and their children need no second look.
    let mut linked_children = vec![0u32; n];
    for i in (1..n).rev() {
        let node = &dom.nodes[i];
        if node.kind == Kind::Element && matches!(node.tag, Tag::Script | Tag::Style) {
            continue;
        }
        if node.kind == Kind::Text {
            // A text of ASCII whitespace only (most of a page's text nodes) trims to
            // nothing: text[i] stays 0.
            if dom.text_sizes[i].visible > 0 {
                let t = crate::dom::trim(dom.text(i as NodeId));
                text[i] = t.len() as u32;
                if t.len() < 40 && is_price(t) {
                    shape.prices += 1;
                    has_price[i] = true;
                }
                if t.len() < 24 && is_add_to_cart(t) {
                    shape.cart_buttons += 1;
                }
            }
        } else {
            match node.tag {
                Tag::A => {
                    has_link[i] = true;
                    shape.link_chars += text[i];
                }
                Tag::Pre if text[i] > 20 => shape.code_blocks += 1,
                Tag::P if text[i] >= 80 => shape.long_paragraphs += 1,
                Tag::Code => shape.code_spans += 1,
                Tag::Article => shape.articles += 1,
                Tag::Time => shape.times += 1,
                _ => {}
            }
        }
        let p = node.parent as usize;
        has_link[p] |= has_link[i];
        has_price[p] |= has_price[i];
        text[p] += text[i];
        linked_children[p] += u32::from(is_linked_item(node.kind, has_link[i], text[i]));
    }
    shape.text_chars = text[0];
    // Repeated items: per parent, the commonest class among linked element children.
    // Classes are compared by hash: sorting strings cost more than the rest of the pass.
    let mut classes: Vec<(u64, NodeId)> = Vec::new();
    for parent in 0..n as NodeId {
        if linked_children[parent as usize] < 4 {
            continue;
        }
        classes.clear();
        for c in dom.children(parent) {
            let node = dom.node(c);
            if is_linked_item(node.kind, has_link[c as usize], text[c as usize]) {
                let class = dom.attr(c, AttrName::Class).unwrap_or(tag_key(node.tag));
                classes.push((fnv(class), c));
            }
        }
        if classes.len() < 4 {
            continue;
        }
        classes.sort_unstable();
        for group in classes.chunk_by(|a, b| a.0 == b.0) {
            if group.len() as u32 > shape.repeated_items {
                shape.repeated_items = group.len() as u32;
                shape.priced_items =
                    group.iter().filter(|(_, c)| has_price[*c as usize]).count() as u32;
                shape.repeated_chars = group.iter().map(|(_, c)| text[*c as usize]).sum();
            }
        }
    }
    shape
}

/// Class and id words that say what an element is, and microdata offers.
fn count_marks(dom: &Dom, id: NodeId, marks: &mut Marks) {
    let node = dom.node(id);
    let start = node.attr_start as usize;
    let mut post = false;
    let mut cart = false;
    for attr in &dom.attrs[start..start + node.attr_len as usize] {
        let value = dom.span(attr.value).as_bytes();
        match attr.name {
            AttrName::Class | AttrName::Id => {
                let (p, c) = marks_in(value);
                post |= p;
                cart |= c;
            }
            AttrName::Itemprop
                if contains_word(value, b"price") || contains_word(value, b"offers") =>
            {
                marks.offers += 1;
            }
            _ => {}
        }
    }
    marks.posts += u32::from(post);
    marks.carts += u32::from(cart);
}

/// Whether a class or id names a post (`post`, `comment`, `reply`) or a cart (`cart`,
/// `basket`), in any case.
fn marks_in(value: &[u8]) -> (bool, bool) {
    let mut post = false;
    let mut cart = false;
    for (i, b) in value.iter().enumerate() {
        let rest = &value[i..];
        match b.to_ascii_lowercase() {
            b'p' => post |= starts_with_ignore_case(rest, b"post"),
            b'c' => {
                post |= starts_with_ignore_case(rest, b"comment");
                cart |= starts_with_ignore_case(rest, b"cart");
            }
            b'r' => post |= starts_with_ignore_case(rest, b"reply"),
            b'b' => cart |= starts_with_ignore_case(rest, b"basket"),
            _ => {}
        }
    }
    (post, cart)
}

/// `prefix` is lower-case ASCII.
fn starts_with_ignore_case(hay: &[u8], prefix: &[u8]) -> bool {
    hay.len() >= prefix.len() && hay[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// `needle` is lower-case ASCII.
fn contains_word(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// FNV-1a: a hash good enough to group equal class strings.
/// An element holding a link and some text, but not a whole section: a candidate item of
/// a repeated group.
fn is_linked_item(kind: Kind, has_link: bool, text: u32) -> bool {
    kind == Kind::Element && has_link && (20..2000).contains(&text)
}

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

/// `Add to cart`, `Add to Bag`, `ADD TO BASKET`.
fn is_add_to_cart(t: &str) -> bool {
    let t = t.as_bytes();
    starts_with_ignore_case(t, b"add to ")
        && [&b"cart"[..], b"bag", b"basket"]
            .iter()
            .any(|what| starts_with_ignore_case(&t[7..], what))
}

/// `$12.99`, `€ 5`, `12,99 €`, `USD 40`: a short text that names a currency next to digits.
fn is_price(t: &str) -> bool {
    let t = t.trim().as_bytes();
    let has_digit = t.iter().any(|b| b.is_ascii_digit());
    // Compared as bytes: the text is short, and a `str` search sets up a searcher per call
    // (a price's characters are found as their UTF-8 bytes all the same).
    let holds = |needle: &[u8]| t.windows(needle.len()).any(|w| w == needle);
    has_digit
        && (t.contains(&b'$')
            || holds("€".as_bytes())
            || holds("£".as_bytes())
            || holds("¥".as_bytes())
            || holds(b"USD")
            || holds(b"EUR")
            || holds("лв".as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::is_price;

    #[test]
    fn is_price_finds_what_a_str_search_finds() {
        for t in [
            "$12.99",
            "12,99 €",
            "£5",
            "¥ 300",
            "USD 40",
            "40 EUR",
            "12 лв",
            "12 usd",
            "€",
            "Price: 12",
            "  $ 3  ",
            "л в 4",
            "",
        ] {
            let s = t.trim();
            let by_str = s.bytes().any(|b| b.is_ascii_digit())
                && ["$", "€", "£", "¥", "USD", "EUR", "лв"]
                    .iter()
                    .any(|c| s.contains(c));
            assert_eq!(is_price(t), by_str, "{t:?}");
        }
    }
}
