//! What is never main content: by element, by ARIA role, and by class/id words.
//!
//! Class and id values are split into words (at anything not a letter or digit) and the
//! words are looked up, so `share-bar` and `social_links` match while `shadow` or
//! `download` do not match `ad`/`nav`.

use std::cell::{Cell, RefCell};
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use rustc_hash::FxHashMap;

use crate::builder_classes::{BuilderClass, builder_class};
use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

/// Elements dropped with everything inside them, whatever the page says.
pub(crate) fn is_dropped_element(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Script
            | Tag::Style
            | Tag::Noscript
            | Tag::Template
            | Tag::Svg
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
    /// Words that mark customer reviews (`review`, `ugc`): a product page's comments, but
    /// on an article or a service page the review or the testimonials are the content.
    pub(crate) reviews: bool,
    /// Words that mark content (article, post body, entry…).
    pub(crate) positive: bool,
    /// A word `header`: the site's header, or the head of the content (title and intro).
    pub(crate) header: bool,
    /// A word `footer`: the page's foot, never its content however much text it holds.
    pub(crate) footer: bool,
    /// Hidden, but folded text after its toggle (see `content::mark_folded`): kept.
    pub(crate) folded: bool,
    /// A cookie or consent banner: never content, in any pass.
    pub(crate) consent: bool,
}

impl ClassSignal {
    /// Comments or customer reviews: what a page says back to its content.
    pub(crate) fn is_comments(self) -> bool {
        self.comments || self.reviews
    }

    /// Either signal's marks (a value reads as all of its tokens; an element as its class
    /// and its id). `folded` is set later, per element, so it is not carried.
    fn or(self, other: ClassSignal) -> ClassSignal {
        ClassSignal {
            negative: self.negative || other.negative,
            strong: self.strong || other.strong,
            comments: self.comments || other.comments,
            reviews: self.reviews || other.reviews,
            positive: self.positive || other.positive,
            header: self.header || other.header,
            footer: self.footer || other.footer,
            folded: false,
            consent: self.consent || other.consent,
        }
    }
}

/// Defines the word list `$list` and `$is`, a `match` over the same words: a compiled
/// match tests a word in a few compares, a search of the list in several string compares.
macro_rules! word_set {
    ($list:ident, $is:ident, [$($word:literal),* $(,)?]) => {
        #[cfg(test)]
        const $list: &[&str] = &[$($word),*];
        fn $is(word: &str) -> bool {
            matches!(word, $($word)|*)
        }
    };
}

// Words (whole class/id words) that mark boilerplate. Kept sorted, for reading. A thread's
// furniture is here too: the poster's card (XenForo's `userExtras`, `userTitle`,
// `userBanner`; phpBB's `postprofile`), a post's date line (`message-attribution`), its edit
// note (`lastEdit`) and its signature.
word_set!(
    NEGATIVE_WORDS,
    is_negative_word,
    [
        "ad",
        "ads",
        "adslot",
        "adunit",
        "adv",
        "advert",
        "advertisement",
        "advertising",
        "alert",
        "attribution",
        "author",
        "banner",
        "bio",
        "brand",
        "breadcrumb",
        "breadcrumbs",
        "byline",
        "caption",
        "commercial",
        "consent",
        "contributor",
        "cookie",
        "cookies",
        "copyright",
        "credit",
        "credits",
        "cta",
        "dateline",
        "disclaimer",
        "donate",
        "dropdown",
        "extra",
        "extrauserinfo",
        "eyebrow",
        "feedback",
        "figcaption",
        "follow",
        "foot",
        "footer",
        "gdpr",
        "header",
        "headline",
        "inline-ad",
        "jump",
        "kicker",
        "lastedit",
        "legal",
        "links",
        "login",
        "logo",
        "mainnav",
        "masthead",
        "menu",
        "meta",
        "modal",
        "more",
        "nav",
        "navbar",
        "navigation",
        "newsletter",
        "newsletters",
        "next",
        "notification",
        "offscreen",
        "outbrain",
        "overlay",
        "pager",
        "pagination",
        "popular",
        "popup",
        "postprofile",
        "postsignature",
        "prev",
        "previous",
        "print",
        "promo",
        "promoted",
        "promotion",
        "rail",
        "rating",
        "ratings",
        "reactions",
        "recirc",
        "recommendations",
        "recommended",
        "related",
        "search",
        "secondary",
        "share",
        "share-tools",
        "sharebar",
        "shares",
        "sharing",
        "shopping",
        "sidebar",
        "signature",
        "signup",
        "sitenav",
        "skip",
        "social",
        "sponsor",
        "sponsored",
        "sr",
        "sticky",
        "subnav",
        "subscribe",
        "subscription",
        "supplemental",
        "taboola",
        "tag",
        "tagcloud",
        "tags",
        "teaser",
        "teasers",
        "timestamp",
        "toc",
        "toolbar",
        "tooltip",
        "top",
        "topnav",
        "trending",
        "userbanner",
        "userextras",
        "usertitle",
        "utilities",
        "utility",
        "visually",
        "widget",
        "widgets",
    ]
);

/// Substrings that mark boilerplate anywhere in a class/id (vendor and compound names).
const NEGATIVE_PARTS: [&str; 44] = [
    "popover",
    "hovercard",
    "flyout",
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
    // A forum's "who is online" box (phpBB's `online-list`, vBulletin's `wgo_whosonline`).
    "whosonline",
    "who-is-online",
    "online-list",
    "onlinelist",
    "users-online",
];

/// Substrings that mark a cookie or consent banner (`cookie-law-info-bar`, `gdpr-consent`).
const CONSENT_PARTS: [&str; 3] = ["cookie", "consent", "gdpr"];

/// Substrings that mark an embedded post (quoted content).
const EMBED_PARTS: [&str; 2] = ["embed", "tweet"];

/// Words and substrings that mark comment sections.
const COMMENT_PARTS: [&str; 6] = [
    "comment",
    "disqus",
    "respond",
    "replies",
    "discussion",
    "reply",
];

/// Substrings that mark content containers.
const POSITIVE_PARTS: [&str; 13] = [
    "article", "content", "main", "body", "post", "entry", "story", "text", "prose", "markdown",
    "blog", "page", "column",
];

/// Class/id signals of a page's elements, read when first asked for: the selection reads
/// only the elements outside the boilerplate it drops (a mega-menu's hundreds of items are
/// never asked about). Pages repeat the same class strings on many elements (utility-class
/// CSS), so each distinct value is read once; ids and generated classes are mostly unique,
/// but their tokens (`post`, `entry-content`) repeat, so each distinct token is read once
/// too. Elements marked in `skip` (inside a script, an `<svg>`, a `<button>`: dropped
/// whatever they are called) have no signal.
pub(crate) struct Signals<'a> {
    dom: &'a Dom,
    skip: Vec<bool>,
    read: Vec<Cell<Option<ClassSignal>>>,
    values: RefCell<FxHashMap<&'a str, ClassSignal>>,
    tokens: RefCell<FxHashMap<&'a str, ClassSignal>>,
    /// Hidden elements whose text is folded content (see `content::mark_folded`).
    folded: Vec<bool>,
}

impl<'a> Signals<'a> {
    pub(crate) fn new(dom: &'a Dom, skip: &[bool]) -> Signals<'a> {
        let n = dom.nodes.len();
        Signals {
            dom,
            skip: skip.to_vec(),
            read: vec![Cell::new(None); n],
            // Sized for a typical page (a few hundred distinct values and tokens): growing
            // a map rehashes all it holds.
            values: RefCell::new(FxHashMap::with_capacity_and_hasher(512, Default::default())),
            tokens: RefCell::new(FxHashMap::with_capacity_and_hasher(512, Default::default())),
            folded: vec![false; n],
        }
    }

    /// The signal of node `i` (the default for text, for elements with neither class nor
    /// id, and for skipped elements).
    pub(crate) fn get(&self, i: usize) -> ClassSignal {
        let signal = match self.read[i].get() {
            Some(signal) => signal,
            None => {
                let signal = self.read_element(i as NodeId);
                self.read[i].set(Some(signal));
                signal
            }
        };
        ClassSignal {
            folded: self.folded[i],
            ..signal
        }
    }

    pub(crate) fn is_folded(&self, i: usize) -> bool {
        self.folded[i]
    }

    pub(crate) fn set_folded(&mut self, i: usize, folded: bool) {
        self.folded[i] = folded;
    }

    fn read_element(&self, id: NodeId) -> ClassSignal {
        let dom = self.dom;
        let node = dom.node(id);
        if node.kind != Kind::Element || node.attr_len == 0 || self.skip[id as usize] {
            return ClassSignal::default();
        }
        let class = self.value(dom.attr(id, AttrName::Class));
        // A section's id is usually its heading's slug (`more-on-lists`, `next-steps`),
        // not a name for what the block is.
        let ident = match dom.attr(id, AttrName::Id) {
            Some(v) if !v.is_empty() && !names_its_heading(dom, id) => self.value(Some(v)),
            _ => ClassSignal::default(),
        };
        class.or(ident)
    }

    fn value(&self, value: Option<&'a str>) -> ClassSignal {
        match value {
            Some(v) if !v.is_empty() => *self
                .values
                .borrow_mut()
                .entry(v)
                .or_insert_with(|| value_signal(v, &mut self.tokens.borrow_mut())),
            _ => ClassSignal::default(),
        }
    }
}

/// A `<section>`, or an element that opens with a heading: its id is the heading's slug;
/// and so is a heading's own id when its words are the heading's (`what-share-of-adults`
/// over "What share of adults smoke?"), an anchor to link to, not a name (`comments-title`).
fn names_its_heading(dom: &Dom, id: NodeId) -> bool {
    let tag = dom.node(id).tag;
    if tag == Tag::Section {
        return true;
    }
    if tag.heading_level().is_some() {
        return dom
            .attr(id, AttrName::Id)
            .is_some_and(|v| is_slug_of(v, &dom.raw_text(id)));
    }
    dom.children(id)
        .find(|&c| {
            dom.node(c).kind == Kind::Element
                || dom.node(c).kind == Kind::Text && !dom.text(c).trim().is_empty()
        })
        .is_some_and(|c| dom.node(c).tag.heading_level().is_some())
}

/// Whether every word of `slug` (at least two) is a word of `text`, case aside.
fn is_slug_of(slug: &str, text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    let in_text: Vec<&str> = words(&text).collect();
    let slug = slug.to_ascii_lowercase();
    let mut count = 0;
    for word in words(&slug) {
        if !in_text.contains(&word) {
            return false;
        }
        count += 1;
    }
    count >= 2
}

/// Classify the class and id of element `id`.
#[cfg(test)]
pub(crate) fn class_signal(dom: &Dom, id: NodeId) -> ClassSignal {
    Signals::new(dom, &vec![false; dom.nodes.len()]).get(id as usize)
}

/// Classify one class or id value: the union of its tokens' signals, each distinct
/// token read once through `tokens`.
fn value_signal<'a>(value: &'a str, tokens: &mut FxHashMap<&'a str, ClassSignal>) -> ClassSignal {
    if value.len() > 400 {
        return ClassSignal::default();
    }
    value
        .split_ascii_whitespace()
        .fold(ClassSignal::default(), |signal, token| {
            signal.or(*tokens.entry(token).or_insert_with(|| token_signal(token)))
        })
}

/// Classify one whitespace-separated token of a class or id.
fn token_signal(token: &str) -> ClassSignal {
    let mut signal = ClassSignal::default();
    let lower;
    let token = if token.bytes().any(|b| b.is_ascii_uppercase()) {
        lower = token.to_ascii_lowercase();
        lower.as_str()
    } else {
        token
    };
    // A page builder's own wrapper says nothing; its widget's kind is read as a class.
    match builder_class(token) {
        Some(BuilderClass::Wrapper) => return signal,
        Some(BuilderClass::Listing) => {
            signal.negative = true;
            signal.strong = true;
            return signal;
        }
        Some(BuilderClass::Kind(kind)) => return token_signal(kind),
        None => {}
    }
    let read = WordsRead::of(token);
    // Google's `nocontent` marks what a site's own search must not index (menus, footers,
    // a licence line): never the text, though the word holds `content`.
    if read.nocontent {
        signal.negative = true;
        signal.strong = true;
        return signal;
    }
    // `hide-from-toc`, `no-toc`: a heading kept out of the table of contents, not one.
    if read.toc && read.toc_opt_out {
        return signal;
    }
    let parts = parts_in(token);
    // Embedded posts (`social-media-embed`, `twitter-tweet`) are quoted content.
    if parts.embed {
        signal.positive = true;
        return signal;
    }
    if is_utility_class(token, read.layout) {
        return signal;
    }
    // `adv` is an advert's word but in an advanced heading's class.
    signal.negative = read.negative_other || read.adv && !read.advanced_heading;
    signal.header = read.header;
    signal.footer = read.footer;
    signal.reviews = read.reviews;
    // In a compound name the last word says what the thing is: `post-author`,
    // `entry-meta` and `article-tags` are about the post, not the post itself.
    let compound = read.count >= 2;
    if compound && read.last_negative {
        signal.strong = true;
    }
    // An admonition (`blockquote-tag-note`, `admonition-warning`) is part of the text.
    let last = if compound { read.last } else { None };
    if last
        .or(read.first)
        .is_some_and(|w| ADMONITION_WORDS.contains(&w))
    {
        signal.positive = true;
    }
    signal.strong |= parts.negative;
    signal.consent |= parts.consent;
    signal.comments |= parts.comments;
    signal.positive |= parts.positive;
    signal
}

/// Words of a class token that, beside `toc`, say the element is left out of the table of
/// contents.
const TOC_OPT_OUT_WORDS: &[&str] = &["hide", "no", "not", "exclude", "skip", "ignore"];

/// What the words of a class token say, read in one walk over them: a utility class is
/// known only at the end (its `position`/`align` word may come last), so every test is
/// made on the way and the verdict drawn after.
#[derive(Default)]
struct WordsRead<'t> {
    first: Option<&'t str>,
    last: Option<&'t str>,
    /// Whether the last word is a negative word (`adv` included).
    last_negative: bool,
    count: usize,
    /// A word `nocontent`.
    nocontent: bool,
    /// A word `toc`, and a word that beside it keeps the element out of the table of
    /// contents (`hide-from-toc`).
    toc: bool,
    toc_opt_out: bool,
    /// `adv` followed by a word starting `heading` (`kt-adv-heading1234_ab12`, the
    /// WordPress block editor's Kadence headings): there `adv` is short for advanced, not
    /// for an advert.
    advanced_heading: bool,
    /// A word `adv`, and a negative word other than `adv`.
    adv: bool,
    negative_other: bool,
    header: bool,
    footer: bool,
    /// Customer reviews are a product page's comments.
    reviews: bool,
    layout: bool,
}

impl<'t> WordsRead<'t> {
    fn of(token: &'t str) -> WordsRead<'t> {
        let mut read = WordsRead::default();
        let mut prev_adv = false;
        for word in words(token) {
            read.nocontent |= word == "nocontent";
            read.toc |= word == "toc";
            read.toc_opt_out |= TOC_OPT_OUT_WORDS.contains(&word);
            read.advanced_heading |= prev_adv && word.starts_with("heading");
            prev_adv = word == "adv";
            read.adv |= prev_adv;
            let negative = is_negative_word(word);
            read.negative_other |= negative && !prev_adv;
            read.last_negative = negative;
            read.header |= word == "header";
            read.footer |= word == "footer";
            read.reviews |= matches!(word, "review" | "reviews" | "ugc");
            read.layout |= matches!(word, "position" | "align");
            read.first = read.first.or(Some(word));
            read.last = Some(word);
            read.count += 1;
        }
        read
    }
}

/// The words of a class token: its runs of ASCII letters and digits. Split on bytes, not
/// chars: a non-ASCII character is never part of a word, so its bytes split alike.
fn words(token: &str) -> impl Iterator<Item = &str> {
    let bytes = token.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        while pos < bytes.len() && !bytes[pos].is_ascii_alphanumeric() {
            pos += 1;
        }
        if pos == bytes.len() {
            return None;
        }
        let start = pos;
        while pos < bytes.len() && bytes[pos].is_ascii_alphanumeric() {
            pos += 1;
        }
        Some(&token[start..pos])
    })
}

/// Last words of a class that name an admonition box: part of the content.
const ADMONITION_WORDS: &[&str] = &[
    "admonition",
    "callout",
    "caution",
    "danger",
    "hint",
    "important",
    "note",
    "tip",
    "warning",
];

/// Utility-first CSS (`text-secondary`, `dark:bg-card`, `top-0`, `md:sticky`) styles a box;
/// it does not say what the box is, so such tokens are not read for words.
fn is_utility_class(token: &str, layout_word: bool) -> bool {
    if token.contains(':') {
        return true;
    }
    // A layout modifier (`et_pb_blurb_position_top`, `text_align_left`) places the box; its
    // last word is a side, not what the box is.
    if layout_word {
        return true;
    }
    // The part before the first `-` names the property (`text-`, `px-`, `max-w-`).
    let mut parts = token.splitn(3, '-');
    let (Some(head), Some(next)) = (parts.next(), parts.next()) else {
        return false;
    };
    match head {
        "text" | "bg" | "border" | "shadow" | "font" | "leading" | "tracking" | "p" | "px"
        | "py" | "pt" | "pb" | "ps" | "pe" | "m" | "mx" | "my" | "mt" | "mb" | "ms" | "me"
        | "w" | "h" | "gap" | "top" | "bottom" | "z" | "inset" | "rounded" | "grid" | "flex"
        | "space" | "divide" | "ring" | "opacity" => true,
        "max" | "min" => matches!(next, "w" | "h"),
        "col" | "row" => next == "span",
        _ => false,
    }
}

/// Which kinds of part a token contains.
#[derive(Default)]
struct Parts {
    embed: bool,
    negative: bool,
    comments: bool,
    positive: bool,
    consent: bool,
}

/// One automaton over every part: a token is scanned once, not once per part.
static PART_FINDER: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::new(
        EMBED_PARTS
            .iter()
            .chain(&NEGATIVE_PARTS)
            .chain(&COMMENT_PARTS)
            .chain(&POSITIVE_PARTS)
            .chain(&CONSENT_PARTS),
    )
    .expect("the parts are a small fixed list")
});

fn parts_in(token: &str) -> Parts {
    let mut parts = Parts::default();
    let negative_from = EMBED_PARTS.len();
    let comments_from = negative_from + NEGATIVE_PARTS.len();
    let positive_from = comments_from + COMMENT_PARTS.len();
    let consent_from = positive_from + POSITIVE_PARTS.len();
    for found in PART_FINDER.find_overlapping_iter(token) {
        let i = found.pattern().as_usize();
        if i < negative_from {
            parts.embed = true;
        } else if i < comments_from {
            parts.negative = true;
        } else if i < positive_from {
            parts.comments = true;
        } else if i < consent_from {
            parts.positive = true;
        } else {
            parts.consent = true;
        }
    }
    parts
}

/// Readability-style class weight: +25 for content words, -25 for boilerplate words.
pub(crate) fn class_weight(signal: ClassSignal) -> f32 {
    let mut weight = 0.0;
    if signal.negative || signal.strong || signal.comments || signal.reviews {
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
    fn words_are_the_runs_of_ascii_letters_and_digits() {
        for token in [
            "",
            "post-body",
            "--a__b9--",
            "naïve-héader_x",
            "日本-nav",
            "a",
        ] {
            let by_char: Vec<&str> = token
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            assert_eq!(words(token).collect::<Vec<_>>(), by_char, "{token:?}");
        }
    }

    #[test]
    fn negative_words_are_sorted() {
        assert!(NEGATIVE_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn words_not_substrings_for_short_names() {
        assert!(signal_of(r#"<div class="share-bar">"#).strong);
        assert!(signal_of(r#"<div class="ad">"#).negative);
        assert!(!signal_of(r#"<div class="shadow download">"#).negative);
        assert!(signal_of(r#"<div id="comments">"#).comments);
        assert!(signal_of(r#"<div class="article-body">"#).positive);
        // Utility classes style a box and say nothing of what it is.
        let utility = signal_of(r#"<div class="p-6 text-secondary dark:bg-card top-0">"#);
        assert!(!utility.negative && !utility.strong, "{utility:?}");
        // An admonition is part of the text even when a word in its class reads negative.
        assert!(signal_of(r#"<blockquote class="blockquote-tag-note">"#).positive);
    }
}
