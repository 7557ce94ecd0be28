//! A listing's items: the repeated cards of an index, a shop category or an event list,
//! told from a site's menus and "related" rails by their structure, so that class words
//! and link density do not drop what the page is for.
//!
//! Items are sibling elements of one tag and class (`li.event-card`, `div.product-tile`;
//! an A–Z's letter groups need share only the class's first word, `letter-group A`),
//! enough of them, each with a title's worth of text (a menu's items are a word or two),
//! together holding a good share of the page (a rail beside the content holds little).
//! Landmarks (`<nav>`, `<aside>`, `<footer>`) are still dropped by their tag: only the
//! drops by class word and by link density spare the items.

use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

use super::stats::Sums;

/// A listing has at least this many items of one kind side by side...
const MIN_ITEMS: u32 = 4;
/// ... holding on average at least this many visible characters each (a title and a line;
/// a menu's items hold a word or two)...
const MIN_CHARS_PER_ITEM: u32 = 40;
/// ... and together at least one `MIN_SHARE_DEN`-th of the page's text: the main column,
/// not a rail of teasers beside it.
const MIN_SHARE_DEN: u32 = 4;
/// Items that each hold a heading, between as many blocks without text (images), need
/// only this many on average: a flat grid's text block may be its linked title alone (a
/// menu's items are not headings).
const MIN_CHARS_PER_HEADED_ITEM: u32 = 10;
/// Cards that are one link each, whole (`<a class="card">` around a title and a teaser),
/// are a rail of teasers to other pages: at least this share of their text is links...
const TEASER_LINK_NUM: u32 = 9;
const TEASER_LINK_DEN: u32 = 10;
/// ... unless they are an index's groups (a letter and the categories under it): links to
/// at least this many pages an item on average...
const LINKS_PER_INDEX_GROUP: u32 = 3;
/// ... whose texts are names (a category, a person), at most this many visible characters
/// a page on average: a headline with its teaser, or a product's name with its price, is a
/// card.
const INDEX_LINK_MAX_CHARS: u32 = 32;
/// The wrappers around a listing that hold little more than it (at most this many
/// halves of its text: a heading, a sort bar) are the listing too.
const WRAPPER_MAX_HALVES: u32 = 3;

/// A listing's item, the list that holds the items, or a wrapper around it: kept whatever
/// its class words say, and never pruned for its links.
pub(super) const ITEM: u8 = 2;
/// Inside an item: never pruned for its links, but the item's own furniture (a byline, a
/// category link, a rating) is still dropped by its class words; its description is not
/// (see `spares`).
pub(super) const IN_ITEM: u8 = 1;

/// An element inside an item this long at least, and less than half links, is the item's
/// description (`StoreSaleWidgetShortDesc`), not its furniture.
const DESCRIPTION_MIN_CHARS: u32 = 40;

/// Whether a drop by class word spares a node marked `mark` by `listing_items`, holding
/// `text` visible characters of which `link` in links.
pub(super) fn spares(mark: u8, text: u32, link: u32) -> bool {
    mark == ITEM || mark == IN_ITEM && text >= DESCRIPTION_MIN_CHARS && link * 2 < text
}

/// Per node, `ITEM`, `IN_ITEM` or 0 (see the module's notes). `hard` marks what no pass
/// keeps; `sums` are over what it leaves.
pub(super) fn listing_items(dom: &Dom, hard: &[bool], sums: &[Sums]) -> Vec<u8> {
    let n = dom.nodes.len();
    let mut marked = vec![0u8; n];
    let page = sums[0].text;
    if page == 0 {
        return marked;
    }
    // A page that declares its main column lists its items inside it: a group outside is
    // a rail or a menu.
    let main = (1..n)
        .find(|&i| {
            !hard[i]
                && dom.nodes[i].kind == Kind::Element
                && (dom.nodes[i].tag == Tag::Main
                    || dom
                        .attr(i as NodeId, AttrName::Role)
                        .is_some_and(|r| r.eq_ignore_ascii_case("main")))
                && sums[i].text * MIN_SHARE_DEN >= page
        })
        .map(|i| (i as NodeId, dom.subtree_end(i as NodeId)));
    // Items of one kind share their class; failing that, the class's first word (the rest
    // may name each item: `letter-group A`, `letter-group B`).
    let mut key: fn(&Dom, NodeId) -> &str = whole_class;
    let mut groups = find_groups(dom, hard, sums, page, main, key, false);
    if groups.is_empty() {
        key = first_class_word;
        groups = find_groups(dom, hard, sums, page, main, key, true);
    }
    // The page lists one kind of thing: the group holding the most text, and the groups of
    // the same kind of item elsewhere (a listing split by date or letter). Other groups are
    // the rails and panels around it (the team's cards, the latest insights).
    let Some(&(_, tag, class, _)) = groups.iter().max_by_key(|g| g.3) else {
        return marked;
    };
    for &(p, _, _, text) in groups.iter().filter(|g| g.1 == tag && g.2 == class) {
        for c in dom.children(p) {
            let child = dom.node(c);
            if child.kind == Kind::Element && child.tag == tag && key(dom, c) == class {
                marked[c as usize + 1..dom.subtree_end(c) as usize].fill(IN_ITEM);
                marked[c as usize] = ITEM;
            }
        }
        // The list itself and the wrappers that are little more than it.
        let mut cur = p;
        while cur != 0 && cur != NONE {
            if sums[cur as usize].text * 2 > text * WRAPPER_MAX_HALVES {
                break;
            }
            marked[cur as usize] = ITEM;
            cur = dom.node(cur).parent;
        }
    }
    marked
}

/// The groups of sibling items that qualify (see the module's notes), children grouped by
/// tag and `key`: (parent, item tag, item key, text), out of a page of `page` visible
/// characters. With `index_only`, only an A–Z's groups (see `opens_with_letter`).
fn find_groups<'a>(
    dom: &'a Dom,
    hard: &[bool],
    sums: &[Sums],
    page: u32,
    main: Option<(NodeId, NodeId)>,
    key: fn(&'a Dom, NodeId) -> &'a str,
    index_only: bool,
) -> Vec<(NodeId, Tag, &'a str, u32)> {
    let n = dom.nodes.len();
    // Per parent, its element children grouped by tag and class: a handful of kinds.
    let mut kinds: Vec<(Tag, &str, u32, u32, u32)> = Vec::new();
    // The groups that qualify: (parent, item tag, item class, text).
    let mut groups: Vec<(NodeId, Tag, &str, u32)> = Vec::new();
    for p in 0..n {
        let node = &dom.nodes[p];
        if hard[p] || node.kind == Kind::Text || node.first_child == NONE {
            continue;
        }
        if sums[p].text * MIN_SHARE_DEN < page {
            continue;
        }
        kinds.clear();
        for c in dom.children(p as NodeId) {
            let child = dom.node(c);
            if child.kind != Kind::Element || hard[c as usize] {
                continue;
            }
            let class = key(dom, c);
            let text = sums[c as usize].text;
            match kinds
                .iter_mut()
                .find(|(tag, cl, ..)| *tag == child.tag && *cl == class)
            {
                Some(kind) => {
                    kind.2 += 1;
                    kind.3 += text;
                    kind.4 += sums[c as usize].link;
                }
                None => kinds.push((child.tag, class, 1, text, sums[c as usize].link)),
            }
        }
        for &(tag, class, count, text, link) in &kinds {
            if count < MIN_ITEMS
                || text < MIN_CHARS_PER_HEADED_ITEM * count
                || text * MIN_SHARE_DEN < page
                || main.is_some_and(|(start, end)| (p as NodeId) < start || p as NodeId >= end)
                || !can_be_item(tag)
            {
                continue;
            }
            let same = |c: NodeId| {
                let child = dom.node(c);
                child.kind == Kind::Element && child.tag == tag && key(dom, c) == class
            };
            // An index's groups: nearly all links, to several pages each, under names.
            let index = link * TEASER_LINK_DEN >= text * TEASER_LINK_NUM;
            // Groups told apart by their class's first word alone are an A–Z's letters.
            if index_only
                && !(index
                    && dom
                        .children(p as NodeId)
                        .filter(|&c| same(c))
                        .all(|c| opens_with_letter(dom, c)))
            {
                continue;
            }
            if index {
                let targets: u32 = dom
                    .children(p as NodeId)
                    .filter(|&c| same(c))
                    .map(|c| link_targets(dom, c))
                    .sum();
                if targets < count * LINKS_PER_INDEX_GROUP || link > targets * INDEX_LINK_MAX_CHARS
                {
                    continue;
                }
            }
            // Each item names what it lists: a title (a heading) or a link to it.
            let titled = dom
                .children(p as NodeId)
                .filter(|&c| same(c) && has_title(dom, c))
                .count() as u32;
            // A flat grid's text blocks may each be a heading alone, between image blocks
            // of their own (blocks of another kind, as many, without text): there headed
            // items need not be long.
            let beside_images = kinds
                .iter()
                .any(|k| (k.0, k.1) != (tag, class) && k.3 == 0 && k.2 * 2 >= count);
            // An index's group is as long as its names.
            let long_enough = text >= MIN_CHARS_PER_ITEM * count
                || index
                || beside_images
                    && dom
                        .children(p as NodeId)
                        .filter(|&c| same(c) && has_heading(dom, c))
                        .count() as u32
                        * TITLED_DEN
                        >= count * TITLED_NUM;
            if long_enough && titled * TITLED_DEN >= count * TITLED_NUM {
                groups.push((p as NodeId, tag, class, text));
            }
        }
    }
    groups
}

fn whole_class(dom: &Dom, id: NodeId) -> &str {
    dom.attr(id, AttrName::Class).unwrap_or("")
}

fn first_class_word(dom: &Dom, id: NodeId) -> &str {
    whole_class(dom, id)
        .split_ascii_whitespace()
        .next()
        .unwrap_or("")
}

/// At least `TITLED_NUM / TITLED_DEN` of the items have a title (see `has_title`).
const TITLED_NUM: u32 = 3;
const TITLED_DEN: u32 = 4;

/// Tags a listing's items are written in: cards, rows, entries. Paragraphs side by side are
/// prose, and inline elements are parts of a line.
fn can_be_item(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Li
            | Tag::Div
            | Tag::Article
            | Tag::Section
            | Tag::Tr
            | Tag::Dd
            | Tag::A
            | Tag::Figure
            | Tag::Other
    )
}

/// The pages `id`'s links lead to (itself included): an image and a title linking to one
/// page are one.
fn link_targets(dom: &Dom, id: NodeId) -> u32 {
    let mut targets: Vec<&str> = Vec::new();
    for i in id..dom.subtree_end(id) {
        let node = dom.node(i);
        if node.kind == Kind::Element && node.tag == Tag::A {
            let href = dom.attr(i, AttrName::Href).unwrap_or("");
            if !targets.contains(&href) {
                targets.push(href);
            }
        }
    }
    targets.len() as u32
}

/// The most characters of an index group's label: a letter, or `0-9`.
const LETTER_MAX_CHARS: usize = 3;

/// Whether item `id`'s first text is a letter's label (`A`, `0-9`).
fn opens_with_letter(dom: &Dom, id: NodeId) -> bool {
    (id..dom.subtree_end(id))
        .filter(|&i| dom.node(i).kind == Kind::Text)
        .map(|i| dom.text(i).trim())
        .find(|t| !t.is_empty())
        .is_some_and(|t| t.chars().count() <= LETTER_MAX_CHARS)
}

/// Whether item `id` holds a heading (or is one).
fn has_heading(dom: &Dom, id: NodeId) -> bool {
    (id..dom.subtree_end(id)).any(|i| {
        let node = dom.node(i);
        node.kind == Kind::Element && node.tag.heading_level().is_some()
    })
}

/// Whether item `id` holds a heading or a link (or is one).
fn has_title(dom: &Dom, id: NodeId) -> bool {
    (id..dom.subtree_end(id)).any(|i| {
        let node = dom.node(i);
        node.kind == Kind::Element && (node.tag == Tag::A || node.tag.heading_level().is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::stats::compute_sums;

    /// The marks of `html`'s elements, by the first class word of each marked one.
    fn marked(html: &str) -> Vec<(String, u8)> {
        let dom = crate::parse::parse(html);
        let hard = vec![false; dom.nodes.len()];
        let sums = compute_sums(&dom, &hard);
        let marks = listing_items(&dom, &hard, &sums);
        (0..dom.nodes.len())
            .filter(|&i| marks[i] == ITEM)
            .filter_map(|i| {
                dom.attr(i as NodeId, AttrName::Class)
                    .map(|c| (c.to_owned(), marks[i]))
            })
            .collect()
    }

    fn card(n: u32) -> String {
        format!(
            "<div class=\"card\"><h3><a href=\"/e/{n}\">Event {n}</a></h3>\
             <p class=\"card-meta\">A walk on the sea wall with tea after, number {n}.</p></div>"
        )
    }

    #[test]
    fn cards_of_one_kind_are_items_and_their_list_is_kept_with_them() {
        let cards: String = (1..=6).map(card).collect();
        let got = marked(&format!(
            "<body><div class=\"list widget\">{cards}</div><p>A short footer line.</p></body>"
        ));
        assert_eq!(
            got.iter().filter(|(c, _)| c == "card").count(),
            6,
            "{got:?}"
        );
        assert!(got.iter().any(|(c, _)| c == "list widget"), "{got:?}");
    }

    #[test]
    fn menus_rails_of_whole_link_cards_and_paragraphs_are_not_items() {
        let menu: String = (1..=12)
            .map(|n| format!("<li class=\"menu-item\"><a href=\"/{n}\">Page {n}</a></li>"))
            .collect();
        let rail: String = (1..=5)
            .map(|n| {
                format!(
                    "<a class=\"teaser\" href=\"/t/{n}\"><h4>Story {n}</h4>\
                     <span>Read the whole of story number {n} on its page.</span></a>"
                )
            })
            .collect();
        let prose: String = (1..=5)
            .map(|n| format!("<p class=\"body\">Paragraph {n} of running text, long enough to count as a line.</p>"))
            .collect();
        let got = marked(&format!(
            "<body><ul class=\"menu\">{menu}</ul><div class=\"rail\">{rail}</div>\
             <div class=\"text\">{prose}</div></body>"
        ));
        assert!(got.is_empty(), "{got:?}");
    }

    /// Guards the A–Z rule: a sidebar's boxes of link lists (categories, archives, tags)
    /// share their class's first word and are nearly all links under short names, but
    /// each opens with its heading, not a letter: not an index's groups.
    #[test]
    fn a_sidebar_of_link_boxes_is_not_an_a_to_z() {
        let boxes: String = ["Categories", "Archives", "Tags", "Departments"]
            .iter()
            .map(|h| {
                let links: String = (1..=8)
                    .map(|n| format!("<li><a href=\"/{h}/{n}\">{h} entry {n}</a></li>"))
                    .collect();
                format!("<div class=\"box box-{h}\"><h3>{h}</h3><ul>{links}</ul></div>")
            })
            .collect();
        let got = marked(&format!(
            "<body><div class=\"sidebar-column\">{boxes}</div><p>A short article.</p></body>"
        ));
        assert!(got.is_empty(), "{got:?}");
    }
}
