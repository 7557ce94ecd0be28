//! Folded text: hidden blocks that are the page's own text collapsed for the eye (a FAQ
//! answer, an accordion panel, a "read more"), told apart from hidden templates once per page.

use crate::boilerplate::Signals;
use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

use super::drops::is_hard_dropped;

/// Mark the hidden elements that are folded text (see `is_folded_prose`), once per page:
/// every pass reads the marks.
pub(crate) fn mark_folded(dom: &Dom, signals: &mut Signals<'_>) {
    // Inside an element hidden and not folded, nothing shows: no need to look.
    let mut hidden_above = vec![false; dom.nodes.len()];
    for i in 1..dom.nodes.len() {
        let node = &dom.nodes[i];
        let above = hidden_above[node.parent as usize];
        if node.hidden && node.kind == Kind::Element && !above {
            signals.set_folded(i, is_folded_prose(dom, signals, i as NodeId));
        }
        hidden_above[i] = above || node.hidden && !signals.is_folded(i);
    }
}

/// A hidden block with this much link-poor text after a toggle is folded content.
const HIDDEN_PROSE_CHARS: usize = 150;

/// Folded text is link-poor: less than this percentage of it in links.
const FOLDED_MAX_LINK_PERCENT: usize = 15;

/// Whether hidden `id` is folded text: a collapsed FAQ answer, an accordion panel or a
/// "read more" expansion after its visible toggle, link-poor and without form controls.
/// It is the page's text, folded for the eye; but it scores no points (see `select`), so a
/// hidden modal or data island never wins the main block.
fn is_folded_prose(dom: &Dom, signals: &Signals<'_>, id: NodeId) -> bool {
    let signal = signals.get(id as usize);
    if signal.negative || signal.strong {
        return false;
    }
    let Some(toggle) = toggle_before(dom, id) else {
        return false;
    };
    let (text, link, controls) = raw_text(dom, id, dom.subtree_end(id));
    let min = if controls_it(dom, toggle, id) {
        CONTROLLED_PROSE_CHARS
    } else {
        HIDDEN_PROSE_CHARS
    };
    text >= min && link * 100 < text * FOLDED_MAX_LINK_PERCENT && !controls
}

/// A hidden block the toggle before it names as what it opens (`aria-controls`, the
/// disclosure pattern of an accordion or a FAQ) is folded text from this many characters:
/// a one-line answer too.
const CONTROLLED_PROSE_CHARS: usize = 40;

/// Whether an element of `toggle`'s subtree says with `aria-controls` that it opens `id`.
fn controls_it(dom: &Dom, toggle: NodeId, id: NodeId) -> bool {
    let Some(target) = dom.attr(id, AttrName::Id).filter(|v| !v.is_empty()) else {
        return false;
    };
    (toggle..dom.subtree_end(toggle)).any(|i| {
        dom.node(i).kind == Kind::Element
            && dom
                .attr(i, AttrName::AriaControls)
                .is_some_and(|v| v.split_ascii_whitespace().any(|c| c == target))
    })
}

/// The most text a toggle holds: a question or a button's label, not a paragraph.
const TOGGLE_MAX_CHARS: usize = 300;

/// The element before `id` when it is a visible line of text (a question, a "Read more"
/// teaser, a tab or accordion button): what a folded answer follows. A hidden block after
/// nothing, or after a rule, is a template for a script (a modal, a data island).
fn toggle_before(dom: &Dom, id: NodeId) -> Option<NodeId> {
    let prev = previous_element(dom, id)?;
    // Counted with button labels, which the reader never renders.
    let mut text = 0;
    let mut i = prev;
    let end = dom.subtree_end(prev);
    while i < end && text <= TOGGLE_MAX_CHARS {
        let node = dom.node(i);
        if node.kind == Kind::Element && matches!(node.tag, Tag::Script | Tag::Style) {
            i = dom.subtree_end(i);
            continue;
        }
        if node.kind == Kind::Text {
            text += dom
                .text(i)
                .bytes()
                .filter(|b| !b.is_ascii_whitespace())
                .count();
        }
        i += 1;
    }
    (!dom.node(prev).hidden && (1..=TOGGLE_MAX_CHARS).contains(&text)).then_some(prev)
}

/// The element sibling before `id`, found through the preorder layout (the node before a
/// sibling is its last descendant) in time bounded by the depth, not the sibling count.
fn previous_element(dom: &Dom, id: NodeId) -> Option<NodeId> {
    let parent = dom.node(id).parent;
    let mut cur = id;
    loop {
        if cur == 0 || cur - 1 == parent {
            return None;
        }
        let mut prev = cur - 1;
        while dom.node(prev).parent != parent {
            prev = dom.node(prev).parent;
            if prev == NONE {
                return None;
            }
        }
        if dom.node(prev).kind == Kind::Element {
            return Some(prev);
        }
        cur = prev;
    }
}

/// Visible characters of the subtree `start..end`, those inside links, and whether it
/// holds form controls or an `<h1>` (then it is no folded text), counting what a reader would see
/// were it shown (script and other hard-dropped text left out).
fn raw_text(dom: &Dom, start: NodeId, end: NodeId) -> (usize, usize, bool) {
    let (mut text, mut link, mut controls) = (0, 0, false);
    let mut link_end = start;
    let mut i = start;
    while i < end {
        let node = dom.node(i);
        if node.kind == Kind::Element {
            if is_hard_dropped(node.tag) {
                i = dom.subtree_end(i);
                continue;
            }
            if node.tag == Tag::A {
                link_end = link_end.max(dom.subtree_end(i));
            }
            // Form controls make a sign-in or consent dialog; an `<h1>` a machine copy of
            // the page (a hidden microdata block restating the headline).
            controls |= matches!(
                node.tag,
                Tag::Form | Tag::Input | Tag::Select | Tag::Textarea | Tag::H1
            );
        } else if node.kind == Kind::Text {
            let n = dom
                .text(i)
                .bytes()
                .filter(|b| !b.is_ascii_whitespace())
                .count();
            text += n;
            if i < link_end {
                link += n;
            }
        }
        i += 1;
    }
    (text, link, controls)
}
