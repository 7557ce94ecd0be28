//! A timeline of embedded social posts beside the content (a widget of the site's latest
//! tweets): each embed is a `<blockquote>` its network's script would style, with the
//! post's text and a dated link. A run of them is the site's feed, not the page's text;
//! one or two inside an article are quotes and stay.

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

use super::placeholders::kept_chars;
use super::{Selection, Visit, drop_boxes};

/// A timeline holds at least this many embedded posts...
const MIN_POSTS: u32 = 3;
/// ... which hold at least this share (in tenths) of its text...
const MIN_POSTS_SHARE_TENTHS: u32 = 8;
/// ... and the chosen content holds at least this much text besides it: a page that is
/// only a feed is read as one.
const MIN_OTHER_CHARS: u32 = 250;

/// Drop from the chosen content each timeline of embedded posts (see the module's
/// notes). Returns whether it dropped any.
pub(crate) fn drop_embedded_timelines(dom: &Dom, selection: &mut Selection) -> bool {
    // Most pages embed nothing: one walk tells, and the costlier walk below is skipped.
    let posts: u32 = selection
        .roots
        .iter()
        .map(|&r| embedded_posts(dom, &selection.dropped, r).0)
        .sum();
    if posts < MIN_POSTS {
        return false;
    }
    let total: u32 = selection
        .roots
        .iter()
        .map(|&r| kept_chars(dom, &selection.dropped, r))
        .sum();
    drop_boxes(dom, selection, |dropped, _root, id| {
        let node = dom.node(id);
        if node.kind != Kind::Element || node.tag.is_inline() {
            return Visit::SkipSubtree;
        }
        let (posts, post_chars) = embedded_posts(dom, dropped, id);
        if posts < MIN_POSTS {
            return Visit::SkipSubtree;
        }
        let chars = kept_chars(dom, dropped, id);
        if post_chars * 10 >= chars * MIN_POSTS_SHARE_TENTHS
            && total.saturating_sub(chars) >= MIN_OTHER_CHARS
        {
            Visit::Drop(id)
        } else {
            Visit::Next
        }
    })
}

/// How many embedded posts `id` holds, and their visible characters.
fn embedded_posts(dom: &Dom, dropped: &[bool], id: NodeId) -> (u32, u32) {
    let (mut posts, mut chars) = (0, 0);
    let mut kept = dom.kept(dropped, id);
    while let Some(i) = kept.next() {
        let node = dom.node(i);
        if node.kind == Kind::Element && node.tag == Tag::Blockquote && is_embed(dom, i) {
            posts += 1;
            chars += kept_chars(dom, dropped, i);
            kept.skip_subtree(i);
        }
    }
    (posts, chars)
}

/// The class a network's embed code puts on its `<blockquote>`.
fn is_embed(dom: &Dom, id: NodeId) -> bool {
    dom.attr(id, AttrName::Class).is_some_and(|class| {
        class.split_ascii_whitespace().any(|w| {
            matches!(
                w,
                "twitter-tweet"
                    | "twitter-video"
                    | "instagram-media"
                    | "tiktok-embed"
                    | "bluesky-embed"
                    | "mastodon-embed"
                    | "threads-embed"
            )
        })
    })
}
