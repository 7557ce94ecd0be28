//! Pruning inside the chosen content: what still looks like boilerplate once the winner is
//! picked (link-heavy blocks, galleries, forms, runs of link-only paragraphs).

use crate::boilerplate::Signals;
use crate::dom::{AttrName, Dom, Kind, NONE, NodeId, Tag};

use super::scoring::pass_weight;
use super::stats::{Stats, link_density};
use super::{LINK_TOLERANT_DENSITY, Pass, ancestors, ends_sentence, is_post_meta};

// Most thresholds of `clean_conditionally` follow readability's `_cleanConditionally`, as
// the scoring follows readability's.
/// The most link text (share) a block inside the content may hold...
const BLOCK_MAX_LINK_DENSITY: f32 = 0.2;
/// ... and a list, whose items are often links to what it lists.
const LIST_MAX_LINK_DENSITY: f32 = 0.5;
/// A block with a strong content class (weight this high) is pruned only when...
const STRONG_CLASS_WEIGHT: f32 = 25.0;
/// ... more than this share of its text is links.
const STRONG_CLASS_MAX_LINK_DENSITY: f32 = 0.5;
/// This many commas make a block running text, whatever else it holds.
const PROSE_COMMAS: u32 = 10;
/// A gallery has fewer paragraphs per image than this.
const GALLERY_PARAGRAPHS_PER_IMAGE: f32 = 0.5;
/// A block that is not a list holding this many more list items than paragraphs is a menu.
const LIST_ITEMS_OVER_PARAGRAPHS: f32 = 100.0;
/// A block with more form controls than one per this many paragraphs is a form.
const PARAGRAPHS_PER_INPUT: f32 = 3.0;
/// A block with less text than this that is not mostly headings is a near-empty wrapper...
const NEAR_EMPTY_CHARS: u32 = 25;
/// ... where mostly headings means this share of its text.
const HEADINGS_BLOCK_DENSITY: f32 = 0.9;
/// A post's author line is shorter than this (visible characters).
const POST_META_MAX_CHARS: u32 = 100;

/// Prune, bottom-up, containers inside the content that look like boilerplate: link-heavy
/// blocks, image galleries, forms, and near-empty wrappers.
#[allow(
    clippy::too_many_arguments,
    reason = "the pruning pass threads the DOM, its signals and the scoring tables"
)]
pub(super) fn clean_conditionally(
    dom: &Dom,
    root: NodeId,
    signals: &Signals<'_>,
    score: &[f32],
    scored: &[bool],
    stats: &[Stats],
    dropped: &mut [bool],
    items: &[u8],
    pass: Pass,
    site: Option<&str>,
) {
    let weight_classes = pass.weight_classes;
    // A reference page's lists of links inside its body ("You will learn", the guides
    // of a section) are what the page is for.
    let (max_density, max_list_density) = if pass.link_tolerant {
        (LINK_TOLERANT_DENSITY, 1.0)
    } else {
        (BLOCK_MAX_LINK_DENSITY, LIST_MAX_LINK_DENSITY)
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
        let post_meta =
            pass.thread && s.text < POST_META_MAX_CHARS && is_post_meta(dom, i as NodeId);
        // A listing's items are what the page lists, links and all (see `listing`): the
        // link-density rules spare them and all they hold.
        let item = items.get(i).is_some_and(|&m| m != 0);
        let drop = if post_meta || item {
            false
        } else if weight + content_score < 0.0 {
            true
        } else if s.commas >= PROSE_COMMAS
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
            (images > 1.0 && paragraphs / images < GALLERY_PARAGRAPHS_PER_IMAGE && !in_figure)
                || (!is_list && s.list_items as f32 - LIST_ITEMS_OVER_PARAGRAPHS > paragraphs)
                || (s.inputs as f32 > (paragraphs / PARAGRAPHS_PER_INPUT).floor())
                || (!is_list
                    && heading_density < HEADINGS_BLOCK_DENSITY
                    && s.text < NEAR_EMPTY_CHARS
                    && (s.images == 0 || s.images > 2)
                    && !in_figure
                    && !(pass.short_sections && is_short_section(dom, i as NodeId, &s))
                    && !(pass.short_lines && s.text > 0 && s.link == 0))
                || (weight < STRONG_CLASS_WEIGHT
                    && density
                        > if is_list {
                            max_list_density
                        } else {
                            max_density
                        }
                    && !is_reference_list(dom, i as NodeId, &stats, base, site))
                || (weight >= STRONG_CLASS_WEIGHT && density > STRONG_CLASS_MAX_LINK_DENSITY)
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

/// A reference list has at least this many links...
const REFERENCE_MIN_LINKS: u32 = 3;
/// ... each with at least this much text (visible characters), and this much on average:
/// titles, not names or icons...
const REFERENCE_MIN_LINK_CHARS: u32 = 10;
const REFERENCE_MEAN_LINK_CHARS: u32 = 20;
/// ... and this share of its link text, at least, points to other sites.
const REFERENCE_OFF_SITE_SHARE: f32 = 0.9;

/// A block whose links are titles on other sites (a changelog's pull requests, a post's
/// sources, a paper's citations) is what the text refers to, not the site's navigation:
/// menus, related-post rails and tag clouds link within the site, and share buttons and
/// logos are a word or two. Such a block is not pruned for its link density.
/// `stats` is `clean_conditionally`'s copy, indexed from `base`.
fn is_reference_list(
    dom: &Dom,
    id: NodeId,
    stats: &[Stats],
    base: usize,
    site: Option<&str>,
) -> bool {
    let Some(site) = site.map(|h| h.strip_prefix("www.").unwrap_or(h)) else {
        return false;
    };
    let (mut links, mut off_site_chars) = (0, 0);
    let mut i = id + 1;
    let end = dom.subtree_end(id);
    while i < end {
        let node = dom.node(i);
        if node.kind != Kind::Element || node.tag != Tag::A {
            i += 1;
            continue;
        }
        let chars = stats[i as usize - base].text;
        if chars == 0 {
            i = dom.subtree_end(i);
            continue;
        }
        // A bare address is not a title: a list of them is a page's footnotes by URL.
        if chars < REFERENCE_MIN_LINK_CHARS || is_bare_address(dom, i) {
            return false;
        }
        links += 1;
        if dom
            .attr(i, AttrName::Href)
            .and_then(link_host)
            .is_some_and(|host| !same_site(host, site))
        {
            off_site_chars += chars;
        }
        i = dom.subtree_end(i);
    }
    let link_chars = stats[id as usize - base].link;
    links >= REFERENCE_MIN_LINKS
        && link_chars >= REFERENCE_MEAN_LINK_CHARS * links
        && off_site_chars as f32 >= REFERENCE_OFF_SITE_SHARE * link_chars as f32
}

/// A link whose text is an address (`https://…`, `www.…`).
fn is_bare_address(dom: &Dom, link: NodeId) -> bool {
    let text = (link + 1..dom.subtree_end(link))
        .find(|&t| dom.node(t).kind == Kind::Text && !dom.text(t).trim().is_empty())
        .map_or("", |t| dom.text(t).trim_start());
    text.contains("://")
        || text
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case("www."))
}

/// The host of an absolute `http(s)` or scheme-relative link; `None` for a relative one.
fn link_host(href: &str) -> Option<&str> {
    let href = href.trim();
    let rest = ["https://", "http://", "//"].iter().find_map(|scheme| {
        href.get(..scheme.len())
            .filter(|s| s.eq_ignore_ascii_case(scheme))
            .map(|_| &href[scheme.len()..])
    })?;
    let end = rest.find(['/', '?', '#', ':']).unwrap_or(rest.len());
    Some(&rest[..end]).filter(|h| !h.is_empty())
}

/// Whether `host` is `site` or one of its subdomains, or `site` one of `host`'s (`www.`
/// already stripped from `site`): `blog.example.com` on `example.com` is the same site.
fn same_site(host: &str, site: &str) -> bool {
    let host = host.strip_prefix("www.").unwrap_or(host);
    let within = |a: &str, b: &str| {
        a.len() >= b.len()
            && a[a.len() - b.len()..].eq_ignore_ascii_case(b)
            && (a.len() == b.len() || a.as_bytes()[a.len() - b.len() - 1] == b'.')
    };
    within(host, site) || within(site, host)
}

/// A section of one line: a heading first, then link-free text of its own ("## Usage",
/// "Give it a port."). However short, it is part of the text (a docs page's `##`
/// sections), not an empty wrapper.
fn is_short_section(dom: &Dom, id: NodeId, s: &Stats) -> bool {
    s.link == 0
        && s.text > s.heading_text
        && s.heading_text > 0
        && dom
            .children(id)
            .find(|&c| {
                let node = dom.node(c);
                node.kind == Kind::Element || !dom.text(c).trim().is_empty()
            })
            .is_some_and(|c| dom.node(c).tag.heading_level().is_some())
}

/// A block of the broad selection with more link text than this share is a menu...
const LINK_BLOCK_DENSITY: f32 = 0.75;
/// ... unless it has this many commas (a sentence around its links).
const LINK_BLOCK_MAX_COMMAS: u32 = 3;

/// The broad selection's pruning, gentler than `clean_conditionally` (a listing's items are
/// links with a line of text each): drop, outermost first, blocks that are almost only
/// links (menus, link farms), and forms.
pub(super) fn clean_link_blocks(
    dom: &Dom,
    root: NodeId,
    stats: &[Stats],
    dropped: &mut [bool],
    items: &[u8],
) {
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
        let linky = s.text > 0
            && link_density(s) > LINK_BLOCK_DENSITY
            && s.commas < LINK_BLOCK_MAX_COMMAS
            && s.code_blocks == 0;
        let item = items.get(i).is_some_and(|&m| m != 0);
        if block && !item && (linky || node.tag == Tag::Form && s.inputs > 0) {
            let sub = dom.subtree_end(i as NodeId) as usize;
            dropped[i..sub].fill(true);
            i = sub;
            continue;
        }
        i += 1;
    }
}

/// A paragraph with at least this share of its text in links is nothing but a link...
const LINK_PARAGRAPH_SHARE: f32 = 0.9;
/// ... and this many of them in a row are a list of links written as paragraphs.
const LINK_RUN_MIN: usize = 2;
/// A lead-in line before such a run ("You may also like…") is shorter than this.
const LEAD_IN_MAX_CHARS: u32 = 40;

/// Drop runs of two or more sibling paragraphs that are nothing but a link ("related
/// stories" written as paragraphs), and a short lead-in line right before such a run
/// ("You may also like…").
pub(super) fn drop_link_runs(dom: &Dom, root: NodeId, stats: &[Stats], dropped: &mut [bool]) {
    let end = dom.subtree_end(root);
    let link_only = |id: NodeId, dropped: &[bool]| {
        let s = &stats[id as usize];
        dom.node(id).tag == Tag::P
            && !dropped[id as usize]
            && s.text > 0
            && s.link as f32 >= LINK_PARAGRAPH_SHARE * s.text as f32
    };
    // One buffer for every parent's children, not a `Vec` for each.
    let mut children: Vec<NodeId> = Vec::new();
    for parent in root..end {
        if dropped[parent as usize] || dom.node(parent).kind != Kind::Element {
            continue;
        }
        children.clear();
        children.extend(
            dom.children(parent)
                .filter(|&c| dom.node(c).kind == Kind::Element && !dropped[c as usize]),
        );
        let mut i = 0;
        while i < children.len() {
            let mut j = i;
            while j < children.len() && link_only(children[j], dropped) {
                j += 1;
            }
            if j - i >= LINK_RUN_MIN {
                for &c in &children[i..j] {
                    dropped[c as usize..dom.subtree_end(c) as usize].fill(true);
                }
                if i > 0 {
                    let lead = children[i - 1];
                    let s = &stats[lead as usize];
                    let is_lead_in = (dom.node(lead).tag == Tag::P
                        || dom.node(lead).tag.heading_level().is_some())
                        && s.text < LEAD_IN_MAX_CHARS
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

/// A table of this many rows is a grid of data, even without header cells.
const DATA_TABLE_MIN_ROWS: u32 = 3;

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
    rows >= DATA_TABLE_MIN_ROWS
}
