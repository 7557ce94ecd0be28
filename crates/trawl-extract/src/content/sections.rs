//! Headings left with nothing under them: on a shop's pages the panels a script fills
//! ("Frequently bought together", "Similar items", "Reviews") ship as a heading over an
//! empty box, and the heading alone tells the reader nothing.

use crate::dom::{Dom, Kind, NodeId, Tag};

use super::{Selection, ancestors};

/// Drop each heading of the chosen content that is followed by no kept text before the
/// next heading of its level or higher (or the end of the content). Images do not count:
/// they are not text. Returns whether it dropped any.
pub(crate) fn drop_empty_sections(dom: &Dom, selection: &mut Selection) -> bool {
    // Every kept heading: (node, level, text seen under it).
    let mut headings: Vec<(usize, usize, bool)> = Vec::new();
    // The headings whose sections are open, as indices into `headings`.
    let mut open: Vec<usize> = Vec::new();
    for &root in &selection.roots {
        let mut kept = dom.kept(&selection.dropped, root);
        while let Some(id) = kept.next() {
            let i = id as usize;
            let node = &dom.nodes[i];
            if node.kind == Kind::Element
                && let Some(level) = node.tag.heading_level()
            {
                while open.last().is_some_and(|&h| headings[h].1 >= level) {
                    open.pop();
                }
                open.push(headings.len());
                headings.push((i, level, false));
                // The heading's own words are not what it heads.
                kept.skip_subtree(id);
                continue;
            }
            if node.kind == Kind::Text && dom.text_sizes[i].visible > 0 {
                for &h in &open {
                    headings[h].2 = true;
                }
            }
        }
    }
    let mut any = false;
    for &(id, _, text) in &headings {
        if text || in_item(dom, id as NodeId) {
            continue;
        }
        let end = dom.subtree_end(id as u32) as usize;
        selection.dropped[id..end].fill(true);
        any = true;
    }
    any
}

/// A heading inside a link or a list item is an item's title (a card in a grid, a tab),
/// not the head of a section.
fn in_item(dom: &Dom, id: NodeId) -> bool {
    ancestors(dom, id).any(|a| matches!(dom.node(a).tag, Tag::A | Tag::Li))
}
