//! Sign-in prompts: "You must log in to answer this question.", "You must be logged in to
//! post a comment.", "Sign in to add this item to your wishlist". The page tells a visitor
//! without an account what they cannot do; it says nothing of what the page is about.

use crate::dom::{Dom, Kind, NONE, NodeId, Tag};

use super::jumps::kept_text;
use super::placeholders::kept_chars;
use super::{Selection, Visit, drop_boxes};

/// A prompt is one short sentence: a longer box holds more than a prompt, and stays.
const PROMPT_MAX_CHARS: u32 = 160;

/// What may open a prompt before its sign-in words (lower-case, whole words).
const LEADS: &[&str] = &[
    "you must",
    "you need to",
    "you have to",
    "please",
    "please,",
];

/// The sign-in words, after an optional lead and `be` ("you must be logged in").
const SIGN_IN: &[&str] = &[
    "log in",
    "login",
    "log-in",
    "logged in",
    "sign in",
    "signin",
    "sign-in",
    "signed in",
];

/// What may follow the sign-in words before `to` ("log in or register to post comments").
const ALTERNATIVES: &[&str] = &[
    "or register",
    "or sign up",
    "or signup",
    "or create an account",
    "or join",
];

/// What the prompt says signing in lets one do: taking part in the site, not a step of a
/// how-to ("Sign in to the Azure portal" stays).
const ACTIONS: &[&str] = &[
    "answer",
    "reply",
    "comment",
    "post",
    "vote",
    "view",
    "see",
    "add",
    "follow",
    "read",
    "continue",
    "download",
    "access",
    "save",
    "join",
    "leave",
    "rate",
    "review",
    "like",
    "participate",
    "write",
    "ask",
    "watch",
    "bookmark",
    "subscribe",
    "unlock",
    "report",
    "edit",
    "flag",
    "share",
    "send",
    "message",
    "contact",
    "track",
    "create",
    "upload",
];

/// The longest link text that can be sign-in words ("signed in", signs aside).
const SIGN_IN_LINK_MAX_CHARS: u32 = 12;

/// Drop each short box of the chosen content whose whole text is a sign-in prompt (see
/// `is_sign_in_prompt`) and whose sign-in words are the link to sign in: the largest
/// element around the link holding no more than one sentence. (An answer in a FAQ that
/// says "log in to view your invoices" has no such link, and stays.) Returns whether it
/// dropped any.
pub(crate) fn drop_sign_in_prompts(dom: &Dom, selection: &mut Selection) -> bool {
    drop_boxes(dom, selection, |dropped, root, id| {
        let node = dom.node(id);
        if node.kind != Kind::Element || node.tag != Tag::A {
            return Visit::Next;
        }
        if !is_sign_in_link(dom, dropped, id) {
            return Visit::SkipSubtree;
        }
        // The box: climb while the parent's kept text is still one short sentence.
        let mut boxed = id;
        while boxed != root {
            let parent = dom.node(boxed).parent;
            if parent == NONE || kept_chars(dom, dropped, parent) > PROMPT_MAX_CHARS {
                break;
            }
            boxed = parent;
        }
        if is_sign_in_prompt(&kept_text(dom, dropped, boxed)) {
            Visit::Drop(boxed)
        } else {
            Visit::SkipSubtree
        }
    })
}

/// Whether link `id`'s whole kept text is sign-in words ("log in", "Sign In"). Its size is
/// read first from the parser's counts: most links are longer, and are not read.
fn is_sign_in_link(dom: &Dom, dropped: &[bool], id: NodeId) -> bool {
    let chars = (id + 1..dom.subtree_end(id))
        .map(|i| dom.text_sizes[i as usize].visible)
        .sum::<u32>();
    (4..=SIGN_IN_LINK_MAX_CHARS).contains(&chars)
        && SIGN_IN.contains(&phrase(&kept_text(dom, dropped, id)).as_str())
}

/// Whether `text` (a box's whole text) is a sign-in prompt: an optional lead ("You must",
/// "Please"), optionally `be`, the sign-in words, optionally an alternative ("or
/// register"), then `to` and something one does on the site ("answer", "post", "view").
fn is_sign_in_prompt(text: &str) -> bool {
    let phrase = phrase(text);
    let mut rest = phrase.as_str();
    if let Some(after) = LEADS.iter().find_map(|l| strip_words(rest, l)) {
        rest = after;
    }
    if let Some(after) = strip_words(rest, "be") {
        rest = after;
    }
    let Some(after) = SIGN_IN.iter().find_map(|s| strip_words(rest, s)) else {
        return false;
    };
    rest = after;
    if let Some(after) = ALTERNATIVES.iter().find_map(|a| strip_words(rest, a)) {
        rest = after;
    }
    let Some(after) = strip_words(rest, "to") else {
        return false;
    };
    let action = after.split(' ').next().unwrap_or("");
    ACTIONS.contains(&action)
}

/// `text` as lower-case words joined by one space, without the signs around each word.
fn phrase(text: &str) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ")
}

/// `text` without the whole words `prefix` at its start (and the space after them).
fn strip_words<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(prefix)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix(' ')
    }
}

#[cfg(test)]
mod tests {
    use super::is_sign_in_prompt;

    #[test]
    fn prompts_are_told_from_steps_and_offers() {
        for prompt in [
            "You must log in to answer this question.",
            "You must be logged in to post a comment.",
            "Log in or register to post comments",
            "Sign in to add this item to your wishlist, follow it, or mark it as ignored",
            "Please sign in to reply.",
            "Sign in to view additional items selected just for you.",
        ] {
            assert!(is_sign_in_prompt(prompt), "{prompt:?}");
        }
        for kept in [
            "Sign in to the Azure portal.",
            "Log in to your router's admin page at 192.168.0.1",
            "Sign up to our newsletter for the latest news",
            "Login",
            "Why you must log in before you can answer",
            "Sign in",
        ] {
            assert!(!is_sign_in_prompt(kept), "{kept:?}");
        }
    }
}
