//! Per-node sums over what a pass keeps: the numbers every later stage reads (visible
//! text, link text, commas, paragraphs, ...), each made in one bottom-up walk of the arena.

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

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

/// The sums the boilerplate drops read, over what the hard drops leave: a lighter walk than
/// `compute_stats`, whose other counts only selection reads.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sums {
    pub(super) text: u32,
    pub(super) link: u32,
    pub(super) paragraphs: u32,
    /// Paragraphs of `LONG_PARAGRAPH_CHARS` or more: running text, not a list's one-liners.
    pub(super) long_paragraphs: u32,
}

/// A paragraph this long (visible characters) is running text.
pub(super) const LONG_PARAGRAPH_CHARS: u32 = 150;

impl Sums {
    /// As `link_density` of the same node's `Stats`.
    pub(super) fn link_density(&self) -> f32 {
        if self.text == 0 {
            0.0
        } else {
            (self.link as f32 / self.text as f32).min(1.0)
        }
    }
}

/// `Sums` per node; each field is summed as `compute_stats` sums it, but for the empty
/// paragraphs, which count for nothing here.
pub(super) fn compute_sums(dom: &Dom, dropped: &[bool]) -> Vec<Sums> {
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
                Tag::A if is_link(dom, i as NodeId) => s.link = s.text,
                // An empty `<p></p>` (a spacer a page builder leaves) is not a paragraph:
                // counted, it makes a box of prose read as a list of one-liners.
                Tag::P | Tag::Blockquote | Tag::Pre if s.text > 0 => {
                    s.paragraphs += 1;
                    s.long_paragraphs += u32::from(s.text >= LONG_PARAGRAPH_CHARS);
                }
                _ => {}
            },
            Kind::Document => {}
        }
        sums[i] = s;
        let p = &mut sums[node.parent as usize];
        p.text += s.text;
        p.link += s.link;
        p.paragraphs += s.paragraphs;
        p.long_paragraphs += s.long_paragraphs;
    }
    sums
}

pub(super) fn compute_stats(dom: &Dom, dropped: &[bool]) -> Vec<Stats> {
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
                Tag::A if is_link(dom, i as NodeId) => s.link = s.text,
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
pub(super) fn roots_link_density(roots: &[NodeId], stats: &[Stats]) -> f32 {
    let (text, link) = roots.iter().fold((0, 0), |(t, l), &r| {
        (t + stats[r as usize].text, l + stats[r as usize].link)
    });
    if text == 0 {
        1.0
    } else {
        link as f32 / text as f32
    }
}

pub(super) fn link_density(s: &Stats) -> f32 {
    if s.text == 0 {
        0.0
    } else {
        (s.link as f32 / s.text as f32).min(1.0)
    }
}

/// An `<a>` counts as a link unless it goes nowhere (no `href`) as the label of a button
/// (`<div role="button"><a tabindex="0">Can I park?</a></div>`, a toggle's question): its
/// text is the page's own.
fn is_link(dom: &Dom, id: NodeId) -> bool {
    dom.attr(id, AttrName::Href).is_some()
        || !dom
            .attr(dom.node(id).parent, AttrName::Role)
            .is_some_and(|r| r.trim().eq_ignore_ascii_case("button"))
}
