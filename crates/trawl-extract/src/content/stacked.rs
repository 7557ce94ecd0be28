//! Pages a page builder lays out as a stack of sibling sections (`section.pb-section >
//! container > column > widget-wrap > widget`): the intro box, the prose, a table, the
//! cards and the FAQ each sit in their own section, several wrappers deep. Scoring finds
//! the section with the most prose; the others hold short lines that score little, yet
//! they are the same page. The sections are told by the class word they share (the
//! builder's per-element ids make each whole class string unique).

use crate::dom::{AttrName, Dom, Kind, NONE, NodeId};

/// A stack has at least this many sections (the winner among them) sharing a class word.
const MIN_SECTIONS: usize = 3;

/// The class word the winner `top` shares with at least `MIN_SECTIONS - 1` siblings of its
/// tag: the mark of the sections a page builder stacks. `None` when it is not one of them.
pub(super) fn section_word(dom: &Dom, top: NodeId) -> Option<&str> {
    let node = dom.node(top);
    let parent = node.parent;
    let class = dom.attr(top, AttrName::Class)?;
    class.split_ascii_whitespace().find(|word| {
        dom.children(parent)
            .filter(|&s| {
                dom.node(s).kind == Kind::Element
                    && dom.node(s).tag == node.tag
                    && has_word(dom, s, word)
            })
            .nth(MIN_SECTIONS - 1)
            .is_some()
    })
}

/// How many wrappers above the winner its stacked section may be: a builder's row sits one
/// below its section (`section > container > column`), its column two.
const MAX_SECTION_DEPTH: usize = 3;

/// The stacked section the winner `top` is all of (through wrappers that hold nothing
/// else kept: a builder's container around its columns), when there is one near above:
/// that section, not the wrapper, is the winner, and its sibling sections are the page too.
pub(super) fn wrapping_section(dom: &Dom, dropped: &[bool], top: NodeId) -> Option<NodeId> {
    let mut id = top;
    for _ in 0..MAX_SECTION_DEPTH {
        let parent = dom.node(id).parent;
        if parent == NONE || parent == 0 || !is_only_kept_child(dom, dropped, parent, id) {
            return None;
        }
        if section_word(dom, parent).is_some() {
            return Some(parent);
        }
        id = parent;
    }
    None
}

/// Whether `child` is the one element of `parent` kept, and no text sits beside it.
fn is_only_kept_child(dom: &Dom, dropped: &[bool], parent: NodeId, child: NodeId) -> bool {
    dom.children(parent).all(|c| {
        c == child
            || dropped[c as usize]
            || match dom.node(c).kind {
                Kind::Element => false,
                Kind::Text => dom.text(c).trim().is_empty(),
                _ => true,
            }
    })
}

/// Whether element `id`'s class holds `word`.
pub(super) fn has_word(dom: &Dom, id: NodeId, word: &str) -> bool {
    dom.attr(id, AttrName::Class)
        .is_some_and(|c| c.split_ascii_whitespace().any(|w| w == word))
}
