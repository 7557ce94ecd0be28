//! Scoring: every block of running text gives points (more for length and commas) to its
//! parent and, decaying, to a few ancestors, each starting from its tag's and class's
//! weight; a container's score is then discounted by its link density. `climb` moves the
//! best-scored block up when its ancestors say the content is wider.

use crate::boilerplate::{ClassSignal, Signals, class_weight};
use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

use super::stats::{Stats, link_density};
use super::{HIDDEN_SHOWN_SHARE, Pass, is_tab_panel};

/// Per node, its score and whether it has one (only the ancestors of running text do).
pub(super) struct Scores {
    pub(super) score: Vec<f32>,
    pub(super) scored: Vec<bool>,
}

/// Score the blocks of running text of what `dropped` keeps into their ancestors.
pub(super) fn score_blocks(
    dom: &Dom,
    pass: Pass,
    signals: &Signals<'_>,
    stats: &[Stats],
    dropped: &[bool],
) -> Scores {
    let n = dom.nodes.len();
    let page_text = stats[0].text;
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
    Scores { score, scored }
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
pub(super) fn climb(
    dom: &Dom,
    score: &[f32],
    scored: &[bool],
    dropped: &[bool],
    mut top: usize,
) -> usize {
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
