//! Links that jump back up the page: "Back to top" after each section of a long page,
//! "Back to project" after a gallery, on a line of their own. They move the reader; they say
//! nothing.

use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

use super::{Selection, Visit, drop_boxes};

/// A longer link text is never one of the phrases below; the test reads no further.
const JUMP_MAX_BYTES: usize = 40;

/// Drop each link of the chosen content that jumps back up the page (see `is_jump_back`)
/// and stands alone on its line: nothing but it in the largest element around it whose
/// text is its, and no text or phrasing element with text right beside that element.
/// Returns whether it dropped any.
pub(crate) fn drop_jump_links(dom: &Dom, selection: &mut Selection) -> bool {
    drop_boxes(dom, selection, |dropped, root, id| {
        let node = dom.node(id);
        if node.kind != Kind::Element || node.tag != Tag::A {
            return Visit::Next;
        }
        // The address first: most links go elsewhere, and their text need not be gathered.
        let Some(fragment) = fragment(dom, id) else {
            return Visit::SkipSubtree;
        };
        let text = kept_text(dom, dropped, id);
        if !is_jump_back(fragment, &text) {
            return Visit::SkipSubtree;
        }
        // The largest element whose kept text is the link's (its `<p>`).
        let chars = visible(&text);
        let mut line = id;
        while line != root {
            let parent = dom.node(line).parent;
            if parent == NONE || visible(&kept_text(dom, dropped, parent)) != chars {
                break;
            }
            line = parent;
        }
        if alone_on_its_line(dom, dropped, line) {
            Visit::Drop(line)
        } else {
            Visit::SkipSubtree
        }
    })
}

/// A link's text as one lower-case phrase, its words joined by one space, without the
/// arrows and signs around it ("↑ Back to top"); none when it is too long
/// to be a jump.
fn phrase(text: &str) -> Option<String> {
    let t = text.trim_matches(|c: char| !c.is_alphanumeric());
    (t.len() <= JUMP_MAX_BYTES).then(|| {
        t.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// Phrases that open a link back up the page ("Back to top", "Back to project"), whole or
/// as the first words.
const JUMP_BACK_PREFIXES: &[&str] = &["back to", "return to"];
const JUMP_BACK_PHRASES: &[&str] = &["top", "to top", "go to top"];

/// The `#fragment` link `id` jumps to within the page (without the `#`); none when its
/// address leads elsewhere.
fn fragment(dom: &Dom, id: NodeId) -> Option<&str> {
    dom.attr(id, AttrName::Href)
        .and_then(|h| h.strip_prefix('#'))
}

/// Whether a link to `#fragment` whose text is `text` jumps back within the page and says
/// so: "Back to top" after each section of a long page, "Back to project" after a gallery.
/// A table of contents' link to a section named "Back to basics" goes to that name's slug,
/// and stays.
fn is_jump_back(fragment: &str, text: &str) -> bool {
    let Some(p) = phrase(text) else {
        return false;
    };
    let slug = p.replace(' ', "-");
    fragment.to_ascii_lowercase() != slug
        && (JUMP_BACK_PHRASES.contains(&p.as_str())
            || JUMP_BACK_PREFIXES
                .iter()
                .any(|w| p.strip_prefix(w).is_some_and(|rest| rest.starts_with(' '))))
}

/// The text of `id`'s kept text nodes, as-is.
pub(super) fn kept_text(dom: &Dom, dropped: &[bool], id: NodeId) -> String {
    let mut out = String::new();
    for i in dom.kept(dropped, id) {
        if dom.node(i).kind == Kind::Text {
            out.push_str(dom.text(i));
            out.push(' ');
        }
    }
    out
}

fn visible(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// Whether the kept siblings right before and after `id` are blocks or none: a text or a
/// phrasing element with text there would share its line.
fn alone_on_its_line(dom: &Dom, dropped: &[bool], id: NodeId) -> bool {
    let parent = dom.node(id).parent;
    if parent == NONE {
        return true;
    }
    let shares_line = |c: NodeId| {
        let node = dom.node(c);
        match node.kind {
            Kind::Text => dom.text_sizes[c as usize].visible > 0,
            Kind::Element => {
                node.tag.is_inline()
                    && node.tag != Tag::Br
                    && visible(&kept_text(dom, dropped, c)) > 0
            }
            Kind::Document => false,
        }
    };
    let mut before = None;
    let mut after = None;
    let mut seen = false;
    for c in dom.children(parent) {
        if c == id {
            seen = true;
            continue;
        }
        if dropped[c as usize] {
            continue;
        }
        let node = dom.node(c);
        // Whitespace between blocks is no neighbour.
        if node.kind == Kind::Text && dom.text_sizes[c as usize].visible == 0 {
            continue;
        }
        if seen {
            after = Some(c);
            break;
        }
        before = Some(c);
    }
    !before.is_some_and(shares_line) && !after.is_some_and(shares_line)
}
