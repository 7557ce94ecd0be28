//! Scoring and picking: blocks of running text score into their ancestors, the best
//! container wins (moved up when its ancestors say the content is wider), and its siblings
//! that belong with it join; or, as the recall safety net, the whole cleaned page.

use crate::boilerplate::{ClassSignal, Signals, class_weight};
use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

use super::drops::Boiled;
use super::pruning::{clean_conditionally, clean_link_blocks, drop_link_runs};
use super::stats::{Stats, link_density, roots_link_density};
use super::{
    HIDDEN_SHOWN_SHARE, LINK_TOLERANT_DENSITY, Pass, Selection, ancestors, ends_sentence,
    is_semantic_container, is_tab_panel,
};

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

/// A class's weight in this pass: in a thread the replies are the content, so a
/// `comment` class costs nothing.
pub(super) fn pass_weight(pass: Pass, signal: ClassSignal) -> f32 {
    if pass.thread && signal.comments && !signal.negative && !signal.strong {
        class_weight(ClassSignal {
            comments: false,
            ..signal
        })
    } else {
        class_weight(signal)
    }
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
        if !dropped[i] && signals.get(i).comments && stats[i].text > 0 && !inside_or_around {
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
