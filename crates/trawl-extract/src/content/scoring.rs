//! Scoring: every block of running text gives points (more for length and commas) to its
//! parent and, decaying, to a few ancestors, each starting from its tag's and class's
//! weight; a container's score is then discounted by its link density. `climb` moves the
//! best-scored block up when its ancestors say the content is wider.

use crate::boilerplate::{ClassSignal, Signals, class_weight};
use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

use super::stats::{Stats, link_density};
use super::{HIDDEN_SHOWN_SHARE, Pass, is_tab_panel};

/// Blocks with less text of their own are labels and captions, not running text: they
/// score nothing.
const MIN_SCORED_CHARS: u32 = 25;
/// A block earns a point per this many characters of its own text, on top of one point
/// and one per comma...
const CHARS_PER_POINT: f32 = 100.0;
/// ... up to this many: past a few lines, commas say more about prose than length does.
const MAX_LENGTH_POINTS: f32 = 3.0;
/// How many ancestors a block's points reach: through the few wrappers an article sits
/// in, not up to the page's body.
const SCORED_ANCESTORS: usize = 5;
/// The first ancestor gets a block's points, the next this fraction of them...
const GRANDPARENT_DIVISOR: f32 = 2.0;
/// ... and the one at level `l` (from 2) one `l * FARTHER_DIVISOR_PER_LEVEL`-th: the
/// farther up, the less a block says about the container.
const FARTHER_DIVISOR_PER_LEVEL: f32 = 3.0;
/// An element the page itself calls the article's body (`itemprop=articleBody`) starts
/// with as much as a strong content class gives.
const ARTICLE_BODY_BONUS: f32 = 25.0;
/// Candidates scoring at least this share of the best are near-best...
const NEAR_BEST_SHARE: f32 = 0.75;
/// ... of which the best few are looked at ...
const NEAR_BEST_MAX: usize = 5;
/// ... and when this many sit under one ancestor, the content is that ancestor.
const NEAR_BEST_UNDER_ONE: usize = 3;
/// Climbing stops at a scored ancestor with less than this fraction (one over it) of the
/// winner's score: the content does not reach that far.
const CLIMB_STOP_DIVISOR: f32 = 3.0;

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
        if s.inline < MIN_SCORED_CHARS {
            continue;
        }
        let leaf_like = matches!(
            node.tag,
            Tag::P | Tag::Pre | Tag::Td | Tag::Blockquote | Tag::Li | Tag::Dd
        ) || !s.has_block_child;
        let points = 1.0
            + s.inline_commas as f32
            + (s.inline as f32 / CHARS_PER_POINT).min(MAX_LENGTH_POINTS);
        let mut cur = if leaf_like { node.parent } else { i as NodeId };
        for level in 0..SCORED_ANCESTORS {
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
                    score[c] += ARTICLE_BODY_BONUS;
                }
            }
            score[c] += match level {
                0 => points,
                1 => points / GRANDPARENT_DIVISOR,
                l => points / (l as f32 * FARTHER_DIVISOR_PER_LEVEL),
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
    if pass.thread && signal.is_comments() && !signal.negative && !signal.strong {
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
        .filter(|&i| i != top && scored[i] && score[i] >= best * NEAR_BEST_SHARE)
        .collect();
    alternatives.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
    alternatives.truncate(NEAR_BEST_MAX);
    if alternatives.len() >= NEAR_BEST_UNDER_ONE {
        let mut parent = dom.nodes[top].parent;
        while parent != 0 && parent != NONE {
            let end = dom.subtree_end(parent) as usize;
            let inside = alternatives
                .iter()
                .filter(|&&a| a > parent as usize && a < end)
                .count();
            if inside >= NEAR_BEST_UNDER_ONE {
                top = parent as usize;
                break;
            }
            parent = dom.nodes[parent as usize].parent;
        }
    }
    // A parent scoring better than the winner (it gathered points from more blocks).
    let mut last = score[top];
    let threshold = last / CLIMB_STOP_DIVISOR;
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
