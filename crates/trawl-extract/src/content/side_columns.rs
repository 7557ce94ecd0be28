//! What is left of a side column beside the content (issue 45): a page builder names the
//! side column's blocks as it names the article's (every one a widget), so its lists of
//! posts, its form and its menu go as boilerplate by what they are, but the headings that
//! titled them ("Latest News", "Contact us") and a blurb or two stay. Told by structure,
//! not by name: a column beside the one that holds the best-scored text (of its tag and
//! class), most of whose text went as boilerplate, is the rest of that boilerplate.

use crate::dom::{AttrName, Dom, Kind, NodeId};

use super::stats::Stats;

/// A side column's boilerplate is at least this much text (visible characters): a share
/// bar or a byline's link beside a few words is not a column.
const MIN_DROPPED_CHARS: u32 = 200;

/// A row of columns holds at most this many: the content's, and a side column or two.
const MAX_COLUMNS: usize = 3;

/// What is left is at most this share of what the block held.
const MAX_KEPT_SHARE: f32 = 0.4;

/// Drop, in `dropped`, each column beside the path from `root` down to `best` (the best-
/// scored block under it) that lost most of its text to the boilerplate drops.
pub(super) fn drop_side_column_remains(
    dom: &Dom,
    stats: &[Stats],
    dropped: &mut [bool],
    root: NodeId,
    best: NodeId,
) {
    let mut on_path = best;
    while on_path != root {
        let parent = dom.node(on_path).parent;
        // A row holds a few columns; a longer run of siblings is a stack of sections.
        let elements = dom
            .children(parent)
            .filter(|&c| dom.node(c).kind == Kind::Element)
            .take(MAX_COLUMNS + 1)
            .count();
        if elements > MAX_COLUMNS {
            on_path = parent;
            continue;
        }
        for sib in dom.children(parent) {
            let s = sib as usize;
            if sib == on_path || dropped[s] || !is_same_kind(dom, sib, on_path) {
                continue;
            }
            if is_mostly_dropped(dom, stats, sib) {
                dropped[s..dom.subtree_end(sib) as usize].fill(true);
            }
        }
        on_path = parent;
    }
}

/// Whether `a` and `b` are elements of one kind: one tag and a class word in common (the
/// columns of one row: `e-con e-child`, `elementor-column`, `col`).
fn is_same_kind(dom: &Dom, a: NodeId, b: NodeId) -> bool {
    let (na, nb) = (dom.node(a), dom.node(b));
    if na.kind != Kind::Element || nb.kind != Kind::Element || na.tag != nb.tag {
        return false;
    }
    let (Some(ca), Some(cb)) = (dom.attr(a, AttrName::Class), dom.attr(b, AttrName::Class)) else {
        return false;
    };
    ca.split_ascii_whitespace()
        .any(|w| cb.split_ascii_whitespace().any(|v| v == w))
}

/// Whether most of `id`'s shown text, at least `MIN_DROPPED_CHARS`, is dropped, and some
/// is kept.
fn is_mostly_dropped(dom: &Dom, stats: &[Stats], id: NodeId) -> bool {
    let kept = stats[id as usize].text;
    if kept == 0 {
        return false;
    }
    // Hidden text is not counted: a gallery's other slides or a closed tab are not
    // boilerplate the drops found.
    let mut held = 0u32;
    let mut i = id;
    let end = dom.subtree_end(id);
    while i < end {
        let node = dom.node(i);
        if node.hidden {
            i = dom.subtree_end(i);
            continue;
        }
        if node.kind == Kind::Text {
            held += dom.text_sizes[i as usize].visible;
        }
        i += 1;
    }
    held.saturating_sub(kept) >= MIN_DROPPED_CHARS && (kept as f32) <= MAX_KEPT_SHARE * held as f32
}
