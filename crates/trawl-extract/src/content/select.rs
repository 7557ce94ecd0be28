//! Picking the content: the best-scored container (see `scoring`), widened to the declared
//! content container around it on pages of many sections, with the siblings that belong
//! with it, pruned and joined by comment sections as the pass says; or, as the recall
//! safety net, the whole cleaned page.

use crate::boilerplate::Signals;
use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

use super::dialog::open_dialog_article;
use super::drops::Boiled;
use super::pruning::{clean_conditionally, clean_link_blocks, drop_link_runs};
use super::scoring::{Scores, climb, score_blocks};
use super::side_columns::drop_side_column_remains;
use super::stacked::{has_word, section_word, wrapping_section};
use super::stats::{Stats, link_density, roots_link_density};
use super::{
    LINK_TOLERANT_DENSITY, Pass, Selection, ancestors, ends_sentence, is_semantic_container,
};

/// A sibling of the winner joins it when its best candidate scores this share of the
/// winner's...
const SIBLING_SCORE_SHARE: f32 = 0.2;
/// ... and at least this much: a few short lines beside a short winner are not content.
const SIBLING_MIN_SCORE: f32 = 10.0;
/// A sibling with the winner's class is one of its kind (the next post of a thread): it
/// gets this share of the winner's score on top of its own.
const SAME_CLASS_BONUS_SHARE: f32 = 0.2;
/// A sibling that scores enough stays out when a third of its text is links (a rail of
/// teasers).
const SIBLING_MAX_LINK_DENSITY: f32 = 0.33;
/// A paragraph-like sibling longer than this joins when link-poor; a shorter one only as
/// a whole sentence without links.
const SHORT_PARAGRAPH_CHARS: u32 = 80;
/// The most link text (share) a longer paragraph-like sibling may hold.
const PARAGRAPH_MAX_LINK_DENSITY: f32 = 0.25;

/// The content `pass` picks from what its boilerplate drops (`boiled`, see `Drops`) leave,
/// on a page of the site `site` (its host: links elsewhere are to other sites).
pub(crate) fn select(
    dom: &Dom,
    pass: Pass,
    signals: &Signals<'_>,
    boiled: &Boiled,
    site: Option<&str>,
) -> Selection {
    let n = dom.nodes.len();
    let mut dropped = boiled.dropped.clone();
    let stats = &boiled.stats;
    let page_text = stats[0].text;

    let Scores { score, scored } = score_blocks(dom, pass, signals, stats, &dropped);

    // An article open in a dialog is what shows: the winner is found inside it.
    let shown = open_dialog_article(dom, stats, &dropped)
        .map(|d| (d as usize, dom.subtree_end(d) as usize));
    let inside_shown = |i: usize| shown.is_none_or(|(start, end)| i > start && i < end);
    let Some(mut top) = (1..n)
        .filter(|&i| scored[i] && inside_shown(i))
        .max_by(|&a, &b| score[a].total_cmp(&score[b]))
    else {
        return Selection {
            roots: vec![0],
            link_density: link_density(&stats[0]),
            dropped,
            semantic: false,
            page_text,
            in_dialog: false,
        };
    };
    top = climb(dom, &score, &scored, &dropped, top);
    if let Some((dialog, _)) = shown.filter(|_| !inside_shown(top)) {
        top = dialog;
    }
    if pass.widen {
        top = widen(dom, signals, stats, &dropped, top, pass.link_tolerant);
    }
    // The winner is all of a page builder's stacked section (its row of columns): the
    // section is, so that its siblings join it.
    if !pass.thread && boiled.items.get(top).is_none_or(|&m| m == 0) {
        top = wrapping_section(dom, &dropped, top as NodeId).map_or(top, |s| s as usize);
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
    let threshold = (top_score * SIBLING_SCORE_SHARE).max(SIBLING_MIN_SCORE);
    let top_class = dom.attr(top_id, AttrName::Class).unwrap_or("");
    // The winner is one of a page builder's stacked sections: the others are the page too.
    // Not a thread's post nor a listing's item: their siblings have rules of their own.
    let section = (!pass.thread && boiled.items.get(top).is_none_or(|&m| m == 0))
        .then(|| section_word(dom, top_id))
        .flatten();
    let mut roots = Vec::new();
    for sib in dom.children(parent) {
        let s = sib as usize;
        if dropped[s] || dom.nodes[s].kind != Kind::Element {
            continue;
        }
        let keep = if s == top {
            true
        } else if shown.is_some() {
            // Nothing behind an open dialog joins it.
            false
        } else {
            let bonus =
                if !top_class.is_empty() && dom.attr(sib, AttrName::Class) == Some(top_class) {
                    top_score * SAME_CLASS_BONUS_SHARE
                } else {
                    0.0
                };
            let st = &stats[s];
            let density = link_density(st);
            let stacked = section.is_some_and(|w| st.text > 0 && has_word(dom, sib, w));
            (density < SIBLING_MAX_LINK_DENSITY && (stacked || best_inside(s) + bonus >= threshold))
                || is_paragraph_like(dom.nodes[s].tag, st)
                    && (st.text > SHORT_PARAGRAPH_CHARS && density < PARAGRAPH_MAX_LINK_DENSITY
                        || st.text > 0
                            && st.text <= SHORT_PARAGRAPH_CHARS
                            && density == 0.0
                            && ends_sentence(dom, sib))
        };
        if keep {
            roots.push(sib);
        }
    }

    if pass.strip_unlikely && !pass.thread {
        for &root in &roots {
            let best = (root as usize..dom.subtree_end(root) as usize)
                .filter(|&d| scored[d] && !dropped[d])
                .max_by(|&a, &b| score[a].total_cmp(&score[b]));
            if let Some(best) = best {
                drop_side_column_remains(dom, stats, &mut dropped, root, best as NodeId);
            }
        }
    }

    if pass.clean_conditionally {
        // A stacked section's lines are short (a date, a byline, `Height: 9 metres`).
        let prune = Pass {
            short_lines: section.is_some(),
            ..pass
        };
        for &root in &roots {
            clean_conditionally(
                dom,
                root,
                signals,
                &score,
                &scored,
                stats,
                &mut dropped,
                &boiled.items,
                prune,
                site,
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
        in_dialog: shown.is_some(),
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
        if !dropped[i] && signals.get(i).is_comments() && stats[i].text > 0 && !inside_or_around {
            roots.push(id);
            i = dom.subtree_end(id) as usize;
            continue;
        }
        i += 1;
    }
    roots.sort_unstable();
}

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
        let mut kept = dom
            .children(root)
            .filter(|&c| !dropped[c as usize] && stats[c as usize].text > 0);
        match (kept.next(), kept.next()) {
            (Some(only), None) if dom.node(only).kind == Kind::Element => root = only,
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
        clean_link_blocks(dom, r, stats, &mut dropped, &boiled.items);
    }
    Selection {
        link_density: roots_link_density(&roots, stats),
        roots,
        dropped,
        semantic: false,
        page_text,
        in_dialog: false,
    }
}
