//! A hub's cards: a heading, a sentence saying what the section holds, and a list of links
//! into it (a documentation hub, a help centre's front page). The headings and sentences
//! are the page's text; the lists are its navigation. A single list of links inside a
//! body of text (the guides of a section) is kept: only cards repeated side by side are
//! read this way.

use crate::dom::{Dom, Kind, NONE, NodeId, Tag};

use super::{Selection, Visit, drop_boxes};

/// A card's list has at least this many links...
const MIN_LINKS: usize = 5;
/// ... and a hub at least this many cards side by side.
const MIN_CARDS: usize = 3;

/// Drop the link lists of a hub's cards from the chosen content. Returns whether it
/// dropped any.
pub(crate) fn drop_hub_link_lists(dom: &Dom, selection: &mut Selection) -> bool {
    drop_boxes(dom, selection, |dropped, _root, id| {
        let node = dom.node(id);
        if node.kind != Kind::Element || !matches!(node.tag, Tag::Ul | Tag::Ol) {
            return Visit::Next;
        }
        if !is_link_list(dom, dropped, id) {
            return Visit::SkipSubtree;
        }
        let card = node.parent;
        let hub = if card == NONE {
            NONE
        } else {
            dom.node(card).parent
        };
        if hub == NONE {
            return Visit::SkipSubtree;
        }
        let cards = dom
            .children(hub)
            .filter(|&c| !dropped[c as usize] && is_card(dom, dropped, c))
            .take(MIN_CARDS)
            .count();
        if cards >= MIN_CARDS {
            Visit::Drop(id)
        } else {
            Visit::SkipSubtree
        }
    })
}

/// A list whose every item is one link and nothing else, with at least `MIN_LINKS` items.
fn is_link_list(dom: &Dom, dropped: &[bool], list: NodeId) -> bool {
    let mut items = 0;
    for li in dom.children(list) {
        let node = dom.node(li);
        if dropped[li as usize] || node.kind != Kind::Element {
            if node.kind == Kind::Text && !dom.text(li).trim().is_empty() {
                return false;
            }
            continue;
        }
        if node.tag != Tag::Li || !only_a_link(dom, li) {
            return false;
        }
        items += 1;
    }
    items >= MIN_LINKS
}

/// Whether `id`'s text is all inside one link.
fn only_a_link(dom: &Dom, id: NodeId) -> bool {
    let mut links = 0;
    let end = dom.subtree_end(id);
    let mut i = id + 1;
    while i < end {
        let node = dom.node(i);
        match node.kind {
            Kind::Element if node.tag == Tag::A => {
                links += 1;
                i = dom.subtree_end(i);
                continue;
            }
            Kind::Text if !dom.text(i).trim().is_empty() => return false,
            _ => {}
        }
        i += 1;
    }
    links == 1
}

/// A card: a heading, text outside links (its sentence), and a list of links.
fn is_card(dom: &Dom, dropped: &[bool], id: NodeId) -> bool {
    let (mut heading, mut sentence, mut list) = (false, false, false);
    for c in dom.children(id) {
        let node = dom.node(c);
        if dropped[c as usize] || node.kind != Kind::Element {
            continue;
        }
        if node.tag.heading_level().is_some() {
            heading = true;
        } else if matches!(node.tag, Tag::Ul | Tag::Ol) {
            list |= is_link_list(dom, dropped, c);
        } else if node.tag == Tag::P && !only_a_link(dom, c) {
            sentence = true;
        }
    }
    heading && sentence && list
}
