//! What is never main content: by element, by ARIA role, and by class/id words.
//!
//! Class and id values are split into words (at anything not a letter or digit) and the
//! words are looked up, so `share-bar` and `social_links` match while `shadow` or
//! `download` do not match `ad`/`nav`.

use crate::dom::{Dom, NodeId, Tag};

/// Elements dropped with everything inside them, whatever the page says.
pub(crate) fn is_dropped_element(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Script
            | Tag::Style
            | Tag::Noscript
            | Tag::Template
            | Tag::Svg
            | Tag::Math
            | Tag::Canvas
            | Tag::Iframe
            | Tag::Object
            | Tag::Embed
            | Tag::Audio
            | Tag::Video
            | Tag::Map
            | Tag::Button
            | Tag::Input
            | Tag::Select
            | Tag::Option
            | Tag::Optgroup
            | Tag::Textarea
            | Tag::Label
            | Tag::Nav
            | Tag::Aside
            | Tag::Footer
            | Tag::Header
            | Tag::Dialog
            | Tag::Figcaption
            | Tag::Meta
            | Tag::Link
            | Tag::Title
            | Tag::Base
            | Tag::Head
            | Tag::Noembed
            | Tag::Noframes
            | Tag::Menu
            | Tag::Source
            | Tag::Track
            | Tag::Param
    )
}

/// Roles of landmarks that are not the page's content.
pub(crate) fn is_boilerplate_role(role: &str) -> bool {
    matches!(
        role.trim().to_ascii_lowercase().as_str(),
        "navigation"
            | "banner"
            | "contentinfo"
            | "complementary"
            | "search"
            | "dialog"
            | "alertdialog"
            | "menu"
            | "menubar"
            | "toolbar"
            | "tablist"
    )
}

/// How a class/id reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClassSignal {
    /// Words that mark boilerplate (share bars, related rails, ads, cookie banners…).
    pub(crate) negative: bool,
    /// Compound names that mark boilerplate even next to a content word
    /// (`article-share`, `post-related`).
    pub(crate) strong: bool,
    /// Words that mark comment sections.
    pub(crate) comments: bool,
    /// Words that mark content (article, post body, entry…).
    pub(crate) positive: bool,
}

/// Words (whole class/id words) that mark boilerplate.
const NEGATIVE_WORDS: &[&str] = &[
    "ad",
    "ads",
    "adv",
    "advert",
    "advertisement",
    "advertising",
    "adslot",
    "adunit",
    "banner",
    "breadcrumb",
    "breadcrumbs",
    "byline",
    "cookie",
    "cookies",
    "consent",
    "gdpr",
    "footer",
    "foot",
    "masthead",
    "menu",
    "nav",
    "navbar",
    "navigation",
    "newsletter",
    "outbrain",
    "taboola",
    "pagination",
    "pager",
    "popup",
    "modal",
    "overlay",
    "promo",
    "promotion",
    "promoted",
    "related",
    "recommended",
    "recommendations",
    "recirc",
    "share",
    "shares",
    "sharing",
    "sharebar",
    "social",
    "sidebar",
    "sponsor",
    "sponsored",
    "subscribe",
    "subscription",
    "signup",
    "tags",
    "tag",
    "tagcloud",
    "toolbar",
    "trending",
    "popular",
    "widget",
    "widgets",
    "rail",
    "skip",
    "print",
    "hidden",
    "sr",
    "visually",
    "offscreen",
    "login",
    "follow",
    "tooltip",
    "donate",
    "author",
    "bio",
    "dateline",
    "timestamp",
    "meta",
    "credit",
    "credits",
    "disclaimer",
    "newsletters",
    "extra",
    "more",
    "next",
    "prev",
    "previous",
    "links",
    "dropdown",
    "shopping",
    "commercial",
    "teaser",
    "teasers",
    "header",
    "top",
    "jump",
    "toc",
    "cta",
    "alert",
    "notification",
    "feedback",
    "rating",
    "ratings",
    "reactions",
    "supplemental",
    "sticky",
    "secondary",
    "share-tools",
    "utility",
    "utilities",
    "contributor",
    "headline",
    "kicker",
    "eyebrow",
    "caption",
    "figcaption",
    "copyright",
    "legal",
    "subnav",
    "topnav",
    "sitenav",
    "mainnav",
    "inline-ad",
    "brand",
    "logo",
    "search",
    "masthead",
];

/// Substrings that mark boilerplate anywhere in a class/id (vendor and compound names).
const NEGATIVE_PARTS: &[&str] = &[
    "sidebar",
    "advert",
    "newsletter",
    "cookie",
    "breadcrumb",
    "outbrain",
    "taboola",
    "sponsor",
    "social",
    "share",
    "related",
    "recommend",
    "promo",
    "subscri",
    "popup",
    "footer",
    "navbar",
    "banner",
    "adslot",
    "ad-slot",
    "ad_slot",
    "adunit",
    "dfp",
    "gpt-ad",
    "googlead",
    "signup",
    "most-read",
    "mostread",
    "most-popular",
    "mostpopular",
    "readmore",
    "read-more",
    "more-stories",
    "morestories",
    "trending",
    "widget",
];

/// Words and substrings that mark comment sections.
const COMMENT_PARTS: &[&str] = &[
    "comment",
    "disqus",
    "respond",
    "replies",
    "discussion",
    "reply",
];

/// Substrings that mark content containers.
const POSITIVE_PARTS: &[&str] = &[
    "article", "content", "main", "body", "post", "entry", "story", "text", "prose", "markdown",
    "blog", "page", "column",
];

/// Classify the class and id of element `id`.
pub(crate) fn class_signal(dom: &Dom, id: NodeId) -> ClassSignal {
    let mut signal = ClassSignal::default();
    for name in ["class", "id"] {
        let Some(value) = dom.attr(id, name) else {
            continue;
        };
        if value.is_empty() || value.len() > 400 {
            continue;
        }
        let lower = value.to_ascii_lowercase();
        for word in lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            if NEGATIVE_WORDS.contains(&word) {
                signal.negative = true;
            }
        }
        for token in lower.split_ascii_whitespace() {
            // In a compound name the last word says what the thing is: `post-author`,
            // `entry-meta` and `article-tags` are about the post, not the post itself.
            let mut words = token
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty());
            let first = words.next();
            if let (Some(_), Some(last)) = (first, words.next_back())
                && NEGATIVE_WORDS.contains(&last)
            {
                signal.strong = true;
            }
            if NEGATIVE_PARTS.iter().any(|p| token.contains(p)) {
                signal.strong = true;
            }
            if COMMENT_PARTS.iter().any(|p| token.contains(p)) {
                signal.comments = true;
            }
            if POSITIVE_PARTS.iter().any(|p| token.contains(p)) {
                signal.positive = true;
            }
        }
    }
    signal
}

/// Readability-style class weight: +25 for content words, -25 for boilerplate words.
pub(crate) fn class_weight(signal: ClassSignal) -> f32 {
    let mut weight = 0.0;
    if signal.negative || signal.strong || signal.comments {
        weight -= 25.0;
    }
    if signal.positive {
        weight += 25.0;
    }
    weight
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn signal_of(html: &str) -> ClassSignal {
        let dom = parse(html);
        class_signal(&dom, 1)
    }

    #[test]
    fn words_not_substrings_for_short_names() {
        assert!(signal_of(r#"<div class="share-bar">"#).strong);
        assert!(signal_of(r#"<div class="ad">"#).negative);
        assert!(!signal_of(r#"<div class="shadow download">"#).negative);
        assert!(signal_of(r#"<div id="comments">"#).comments);
        assert!(signal_of(r#"<div class="article-body">"#).positive);
    }
}
