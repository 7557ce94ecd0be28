//! Finding the main content: drop boilerplate, score blocks, pick the best container and
//! its related siblings, then prune what inside it still looks like boilerplate.
//!
//! The scoring follows the idea readability made popular: every block of running text
//! gives points (more for length and commas) to its parent and, decaying, to a few
//! ancestors; a container's score is then discounted by its link density. The container
//! with the best score wins, and siblings that score close to it (or are plain paragraphs)
//! join it, which keeps articles whose paragraphs are split over several wrappers whole.
//! All passes are single loops over the arena (see `dom`), so time is linear in the page.

use crate::boilerplate::{
    ClassSignal, Signals, class_weight, is_boilerplate_role, is_dropped_element,
};
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
}

/// Per-node sums over the node's kept subtree.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Stats {
    /// Visible characters (whitespace not counted).
    pub(crate) text: u32,
    /// Visible characters inside links.
    pub(crate) link: u32,
    /// Visible characters not inside a nested block element: the block's own text.
    pub(crate) inline: u32,
    pub(crate) inline_commas: u32,
    pub(crate) commas: u32,
    pub(crate) paragraphs: u32,
    pub(crate) images: u32,
    pub(crate) list_items: u32,
    pub(crate) inputs: u32,
    pub(crate) heading_text: u32,
    /// `<pre>` blocks inside: code is content even when short.
    pub(crate) code_blocks: u32,
    pub(crate) has_block_child: bool,
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
}

/// A hidden block holding this share of the page's text is shown: the page hides its
/// content until a script runs (`defer-block`, lock-down plugins).
const HIDDEN_SHOWN_SHARE: f32 = 0.4;

/// Several paragraphs of link-poor running text: content, whatever the wrapper's class
/// says (page builders name their layout boxes `widget-span`, `blurb_position_top`,
/// `no-extra-padding`, `sticky-media-section__content`).
fn is_prose(s: &Sums) -> bool {
    s.paragraphs >= 2 && s.text >= 500 && s.text >= 100 * s.paragraphs && s.link_density() < 0.1
}

/// A paragraph of link-poor running text: in a box named `header` it is the head of the
/// content (a product's or reference page's title and intro), not the site's header.
fn is_intro(s: &Sums) -> bool {
    s.paragraphs >= 1 && s.text >= 150 && s.link_density() < 0.15
}

/// A class's weight in this pass: in a thread the replies are the content, so a
/// `comment` class costs nothing.
fn pass_weight(pass: Pass, signal: ClassSignal) -> f32 {
    if pass.thread && signal.comments && !signal.negative && !signal.strong {
        class_weight(ClassSignal {
            comments: false,
            ..signal
        })
    } else {
        class_weight(signal)
    }
}

/// The link density above which `clean_conditionally` prunes a block of a reference page.
const LINK_TOLERANT_DENSITY: f32 = 0.5;

/// A pass's boilerplate drops, per node, and the stats of what they leave.
pub(crate) struct Boiled {
    pub(crate) dropped: Vec<bool>,
    pub(crate) stats: Vec<Stats>,
}

/// The pass settings `drop_boilerplate` reads: passes that differ only in how they score
/// (`weight_classes`, `clean_conditionally`, `link_tolerant`) drop the same nodes.
fn drop_key(pass: Pass) -> [bool; 5] {
    [
        pass.strip_unlikely,
        pass.thread,
        pass.include_comments,
        pass.show_hidden,
        pass.widen,
    ]
}

/// The boilerplate drops of a page's passes. What they all start from (the hard drops,
/// the stats of what those leave, the wrappers of the declared content) is made once, and
/// each distinct pass's drops once: the stats walks are the costly part of a pass.
pub(crate) struct Drops {
    hard: Vec<bool>,
    /// Sums over what the hard drops leave, read by every pass's soft drops.
    sums: Vec<Sums>,
    holds_main: Vec<bool>,
    made: Vec<([bool; 5], Boiled)>,
}

impl Drops {
    pub(crate) fn new(dom: &Dom) -> Drops {
        let n = dom.nodes.len();
        let mut hard = vec![false; n];
        for i in 1..n {
            let node = &dom.nodes[i];
            hard[i] = hard[node.parent as usize]
                || node.kind == Kind::Element && is_hard_dropped(node.tag);
        }
        let sums = compute_sums(dom, &hard);
        let holds_main = holds_main(dom, &hard, &sums);
        Drops {
            hard,
            sums,
            holds_main,
            made: Vec::new(),
        }
    }

    /// Nodes no pass keeps: hard-dropped tags and what they hold.
    pub(crate) fn hard_dropped(&self) -> &[bool] {
        &self.hard
    }

    /// `pass`'s drops, made on first use.
    pub(crate) fn get(&mut self, dom: &Dom, pass: Pass, signals: &Signals<'_>) -> &Boiled {
        let key = drop_key(pass);
        let at = match self.made.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                let boiled = self.drop_boilerplate(dom, pass, signals);
                self.made.push((key, boiled));
                self.made.len() - 1
            }
        };
        &self.made[at].1
    }

    /// Drop what is never content: on top of the hard-dropped tags, hidden nodes, then
    /// landmarks, roles and class/id words (soft drops).
    fn drop_boilerplate(&self, dom: &Dom, pass: Pass, signals: &Signals<'_>) -> Boiled {
        let n = dom.nodes.len();
        let mut dropped = self.hard.clone();
        let sums = &self.sums;
        let holds_main = &self.holds_main;
        let total = sums[0].text.max(1);

        // Soft drops: landmark elements, roles and class/id words. A node holding most of the
        // page's text is kept whatever its name says (a `<div class="has-sidebar">` wrapper).
        for i in 1..n {
            let node = &dom.nodes[i];
            if dropped[i] || node.kind != Kind::Element {
                continue;
            }
            if dropped[node.parent as usize] {
                dropped[i] = true;
                continue;
            }
            let id = i as NodeId;
            let signal = signals.get(i);
            let share = sums[i].text as f32 / total as f32;
            // Off an article page, a `<header>` inside an `<article>` is that card's head (its
            // title and summary in a river of stories), not the site's banner.
            let by_tag = is_dropped_element(node.tag)
                && !(pass.widen
                    && node.tag == Tag::Header
                    && ancestors(dom, id).any(|a| dom.node(a).tag == Tag::Article));
            let by_role = dom
                .attr(id, AttrName::Role)
                .is_some_and(is_boilerplate_role);
            let by_class = pass.strip_unlikely
                && (signal.strong
                    || signal.negative
                        && !signal.positive
                        && !(pass.thread && is_post_meta(dom, id)))
                && !is_content_tag(node.tag)
                && !holds_main[i]
                && (!is_prose(&sums[i]) || signal.footer)
                && !(signal.header && is_intro(&sums[i]));
            // In a thread the replies are the content, not comments on it; but on a
            // question-and-answer page the answers are the replies, and the comments under a
            // question or an answer are asides to it.
            let by_comments = signal.comments
                && !pass.include_comments
                && !signal.positive
                && (!pass.thread || in_question_or_answer(dom, id));
            // Hidden until a script shows it: a node holding most of the page is shown. A
            // hidden tab panel is one of several views of the content (code in each language).
            let by_hiding =
                node.hidden && !pass.show_hidden && !is_tab_panel(dom, id) && !signal.folded;
            // A landmark that is nearly all links is navigation however much of the page it
            // holds (a book's table of contents beside one chapter).
            let link_landmark = (by_tag || by_role) && sums[i].link_density() > NAV_LINK_DENSITY;
            // In a thread, a poster's standing beside each post ("Joined Jun 2016", "Posts: 98")
            // is about the author, not the post.
            let author_stat = pass.thread
                && sums[i].text <= AUTHOR_STAT_MAX_CHARS
                && sums[i].text > 0
                && is_author_stat(dom, id);
            if (by_tag || by_role || by_class) && share < 0.5
                || link_landmark
                || author_stat
                || node.tag == Tag::A && is_skip_link(dom, id)
                || by_hiding && share < HIDDEN_SHOWN_SHARE
                || by_comments && share < 0.75
            {
                dropped[i] = true;
            }
        }
        let stats = compute_stats(dom, &dropped);
        Boiled { dropped, stats }
    }
}

/// Wrappers of a declared content element that holds a good share of the page, and
/// inside it the wrapper that holds most of its text: kept whatever their class says.
fn holds_main(dom: &Dom, dropped: &[bool], sums: &[Sums]) -> Vec<bool> {
    let n = dom.nodes.len();
    let total = sums[0].text.max(1);
    // A declared content element is `<main>`, `<article>` or `role=main`; its wrappers
    // carry names like `content-area newspaper-x-sidebar` or `newsletter-wrapper`.
    let mut holds_main = vec![false; n];
    for i in 1..n {
        let node = &dom.nodes[i];
        if dropped[i] || node.kind != Kind::Element || sums[i].text * 4 < total {
            continue;
        }
        let id = i as NodeId;
        let declared = is_semantic_container(dom, id)
            || dom
                .attr(id, AttrName::Role)
                .is_some_and(|r| r.eq_ignore_ascii_case("main"));
        if declared {
            holds_main[i] = true;
            for a in ancestors(dom, id) {
                if holds_main[a as usize] {
                    break;
                }
                holds_main[a as usize] = true;
            }
        }
    }
    // And inside it, the wrapper that holds most of its text (`rich-text-newsletter-cms`).
    for i in 1..n {
        let parent = dom.nodes[i].parent as usize;
        if parent != 0
            && holds_main[parent]
            && dom.nodes[i].kind == Kind::Element
            && sums[i].text * 2 >= sums[parent].text
            && sums[i].text * 4 >= total
        {
            holds_main[i] = true;
        }
    }
    holds_main
}

/// The link density above which a navigation landmark (`<nav>`, `role=navigation`,
/// `<aside>`…) is dropped even when it holds most of the page's text.
const NAV_LINK_DENSITY: f32 = 0.7;

/// The whole page minus boilerplate: the recall safety net when the best block holds
/// little of the page (landing pages, listings, threads split over many blocks).
/// `boiled` is the strict pass's drops.
pub(crate) fn select_broad(dom: &Dom, boiled: &Boiled) -> Selection {
    let mut dropped = boiled.dropped.clone();
    let stats = &boiled.stats;
    let page_text = stats[0].text;
    // The outermost kept element that holds (nearly) all of the text.
    let mut root: NodeId = 0;
    loop {
        let kept: Vec<NodeId> = dom
            .children(root)
            .filter(|&c| !dropped[c as usize] && stats[c as usize].text > 0)
            .collect();
        match kept.as_slice() {
            [only] if dom.node(*only).kind == Kind::Element => root = *only,
            _ => break,
        }
    }
    let roots: Vec<NodeId> = if root == 0 {
        dom.children(0)
            .filter(|&c| !dropped[c as usize] && stats[c as usize].text > 0)
            .collect()
    } else {
        vec![root]
    };
    for &r in &roots {
        clean_link_blocks(dom, r, stats, &mut dropped);
    }
    Selection {
        link_density: roots_link_density(&roots, stats),
        roots,
        dropped,
        semantic: false,
        page_text,
    }
}

/// For debugging: the chain of elements from the first text node containing `needle` up
/// to the document, each with its tag, class, drop mark and visible text after the
/// boilerplate drops of `pass`.
pub(crate) fn trace(dom: &Dom, pass: Pass, signals: &Signals<'_>, needle: &str) -> String {
    let Boiled { dropped, stats } = Drops::new(dom).drop_boilerplate(dom, pass, signals);
    let mut out = String::new();
    let Some(t) = (0..dom.nodes.len())
        .rev()
        .find(|&i| dom.nodes[i].kind == Kind::Text && dom.text(i as NodeId).contains(needle))
    else {
        return "not found\n".into();
    };
    let mut cur = t;
    while cur != NONE as usize {
        let node = &dom.nodes[cur];
        out.push_str(&format!(
            "{:?} class={:?} id={:?} dropped={} hidden={} text={} link={} signal={:?}\n",
            node.tag,
            dom.attr(cur as NodeId, AttrName::Class).unwrap_or(""),
            dom.attr(cur as NodeId, AttrName::Id).unwrap_or(""),
            dropped[cur],
            node.hidden,
            stats[cur].text,
            stats[cur].link,
            signals.get(cur),
        ));
        cur = node.parent as usize;
    }
    out
}

/// `boiled` is this pass's boilerplate drops (see `Drops`).
pub(crate) fn select(dom: &Dom, pass: Pass, signals: &Signals<'_>, boiled: &Boiled) -> Selection {
    let n = dom.nodes.len();
    let mut dropped = boiled.dropped.clone();
    let stats = &boiled.stats;
    let page_text = stats[0].text;

    // Score blocks of running text into their ancestors.
    let mut score = vec![0f32; n];
    let mut scored = vec![false; n];
    // Folded text (see `is_folded_prose`) is kept but earns no points: it must not
    // outweigh what shows. Tab panels and a page hidden whole are content as they are.
    let mut folded = vec![false; n];
    for i in 1..n {
        let node = &dom.nodes[i];
        folded[i] = folded[node.parent as usize]
            || node.hidden
                && !pass.show_hidden
                && (stats[i].text as f32) < HIDDEN_SHOWN_SHARE * page_text as f32
                && !is_tab_panel(dom, i as NodeId);
        if dropped[i] || folded[i] || node.kind != Kind::Element || node.tag.is_inline() {
            continue;
        }
        let s = &stats[i];
        if s.inline < 25 {
            continue;
        }
        let leaf_like = matches!(
            node.tag,
            Tag::P | Tag::Pre | Tag::Td | Tag::Blockquote | Tag::Li | Tag::Dd
        ) || !s.has_block_child;
        let points = 1.0 + s.inline_commas as f32 + (s.inline as f32 / 100.0).min(3.0);
        let mut cur = if leaf_like { node.parent } else { i as NodeId };
        for level in 0..5 {
            if cur == 0 || cur == NONE {
                break;
            }
            let c = cur as usize;
            if !scored[c] {
                scored[c] = true;
                score[c] = initial_score(dom.nodes[c].tag)
                    + if pass.weight_classes {
                        pass_weight(pass, signals.get(c))
                    } else {
                        0.0
                    };
                if dom
                    .attr(cur, AttrName::Itemprop)
                    .is_some_and(|v| v.contains("articleBody"))
                {
                    score[c] += 25.0;
                }
            }
            score[c] += match level {
                0 => points,
                1 => points / 2.0,
                l => points / (l as f32 * 3.0),
            };
            cur = dom.nodes[c].parent;
        }
    }
    for i in 0..n {
        if scored[i] {
            score[i] *= 1.0 - link_density(&stats[i]);
        }
    }

    let Some(mut top) = (1..n)
        .filter(|&i| scored[i])
        .max_by(|&a, &b| score[a].total_cmp(&score[b]))
    else {
        return Selection {
            roots: vec![0],
            link_density: link_density(&stats[0]),
            dropped,
            semantic: false,
            page_text,
        };
    };
    top = climb(dom, &score, &scored, &dropped, top);
    if pass.widen {
        top = widen(dom, signals, stats, &dropped, top, pass.link_tolerant);
    }
    let top_id = top as NodeId;
    // Siblings that belong with the winner.
    let parent = dom.nodes[top].parent;
    // A wrapper's strength is its best candidate: climbing through only-children leaves
    // the points below, and a sibling wrapper of the same shape holds its points deep too.
    let best_inside = |i: usize| -> f32 {
        (i..dom.subtree_end(i as NodeId) as usize)
            .filter(|&d| scored[d] && !dropped[d])
            .map(|d| score[d])
            .fold(0.0, f32::max)
    };
    let top_score = best_inside(top);
    let threshold = (top_score * 0.2).max(10.0);
    let top_class = dom.attr(top_id, AttrName::Class).unwrap_or("");
    let mut roots = Vec::new();
    for sib in dom.children(parent) {
        let s = sib as usize;
        if dropped[s] || dom.nodes[s].kind != Kind::Element {
            continue;
        }
        let keep = if s == top {
            true
        } else {
            let bonus =
                if !top_class.is_empty() && dom.attr(sib, AttrName::Class) == Some(top_class) {
                    top_score * 0.2
                } else {
                    0.0
                };
            let st = &stats[s];
            let density = link_density(st);
            (density < 0.33 && best_inside(s) + bonus >= threshold)
                || is_paragraph_like(dom.nodes[s].tag, st)
                    && (st.text > 80 && density < 0.25
                        || st.text > 0
                            && st.text <= 80
                            && density == 0.0
                            && ends_sentence(dom, sib))
        };
        if keep {
            roots.push(sib);
        }
    }

    if pass.clean_conditionally {
        for &root in &roots {
            clean_conditionally(
                dom,
                root,
                signals,
                &score,
                &scored,
                stats,
                &mut dropped,
                pass,
            );
            drop_link_runs(dom, root, stats, &mut dropped);
        }
    }
    if pass.include_comments {
        add_comment_sections(dom, signals, &dropped, stats, &mut roots);
    }
    let semantic = is_semantic_container(dom, top_id)
        || ancestors(dom, top_id).any(|a| is_semantic_container(dom, a));
    Selection {
        link_density: roots_link_density(&roots, stats),
        roots,
        dropped,
        semantic,
        page_text,
    }
}

/// Whether `id` sits inside a question or an answer of a Q&A page (an ancestor's class
/// has the word `question` or `answer`).
fn in_question_or_answer(dom: &Dom, id: NodeId) -> bool {
    ancestors(dom, id).any(|a| {
        dom.attr(a, AttrName::Class).is_some_and(|class| {
            class
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w.eq_ignore_ascii_case("answer") || w.eq_ignore_ascii_case("question"))
        })
    })
}

/// A "Skip to main content" link: a jump within the page for keyboard and screen-reader
/// users, not text of the page.
fn is_skip_link(dom: &Dom, id: NodeId) -> bool {
    dom.attr(id, AttrName::Href)
        .is_some_and(|h| h.starts_with('#'))
        && (id + 1..dom.subtree_end(id).min(id + 4))
            .filter(|&i| dom.node(i).kind == Kind::Text)
            .map(|i| dom.text(i).trim_start())
            .find(|t| !t.is_empty())
            .is_some_and(|t| {
                t.get(..7)
                    .is_some_and(|p| p.eq_ignore_ascii_case("skip to"))
            })
}

/// The most text an author's standing line ("Join Date: Aug 2008") holds.
const AUTHOR_STAT_MAX_CHARS: u32 = 40;

/// Labels of a forum poster's standing, lowercase: what a post's author box lists under
/// the name (XenForo, phpBB, vBulletin, FluxBB and kin).
const AUTHOR_STAT_LABELS: &[&str] = &[
    "joined",
    "join date",
    "registered",
    "member since",
    "posts",
    "messages",
    "reaction score",
    "points",
    "trophy points",
    "likes received",
    "location",
    "reputation",
];

/// Whether short element `id` opens with an author-standing label: its first words are
/// one of `AUTHOR_STAT_LABELS`, alone in their text node or followed by a colon.
fn is_author_stat(dom: &Dom, id: NodeId) -> bool {
    let end = dom.subtree_end(id).min(id + 8);
    let Some(first) = (id + 1..end)
        .filter(|&i| dom.node(i).kind == Kind::Text)
        .map(|i| dom.text(i).trim())
        .find(|t| !t.is_empty())
    else {
        return false;
    };
    let label = first.split(':').next().unwrap_or("").trim_end();
    (label.len() == first.len() || first[label.len()..].trim_start().starts_with(':'))
        && AUTHOR_STAT_LABELS
            .iter()
            .any(|l| l.eq_ignore_ascii_case(label))
}

/// A tab panel: one of several views of the content (code in each language), hidden or not.
fn is_tab_panel(dom: &Dom, id: NodeId) -> bool {
    dom.attr(id, AttrName::Role)
        .is_some_and(|r| r.eq_ignore_ascii_case("tabpanel"))
}

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

/// Whether hidden `id` is folded text: a collapsed FAQ answer, an accordion panel or a
/// "read more" expansion after its visible toggle, link-poor and without form controls.
/// It is the page's text, folded for the eye; but it scores no points (see `select`), so a
/// hidden modal or data island never wins the main block.
fn is_folded_prose(dom: &Dom, signals: &Signals<'_>, id: NodeId) -> bool {
    let signal = signals.get(id as usize);
    !signal.negative && !signal.strong && follows_a_toggle(dom, id) && {
        let (text, link, controls) = raw_text(dom, id, dom.subtree_end(id));
        text >= HIDDEN_PROSE_CHARS && link * 100 < text * 15 && !controls
    }
}

/// Whether the element before `id` is a visible line of text (a question, a "Read more"
/// teaser, a tab or accordion button): what a folded answer follows. A hidden block after
/// nothing, or after a rule, is a template for a script (a modal, a data island).
fn follows_a_toggle(dom: &Dom, id: NodeId) -> bool {
    let Some(prev) = previous_element(dom, id) else {
        return false;
    };
    // Counted with button labels, which the reader never renders.
    let mut text = 0;
    let mut i = prev;
    let end = dom.subtree_end(prev);
    while i < end && text <= 300 {
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
    !dom.node(prev).hidden && (1..=300).contains(&text)
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

/// Drop blocks whose text repeats an earlier kept block: pages ship the same copy twice,
/// once for wide screens and once in a collapsed panel for narrow ones, or a whole post
/// again in a print or "amp" copy. A block is a paragraph or any block element (a product
/// description's `<div>` of short paragraphs repeats whole while no paragraph of it is
/// long). Returns whether it dropped any.
pub(crate) fn drop_repeated_blocks(dom: &Dom, selection: &mut Selection) -> bool {
    // Per node of the roots' subtrees, a polynomial hash of its kept non-space bytes,
    // built bottom-up in one pass: a node's hash is its children's, concatenated.
    let mut seen = rustc_hash::FxHashSet::default();
    let mut any = false;
    let mut sums: Vec<(u64, u64, u32)> = Vec::new();
    for &root in &selection.roots {
        let end = dom.subtree_end(root);
        let base = root as usize;
        sums.clear();
        sums.resize((end - root) as usize, (0, 1, 0));
        for i in (base..end as usize).rev() {
            if selection.dropped[i] {
                continue;
            }
            let node = &dom.nodes[i];
            // A text of ASCII whitespace only hashes to the empty hash it starts with.
            if node.kind == Kind::Text && dom.text_sizes[i].visible > 0 {
                let (mut h, mut len) = (0u64, 0u32);
                // Branch-free: a space multiplies by one and adds nothing (spaces are
                // unpredictable, and a missed branch costs more than the multiply).
                for &b in dom.text(i as NodeId).as_bytes() {
                    let space = b.is_ascii_whitespace();
                    let (times, plus) = if space {
                        (1, 0)
                    } else {
                        (HASH_BASE, u64::from(b))
                    };
                    h = h.wrapping_mul(times).wrapping_add(plus);
                    len += u32::from(!space);
                }
                sums[i - base] = (h, wrapping_pow(HASH_BASE, len), len);
            }
            let parent = node.parent as usize;
            if i == base || parent < base {
                continue;
            }
            // Children are met last first: prepend.
            let (h, pow, len) = sums[i - base];
            let acc = &mut sums[parent - base];
            acc.0 = h.wrapping_mul(acc.1).wrapping_add(acc.0);
            acc.1 = pow.wrapping_mul(acc.1);
            acc.2 += len;
        }
        let mut i = root;
        while i < end {
            let node = dom.node(i);
            let at = i as usize;
            if selection.dropped[at] {
                i = dom.subtree_end(i);
                continue;
            }
            let (h, _, len) = sums[at - base];
            let parent = node.parent as usize;
            // A wrapper around one block holds the same text: it is that block, not a repeat.
            let same_as_parent = at != base && parent >= base && sums[parent - base].2 == len;
            if node.kind == Kind::Element
                && !node.tag.is_inline()
                && len as usize >= REPEATED_BLOCK_MIN
                && !same_as_parent
                && !seen.insert(h)
            {
                let sub = dom.subtree_end(i);
                selection.dropped[at..sub as usize].fill(true);
                any = true;
                i = sub;
                continue;
            }
            i += 1;
        }
    }
    any
}

/// `base^exp` modulo 2^64, by squaring.
fn wrapping_pow(mut base: u64, mut exp: u32) -> u64 {
    let mut out = 1u64;
    while exp > 0 {
        if exp & 1 == 1 {
            out = out.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    out
}

/// Blocks shorter than this may repeat ("Read more", a price, a date).
const REPEATED_BLOCK_MIN: usize = 200;
const HASH_BASE: u64 = 0x100_0000_01b3;

/// Drop the page's title where it opens the content as a heading: it is metadata (the
/// Document carries it as `title`), and repeating it costs the reader nothing but tokens.
pub(crate) fn drop_title_heading(dom: &Dom, selection: &mut Selection, title: &str) {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let title = key(title);
    if title.len() < 8 {
        return;
    }
    for &root in &selection.roots {
        let end = dom.subtree_end(root);
        for i in root..end {
            let tag = dom.node(i).tag;
            if selection.dropped[i as usize] || !matches!(tag, Tag::H1 | Tag::H2) {
                continue;
            }
            let heading = key(&dom.raw_text(i));
            if heading.len() >= 8 && (title == heading || title.contains(&heading)) {
                let end = dom.subtree_end(i) as usize;
                selection.dropped[i as usize..end].fill(true);
                return;
            }
        }
    }
}

/// How much more text than the winner a declared content container may hold and still be
/// taken whole.
const WIDEN_TEXT_RATIO: u32 = 2;
/// The same on documentation pages, where the best block is often one section of many.
const WIDEN_TEXT_RATIO_REFERENCE: u32 = 4;
/// The most link text (share of its text) such a container may hold.
const WIDEN_MAX_LINK_DENSITY: f32 = 0.2;

/// Move the winner up to the declared content container around it (`<main>`, `<article>`,
/// `role=main`, a `content`/`main` class) when that container is link-poor and not much
/// bigger: the best block is then one section of a longer page (a manual page's options,
/// a reference page's members) and the container is the page's body.
fn widen(
    dom: &Dom,
    signals: &Signals<'_>,
    stats: &[Stats],
    dropped: &[bool],
    top: usize,
    link_tolerant: bool,
) -> usize {
    let mut best = top;
    let (ratio, max_density) = if link_tolerant {
        (WIDEN_TEXT_RATIO_REFERENCE, LINK_TOLERANT_DENSITY)
    } else {
        (WIDEN_TEXT_RATIO, WIDEN_MAX_LINK_DENSITY)
    };
    let limit = stats[top].text.saturating_mul(ratio);
    for a in ancestors(dom, top as NodeId) {
        let s = &stats[a as usize];
        if dropped[a as usize] || s.text > limit {
            break;
        }
        let declared = is_semantic_container(dom, a)
            || signals.get(a as usize).positive && !signals.get(a as usize).negative
            || dom
                .attr(a, AttrName::Role)
                .is_some_and(|r| r.eq_ignore_ascii_case("main"));
        if declared && link_density(s) < max_density {
            best = a as usize;
        }
    }
    best
}

/// Move the winner up when its ancestors say the content is wider than it.
fn climb(dom: &Dom, score: &[f32], scored: &[bool], dropped: &[bool], mut top: usize) -> usize {
    // Several near-best candidates under one ancestor: the content is that ancestor.
    let best = score[top];
    let mut alternatives: Vec<usize> = (1..score.len())
        .filter(|&i| i != top && scored[i] && score[i] >= best * 0.75)
        .collect();
    alternatives.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
    alternatives.truncate(5);
    if alternatives.len() >= 3 {
        let mut parent = dom.nodes[top].parent;
        while parent != 0 && parent != NONE {
            let end = dom.subtree_end(parent) as usize;
            let inside = alternatives
                .iter()
                .filter(|&&a| a > parent as usize && a < end)
                .count();
            if inside >= 3 {
                top = parent as usize;
                break;
            }
            parent = dom.nodes[parent as usize].parent;
        }
    }
    // A parent scoring better than the winner (it gathered points from more blocks).
    let mut last = score[top];
    let threshold = last / 3.0;
    let mut parent = dom.nodes[top].parent;
    while parent != 0 && parent != NONE {
        let p = parent as usize;
        if scored[p] {
            if score[p] < threshold {
                break;
            }
            if score[p] > last {
                top = p;
                break;
            }
            last = score[p];
        }
        parent = dom.nodes[p].parent;
    }
    // An only child says nothing its parent does not.
    loop {
        let parent = dom.nodes[top].parent;
        if parent == 0 || parent == NONE {
            break;
        }
        let kept_children = dom
            .children(parent)
            .filter(|&c| {
                !dropped[c as usize]
                    && (dom.nodes[c as usize].kind == Kind::Element
                        || !dom.text(c).trim().is_empty())
            })
            .count();
        if kept_children != 1 {
            break;
        }
        top = parent as usize;
    }
    top
}

/// Prune, bottom-up, containers inside the content that look like boilerplate: link-heavy
/// blocks, image galleries, forms, and near-empty wrappers.
#[allow(
    clippy::too_many_arguments,
    reason = "the pruning pass threads the DOM, its signals and the scoring tables"
)]
fn clean_conditionally(
    dom: &Dom,
    root: NodeId,
    signals: &Signals<'_>,
    score: &[f32],
    scored: &[bool],
    stats: &[Stats],
    dropped: &mut [bool],
    pass: Pass,
) {
    let weight_classes = pass.weight_classes;
    // A reference page's lists of links inside its body ("You will learn", the guides
    // of a section) are what the page is for.
    let (max_density, max_list_density) = if pass.link_tolerant {
        (LINK_TOLERANT_DENSITY, 1.0)
    } else {
        (0.2, 0.5)
    };
    let end = dom.subtree_end(root) as usize;
    let mut stats = stats[root as usize..end].to_vec();
    let base = root as usize;
    for i in (base..end).rev() {
        let node = &dom.nodes[i];
        if dropped[i] || node.kind != Kind::Element {
            continue;
        }
        if !matches!(
            node.tag,
            Tag::Form
                | Tag::Fieldset
                | Tag::Table
                | Tag::Ul
                | Tag::Ol
                | Tag::Div
                | Tag::Section
                | Tag::Figure
                | Tag::Dl
        ) {
            continue;
        }
        let s = stats[i - base];
        let weight = if weight_classes {
            pass_weight(pass, signals.get(i))
        } else {
            0.0
        };
        // Lists start below zero (their items are scored); only a class says "drop".
        let content_score = if scored[i] { score[i].max(0.0) } else { 0.0 };
        let is_list = matches!(node.tag, Tag::Ul | Tag::Ol | Tag::Dl);
        // A post's author line in a thread: a name link and a date.
        let post_meta = pass.thread && s.text < 100 && is_post_meta(dom, i as NodeId);
        let drop = if post_meta {
            false
        } else if weight + content_score < 0.0 {
            true
        } else if s.commas >= 10
            || s.code_blocks > 0
            || node.tag == Tag::Table && is_data_table(dom, i as NodeId)
        {
            false
        } else {
            let density = link_density(&s);
            let paragraphs = s.paragraphs as f32;
            let images = s.images as f32;
            let heading_density = if s.text == 0 {
                0.0
            } else {
                s.heading_text as f32 / s.text as f32
            };
            let in_figure = node.tag == Tag::Figure
                || ancestors(dom, i as NodeId).any(|a| dom.nodes[a as usize].tag == Tag::Figure);
            (images > 1.0 && paragraphs / images < 0.5 && !in_figure)
                || (!is_list && s.list_items as f32 - 100.0 > paragraphs)
                || (s.inputs as f32 > (paragraphs / 3.0).floor())
                || (!is_list
                    && heading_density < 0.9
                    && s.text < 25
                    && (s.images == 0 || s.images > 2)
                    && !in_figure)
                || (!is_list && weight < 25.0 && density > max_density)
                || (is_list && weight < 25.0 && density > max_list_density)
                || (weight >= 25.0 && density > 0.5)
        };
        if drop && i != base {
            dropped[i] = true;
            dropped[i + 1..dom.subtree_end(i as NodeId) as usize].fill(true);
            // Ancestors no longer contain what was dropped.
            let mut cur = node.parent as usize;
            while cur >= base && cur != NONE as usize {
                let a = &mut stats[cur - base];
                a.text = a.text.saturating_sub(s.text);
                a.link = a.link.saturating_sub(s.link);
                a.commas = a.commas.saturating_sub(s.commas);
                a.paragraphs = a.paragraphs.saturating_sub(s.paragraphs);
                a.images = a.images.saturating_sub(s.images);
                a.list_items = a.list_items.saturating_sub(s.list_items);
                a.inputs = a.inputs.saturating_sub(s.inputs);
                a.heading_text = a.heading_text.saturating_sub(s.heading_text);
                if cur == base {
                    break;
                }
                cur = dom.nodes[cur].parent as usize;
            }
        }
    }
}

/// The broad selection's pruning, gentler than `clean_conditionally` (a listing's items are
/// links with a line of text each): drop, outermost first, blocks that are almost only
/// links (menus, link farms), and forms.
fn clean_link_blocks(dom: &Dom, root: NodeId, stats: &[Stats], dropped: &mut [bool]) {
    let end = dom.subtree_end(root) as usize;
    let mut i = root as usize + 1;
    while i < end {
        let node = &dom.nodes[i];
        if dropped[i] || node.kind != Kind::Element {
            i += 1;
            continue;
        }
        let s = &stats[i];
        let block = matches!(
            node.tag,
            Tag::Div | Tag::Section | Tag::Ul | Tag::Ol | Tag::Table | Tag::Form | Tag::Dl
        );
        let linky = s.text > 0 && link_density(s) > 0.75 && s.commas < 3 && s.code_blocks == 0;
        if block && (linky || node.tag == Tag::Form && s.inputs > 0) {
            let sub = dom.subtree_end(i as NodeId) as usize;
            dropped[i..sub].fill(true);
            i = sub;
            continue;
        }
        i += 1;
    }
}

/// Append the page's comment sections (outermost ones, outside the chosen content) as
/// extra roots, in document order.
fn add_comment_sections(
    dom: &Dom,
    signals: &Signals<'_>,
    dropped: &[bool],
    stats: &[Stats],
    roots: &mut Vec<NodeId>,
) {
    let covered: Vec<(NodeId, NodeId)> = roots.iter().map(|&r| (r, dom.subtree_end(r))).collect();
    let mut i = 1;
    while i < dom.nodes.len() {
        let id = i as NodeId;
        let inside_or_around = covered.iter().any(|&(start, end)| {
            (id >= start && id < end) || (start > id && start < dom.subtree_end(id))
        });
        if !dropped[i] && signals.get(i).comments && stats[i].text > 0 && !inside_or_around {
            roots.push(id);
            i = dom.subtree_end(id) as usize;
            continue;
        }
        i += 1;
    }
    roots.sort_unstable();
}

/// Drop runs of two or more sibling paragraphs that are nothing but a link ("related
/// stories" written as paragraphs), and a short lead-in line right before such a run
/// ("You may also like…").
fn drop_link_runs(dom: &Dom, root: NodeId, stats: &[Stats], dropped: &mut [bool]) {
    let end = dom.subtree_end(root);
    let link_only = |id: NodeId, dropped: &[bool]| {
        let s = &stats[id as usize];
        dom.node(id).tag == Tag::P
            && !dropped[id as usize]
            && s.text > 0
            && s.link as f32 >= 0.9 * s.text as f32
    };
    for parent in root..end {
        if dropped[parent as usize] || dom.node(parent).kind != Kind::Element {
            continue;
        }
        let children: Vec<NodeId> = dom
            .children(parent)
            .filter(|&c| dom.node(c).kind == Kind::Element && !dropped[c as usize])
            .collect();
        let mut i = 0;
        while i < children.len() {
            let mut j = i;
            while j < children.len() && link_only(children[j], dropped) {
                j += 1;
            }
            if j - i >= 2 {
                for &c in &children[i..j] {
                    dropped[c as usize..dom.subtree_end(c) as usize].fill(true);
                }
                if i > 0 {
                    let lead = children[i - 1];
                    let s = &stats[lead as usize];
                    let is_lead_in = (dom.node(lead).tag == Tag::P
                        || dom.node(lead).tag.heading_level().is_some())
                        && s.text < 40
                        && !ends_sentence(dom, lead);
                    if is_lead_in {
                        dropped[lead as usize..dom.subtree_end(lead) as usize].fill(true);
                    }
                }
            }
            i = j.max(i + 1);
        }
    }
}

/// A table that holds data rather than layout: header cells, a caption, or a grid.
fn is_data_table(dom: &Dom, table: NodeId) -> bool {
    let end = dom.subtree_end(table);
    let mut rows = 0;
    for i in table + 1..end {
        match dom.node(i).tag {
            Tag::Th | Tag::Caption | Tag::Thead => return true,
            Tag::Table => return false,
            Tag::Tr => rows += 1,
            _ => {}
        }
    }
    rows >= 3
}

/// The sums the boilerplate drops read, over what the hard drops leave: a lighter walk than
/// `compute_stats`, whose other counts only selection reads.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    text: u32,
    link: u32,
    paragraphs: u32,
}

impl Sums {
    /// As `link_density` of the same node's `Stats`.
    fn link_density(&self) -> f32 {
        if self.text == 0 {
            0.0
        } else {
            (self.link as f32 / self.text as f32).min(1.0)
        }
    }
}

/// `Sums` per node; each field is summed as `compute_stats` sums it.
fn compute_sums(dom: &Dom, dropped: &[bool]) -> Vec<Sums> {
    let n = dom.nodes.len();
    let mut sums = vec![Sums::default(); n];
    for i in (1..n).rev() {
        if dropped[i] {
            continue;
        }
        let node = &dom.nodes[i];
        let mut s = sums[i];
        match node.kind {
            Kind::Text => s.text = dom.text_sizes[i].visible,
            Kind::Element => match node.tag {
                Tag::A => s.link = s.text,
                Tag::P | Tag::Blockquote | Tag::Pre => s.paragraphs += 1,
                _ => {}
            },
            Kind::Document => {}
        }
        sums[i] = s;
        let p = &mut sums[node.parent as usize];
        p.text += s.text;
        p.link += s.link;
        p.paragraphs += s.paragraphs;
    }
    sums
}

pub(crate) fn compute_stats(dom: &Dom, dropped: &[bool]) -> Vec<Stats> {
    let n = dom.nodes.len();
    let mut stats = vec![Stats::default(); n];
    for i in (1..n).rev() {
        if dropped[i] {
            continue;
        }
        let node = &dom.nodes[i];
        let parent = node.parent as usize;
        let mut s = stats[i];
        match node.kind {
            Kind::Text => {
                let size = dom.text_sizes[i];
                s.text = size.visible;
                s.inline = size.visible;
                s.commas = size.commas;
                s.inline_commas = size.commas;
            }
            Kind::Element => match node.tag {
                Tag::A => s.link = s.text,
                Tag::P | Tag::Blockquote => s.paragraphs += 1,
                Tag::Pre => {
                    s.paragraphs += 1;
                    s.code_blocks += 1;
                }
                Tag::Img => s.images += 1,
                Tag::Li => s.list_items += 1,
                Tag::Input | Tag::Select | Tag::Textarea | Tag::Button => s.inputs += 1,
                t if t.heading_level().is_some() => s.heading_text = s.text,
                _ => {}
            },
            Kind::Document => {}
        }
        stats[i] = s;
        let p = &mut stats[parent];
        p.text += s.text;
        p.link += s.link;
        p.commas += s.commas;
        p.paragraphs += s.paragraphs;
        p.images += s.images;
        p.list_items += s.list_items;
        p.inputs += s.inputs;
        p.heading_text += s.heading_text;
        p.code_blocks += s.code_blocks;
        if node.kind == Kind::Text || node.tag.is_inline() {
            p.inline += s.inline;
            p.inline_commas += s.inline_commas;
        } else {
            p.has_block_child = true;
        }
    }
    stats
}

/// Link text over all text of the chosen roots together; 1.0 when they hold no text.
fn roots_link_density(roots: &[NodeId], stats: &[Stats]) -> f32 {
    let (text, link) = roots.iter().fold((0, 0), |(t, l), &r| {
        (t + stats[r as usize].text, l + stats[r as usize].link)
    });
    if text == 0 {
        1.0
    } else {
        link as f32 / text as f32
    }
}

pub(crate) fn link_density(s: &Stats) -> f32 {
    if s.text == 0 {
        0.0
    } else {
        (s.link as f32 / s.text as f32).min(1.0)
    }
}

/// A paragraph, or a wrapper that holds just one (a `<div>` of running text, a
/// `<div><p>…</p></div>`): such siblings of the content are part of it when link-poor.
fn is_paragraph_like(tag: Tag, s: &Stats) -> bool {
    tag == Tag::P
        || matches!(tag, Tag::Div | Tag::Section | Tag::Blockquote | Tag::Other)
            && s.paragraphs <= 1
            && s.list_items == 0
            && s.images <= 1
            && s.heading_text == 0
}

fn initial_score(tag: Tag) -> f32 {
    match tag {
        Tag::Div => 5.0,
        Tag::Article | Tag::Main => 10.0,
        Tag::Pre | Tag::Td | Tag::Blockquote => 3.0,
        Tag::Address | Tag::Ol | Tag::Ul | Tag::Dl | Tag::Dd | Tag::Dt | Tag::Li | Tag::Form => {
            -3.0
        }
        Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6 | Tag::Th => -5.0,
        _ => 0.0,
    }
}

/// Elements whose name says "content": never dropped for their class words.
fn is_content_tag(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Article
            | Tag::Main
            | Tag::Table
            | Tag::Tbody
            | Tag::Tr
            | Tag::Td
            | Tag::Th
            | Tag::Pre
            | Tag::Code
            | Tag::A
    )
}

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
        if chars > 120 {
            return false;
        }
    }
    link && time
}

/// Tags never rendered, whatever the pass. Ruby annotations (`<rt>`, `<rp>`) go too: the
/// text keeps the base characters only (漢字, not 漢kan字ji).
fn is_hard_dropped(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Rt
            | Tag::Rp
            | Tag::Script
            | Tag::Style
            | Tag::Noscript
            | Tag::Template
            | Tag::Svg
            | Tag::Math
            | Tag::Canvas
            | Tag::Iframe
            | Tag::Object
            | Tag::Embed
            | Tag::Meta
            | Tag::Link
            | Tag::Title
            | Tag::Base
            | Tag::Head
            | Tag::Select
            | Tag::Option
            | Tag::Textarea
            | Tag::Button
    )
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

#[cfg(test)]
mod tests {
    use super::wrapping_pow;

    #[test]
    fn wrapping_pow_is_repeated_multiplication() {
        let base = super::HASH_BASE;
        let mut expected = 1u64;
        for exp in 0..300 {
            assert_eq!(wrapping_pow(base, exp), expected, "{exp}");
            expected = expected.wrapping_mul(base);
        }
    }
}
