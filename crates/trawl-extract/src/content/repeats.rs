//! What the chosen content says twice: blocks that repeat an earlier one, and the page's
//! title opening the content as a heading.

use std::collections::hash_map::Entry;

use crate::dom::{Dom, Kind, NONE, NodeId, Tag};

use super::Selection;

/// Drop blocks whose text repeats an earlier kept block: pages ship the same copy twice,
/// once for wide screens and once in a collapsed panel for narrow ones, or a whole post
/// again in a print or "amp" copy. A block is a paragraph or any block element (a product
/// description's `<div>` of short paragraphs repeats whole while no paragraph of it is
/// long). Returns whether it dropped any.
///
/// A paragraph that repeats beside its first copy is the text's own (a chorus, a notice
/// per section, a quoted line): it stays; see `repeat_in_place`.
pub(crate) fn drop_repeated_blocks(dom: &Dom, selection: &mut Selection) -> bool {
    // Per node of the roots' subtrees, a polynomial hash of its kept non-space bytes,
    // built bottom-up in one pass: a node's hash is its children's, concatenated.
    // Per hash, the first copy and whether its parent holds more than it.
    let mut seen: rustc_hash::FxHashMap<u64, (NodeId, bool)> = rustc_hash::FxHashMap::default();
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
        // The end of the `<blockquote>` being walked through, if any.
        let mut quote_end = root;
        while i < end {
            let node = dom.node(i);
            let at = i as usize;
            if selection.dropped[at] {
                i = dom.subtree_end(i);
                continue;
            }
            if node.tag == Tag::Blockquote {
                quote_end = quote_end.max(dom.subtree_end(i));
            }
            let (h, _, len) = sums[at - base];
            let parent = node.parent as usize;
            // A wrapper around one block holds the same text: it is that block, not a repeat.
            let same_as_parent = at != base && parent >= base && sums[parent - base].2 == len;
            if node.kind == Kind::Element
                && !node.tag.is_inline()
                && len as usize >= REPEATED_QUOTE_MIN
                && !same_as_parent
            {
                let parent_holds_more =
                    parent >= base && parent != at && sums[parent - base].2 > len;
                let first = match seen.entry(h) {
                    Entry::Vacant(slot) => {
                        slot.insert((i, parent_holds_more));
                        i += 1;
                        continue;
                    }
                    Entry::Occupied(slot) => *slot.get(),
                };
                // A shorter block goes only as a quote (see `REPEATED_QUOTE_MIN`).
                if (len as usize) < REPEATED_BLOCK_MIN && i >= quote_end
                    || repeat_in_place(dom, first, (i, parent_holds_more))
                {
                    i += 1;
                    continue;
                }
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

/// Whether `copy`, a block repeating `first`, is the text saying it again rather than the
/// page shipping it twice: both are paragraphs (no block inside), and either siblings (a
/// chorus between verses, a quote restated), or cousins each in a parent that
/// holds more than the copy (the same notice closing each section). A responsive copy sits
/// in its own wrapper or far from the first, so it is still dropped. Each pair is
/// (node, whether its parent holds more than it).
fn repeat_in_place(
    dom: &Dom,
    (first, first_in_more): (NodeId, bool),
    (copy, copy_in_more): (NodeId, bool),
) -> bool {
    if !is_paragraph(dom, first) || !is_paragraph(dom, copy) {
        return false;
    }
    let (fp, cp) = (dom.node(first).parent, dom.node(copy).parent);
    if fp == cp {
        // One parent's paragraphs are the text as written, twice in a row or not: a page
        // ships its responsive or print copy in a wrapper of its own.
        return true;
    }
    fp != NONE
        && cp != NONE
        && first_in_more
        && copy_in_more
        && dom.node(fp).parent == dom.node(cp).parent
}

/// A block of running text: no block element inside it.
fn is_paragraph(dom: &Dom, id: NodeId) -> bool {
    let end = dom.subtree_end(id);
    (id + 1..end).all(|i| {
        let n = dom.node(i);
        n.kind != Kind::Element || n.tag.is_inline()
    })
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

/// Blocks shorter than this may repeat ("Read more", a price, a date)...
const REPEATED_BLOCK_MIN: usize = 200;
/// ... but inside a `<blockquote>` a block this long that repeats an earlier one goes: a
/// reply quoting a post says the post again (a thread's quoted lines), and the post is
/// already there above it.
const REPEATED_QUOTE_MIN: usize = 50;

const HASH_BASE: u64 = 0x100_0000_01b3;

/// Titles and headings shorter than this (letters and digits) are too short to match on
/// ("Home", "News").
const TITLE_MIN_CHARS: usize = 8;

/// The page's titles and its `<h1>`/`<h2>` headings, each keyed once per page: every pass
/// and safety net drops the title heading from its own selection, and keying a heading
/// (its text, letters and digits lowercased) costs more than the rest of the test.
pub(crate) struct TitleHeadings {
    /// Keys of the titles long enough to match, in the order they are tried.
    titles: Vec<String>,
    /// `<h1>`/`<h2>` headings in document order with their keys, those long enough only:
    /// a shorter one never matches.
    headings: Vec<(NodeId, String)>,
}

impl TitleHeadings {
    pub(crate) fn new(dom: &Dom, titles: &[String]) -> TitleHeadings {
        let titles: Vec<String> = titles
            .iter()
            .map(|t| title_key(t))
            .filter(|t| t.len() >= TITLE_MIN_CHARS)
            .collect();
        let mut headings = Vec::new();
        if !titles.is_empty() {
            for (i, node) in dom.nodes.iter().enumerate() {
                if matches!(node.tag, Tag::H1 | Tag::H2) {
                    let key = title_key(&dom.raw_text(i as NodeId));
                    if key.len() >= TITLE_MIN_CHARS {
                        headings.push((i as NodeId, key));
                    }
                }
            }
        }
        TitleHeadings { titles, headings }
    }

    /// Drop each title where it opens the content as a heading: it is metadata (the
    /// Document carries it as `title`), and repeating it costs the reader nothing but
    /// tokens. Per title, the first kept heading under the roots (in their order) that
    /// it equals or contains goes. Returns whether any went.
    pub(crate) fn drop_from(&self, dom: &Dom, selection: &mut Selection) -> bool {
        let mut any = false;
        for title in &self.titles {
            'roots: for &root in &selection.roots {
                let end = dom.subtree_end(root);
                let from = self.headings.partition_point(|&(id, _)| id < root);
                for (id, heading) in &self.headings[from..] {
                    let i = *id;
                    if i >= end {
                        break;
                    }
                    if selection.dropped[i as usize] {
                        continue;
                    }
                    if *title == *heading || title.contains(heading.as_str()) {
                        let end = dom.subtree_end(i) as usize;
                        selection.dropped[i as usize..end].fill(true);
                        any = true;
                        break 'roots;
                    }
                }
            }
        }
        any
    }
}

/// What a title and a heading are compared by: their letters and digits, lowercased.
fn title_key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
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
