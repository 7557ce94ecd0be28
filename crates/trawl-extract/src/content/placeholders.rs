//! A script's placeholders: the "Loading…" a carousel or a panel shows until its items
//! arrive. The served page holds the words and never the items, and the words say nothing.

use crate::dom::{Dom, Kind, NONE, NodeId};

use super::Selection;

/// The whole text of a placeholder, lower-cased, once trailing dots and ellipses are cut.
const PLACEHOLDERS: &[&str] = &["loading", "loading content", "please wait"];

/// A longer text is never one of the phrases above; the test reads no further.
const PLACEHOLDER_MAX_BYTES: usize = 24;

/// Drop each text of the chosen content that is a placeholder, with the largest element
/// around it that holds no other text (its heading, its list item: the empty box). Returns
/// whether it dropped any.
pub(crate) fn drop_placeholders(dom: &Dom, selection: &mut Selection) -> bool {
    let mut any = false;
    for &root in &selection.roots {
        let end = dom.subtree_end(root) as usize;
        let mut i = root as usize;
        while i < end {
            if selection.dropped[i] {
                i = dom.subtree_end(i as NodeId) as usize;
                continue;
            }
            if dom.nodes[i].kind != Kind::Text || !is_placeholder(dom.text(i as NodeId)) {
                i += 1;
                continue;
            }
            let chars = dom.text_sizes[i].visible;
            let mut boxed = i as NodeId;
            while boxed != root {
                let parent = dom.node(boxed).parent;
                if parent == NONE || kept_chars(dom, &selection.dropped, parent) != chars {
                    break;
                }
                boxed = parent;
            }
            let stop = dom.subtree_end(boxed) as usize;
            selection.dropped[boxed as usize..stop].fill(true);
            any = true;
            i = stop.max(i + 1);
        }
    }
    any
}

fn is_placeholder(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() || t.len() > PLACEHOLDER_MAX_BYTES {
        return false;
    }
    let t = t.trim_end_matches(['.', '…', ' ']).to_lowercase();
    PLACEHOLDERS.contains(&t.as_str())
}

/// Visible characters of `id`'s kept text.
pub(super) fn kept_chars(dom: &Dom, dropped: &[bool], id: NodeId) -> u32 {
    let end = dom.subtree_end(id);
    let mut sum = 0;
    let mut i = id;
    while i < end {
        if dropped[i as usize] {
            i = dom.subtree_end(i);
            continue;
        }
        sum += dom.text_sizes[i as usize].visible;
        i += 1;
    }
    sum
}
