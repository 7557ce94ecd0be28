//! Finding the main content: drop boilerplate, score blocks, pick the best container and
//! its related siblings, then prune what inside it still looks like boilerplate.
//!
//! The scoring follows the idea readability made popular: every block of running text
//! gives points (more for length and commas) to its parent and, decaying, to a few
//! ancestors; a container's score is then discounted by its link density. The container
//! with the best score wins, and siblings that score close to it (or are plain paragraphs)
//! join it, which keeps articles whose paragraphs are split over several wrappers whole.
//! All passes are single loops over the arena (see `dom`), so time is linear in the page.
//!
//! In order of the work: `stats` sums each node's kept subtree; `drops` drops boilerplate
//! (per drop policy, shared by passes that drop alike) and `folded` marks the hidden text
//! that is content, sparing a listing's items (`listing`); `scoring` scores blocks and
//! `select` picks the winner (inside an article open in a dialog, `dialog`), with the
//! page builder's sections stacked beside it (`stacked`) and what is left of a side column
//! beside it dropped (`side_columns`); `pruning` trims inside it; `repeats` drops what it says
//! twice, `sections` the headings left over nothing, `placeholders` a script's "Loading…",
//! `jumps` the "Back to top" links alone on their lines, `prompts` the "You must log in to
//! answer" lines, `notices` the "You are using an out of date browser" boxes, `hubs` the
//! link lists of a hub's cards, `embeds` a timeline of embedded social posts, `players` a video player's own strings. What several
//! of them read sits here.

mod dialog;
mod drops;
mod embeds;
mod folded;
mod hubs;
mod jumps;
mod listing;
mod notices;
mod placeholders;
mod players;
mod prompts;
mod pruning;
mod repeats;
mod scoring;
mod sections;
mod select;
mod side_columns;
mod stacked;
mod stats;

pub(crate) use drops::{Drops, trace};
pub(crate) use embeds::drop_embedded_timelines;
pub(crate) use folded::mark_folded;
pub(crate) use hubs::drop_hub_link_lists;
pub(crate) use jumps::drop_jump_links;
pub(crate) use notices::drop_browser_notices;
pub(crate) use placeholders::drop_placeholders;
pub(crate) use players::drop_player_boxes;
pub(crate) use prompts::drop_sign_in_prompts;
pub(crate) use repeats::{TitleHeadings, drop_repeated_blocks};
pub(crate) use sections::drop_empty_sections;
pub(crate) use select::{select, select_broad};

use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

/// Which heuristics a selection pass uses; later passes relax them when the first finds
/// too little text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pass {
    pub(crate) strip_unlikely: bool,
    pub(crate) weight_classes: bool,
    pub(crate) clean_conditionally: bool,
    pub(crate) include_comments: bool,
    /// A thread: each post's author line (`post-meta`, `topic-meta-data`) is content.
    pub(crate) thread: bool,
    /// Render hidden nodes too: the last resort when nothing visible reads as content
    /// (the page keeps its body hidden until a script shows it).
    pub(crate) show_hidden: bool,
    /// Pages made of sections or cards, not one run of prose (not an article): take the
    /// declared content container around the best block when it is link-poor and not much
    /// bigger (see `widen`), and keep the headers of `<article>` cards.
    pub(crate) widen: bool,
    /// Reference pages link every other word (`[source]`, a type name, the next method):
    /// a block inside the content is pruned for its links only at a higher density.
    pub(crate) link_tolerant: bool,
    /// A listing or a shop's category: the repeated items (see `listing`) are content,
    /// whatever their class words say and however much of them is links.
    pub(crate) listing: bool,
    /// A manual: a one-line section under its heading is text, not an empty wrapper.
    pub(crate) short_sections: bool,
    /// Blocks named for reviews (`review-card`, `customer-reviews`) are comments: on a
    /// product page they are what buyers say about it, while on an article a block named
    /// for the product it reviews is the article and on a service page the testimonials
    /// are part of the pitch.
    pub(crate) reviews_are_comments: bool,
    /// A line without links shorter than a wrapper's minimum is text, not an empty
    /// wrapper: set inside a page builder's stacked sections (see `stacked`).
    pub(crate) short_lines: bool,
}

/// The chosen content.
#[derive(Debug)]
pub(crate) struct Selection {
    /// Subtrees to render, in document order.
    pub(crate) roots: Vec<NodeId>,
    /// Nodes not to render (boilerplate, pruned), per node index.
    pub(crate) dropped: Vec<bool>,
    /// Link density of the chosen content (0..1).
    pub(crate) link_density: f32,
    /// Whether the winner is, or sits inside, an element that declares itself the content
    /// (`<article>`, `<main>`, `itemprop=articleBody`).
    pub(crate) semantic: bool,
    /// Visible characters in the page after dropping boilerplate elements.
    pub(crate) page_text: u32,
    /// Whether the winner is an article open in a dialog (see `dialog`): what shows, so
    /// the page behind it is not read instead.
    pub(crate) in_dialog: bool,
}

/// What a rule that drops boxes from the chosen content says of one kept node (see
/// `drop_boxes`).
pub(super) enum Visit {
    /// Not one: go on to the next node, inside it.
    Next,
    /// Not one, nor anything inside it.
    SkipSubtree,
    /// Drop this node (the node seen or a box around it, below its root) with all it holds.
    Drop(NodeId),
}

/// Walk the kept nodes of the chosen content in document order, past what is dropped, and
/// drop the boxes `visit` names, each with all it holds; `visit` is given the node and the
/// root it is under. The walk of the rules that drop a line or a box by what it says
/// (`placeholders`, `jumps`, `prompts`). Returns whether it dropped any.
pub(super) fn drop_boxes(
    dom: &Dom,
    selection: &mut Selection,
    mut visit: impl FnMut(&[bool], NodeId, NodeId) -> Visit,
) -> bool {
    let mut any = false;
    for r in 0..selection.roots.len() {
        let root = selection.roots[r];
        let end = dom.subtree_end(root) as usize;
        let mut i = root as usize;
        while i < end {
            if selection.dropped[i] {
                i = dom.subtree_end(i as NodeId) as usize;
                continue;
            }
            match visit(&selection.dropped, root, i as NodeId) {
                Visit::Next => i += 1,
                Visit::SkipSubtree => i = dom.subtree_end(i as NodeId) as usize,
                Visit::Drop(boxed) => {
                    let stop = dom.subtree_end(boxed) as usize;
                    selection.dropped[boxed as usize..stop].fill(true);
                    any = true;
                    i = stop.max(i + 1);
                }
            }
        }
    }
    any
}

/// A hidden block holding this share of the page's text is shown: the page hides its
/// content until a script runs (`defer-block`, lock-down plugins). Not one hidden for good
/// (`aria-hidden`, a `hide` class: a closed modal, related stories kept out of sight).
const HIDDEN_SHOWN_SHARE: f32 = 0.4;

/// The link density above which `clean_conditionally` prunes a block of a reference page.
const LINK_TOLERANT_DENSITY: f32 = 0.5;

/// A tab panel: one of several views of the content (code in each language), hidden or not.
fn is_tab_panel(dom: &Dom, id: NodeId) -> bool {
    dom.attr(id, AttrName::Role)
        .is_some_and(|r| r.eq_ignore_ascii_case("tabpanel"))
}

/// A post's author line is a name and a date: no longer than this (bytes of its text).
const POST_META_MAX_BYTES: usize = 120;

/// A post's author line in a thread: short, with a link (the name) and a `<time>` or a
/// date-like text.
fn is_post_meta(dom: &Dom, id: NodeId) -> bool {
    let end = dom.subtree_end(id);
    let mut link = false;
    let mut time = false;
    let mut chars = 0;
    for i in id..end {
        let node = dom.node(i);
        match node.kind {
            Kind::Text => chars += dom.text(i).len(),
            Kind::Element if node.tag == Tag::A => link = true,
            Kind::Element if node.tag == Tag::Time => time = true,
            _ => {}
        }
        if chars > POST_META_MAX_BYTES {
            return false;
        }
    }
    link && time
}

fn is_semantic_container(dom: &Dom, id: NodeId) -> bool {
    matches!(dom.node(id).tag, Tag::Article | Tag::Main)
        || dom
            .attr(id, AttrName::Itemprop)
            .is_some_and(|v| v.contains("articleBody"))
}

fn ancestors(dom: &Dom, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let mut cur = dom.node(id).parent;
    std::iter::from_fn(move || {
        if cur == NONE || cur == 0 {
            return None;
        }
        let out = cur;
        cur = dom.node(cur).parent;
        Some(out)
    })
}

fn ends_sentence(dom: &Dom, id: NodeId) -> bool {
    let end = dom.subtree_end(id);
    (id..end)
        .rev()
        .find(|&i| dom.node(i).kind == Kind::Text && !dom.text(i).trim().is_empty())
        .is_some_and(|i| {
            let t = dom.text(i).trim_end();
            t.ends_with('.')
                || t.ends_with('!')
                || t.ends_with('?')
                || t.ends_with('"')
                || t.ends_with('”')
        })
}
