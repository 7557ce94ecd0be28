//! A video player's own text: its controls, times, "Up next" and the message it shows when
//! the file will not play. The `<video>` renders nothing; the box the player draws around
//! it says nothing about the page. Only a box that names itself a player is read so: a
//! hero section with a background video holds the page's headline.

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

use super::{Selection, ancestors};

/// A player's box holds at most this many visible characters (labels, times, an error
/// message); a box with more is the page's text around the video.
const PLAYER_MAX_CHARS: u32 = 300;
/// The player's box is at most this many levels above its `<video>`.
const PLAYER_MAX_LEVELS: usize = 4;

/// Drop from the chosen content each player's box around a `<video>` (see the module's
/// notes). The `<video>` itself may be pruned already, as an empty wrapper. Returns
/// whether it dropped any.
pub(crate) fn drop_player_boxes(dom: &Dom, selection: &mut Selection) -> bool {
    let mut any = false;
    for (i, node) in dom.nodes.iter().enumerate() {
        if node.kind != Kind::Element || node.tag != Tag::Video {
            continue;
        }
        let id = i as NodeId;
        let Some(&root) = selection
            .roots
            .iter()
            .find(|&&r| r < id && id < dom.subtree_end(r))
        else {
            continue;
        };
        let player = ancestors(dom, id)
            .take(PLAYER_MAX_LEVELS)
            .take_while(|&a| a != root)
            .find(|&a| names_a_player(dom, a));
        if let Some(player) = player
            && !selection.dropped[player as usize]
            && says_nothing(dom, &selection.dropped, player)
        {
            selection.dropped[player as usize..dom.subtree_end(player) as usize].fill(true);
            any = true;
        }
    }
    any
}

/// Whether a class or id word names a video player (`jwplayer`, `video-player`,
/// Video.js's `video-js`).
fn names_a_player(dom: &Dom, id: NodeId) -> bool {
    [AttrName::Class, AttrName::Id].iter().any(|&name| {
        dom.attr(id, name).is_some_and(|v| {
            v.split_ascii_whitespace().any(|w| {
                let w = w.to_ascii_lowercase();
                w.contains("player") || w == "video-js"
            })
        })
    })
}

/// Whether box `id` holds only a player's strings: short, no heading, no caption.
fn says_nothing(dom: &Dom, dropped: &[bool], id: NodeId) -> bool {
    let mut chars = 0;
    for i in dom.kept(dropped, id) {
        let node = dom.node(i);
        match node.kind {
            Kind::Text => chars += dom.text_sizes[i as usize].visible,
            Kind::Element if node.tag.heading_level().is_some() || node.tag == Tag::Figcaption => {
                return false;
            }
            _ => {}
        }
        if chars > PLAYER_MAX_CHARS {
            return false;
        }
    }
    true
}
