//! An article shown in an open dialog over the page (a news site's story opened over its
//! stream): the dialog is what the reader sees, though the stream behind it holds more
//! text. A dialog is otherwise furniture (a sign-up box, a cookie notice, a share sheet),
//! short and not prose.

use crate::dom::{AttrName, Dom, Kind, NodeId};

use super::stats::{Stats, link_density};

/// A dialog holding an article has at least this many paragraphs...
const MIN_PARAGRAPHS: u32 = 3;
/// ... this much text ...
const MIN_CHARS: u32 = 500;
/// ... and at most this share of it in links.
const MAX_LINK_DENSITY: f32 = 0.2;

/// Whether element `id` is a dialog named open (a closed one is hidden by the
/// stylesheet, and menus and flyouts are dialogs too).
pub(super) fn is_open_dialog(dom: &Dom, id: NodeId) -> bool {
    dom.attr(id, AttrName::Role).is_some_and(|role| {
        let role = role.trim();
        role.eq_ignore_ascii_case("dialog") || role.eq_ignore_ascii_case("alertdialog")
    }) && dom.attr(id, AttrName::Class).is_some_and(says_shown)
}

/// The first open dialog that shows (not dropped, not hidden) and holds an article's prose.
pub(super) fn open_dialog_article(dom: &Dom, stats: &[Stats], dropped: &[bool]) -> Option<NodeId> {
    (1..dom.nodes.len()).map(|i| i as NodeId).find(|&i| {
        let node = dom.node(i);
        let s = &stats[i as usize];
        // The counts first: few elements hold an article's prose, and reading the
        // attributes of every element was most of this walk.
        node.kind == Kind::Element
            && !dropped[i as usize]
            && !node.hidden
            && s.paragraphs >= MIN_PARAGRAPHS
            && s.text >= MIN_CHARS
            && link_density(s) < MAX_LINK_DENSITY
            && is_open_dialog(dom, i)
    })
}

/// Whether a class string names its element shown (`is-open`, `modal--open`, Bootstrap's
/// `show` and `in`).
fn says_shown(class: &str) -> bool {
    class.split_ascii_whitespace().any(|word| {
        word == "in"
            || word.rsplit(['-', '_']).next().is_some_and(|last| {
                matches!(
                    last,
                    "open" | "opened" | "show" | "shown" | "visible" | "active"
                )
            })
    })
}
