//! Browser notices: "You are using an out of date browser. It may not display this or
//! other websites correctly.", "JavaScript is disabled." Forum software prints them above
//! the content of every page; they speak of the reader's browser, not of the page.

use crate::dom::{Dom, Kind, NONE};

use super::placeholders::kept_chars;
use super::{Selection, Visit, drop_boxes};

/// How a browser notice opens, lower-case: what follows is advice on browsers.
const OPENINGS: &[&str] = &[
    "you are using an out of date browser",
    "you are using an outdated browser",
    "your browser is out of date",
    "your browser is outdated",
    "you are using an unsupported browser",
    "your browser is not supported",
    "javascript is disabled",
    "javascript is disabled in your browser",
    "please enable javascript",
    "you need to enable javascript",
];

/// A notice is two or three sentences: a longer box holds more than the notice, and stays.
const NOTICE_MAX_CHARS: u32 = 300;

/// The fewest visible characters of an opening: `javascript is disabled` less its spaces.
const OPENING_MIN_VISIBLE: u32 = 20;

/// Drop each text of the chosen content that opens as a browser notice, with the largest
/// element around it holding no more than a notice. Returns whether it dropped any.
pub(crate) fn drop_browser_notices(dom: &Dom, selection: &mut Selection) -> bool {
    drop_boxes(dom, selection, |dropped, root, i| {
        if dom.node(i).kind != Kind::Text
            || !(OPENING_MIN_VISIBLE..=NOTICE_MAX_CHARS)
                .contains(&dom.text_sizes[i as usize].visible)
            || !opens_a_notice(dom.text(i))
        {
            return Visit::Next;
        }
        let mut boxed = i;
        while boxed != root {
            let parent = dom.node(boxed).parent;
            if parent == NONE || kept_chars(dom, dropped, parent) > NOTICE_MAX_CHARS {
                break;
            }
            boxed = parent;
        }
        Visit::Drop(boxed)
    })
}

fn opens_a_notice(text: &str) -> bool {
    let t = crate::dom::trim(text);
    // An opening is compared only when the text starts with its letter: asked of most texts
    // of a page's content, the ten comparisons were about 1 % of a crawl's instructions.
    let Some(first) = t.as_bytes().first().map(u8::to_ascii_lowercase) else {
        return false;
    };
    OPENINGS.iter().any(|o| {
        o.as_bytes()[0] == first
            && t.get(..o.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(o))
    })
}

#[cfg(test)]
mod tests {
    use super::{OPENING_MIN_VISIBLE, OPENINGS, opens_a_notice};

    #[test]
    fn every_opening_has_the_fewest_visible_characters_or_more() {
        for o in OPENINGS {
            let visible = o.chars().filter(|c| !c.is_whitespace()).count();
            assert!(visible >= OPENING_MIN_VISIBLE as usize, "{o}");
            // `opens_a_notice` compares an opening's first byte with the text's, lowered.
            assert!(o.as_bytes()[0].is_ascii_lowercase(), "{o}");
        }
    }

    #[test]
    fn a_notice_opens_with_its_words_and_a_sentence_that_mentions_them_does_not() {
        assert!(opens_a_notice(
            "  You are using an out of date browser. It may not display this correctly."
        ));
        assert!(opens_a_notice(
            "JavaScript is disabled. For a better experience, enable it."
        ));
        assert!(!opens_a_notice(
            "The forum warns when you are using an out of date browser."
        ));
    }
}
