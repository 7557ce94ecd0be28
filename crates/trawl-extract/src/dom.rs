//! A compact arena tree for parsed HTML.
//!
//! Nodes live in one `Vec` in document (pre-)order, so a parent always has a smaller index
//! than its children: bottom-up sums are one reverse loop, top-down flags one forward loop,
//! and no pass over the tree needs recursion. Text and attribute strings live in one shared
//! buffer and nodes hold spans into it, so parsing a page makes a handful of allocations
//! rather than one per node.

/// Index of a node in [`Dom::nodes`]. `NONE` marks "no node".
pub(crate) type NodeId = u32;
pub(crate) const NONE: NodeId = u32::MAX;

/// A byte range in [`Dom::buf`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// One kept attribute (the extractor reads only the names in [`AttrName`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attr {
    pub(crate) name: AttrName,
    pub(crate) value: Span,
}

/// Attribute names the extractor reads; others are dropped at parse time. A small enum
/// makes attribute lookup a byte compare instead of a string compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AttrName {
    Class,
    Id,
    Href,
    Src,
    DataSrc,
    Alt,
    Lang,
    Content,
    Name,
    Property,
    Rel,
    Itemprop,
    Type,
    Charset,
    HttpEquiv,
    Datetime,
    Role,
    Colspan,
    AriaControls,
}

impl AttrName {
    /// `name` must already be lower-case ASCII.
    pub(crate) fn from_lower(name: &[u8]) -> Option<AttrName> {
        Some(match name {
            b"class" => AttrName::Class,
            b"id" => AttrName::Id,
            b"href" => AttrName::Href,
            b"src" => AttrName::Src,
            b"data-src" => AttrName::DataSrc,
            b"alt" => AttrName::Alt,
            b"lang" => AttrName::Lang,
            b"content" => AttrName::Content,
            b"name" => AttrName::Name,
            b"property" => AttrName::Property,
            b"rel" => AttrName::Rel,
            b"itemprop" => AttrName::Itemprop,
            b"type" => AttrName::Type,
            b"charset" => AttrName::Charset,
            b"http-equiv" => AttrName::HttpEquiv,
            b"datetime" => AttrName::Datetime,
            b"role" => AttrName::Role,
            b"colspan" => AttrName::Colspan,
            b"aria-controls" => AttrName::AriaControls,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Document,
    Element,
    Text,
}

/// What hides an element, when it is hidden.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum HiddenBy {
    /// Not hidden, or by the `hidden` attribute or an inline style: how a page hides its
    /// body until a script shows it.
    #[default]
    Markup,
    /// `aria-hidden=true`: a closed modal or menu.
    Aria,
    /// A `hide` class, which a script also uses to show one of a set of panels.
    Class,
    /// A page builder's class that hides a block on a computer's screen
    /// (`elementor-hidden-desktop`): its copy for phones, beside the one shown.
    Device,
}

impl HiddenBy {
    /// Hidden the way a closed modal or a stylesheet hides: never the body a script shows
    /// on load, however much of the page it holds.
    pub(crate) fn for_good(self) -> bool {
        self != HiddenBy::Markup
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) kind: Kind,
    pub(crate) tag: Tag,
    /// Set at parse time for `hidden`, `aria-hidden=true`, inline `display:none` or
    /// `visibility:hidden` and a `hide` class.
    pub(crate) hidden: bool,
    /// How a hidden element is hidden: one byte, in the padding after `hidden` (every pass
    /// walks the nodes, so a bigger node costs them all).
    pub(crate) hidden_by: HiddenBy,
    pub(crate) parent: NodeId,
    pub(crate) first_child: NodeId,
    pub(crate) last_child: NodeId,
    pub(crate) next_sibling: NodeId,
    /// Text nodes: the text (entities decoded). Elements: unused.
    pub(crate) text: Span,
    /// Elements: range into [`Dom::attrs`].
    pub(crate) attr_start: u32,
    pub(crate) attr_len: u32,
}

/// The parsed page.
#[derive(Debug, Default)]
pub(crate) struct Dom {
    pub(crate) nodes: Vec<Node>,
    pub(crate) attrs: Vec<Attr>,
    pub(crate) buf: String,
    /// `lang` of the `<html>` element (html/head/body are not kept as nodes).
    pub(crate) html_lang: Option<String>,
    /// Per node, the measure of a text node's text (zero for elements). Measured once at
    /// parse time: every selection pass sums these instead of re-reading the text.
    pub(crate) text_sizes: Vec<TextSize>,
}

/// Visible characters (whitespace not counted) and commas in a text node.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TextSize {
    pub(crate) visible: u32,
    pub(crate) commas: u32,
}

impl TextSize {
    pub(crate) fn of(text: &str) -> TextSize {
        use trawl_core::swar;
        // Eight bytes a step (`trawl_core::swar`): this reads every text node of a page.
        let (mut visible, mut commas) = (swar::Tally::default(), swar::Tally::default());
        for word in swar::words(text.as_bytes()) {
            visible.add(!swar::continuation(word) & !swar::ascii_space(word) & swar::HIGH);
            commas.add(swar::equal(word, b','));
        }
        let fit = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        TextSize {
            visible: fit(visible.total()),
            commas: fit(commas.total()),
        }
    }
}

/// ASCII whitespace as `u8::is_ascii_whitespace` has it (space, \t, \n, \x0C, \r; not
/// \x0B), byte by byte (`trawl_core::swar::ascii_space` for eight at once).
fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b) && b != 0x0B
}

/// Whether `b` may start a character that `char::is_whitespace` calls a space and
/// `is_ascii_space` does not: \x0B, and the lead bytes of U+0085, U+00A0, U+1680,
/// U+2000-U+205F and U+3000.
pub(crate) fn may_start_other_space(b: u8) -> bool {
    (b == 0x0B) | (b == 0xC2) | (b == 0xE1) | (b == 0xE2) | (b == 0xE3)
}

/// Whether some position of `bytes` starts a sequence that `pick` accepts, `pick` being
/// given the byte there and the two after it (a space past the end). Counted in blocks of
/// at most 255, so the counts fit a byte each, with no branch a byte but at a block's end:
/// `pick` must be branch-free. Asked of text with bytes beyond ASCII (`has_other_space`).
pub(crate) fn any_at(bytes: &[u8], pick: impl Fn(u8, u8, u8) -> bool) -> bool {
    let body = bytes.len().saturating_sub(2);
    let (one_on, two_on): (&[u8], &[u8]) = if body > 0 {
        (&bytes[1..], &bytes[2..])
    } else {
        (&[], &[])
    };
    for ((b0, b1), b2) in bytes[..body]
        .chunks(255)
        .zip(one_on.chunks(255))
        .zip(two_on.chunks(255))
    {
        // Re-sliced to one length, so the indexing below has no bounds checks left.
        let len = b0.len();
        let (b1, b2) = (&b1[..len], &b2[..len]);
        let mut n = 0u8;
        for j in 0..len {
            n += u8::from(pick(b0[j], b1[j], b2[j]));
        }
        if n > 0 {
            return true;
        }
    }
    let mut tail = [b' '; 4];
    tail[..bytes.len() - body].copy_from_slice(&bytes[body..]);
    (0..bytes.len() - body).any(|i| pick(tail[i], tail[i + 1], tail[i + 2]))
}

/// Whether `s` holds a whitespace character that is not ASCII whitespace: \x0B, U+0085,
/// U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F or U+3000 (the other
/// characters `char::is_whitespace` accepts), matched on their UTF-8 bytes.
pub(crate) fn has_other_space(s: &str) -> bool {
    // In ASCII text only \x0B can be one (the rest start with a byte of 0xC2 or more), and
    // the ASCII test and a search for one byte read far fewer instructions than the
    // three-byte test.
    if s.is_ascii() {
        return memchr::memchr(0x0B, s.as_bytes()).is_some();
    }
    any_at(s.as_bytes(), |a, b, c| {
        (a == 0x0B)
            | (a == 0xC2) & ((b == 0x85) | (b == 0xA0))
            | (a == 0xE1) & (b == 0x9A) & (c == 0x80)
            | (a == 0xE2)
                & ((b == 0x80) & ((c <= 0x8A) | (c == 0xA8) | (c == 0xA9) | (c == 0xAF))
                    | (b == 0x81) & (c == 0x9F))
            | (a == 0xE3) & (b == 0x80) & (c == 0x80)
    })
}

/// `s.split_whitespace().count()`, counted on bytes: a word starts at each byte that is not
/// ASCII whitespace after one that is. Counted eight bytes a step, as `TextSize` is; this
/// runs over the text of every page. Text with other whitespace (rare: the parser
/// turns no-break spaces into spaces) is counted by `split_whitespace`.
pub(crate) fn word_count(s: &str) -> usize {
    word_count_knowing(s, has_other_space(s))
}

/// `word_count(s)` for a text already known to hold other whitespace (`has_other_space`)
/// or not, read once for its visible characters too.
pub(crate) fn word_count_knowing(s: &str, other_space: bool) -> usize {
    if other_space {
        return s.split_whitespace().count();
    }
    trawl_core::swar::count_runs(s.as_bytes(), trawl_core::swar::ascii_space)
}

/// `s.trim()` (Unicode whitespace) that steps over ASCII bytes without decoding: text
/// nodes are mostly ASCII at their ends, and many are whitespace only.
pub(crate) fn trim(s: &str) -> &str {
    let bytes = s.as_bytes();
    let mut start = 0;
    while start < bytes.len() && is_ascii_space(bytes[start]) {
        start += 1;
    }
    if bytes.get(start).is_some_and(|&b| b >= 0x80 || b == 0x0B) {
        return s.trim();
    }
    let mut end = bytes.len();
    while end > start && is_ascii_space(bytes[end - 1]) {
        end -= 1;
    }
    if end > start && (bytes[end - 1] >= 0x80 || bytes[end - 1] == 0x0B) {
        return s[start..].trim_end();
    }
    &s[start..end]
}

impl Dom {
    /// Fill `text_sizes` for every text node. (The only script text kept is JSON-LD's, a
    /// few hundred bytes; a style's is not kept at all.)
    pub(crate) fn measure_texts(&mut self) {
        // Each size written once, not zeroed first and then written.
        self.text_sizes = self
            .nodes
            .iter()
            .map(|node| {
                if node.kind == Kind::Text {
                    TextSize::of(self.span(node.text))
                } else {
                    TextSize::default()
                }
            })
            .collect();
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub(crate) fn span(&self, span: Span) -> &str {
        &self.buf[span.start as usize..(span.start + span.len) as usize]
    }

    pub(crate) fn text(&self, id: NodeId) -> &str {
        self.span(self.node(id).text)
    }

    /// Value of attribute `name` on element `id`.
    pub(crate) fn attr(&self, id: NodeId, name: AttrName) -> Option<&str> {
        let node = self.node(id);
        let start = node.attr_start as usize;
        self.attrs[start..start + node.attr_len as usize]
            .iter()
            .find(|a| a.name == name)
            .map(|a| self.span(a.value))
    }

    pub(crate) fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            dom: self,
            next: self.node(id).first_child,
        }
    }

    /// One past the last descendant of `id` (descendants are a contiguous index range).
    pub(crate) fn subtree_end(&self, id: NodeId) -> NodeId {
        let mut cur = id;
        loop {
            let node = self.node(cur);
            if node.next_sibling != NONE {
                return node.next_sibling;
            }
            if node.parent == NONE {
                return self.nodes.len() as NodeId;
            }
            cur = node.parent;
        }
    }

    /// The nodes of `id`'s subtree, `id` first, in document order, passing over every
    /// node `dropped` marks with all it holds: what a kept box keeps.
    pub(crate) fn kept<'a>(&'a self, dropped: &'a [bool], id: NodeId) -> Kept<'a> {
        Kept {
            dom: self,
            dropped,
            next: id,
            end: self.subtree_end(id),
        }
    }

    /// All text under `id`, concatenated as-is.
    pub(crate) fn raw_text(&self, id: NodeId) -> String {
        let mut out = String::new();
        self.raw_text_into(id, &mut out);
        out
    }

    /// `raw_text(id)` pushed onto `out`: a caller that reads it and lets it go keeps one
    /// buffer for all its reads.
    pub(crate) fn raw_text_into(&self, id: NodeId, out: &mut String) {
        for i in id..self.subtree_end(id) {
            if self.node(i).kind == Kind::Text {
                out.push_str(self.text(i));
            }
        }
    }

    /// `raw_text(id).len()`, summed without building the text.
    pub(crate) fn text_len(&self, id: NodeId) -> usize {
        (id..self.subtree_end(id))
            .filter(|&i| self.node(i).kind == Kind::Text)
            .map(|i| self.node(i).text.len as usize)
            .sum()
    }
}

pub(crate) struct Children<'a> {
    dom: &'a Dom,
    next: NodeId,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.dom.node(id).next_sibling;
        Some(id)
    }
}

/// See `Dom::kept`.
pub(crate) struct Kept<'a> {
    dom: &'a Dom,
    dropped: &'a [bool],
    next: NodeId,
    end: NodeId,
}

impl Kept<'_> {
    /// Go on after `id`'s subtree (`id` the node last returned): a caller that has read
    /// a box whole does not walk into it.
    pub(crate) fn skip_subtree(&mut self, id: NodeId) {
        self.next = self.dom.subtree_end(id);
    }
}

impl Iterator for Kept<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        while self.next < self.end {
            let i = self.next;
            if self.dropped[i as usize] {
                self.next = self.dom.subtree_end(i);
                continue;
            }
            self.next = i + 1;
            return Some(i);
        }
        None
    }
}

macro_rules! tags {
    ($($variant:ident = $name:literal),* $(,)?) => {
        /// Element names the extractor cares about; everything else is `Other`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum Tag { None, Other, $($variant),* }

        impl Tag {
            /// `name` must already be lower-case ASCII.
            #[cfg(test)]
            pub(crate) fn from_lower(name: &[u8]) -> Tag {
                match name { $($name => Tag::$variant,)* _ => Tag::Other }
            }

            /// Every named tag and its name.
            pub(crate) const NAMED: &[(&[u8], Tag)] = &[$(($name, Tag::$variant)),*];
        }
    };
}

impl Tag {
    /// The tag whose [`tag_key`] is `key` (`Other` for any other). One probe of a table
    /// built at compile time, where the match on the name it replaces compared the bytes
    /// of name after name (the release build keeps the match as a chain of compares), for
    /// every tag of every page.
    pub(crate) fn from_key(key: u128) -> Tag {
        let mut slot = tag_slot(key);
        loop {
            let (k, tag) = TAG_TABLE[slot];
            if k == key || k == 0 {
                return tag;
            }
            slot = (slot + 1) % TAG_SLOTS;
        }
    }
}

/// A lower-case name of at most 15 bytes as one number: its bytes, little-endian, zero
/// padded, and its length in the last byte (so that a name with a NUL byte at its end is
/// not the one without). Never 0 for a name of at least one byte.
pub(crate) const fn tag_key(padded: [u8; 16], len: usize) -> u128 {
    u128::from_le_bytes(padded) | (len as u128) << 120
}

/// `key`'s first slot in [`TAG_TABLE`]: the top bits of a multiplicative hash of its halves.
const fn tag_slot(key: u128) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - TAG_SLOTS.trailing_zeros())) as usize
}

/// [`TAG_TABLE`]'s slots (a power of two, which [`tag_slot`] needs): about twice its names,
/// so that a probe seldom goes on.
const TAG_SLOTS: usize = 256;
const _: () = assert!(TAG_SLOTS.is_power_of_two() && Tag::NAMED.len() * 2 <= TAG_SLOTS);

/// [`Tag::NAMED`] by [`tag_key`], open addressing with linear probing. An empty slot holds
/// key 0 and `Other`.
const TAG_TABLE: [(u128, Tag); TAG_SLOTS] = {
    let mut table = [(0u128, Tag::Other); TAG_SLOTS];
    let mut i = 0;
    while i < Tag::NAMED.len() {
        let (name, tag) = Tag::NAMED[i];
        assert!(!name.is_empty() && name.len() < 16);
        let mut padded = [0u8; 16];
        let mut b = 0;
        while b < name.len() {
            padded[b] = name[b];
            b += 1;
        }
        let key = tag_key(padded, name.len());
        let mut slot = tag_slot(key);
        while table[slot].0 != 0 {
            slot = (slot + 1) % TAG_SLOTS;
        }
        table[slot] = (key, tag);
        i += 1;
    }
    table
};

tags! {
    A = b"a", Abbr = b"abbr", Address = b"address", Article = b"article", Aside = b"aside",
    Audio = b"audio", B = b"b", Base = b"base", Bdi = b"bdi", Big = b"big",
    Blockquote = b"blockquote", Body = b"body", Br = b"br", Button = b"button",
    Canvas = b"canvas", Caption = b"caption", Center = b"center", Cite = b"cite",
    Code = b"code", Col = b"col", Colgroup = b"colgroup", Dd = b"dd", Del = b"del",
    Details = b"details", Dfn = b"dfn", Dialog = b"dialog", Div = b"div", Dl = b"dl", Dt = b"dt",
    Em = b"em", Embed = b"embed", Fieldset = b"fieldset", Figcaption = b"figcaption",
    Figure = b"figure", Font = b"font", Footer = b"footer", Form = b"form", H1 = b"h1",
    H2 = b"h2", H3 = b"h3", H4 = b"h4", H5 = b"h5", H6 = b"h6", Head = b"head",
    Header = b"header", Hgroup = b"hgroup", Hr = b"hr", Html = b"html", I = b"i",
    Iframe = b"iframe", Img = b"img", Input = b"input", Ins = b"ins", Kbd = b"kbd",
    Label = b"label", Legend = b"legend", Li = b"li", Link = b"link", Main = b"main",
    Map = b"map", Mark = b"mark", Math = b"math", Menu = b"menu", Meta = b"meta", Nav = b"nav",
    Noembed = b"noembed", Noframes = b"noframes", Noscript = b"noscript", Object = b"object",
    Ol = b"ol", Optgroup = b"optgroup", Option = b"option", Output = b"output", P = b"p",
    Param = b"param", Picture = b"picture", Plaintext = b"plaintext", Pre = b"pre",
    Q = b"q", Rp = b"rp", Rt = b"rt", Ruby = b"ruby", S = b"s", Samp = b"samp", Script = b"script", Section = b"section",
    Select = b"select", Small = b"small", Source = b"source", Span = b"span",
    Strike = b"strike", Strong = b"strong", Style = b"style", Sub = b"sub",
    Summary = b"summary", Sup = b"sup", Svg = b"svg", Table = b"table", Tbody = b"tbody",
    Td = b"td", Template = b"template", Textarea = b"textarea", Tfoot = b"tfoot",
    Th = b"th", Thead = b"thead", Time = b"time", Title = b"title", Tr = b"tr",
    Track = b"track", Tt = b"tt", U = b"u", Ul = b"ul", Var = b"var", Video = b"video",
    Wbr = b"wbr", Xmp = b"xmp",
}

impl Tag {
    /// Elements with no content and no end tag.
    pub(crate) fn is_void(self) -> bool {
        matches!(
            self,
            Tag::Br
                | Tag::Hr
                | Tag::Img
                | Tag::Input
                | Tag::Meta
                | Tag::Link
                | Tag::Base
                | Tag::Col
                | Tag::Embed
                | Tag::Param
                | Tag::Source
                | Tag::Track
                | Tag::Wbr
        )
    }

    /// Phrasing elements: their text belongs to the enclosing block.
    pub(crate) fn is_inline(self) -> bool {
        matches!(
            self,
            Tag::A
                | Tag::Abbr
                | Tag::B
                | Tag::Bdi
                | Tag::Big
                | Tag::Br
                | Tag::Cite
                | Tag::Code
                | Tag::Del
                | Tag::Dfn
                | Tag::Em
                | Tag::Font
                | Tag::I
                | Tag::Img
                | Tag::Ins
                | Tag::Kbd
                | Tag::Label
                | Tag::Mark
                | Tag::Math
                | Tag::Q
                | Tag::S
                | Tag::Samp
                | Tag::Small
                | Tag::Span
                | Tag::Strike
                | Tag::Strong
                | Tag::Sub
                | Tag::Sup
                | Tag::Time
                | Tag::Tt
                | Tag::U
                | Tag::Var
                | Tag::Wbr
                | Tag::Ruby
                | Tag::Rt
                | Tag::Rp
                | Tag::Picture
                | Tag::Output
                | Tag::Other
        )
    }

    pub(crate) fn heading_level(self) -> Option<usize> {
        match self {
            Tag::H1 => Some(1),
            Tag::H2 => Some(2),
            Tag::H3 => Some(3),
            Tag::H4 => Some(4),
            Tag::H5 => Some(5),
            Tag::H6 => Some(6),
            _ => None,
        }
    }
}

/// Test cases for the scans that read eight bytes a step (`trawl_core::swar`): each sample,
/// then `place(n, sample)` for `n` in 0..9, which should put it at every place in a word.
#[cfg(test)]
pub(crate) fn at_every_offset(
    samples: &[&str],
    place: impl Fn(usize, &str) -> String,
) -> Vec<String> {
    let shifted = (0..9).flat_map(|n| samples.iter().map(move |s| (n, *s)));
    samples
        .iter()
        .map(|s| (*s).to_owned())
        .chain(shifted.map(|(n, s)| place(n, s)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::TextSize;

    #[test]
    fn text_len_is_raw_text_len() {
        let dom = crate::parse::parse(
            "<div><p>One <b>two</b> three</p><table><tr><td>é|x</td><td></td></tr></table>\
             <script>var x;</script> tail &amp; more</div>",
        );
        for id in 0..dom.nodes.len() as super::NodeId {
            assert_eq!(dom.text_len(id), dom.raw_text(id).len(), "node {id}");
        }
    }

    #[test]
    fn trim_is_str_trim() {
        for s in [
            "",
            "   ",
            " a ",
            "\t\na b\r\n",
            "\u{a0} x \u{3000}",
            " \u{2003}y",
            "z\u{85} ",
            "\x0b v \x0b",
            "é",
            " é ",
            "\x0c\x0c",
            " 漢字\u{a0}",
        ] {
            assert_eq!(super::trim(s), s.trim(), "{s:?}");
        }
    }

    #[test]
    fn other_space_is_what_char_is_whitespace_adds_to_ascii() {
        // Every whitespace character, alone, at the end and inside text, and look-alikes.
        for c in (0..=0x3000u32).filter_map(char::from_u32) {
            let expected = c.is_whitespace() && !c.is_ascii_whitespace();
            for s in [
                c.to_string(),
                format!("ab{c}"),
                format!("a{c}bcd"),
                format!("{c}x"),
            ] {
                assert_eq!(super::has_other_space(&s), expected, "{s:?}");
            }
        }
        assert!(!super::has_other_space("it’s — “quoted” © ½ …"));
    }

    #[test]
    fn word_count_is_split_whitespace_count() {
        let long = "word ".repeat(300) + "end’s — “quoted” ©";
        let samples = [
            "",
            "   ",
            "one",
            " two words ",
            "\t\nthree\r\nwords\x0chere",
            "vertical\x0btab",
            "no-break\u{a0}space next\u{85}line ogham\u{1680}mark",
            "em\u{2003}space ideographic\u{3000}space",
            "it’s — “not” © a space\u{200b}zero-width",
            "漢字 é ß \u{1f600}",
            long.as_str(),
        ];
        for s in &super::at_every_offset(&samples, |n, s| {
            "x".repeat(n) + s + " " + s + &" ".repeat(n)
        }) {
            assert_eq!(super::word_count(s), s.split_whitespace().count(), "{s:?}");
        }
    }

    #[test]
    fn text_size_counts_characters_but_not_ascii_whitespace() {
        let samples = [
            "",
            " a, b ,c ",
            "\t\n\x0c\r x",
            "\x0b",
            "漢字, é\u{a0}x",
            "a,,",
        ];
        for s in &super::at_every_offset(&samples, |n, s| {
            " ".repeat(n) + s + "é" + s + &",".repeat(n)
        }) {
            let visible = s.chars().filter(|c| !c.is_ascii_whitespace()).count() as u32;
            let commas = s.matches(',').count() as u32;
            let size = TextSize::of(s);
            assert_eq!((size.visible, size.commas), (visible, commas), "{s:?}");
        }
    }
}
