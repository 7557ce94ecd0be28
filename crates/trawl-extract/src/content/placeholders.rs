//! A script's placeholders: the "Loading…" a carousel or a panel shows until its items
//! arrive. The served page holds the words and never the items, and the words say nothing.

use crate::dom::{Dom, Kind, NONE, NodeId};

use super::{Selection, Visit, drop_boxes};

/// The whole text of a placeholder, lower-cased, once trailing dots and ellipses are cut.
const PLACEHOLDERS: &[&str] = &["loading", "loading content", "please wait"];

/// A longer text is never one of the phrases above; the test reads no further.
const PLACEHOLDER_MAX_BYTES: usize = 24;
/// The fewest visible characters a placeholder has: `loading`.
const PLACEHOLDER_MIN_VISIBLE: u32 = 7;

/// Drop each text of the chosen content that is a placeholder, with the largest element
/// around it that holds no other text (its heading, its list item: the empty box). Returns
/// whether it dropped any.
pub(crate) fn drop_placeholders(dom: &Dom, selection: &mut Selection) -> bool {
    drop_boxes(dom, selection, |dropped, root, i| {
        // A text with fewer visible characters than the shortest phrase is none: most
        // texts (whitespace between tags, a word or two) go without trimming.
        if dom.node(i).kind != Kind::Text
            || dom.text_sizes[i as usize].visible < PLACEHOLDER_MIN_VISIBLE
            || !is_placeholder(dom.text(i))
        {
            return Visit::Next;
        }
        let chars = dom.text_sizes[i as usize].visible;
        let mut boxed = i;
        while boxed != root {
            let parent = dom.node(boxed).parent;
            if parent == NONE || kept_chars(dom, dropped, parent) != chars {
                break;
            }
            boxed = parent;
        }
        Visit::Drop(boxed)
    })
}

fn is_placeholder(text: &str) -> bool {
    let t = crate::dom::trim(text);
    if t.is_empty() || t.len() > PLACEHOLDER_MAX_BYTES {
        return false;
    }
    // Compared without case in ASCII, with no lowercased copy: a non-ASCII character
    // lowercases to non-ASCII (or, the Kelvin sign, to a `k` no phrase holds), so it
    // matches no phrase either way.
    let t = t.trim_end_matches(['.', '…', ' ']);
    PLACEHOLDERS.iter().any(|p| t.eq_ignore_ascii_case(p))
}

/// Visible characters of `id`'s kept text.
pub(super) fn kept_chars(dom: &Dom, dropped: &[bool], id: NodeId) -> u32 {
    dom.kept(dropped, id)
        .map(|i| dom.text_sizes[i as usize].visible)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::{PLACEHOLDER_MIN_VISIBLE, PLACEHOLDERS, is_placeholder};

    #[test]
    fn every_phrase_has_the_fewest_visible_characters_or_more() {
        for phrase in PLACEHOLDERS {
            let visible = phrase.chars().filter(|c| !c.is_whitespace()).count();
            assert!(visible >= PLACEHOLDER_MIN_VISIBLE as usize, "{phrase:?}");
        }
    }

    #[test]
    fn placeholders_match_as_their_lowercased_text_would() {
        for text in [
            "Loading…",
            "  LOADING... ",
            "Please Wait.",
            "loading content",
            "Loading comments",
            "\u{212a}oading",
            "LOAD\u{130}NG",
            "lоading",
            "",
        ] {
            let t = text.trim();
            let lowered = t.trim_end_matches(['.', '…', ' ']).to_lowercase();
            let expected =
                !t.is_empty() && t.len() <= 24 && PLACEHOLDERS.contains(&lowered.as_str());
            assert_eq!(is_placeholder(text), expected, "{text:?}");
        }
    }
}
