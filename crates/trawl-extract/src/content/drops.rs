//! Boilerplate drops: the tags no pass renders (hard drops), then per pass the landmarks,
//! roles, class words, hidden and comment blocks that are not content (soft drops), made
//! once per distinct drop policy and shared by the passes that drop alike.

use crate::boilerplate::{Signals, is_boilerplate_role, is_dropped_element};
use crate::dom::{AttrName, Dom, HiddenBy, Kind, NONE, NodeId, Tag};

use super::dialog::is_open_dialog;
use super::listing::{ITEM, listing_items, spares};
use super::stats::{Stats, Sums, compute_stats, compute_sums};
use super::{
    HIDDEN_SHOWN_SHARE, Pass, ancestors, is_post_meta, is_semantic_container, is_tab_panel,
};

/// A pass's boilerplate drops, per node, and the stats of what they leave.
pub(crate) struct Boiled {
    pub(crate) dropped: Vec<bool>,
    pub(crate) stats: Vec<Stats>,
    /// Under a listing policy, the listing's items and wrappers (see `listing`), which the
    /// pruning spares too; empty otherwise.
    pub(crate) items: Vec<u8>,
}

/// What the boilerplate drops read of a pass, and so the key they are cached under:
/// passes that differ only in how they score (`weight_classes`, `clean_conditionally`,
/// `link_tolerant`) have one policy and share its drops. `drop_boilerplate` is given only
/// this, so it cannot read a setting the key leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DropPolicy {
    strip_unlikely: bool,
    thread: bool,
    include_comments: bool,
    show_hidden: bool,
    widen: bool,
    listing: bool,
    reviews_are_comments: bool,
}

impl From<Pass> for DropPolicy {
    fn from(pass: Pass) -> DropPolicy {
        // Every field named, no `..`: a new `Pass` setting does not compile until it is put
        // on one side (the drops read it) or the other (only scoring does).
        let Pass {
            strip_unlikely,
            thread,
            include_comments,
            show_hidden,
            widen,
            listing,
            reviews_are_comments,
            weight_classes: _,
            clean_conditionally: _,
            link_tolerant: _,
            short_sections: _,
            short_lines: _,
        } = pass;
        DropPolicy {
            strip_unlikely,
            thread,
            include_comments,
            show_hidden,
            widen,
            listing,
            reviews_are_comments,
        }
    }
}

/// The boilerplate drops of a page's passes. What they all start from (the hard drops,
/// the stats of what those leave, the wrappers of the declared content) is made once, and
/// each distinct policy's drops once: the stats walks are the costly part of a pass.
pub(crate) struct Drops {
    hard: Vec<bool>,
    /// Sums over what the hard drops leave, read by every pass's soft drops.
    sums: Vec<Sums>,
    holds_main: Vec<bool>,
    /// A listing's items (see `listing`), found when a listing policy first asks.
    items: Option<Vec<u8>>,
    /// A page's passes have at most three policies: a list beats a hash map.
    made: Vec<(DropPolicy, Boiled)>,
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
            items: None,
            made: Vec::new(),
        }
    }

    /// Nodes no pass keeps: hard-dropped tags and what they hold.
    pub(crate) fn hard_dropped(&self) -> &[bool] {
        &self.hard
    }

    /// `pass`'s drops, made on first use of its policy.
    pub(crate) fn get(&mut self, dom: &Dom, pass: Pass, signals: &Signals<'_>) -> &Boiled {
        let policy = DropPolicy::from(pass);
        let at = match self.made.iter().position(|(made, _)| *made == policy) {
            Some(at) => at,
            None => {
                if policy.listing && self.items.is_none() {
                    self.items = Some(listing_items(dom, &self.hard, &self.sums));
                }
                let boiled = self.drop_boilerplate(dom, policy, signals);
                self.made.push((policy, boiled));
                self.made.len() - 1
            }
        };
        &self.made[at].1
    }

    /// Drop what is never content: on top of the hard-dropped tags, hidden nodes, then
    /// landmarks, roles and class/id words (soft drops).
    fn drop_boilerplate(&self, dom: &Dom, policy: DropPolicy, signals: &Signals<'_>) -> Boiled {
        let n = dom.nodes.len();
        let mut dropped = self.hard.clone();
        let sums = &self.sums;
        let holds_main = &self.holds_main;
        let items: &[u8] = match (&self.items, policy.listing) {
            (Some(items), true) => items,
            _ => &[],
        };
        let total = sums[0].text.max(1);
        let mut rescued = vec![false; n];

        // Soft drops: landmark elements, roles and class/id words. A node holding most of the
        // page's text is kept whatever its name says (a `<div class="has-sidebar">` wrapper).
        for i in 1..n {
            let node = &dom.nodes[i];
            if dropped[i] || node.kind != Kind::Element {
                continue;
            }
            // A wrapper spared for the listing it holds (see below) is spared for that
            // alone: what else it holds (a block of shop copy, a banner) goes with it.
            if dropped[node.parent as usize]
                || rescued[node.parent as usize] && items.get(i).is_none_or(|&m| m == 0)
            {
                dropped[i] = true;
                continue;
            }
            let id = i as NodeId;
            let signal = signals.get(i);
            let share = sums[i].text as f32 / total as f32;
            // Off an article page, a `<header>` inside an `<article>` is that card's head (its
            // title and summary in a river of stories), and one inside `<main>` is the head of
            // the content (a landing page's hero: its heading and pitch), not the site's banner.
            let by_tag = is_dropped_element(node.tag)
                && !(node.tag == Tag::Header
                    && ancestors(dom, id).any(|a| {
                        let tag = dom.node(a).tag;
                        policy.widen && matches!(tag, Tag::Article | Tag::Main)
                    }));
            let by_role = dom.attr(id, AttrName::Role).is_some_and(|r| {
                is_boilerplate_role(r)
                    && !is_accordion(r, &sums[i])
                    && !(is_open_dialog(dom, id) && is_prose(&sums[i]))
            });
            let by_class = policy.strip_unlikely
                && (signal.strong
                    || signal.negative
                        && !signal.positive
                        && !(policy.thread && is_post_meta(dom, id)))
                && !is_content_tag(node.tag)
                && !holds_main[i]
                && (!is_prose(&sums[i]) || signal.footer)
                && !(signal.header && is_intro(&sums[i]));
            // In a thread the replies are the content, not comments on it; but on a
            // question-and-answer page the answers are the replies, and the comments under a
            // question or an answer are asides to it.
            let by_comments = (signal.comments || signal.reviews && policy.reviews_are_comments)
                && !policy.include_comments
                && !signal.positive
                && (!policy.thread || in_question_or_answer(dom, id));
            // A listing's items, and the wrappers around the listing, are kept whatever
            // their class words say (see `listing`).
            let mark = items.get(i).copied().unwrap_or(0);
            let spared_class = by_class && spares(mark, sums[i].text, sums[i].link);
            let spared_comments = by_comments && mark == ITEM;
            rescued[i] = spared_class && share < NAMED_MAX_SHARE
                || spared_comments && share < COMMENTS_MAX_SHARE;
            let by_class = by_class && !spared_class;
            let by_comments = by_comments && !spared_comments;
            // Hidden until a script shows it: a node holding most of the page is shown. A
            // hidden tab panel is one of several views of the content (code in each language).
            let by_hiding = node.hidden
                && !policy.show_hidden
                && !is_tab_panel(dom, id)
                && !signal.folded
                && !is_class_hidden_panel(dom, id);
            // A landmark that is nearly all links is navigation however much of the page it
            // holds (a book's table of contents beside one chapter).
            let link_landmark = (by_tag || by_role) && sums[i].link_density() > NAV_LINK_DENSITY;
            // In a thread, a poster's standing beside each post ("Joined Jun 2016", "Posts: 98")
            // is about the author, not the post.
            let author_stat = policy.thread
                && sums[i].text <= AUTHOR_STAT_MAX_CHARS
                && sums[i].text > 0
                && is_author_stat(dom, id);
            // A cookie or consent banner is never content, however loose the pass and
            // however much of a short page it holds.
            let by_consent = signal.consent && !is_content_tag(node.tag) && !holds_main[i];
            if (by_tag || by_role || by_class) && share < NAMED_MAX_SHARE
                || by_consent
                || link_landmark
                || author_stat
                || node.tag == Tag::A && is_skip_link(dom, id)
                || by_hiding && (share < HIDDEN_SHOWN_SHARE || node.hidden_by.for_good())
                || by_comments
                    && (share < COMMENTS_MAX_SHARE
                        || sums[0].long_paragraphs - sums[i].long_paragraphs
                            >= POST_MIN_LONG_PARAGRAPHS)
            {
                dropped[i] = true;
            }
        }
        let stats = compute_stats(dom, &dropped);
        Boiled {
            dropped,
            stats,
            items: items.to_vec(),
        }
    }
}

/// One of a set of sibling panels hidden by class, of which a script shows one at a time
/// (tabs, slides): each is the page's text, though the markup hides all of them.
fn is_class_hidden_panel(dom: &Dom, id: NodeId) -> bool {
    let node = dom.node(id);
    if node.hidden_by != HiddenBy::Class {
        return false;
    }
    let hidden_by_class = |s: NodeId| s != NONE && dom.node(s).hidden_by == HiddenBy::Class;
    // The next element sibling, past whitespace.
    let mut next = node.next_sibling;
    while next != NONE && dom.node(next).kind == Kind::Text {
        next = dom.node(next).next_sibling;
    }
    if hidden_by_class(next) {
        return true;
    }
    let parent = node.parent;
    let mut sib = if parent == NONE {
        NONE
    } else {
        dom.node(parent).first_child
    };
    let mut prev = NONE;
    while sib != NONE && sib != id {
        if dom.node(sib).kind == Kind::Element {
            prev = sib;
        }
        sib = dom.node(sib).next_sibling;
    }
    hidden_by_class(prev)
}

/// A `role=tablist` holding this many visible characters or more, under half of them
/// links, is an accordion (Bootstrap's `panel-group` puts the role on the whole box of
/// questions and answers), not a strip of tabs: a strip is a few words a tab.
const ACCORDION_MIN_CHARS: u32 = 200;

/// Whether an element of role `role` is an accordion wearing the tab strip's role (see
/// `ACCORDION_MIN_CHARS`).
fn is_accordion(role: &str, sums: &Sums) -> bool {
    role.trim().eq_ignore_ascii_case("tablist")
        && sums.text >= ACCORDION_MIN_CHARS
        && sums.link * 2 < sums.text
}

/// A node named like boilerplate (by tag, role or class) that holds this share of the
/// page's text or more is the page's wrapper, whatever its name says.
const NAMED_MAX_SHARE: f32 = 0.5;
/// Comments holding this share of the page or more are what the page is (a thread)...
const COMMENTS_MAX_SHARE: f32 = 0.75;
/// ... unless the page holds this many long paragraphs outside them: then it is a post
/// (a guide, an essay) and they are its replies, however many.
const POST_MIN_LONG_PARAGRAPHS: u32 = 3;
/// A declared content element is the main one when it holds at least one
/// `MAIN_MIN_SHARE_DEN`-th of the page's text: a quarter, less would be a teaser card.
const MAIN_MIN_SHARE_DEN: u32 = 4;
/// Inside it, the wrapper holding at least one `INNER_MIN_SHARE_DEN`-th (half) of its text
/// is kept too.
const INNER_MIN_SHARE_DEN: u32 = 2;

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
        if dropped[i] || node.kind != Kind::Element || sums[i].text * MAIN_MIN_SHARE_DEN < total {
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
            && sums[i].text * INNER_MIN_SHARE_DEN >= sums[parent].text
            && sums[i].text * MAIN_MIN_SHARE_DEN >= total
        {
            holds_main[i] = true;
        }
    }
    holds_main
}

/// The link density above which a navigation landmark (`<nav>`, `role=navigation`,
/// `<aside>`…) is dropped even when it holds most of the page's text.
const NAV_LINK_DENSITY: f32 = 0.7;

/// Prose is at least this many paragraphs...
const PROSE_MIN_PARAGRAPHS: u32 = 2;
/// ... holding this many visible characters in all...
const PROSE_MIN_CHARS: u32 = 500;
/// ... and this many per paragraph on average (not a list of one-line items)...
const PROSE_MIN_CHARS_PER_PARAGRAPH: u32 = 100;
/// ... with less than this share of it in links.
const PROSE_MAX_LINK_DENSITY: f32 = 0.1;
/// An intro is at least a paragraph this long...
const INTRO_MIN_CHARS: u32 = 150;
/// ... with less than this share of it in links.
const INTRO_MAX_LINK_DENSITY: f32 = 0.15;

/// Several paragraphs of link-poor running text: content, whatever the wrapper's class
/// says (page builders name their layout boxes `widget-span`, `blurb_position_top`,
/// `no-extra-padding`, `sticky-media-section__content`).
fn is_prose(s: &Sums) -> bool {
    // Either paragraphs long on average, or at least two long ones beside short lines (a
    // review box's verdict above its list of pros and cons).
    (s.paragraphs >= PROSE_MIN_PARAGRAPHS && s.text >= PROSE_MIN_CHARS_PER_PARAGRAPH * s.paragraphs
        || s.long_paragraphs >= PROSE_MIN_PARAGRAPHS)
        && s.text >= PROSE_MIN_CHARS
        && s.link_density() < PROSE_MAX_LINK_DENSITY
}

/// A paragraph of link-poor running text: in a box named `header` it is the head of the
/// content (a product's or reference page's title and intro), not the site's header.
fn is_intro(s: &Sums) -> bool {
    s.paragraphs >= 1 && s.text >= INTRO_MIN_CHARS && s.link_density() < INTRO_MAX_LINK_DENSITY
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

/// How a skip link's text opens (compared without case).
const SKIP_LINK_OPENING: &str = "skip to";

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
                t.get(..SKIP_LINK_OPENING.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(SKIP_LINK_OPENING))
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

/// Tags never rendered, whatever the pass. Ruby annotations (`<rt>`, `<rp>`) go too: the
/// text keeps the base characters only (漢字, not 漢kan字ji).
pub(super) fn is_hard_dropped(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Rt
            | Tag::Rp
            | Tag::Script
            | Tag::Style
            | Tag::Noscript
            | Tag::Template
            | Tag::Svg
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

/// For debugging: the chain of elements from the first text node containing `needle` up
/// to the document, each with its tag, class, drop mark and visible text after the
/// boilerplate drops of `pass`.
pub(crate) fn trace(dom: &Dom, pass: Pass, signals: &Signals<'_>, needle: &str) -> String {
    let mut drops = Drops::new(dom);
    drops.get(dom, pass, signals);
    let sums = &drops.sums;
    let Boiled {
        dropped,
        stats,
        items,
    } = &drops.made[0].1;
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
            "{:?} class={:?} id={:?} dropped={} hidden={} text={} link={} item={} sums={}/{}/{}p signal={:?}\n",
            node.tag,
            dom.attr(cur as NodeId, AttrName::Class).unwrap_or(""),
            dom.attr(cur as NodeId, AttrName::Id).unwrap_or(""),
            dropped[cur],
            node.hidden,
            stats[cur].text,
            stats[cur].link,
            items.get(cur).copied().unwrap_or(0),
            sums[cur].text,
            sums[cur].link,
            sums[cur].paragraphs,
            signals.get(cur),
        ));
        cur = node.parent as usize;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: Pass = Pass {
        strip_unlikely: true,
        weight_classes: true,
        clean_conditionally: true,
        include_comments: false,
        thread: false,
        show_hidden: false,
        widen: true,
        link_tolerant: false,
        listing: false,
        short_sections: false,
        reviews_are_comments: true,
        short_lines: false,
    };

    #[test]
    fn passes_that_differ_only_in_scoring_share_one_policy_and_its_drops() {
        let dom = crate::parse::parse(
            "<html><body><nav><a href='/'>Home</a></nav>\
             <div hidden><p>Kept behind a script until it runs.</p></div>\
             <article><p>The words of the article, long enough to read, and more of them \
             than the hidden block holds, so it is a small part of the page.</p></article>\
             </body></html>",
        );
        let mut drops = Drops::new(&dom);
        let signals = Signals::new(&dom, drops.hard_dropped());
        let strict = drops.get(&dom, STRICT, &signals).dropped.clone();
        let scoring_only = [
            Pass {
                weight_classes: false,
                ..STRICT
            },
            Pass {
                clean_conditionally: false,
                ..STRICT
            },
            Pass {
                link_tolerant: true,
                ..STRICT
            },
            Pass {
                short_sections: true,
                ..STRICT
            },
        ];
        for pass in scoring_only {
            assert_eq!(DropPolicy::from(pass), DropPolicy::from(STRICT));
            assert_eq!(drops.get(&dom, pass, &signals).dropped, strict);
        }
        assert_eq!(
            drops.made.len(),
            1,
            "scoring settings made no drops of their own"
        );

        let show_hidden = Pass {
            show_hidden: true,
            ..STRICT
        };
        assert_ne!(DropPolicy::from(show_hidden), DropPolicy::from(STRICT));
        let shown = drops.get(&dom, show_hidden, &signals).dropped.clone();
        assert_eq!(drops.made.len(), 2);
        assert_ne!(
            shown, strict,
            "the hidden block is kept when hidden nodes show"
        );
        // A fresh walk under the same policy drops the same nodes as the cached one.
        let fresh = Drops::new(&dom).drop_boilerplate(&dom, show_hidden.into(), &signals);
        assert_eq!(fresh.dropped, shown);
    }
}
