//! A lenient, fast HTML parser that builds a [`Dom`].
//!
//! Why not html5ever: it parses at roughly 60 MB/s here, which alone would spend the whole
//! time budget of the extractor (issue 3 asks for 320 pages/s on pages averaging 170 KB).
//! This parser covers what extraction needs from the HTML spec: raw-text elements
//! (script, style, textarea, title), comments, character references, void elements and
//! the implied end tags that matter for structure (p, li, dt/dd, table parts, option),
//! and it never fails: any byte string gives a tree. It does not do the adoption agency
//! algorithm or foster parenting; mis-nested inline tags just close at the next matching
//! end tag, which is harmless for reading text.
//!
//! Bounds: nesting is capped at [`MAX_DEPTH`] (deeper elements become children of the
//! deepest open one), and end-tag matching looks at most that far up the stack, so time is
//! linear in the input size.

use std::sync::LazyLock;

use memchr::{memchr, memmem};

use crate::dom::{Attr, AttrName, Dom, HiddenBy, Kind, NONE, Node, NodeId, Span, Tag};
use crate::entities::{decode_into, find_special};

/// Deepest element nesting kept; deeper start tags attach to the deepest open element.
pub(crate) const MAX_DEPTH: usize = 192;

/// Parse `html` into a tree. Never fails.
pub(crate) fn parse(html: &str) -> Dom {
    parse_with(html, false)
}

/// Parse `html` as a browser with scripting off does: what every `<noscript>` holds is
/// markup, read in place. For a page that shows nothing until its scripts run (a Blogger
/// post rendered from a template) and keeps a copy for readers without them.
pub(crate) fn parse_scripting_off(html: &str) -> Dom {
    parse_with(html, true)
}

fn parse_with(html: &str, scripting_off: bool) -> Dom {
    let mut p = Parser {
        scripting_off,
        // Sized so few pages grow them: a growth copies all that is held so far. On WCXB
        // dev a third of the page's bytes fell short for the text on most pages and half
        // on 370 of 914; the decoded text and kept attributes are rarely more than the page.
        dom: Dom {
            nodes: Vec::with_capacity(html.len() / 20 + 16),
            attrs: Vec::with_capacity(html.len() / 100 + 16),
            buf: String::with_capacity(html.len() + 16),
            html_lang: None,
            text_sizes: Vec::new(),
        },
        stack: Vec::with_capacity(64),
        open_p: 0,
        open_a: 0,
        open_foreign: 0,
        src: html.as_bytes(),
        html,
        special_from: usize::MAX,
        special: 0,
    };
    p.dom.nodes.push(Node {
        kind: Kind::Document,
        tag: Tag::None,
        hidden: false,
        hidden_by: HiddenBy::Markup,
        parent: NONE,
        first_child: NONE,
        last_child: NONE,
        next_sibling: NONE,
        text: Span::default(),
        attr_start: 0,
        attr_len: 0,
    });
    p.stack.push(0);
    p.run();
    p.dom.measure_texts();
    p.dom
}

struct Parser<'a> {
    dom: Dom,
    /// Read what `<noscript>` holds as markup (see `parse_scripting_off`).
    scripting_off: bool,
    /// Open elements; `stack[0]` is the document node. Changed only through `push_open`,
    /// `pop_open` and `truncate_open`, which keep the counts below.
    stack: Vec<NodeId>,
    /// Open `<p>` and `<a>` elements on the stack: most start tags close an open `<p>`, and
    /// each `<a>` an open `<a>`; when none is open, the walk down the stack is skipped.
    open_p: u32,
    open_a: u32,
    /// Open `<svg>` and `<math>` elements: most start tags leave foreign content, which is
    /// a walk down the stack unless none is open.
    open_foreign: u32,
    src: &'a [u8],
    html: &'a str,
    /// `src[special_from..special]` holds no byte that decoding changes, and `special` is
    /// the next such byte (or the end): see `next_special`.
    special_from: usize,
    special: usize,
}

impl Parser<'_> {
    fn run(&mut self) {
        let src = self.src;
        let mut pos = 0;
        while pos < src.len() {
            let Some(off) = find_lt(&src[pos..]) else {
                self.text(pos, src.len());
                break;
            };
            let lt = pos + off;
            if lt > pos {
                self.text(pos, lt);
            }
            pos = self.markup(lt);
        }
    }

    /// Handle markup starting at `<` (index `lt`); returns where to continue.
    fn markup(&mut self, lt: usize) -> usize {
        let src = self.src;
        let next = src.get(lt + 1).copied().unwrap_or(0);
        if next == b'!' {
            if src[lt..].starts_with(b"<!--") {
                return match find(src, lt + 4, &COMMENT_END) {
                    Some(end) => end + 3,
                    None => src.len(),
                };
            }
            // CDATA exists only inside `<svg>`/`<math>`; in HTML `<![CDATA[` opens a bogus
            // comment that ends at the next `>`, or a stray one would turn the page to text.
            if src[lt..].starts_with(b"<![CDATA[") && self.in_foreign_content() {
                let end = find(src, lt + 9, &CDATA_END).unwrap_or(src.len());
                self.text(lt + 9, end);
                return (end + 3).min(src.len());
            }
            if let Some(end) = doctype_with_subset_end(src, lt) {
                return end;
            }
            return skip_past_gt(src, lt + 2);
        }
        if next == b'?' {
            return skip_past_gt(src, lt + 2);
        }
        if next == b'/' {
            let name_start = lt + 2;
            let name_end = scan_name(src, name_start);
            if name_end == name_start {
                // `</>` or `</ junk>`: a bogus comment.
                return skip_past_gt(src, name_start);
            }
            let tag = tag_of(&src[name_start..name_end]);
            self.end_tag(tag, &src[name_start..name_end]);
            return skip_past_gt(src, name_end);
        }
        if !next.is_ascii_alphabetic() {
            self.text(lt, lt + 1);
            return lt + 1;
        }
        self.start_tag(lt + 1)
    }

    fn start_tag(&mut self, name_start: usize) -> usize {
        let src = self.src;
        let name_end = scan_name(src, name_start);
        let tag = tag_of(&src[name_start..name_end]);
        let attr_start = self.dom.attrs.len() as u32;
        let (end, self_closing, hiding) = self.attributes(name_end, tag);
        let attr_len = self.dom.attrs.len() as u32 - attr_start;

        match tag {
            Tag::Html => {
                if self.dom.html_lang.is_none() {
                    self.dom.html_lang = self.attr_value(attr_start, attr_len, AttrName::Lang);
                }
                self.dom.attrs.truncate(attr_start as usize);
                return end;
            }
            Tag::Head | Tag::Body => {
                self.dom.attrs.truncate(attr_start as usize);
                return end;
            }
            // Some sites (Discourse's crawler view) serve the whole page inside
            // `<noscript>`: markup of that size is read as if scripting were off.
            Tag::Noscript if self.scripting_off || is_page_in_noscript(&src[end..]) => {
                self.dom.attrs.truncate(attr_start as usize);
                return end;
            }
            _ => {}
        }
        if breaks_out_of_foreign_content(tag) {
            self.leave_foreign_content();
        }
        self.close_implied(tag);
        let id = self.append(Node {
            kind: Kind::Element,
            tag,
            hidden: hiding.hidden,
            hidden_by: hiding.by,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            text: Span::default(),
            attr_start,
            attr_len,
        });
        if tag.is_void() || self_closing {
            return end;
        }
        // An inline `<svg>` (icons, charts) is never rendered: its markup is passed over
        // whole, not built into nodes, when it holds nothing that would end it early.
        if tag == Tag::Svg
            && let Some(after) = skippable_svg(src, end)
        {
            return after;
        }
        match tag {
            Tag::Script
            | Tag::Style
            | Tag::Noscript
            | Tag::Noembed
            | Tag::Noframes
            | Tag::Iframe
            | Tag::Xmp => {
                // Raw text. Only JSON-LD scripts keep their text (metadata reads it).
                let close = find_end_tag(src, end, &src[name_start..name_end]);
                let keep = tag == Tag::Script
                    && self
                        .attr_value(attr_start, attr_len, AttrName::Type)
                        .is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json"));
                if keep {
                    self.raw_child(id, end, close);
                }
                skip_past_gt(src, close)
            }
            Tag::Title | Tag::Textarea => {
                let close = find_end_tag(src, end, &src[name_start..name_end]);
                self.push_open(id);
                self.text(end, close);
                self.pop_open();
                skip_past_gt(src, close)
            }
            Tag::Plaintext => {
                self.push_open(id);
                self.text(end, src.len());
                self.pop_open();
                src.len()
            }
            _ => {
                if self.stack.len() < MAX_DEPTH {
                    self.push_open(id);
                }
                end
            }
        }
    }

    /// Parse attributes from `pos` to the closing `>`. Returns (position after `>`,
    /// self-closing, how it is hidden).
    fn attributes(&mut self, mut pos: usize, tag: Tag) -> (usize, bool, Hiding) {
        let src = self.src;
        let mut hidden = Hiding::default();
        let mut self_closing = false;
        loop {
            while pos < src.len() && (src[pos].is_ascii_whitespace() || src[pos] == b'/') {
                self_closing = src[pos] == b'/';
                pos += 1;
            }
            if pos >= src.len() {
                return (pos, self_closing, hidden);
            }
            if src[pos] == b'>' {
                return (pos + 1, self_closing, hidden);
            }
            self_closing = false;
            let name_start = pos;
            pos += 1; // an attribute name may start with any byte but these
            while pos < src.len() && !ENDS_ATTR_NAME[src[pos] as usize] {
                pos += 1;
            }
            let name = &src[name_start..pos];
            while pos < src.len() && src[pos].is_ascii_whitespace() {
                pos += 1;
            }
            let mut value = (0, 0);
            if pos < src.len() && src[pos] == b'=' {
                pos += 1;
                while pos < src.len() && src[pos].is_ascii_whitespace() {
                    pos += 1;
                }
                if pos < src.len() && (src[pos] == b'"' || src[pos] == b'\'') {
                    let quote = src[pos];
                    let vstart = pos + 1;
                    let vend = memchr(quote, &src[vstart..]).map_or(src.len(), |o| vstart + o);
                    value = (vstart, vend);
                    pos = (vend + 1).min(src.len());
                } else {
                    let vstart = pos;
                    while pos < src.len() && !src[pos].is_ascii_whitespace() && src[pos] != b'>' {
                        pos += 1;
                    }
                    value = (vstart, pos);
                }
            }
            self.attribute(name, value, tag, &mut hidden);
        }
    }

    fn attribute(&mut self, name: &[u8], (vs, ve): (usize, usize), tag: Tag, hiding: &mut Hiding) {
        // The longest name read is `aria-controls`.
        if name.len() > 13 {
            return;
        }
        let lname = &mut [0u8; 16];
        let lname = lowercase_into(name, lname);
        let value = &self.src[vs..ve];
        match lname {
            b"hidden" => {
                // `<input type=hidden>` is not what hides content.
                if tag != Tag::Input {
                    hiding.hidden = true;
                }
                return;
            }
            b"aria-hidden" => {
                // Hidden from screen readers, not from the eye: a card's link often
                // repeats its title for sighted readers only. Links keep their text.
                // A closed modal or menu: hidden until the reader opens it, never the body
                // a script shows on load.
                if tag != Tag::A && value.eq_ignore_ascii_case(b"true") {
                    hiding.hidden = true;
                    if hiding.by == HiddenBy::Markup {
                        hiding.by = HiddenBy::Aria;
                    }
                }
                return;
            }
            b"style" => {
                hiding.hidden |= style_hides(value);
                return;
            }
            b"class" => {
                if let Some(by) = class_hides(value) {
                    hiding.hidden = true;
                    hiding.by = by;
                }
            }
            _ => {}
        }
        let Some(kept) = AttrName::from_lower(lname) else {
            return;
        };
        let start = self.dom.buf.len();
        self.decode(vs, ve, true);
        let value_span = Span {
            start: start as u32,
            len: (self.dom.buf.len() - start) as u32,
        };
        self.dom.attrs.push(Attr {
            name: kept,
            value: value_span,
        });
    }

    fn attr_value(&self, start: u32, len: u32, name: AttrName) -> Option<String> {
        self.dom.attrs[start as usize..(start + len) as usize]
            .iter()
            .find(|a| a.name == name)
            .map(|a| self.dom.span(a.value).to_owned())
    }

    fn push_buf(&mut self, s: &str) -> Span {
        let start = self.dom.buf.len();
        self.dom.buf.push_str(s);
        Span {
            start: start as u32,
            len: s.len() as u32,
        }
    }

    fn end_tag(&mut self, tag: Tag, name: &[u8]) {
        if matches!(tag, Tag::Html | Tag::Head | Tag::Body) {
            return;
        }
        if tag == Tag::Br {
            // `</br>` is a line break in every browser.
            self.close_implied(Tag::Br);
            self.append(element(Tag::Br));
            return;
        }
        // Find the nearest open element with this tag. For unknown tags we cannot compare
        // names (they are not stored), so an unknown end tag closes the nearest unknown
        // element only if it is the current one.
        let top = self.stack.len();
        let limit = top.saturating_sub(MAX_DEPTH).max(1);
        if tag == Tag::Other {
            // Unknown names are not stored, so close the nearest unknown element within a
            // few levels (custom elements usually close right after their last child).
            let _ = name;
            for i in (top.saturating_sub(8).max(1)..top).rev() {
                if self.dom.node(self.stack[i]).tag == Tag::Other {
                    self.truncate_open(i);
                    return;
                }
            }
            return;
        }
        // HTML5 closes the nearest open h1–h6 at any h1–h6 end tag: `<h3>…</h2>` must not
        // leave the heading open around the rest of the article.
        let heading = tag.heading_level().is_some();
        for i in (limit..top).rev() {
            let open = self.dom.node(self.stack[i]).tag;
            if open == tag || heading && open.heading_level().is_some() {
                self.truncate_open(i);
                return;
            }
            // An end tag does not close past these scope boundaries.
            if is_scope_boundary(open) && !closes_across(tag) {
                return;
            }
        }
    }

    /// Close the elements that a start tag of `tag` implies are finished.
    /// An HTML start tag such as `<div>` or `<p>` inside `<svg>`/`<math>` closes them, as the
    /// spec's foreign-content rules say: an unclosed icon `<svg>` must not swallow the page.
    /// What was opened inside the `<svg>` is foreign content too (a `<main>` there is an
    /// SVG element to a browser), so it all closes with it.
    fn leave_foreign_content(&mut self) {
        if self.open_foreign == 0 {
            return;
        }
        for i in (1..self.stack.len()).rev() {
            match self.dom.node(self.stack[i]).tag {
                Tag::Svg | Tag::Math => {
                    self.truncate_open(i);
                    return;
                }
                _ => {}
            }
        }
    }

    fn in_foreign_content(&self) -> bool {
        self.open_foreign > 0
    }

    fn close_implied(&mut self, tag: Tag) {
        let closes_p = !tag.is_inline()
            && !matches!(
                tag,
                Tag::Li
                    | Tag::Dt
                    | Tag::Dd
                    | Tag::Td
                    | Tag::Th
                    | Tag::Tr
                    | Tag::Option
                    | Tag::Optgroup
                    | Tag::Script
                    | Tag::Style
                    | Tag::Noscript
                    | Tag::Template
                    | Tag::Meta
                    | Tag::Link
                    | Tag::Title
                    | Tag::Base
                    | Tag::Iframe
                    | Tag::Svg
                    | Tag::Math
                    | Tag::Object
                    | Tag::Embed
                    | Tag::Textarea
                    | Tag::Select
                    | Tag::Button
                    | Tag::Input
                    | Tag::Caption
                    | Tag::Col
                    | Tag::Colgroup
                    | Tag::Tbody
                    | Tag::Thead
                    | Tag::Tfoot
            );
        if closes_p {
            self.close_in_scope(Tag::P, &[]);
        }
        match tag {
            Tag::Li => self.close_in_scope(Tag::Li, &[Tag::Ul, Tag::Ol, Tag::Menu]),
            Tag::Dt | Tag::Dd => {
                self.close_in_scope(Tag::Dt, &[Tag::Dl]);
                self.close_in_scope(Tag::Dd, &[Tag::Dl]);
            }
            Tag::Td | Tag::Th => {
                self.close_in_scope(Tag::Td, &[Tag::Tr, Tag::Table]);
                self.close_in_scope(Tag::Th, &[Tag::Tr, Tag::Table]);
            }
            Tag::Tr => {
                self.close_in_scope(Tag::Tr, &[Tag::Table, Tag::Tbody, Tag::Thead, Tag::Tfoot])
            }
            Tag::Tbody | Tag::Thead | Tag::Tfoot => {
                for t in [Tag::Tbody, Tag::Thead, Tag::Tfoot] {
                    self.close_in_scope(t, &[Tag::Table]);
                }
            }
            Tag::Option => self.close_top(Tag::Option),
            Tag::Optgroup => {
                self.close_top(Tag::Option);
                self.close_top(Tag::Optgroup);
            }
            Tag::A => self.close_in_scope(Tag::A, &[]),
            // A button cannot hold a button (the spec closes the open one): a start tag
            // missing its `>` must not leave one open around the rest of the page.
            Tag::Button => self.close_in_scope(Tag::Button, &[]),
            Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6 => {
                if let Some(&top) = self.stack.last()
                    && self.dom.node(top).tag.heading_level().is_some()
                {
                    self.pop_open();
                }
            }
            _ => {}
        }
    }

    fn close_top(&mut self, tag: Tag) {
        if let Some(&top) = self.stack.last()
            && self.dom.node(top).tag == tag
        {
            self.pop_open();
        }
    }

    fn push_open(&mut self, id: NodeId) {
        self.count_open(id, true);
        self.stack.push(id);
    }

    fn pop_open(&mut self) {
        if let Some(id) = self.stack.pop() {
            self.count_open(id, false);
        }
    }

    fn truncate_open(&mut self, len: usize) {
        for i in len..self.stack.len() {
            self.count_open(self.stack[i], false);
        }
        self.stack.truncate(len);
    }

    fn count_open(&mut self, id: NodeId, opened: bool) {
        let count = match self.dom.node(id).tag {
            Tag::P => &mut self.open_p,
            Tag::A => &mut self.open_a,
            Tag::Svg | Tag::Math => &mut self.open_foreign,
            _ => return,
        };
        if opened {
            *count += 1;
        } else {
            *count -= 1;
        }
    }

    /// Close the nearest open `tag` unless a scope boundary or one of `stop` comes first.
    fn close_in_scope(&mut self, tag: Tag, stop: &[Tag]) {
        if tag == Tag::P && self.open_p == 0 || tag == Tag::A && self.open_a == 0 {
            return;
        }
        let top = self.stack.len();
        let limit = top.saturating_sub(MAX_DEPTH).max(1);
        for i in (limit..top).rev() {
            let open = self.dom.node(self.stack[i]).tag;
            if open == tag {
                self.truncate_open(i);
                return;
            }
            if is_scope_boundary(open) || stop.contains(&open) {
                return;
            }
        }
    }

    fn append(&mut self, mut node: Node) -> NodeId {
        let parent = *self.stack.last().unwrap_or(&0);
        let id = self.dom.nodes.len() as NodeId;
        node.parent = parent;
        let last = self.dom.nodes[parent as usize].last_child;
        if last == NONE {
            self.dom.nodes[parent as usize].first_child = id;
        } else {
            self.dom.nodes[last as usize].next_sibling = id;
        }
        self.dom.nodes[parent as usize].last_child = id;
        self.dom.nodes.push(node);
        id
    }

    /// Append text `src[start..end]` (entities decoded) to the current element, merging
    /// with a preceding text node.
    fn text(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        let parent = *self.stack.last().unwrap_or(&0);
        let last = self.dom.nodes[parent as usize].last_child;
        let buf_start = self.dom.buf.len();
        self.decode(start, end, false);
        let added = (self.dom.buf.len() - buf_start) as u32;
        if last != NONE {
            let prev = &mut self.dom.nodes[last as usize];
            // Texts are appended in order, so the previous text node's span ends where
            // this one starts only if nothing was pushed to the buffer in between.
            if prev.kind == Kind::Text && (prev.text.start + prev.text.len) as usize == buf_start {
                prev.text.len += added;
                return;
            }
        }
        self.append(Node {
            kind: Kind::Text,
            tag: Tag::None,
            hidden: false,
            hidden_by: HiddenBy::Markup,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            text: Span {
                start: buf_start as u32,
                len: added,
            },
            attr_start: 0,
            attr_len: 0,
        });
    }

    /// Append `src[start..end]` to the buffer with character references decoded. Inlined:
    /// most calls are a compare and a copy, less than a call's saved registers cost.
    #[inline(always)]
    fn decode(&mut self, start: usize, end: usize, in_attribute: bool) {
        let plain_end = self.next_special(start).min(end);
        self.dom.buf.push_str(&self.html[start..plain_end]);
        if plain_end < end {
            decode_into(&self.html[plain_end..end], &mut self.dom.buf, in_attribute);
        }
    }

    /// The first byte decoding may change (`entities::find_special`) at or after `from`, or
    /// the end. One search serves every text and attribute value up to the byte it finds:
    /// most texts are whitespace between tags, and a search of their own cost more than
    /// copying them.
    fn next_special(&mut self, from: usize) -> usize {
        if from < self.special_from || from > self.special {
            self.special_from = from;
            self.special = find_special(&self.src[from..]).map_or(self.src.len(), |o| from + o);
        }
        self.special
    }

    /// A text child with `src[start..end]` verbatim (no entity decoding): JSON-LD.
    fn raw_child(&mut self, parent: NodeId, start: usize, end: usize) {
        let span = self.push_buf(&self.html[start..end.max(start)]);
        self.push_open(parent);
        let id = self.append(element(Tag::None));
        self.pop_open();
        let node = &mut self.dom.nodes[id as usize];
        node.kind = Kind::Text;
        node.text = span;
    }
}

fn element(tag: Tag) -> Node {
    Node {
        kind: Kind::Element,
        tag,
        hidden: false,
        hidden_by: HiddenBy::Markup,
        parent: NONE,
        first_child: NONE,
        last_child: NONE,
        next_sibling: NONE,
        text: Span::default(),
        attr_start: 0,
        attr_len: 0,
    }
}

/// Elements that end tags and implied closes do not look past.
fn is_scope_boundary(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Table
            | Tag::Td
            | Tag::Th
            | Tag::Caption
            | Tag::Template
            | Tag::Object
            | Tag::Svg
            | Tag::Math
            | Tag::Button
    )
}

/// End tags that may close across a scope boundary (the boundary itself, or table parts).
fn closes_across(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Table
            | Tag::Td
            | Tag::Th
            | Tag::Tr
            | Tag::Tbody
            | Tag::Thead
            | Tag::Tfoot
            | Tag::Caption
            | Tag::Template
            | Tag::Object
            | Tag::Svg
            | Tag::Math
            | Tag::Button
    )
}

/// `name`'s tag (`Other` for any name no tag has).
fn tag_of(name: &[u8]) -> Tag {
    // Zeros past the name: the key is the lowered name, zero padded.
    let mut lower = [0u8; 16];
    // No tag's name is as long as 16 bytes, which the key would not hold.
    if name.len() >= lower.len() {
        return Tag::Other;
    }
    lowercase_into(name, &mut lower);
    Tag::from_key(crate::dom::tag_key(lower, name.len()))
}

/// `name` (at most 16 bytes) lower-cased into `lower`: copied, then all 16 bytes
/// lower-cased as two words (`trawl_core::swar`). The release build vectorizes no loop
/// (see `swar`), and the fixed-length byte loop this replaces, run for every tag and
/// attribute, was 3 % of a crawl's instructions (BENCHMARKS.md §13.14).
fn lowercase_into<'l>(name: &[u8], lower: &'l mut [u8; 16]) -> &'l [u8] {
    use trawl_core::swar;

    lower[..name.len()].copy_from_slice(name);
    for half in lower.chunks_exact_mut(8) {
        let word = u64::from_le_bytes((&*half).try_into().expect("eight bytes"));
        half.copy_from_slice(&swar::ascii_lowercase(word).to_le_bytes());
    }
    &lower[..name.len()]
}

fn scan_name(src: &[u8], mut pos: usize) -> usize {
    while pos < src.len() && !ENDS_TAG_NAME[src[pos] as usize] {
        pos += 1;
    }
    pos
}

/// Bytes that end a tag name, and an attribute name (which `=` ends too), as tables: one
/// load per byte instead of a chain of compares, on the loops that read every tag.
const ENDS_TAG_NAME: [bool; 256] = byte_table(b" \t\n\r\x0c/>");
const ENDS_ATTR_NAME: [bool; 256] = byte_table(b" \t\n\r\x0c/>=");

const fn byte_table(bytes: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}

/// The next `<`. Markup mostly follows markup, or a little whitespace: the first bytes are
/// looked at before memchr, whose set-up costs more than such a gap.
fn find_lt(src: &[u8]) -> Option<usize> {
    let head = src.len().min(8);
    match src[..head].iter().position(|&b| b == b'<') {
        Some(at) => Some(at),
        None => memchr(b'<', &src[head..]).map(|at| head + at),
    }
}

fn skip_past_gt(src: &[u8], pos: usize) -> usize {
    // An end tag's name is nearly always followed by its `>`: no search for that one.
    if src.get(pos) == Some(&b'>') {
        return pos + 1;
    }
    let pos = pos.min(src.len());
    memchr(b'>', &src[pos..]).map_or(src.len(), |o| pos + o + 1)
}

/// The ends of a comment and of a CDATA section, each searched for with one searcher for
/// the whole run: building one per search (`memmem::find`) costs more than most comments
/// take to search.
static COMMENT_END: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"-->"));
static CDATA_END: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"]]>"));

/// Position of `needle` at or after `from`.
fn find(src: &[u8], from: usize, needle: &memmem::Finder<'_>) -> Option<usize> {
    let from = from.min(src.len());
    needle.find(&src[from..]).map(|o| from + o)
}

/// Position of `</name` (case-insensitive) at or after `from`, or the end of input.
fn find_end_tag(src: &[u8], from: usize, name: &[u8]) -> usize {
    let mut pos = from.min(src.len());
    while let Some(off) = memchr(b'<', &src[pos..]) {
        let lt = pos + off;
        let after = lt + 2 + name.len();
        if src.get(lt + 1) == Some(&b'/')
            && after <= src.len()
            && src[lt + 2..after].eq_ignore_ascii_case(name)
            && src
                .get(after)
                .is_none_or(|b| matches!(b, b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/'))
        {
            return lt;
        }
        pos = lt + 1;
    }
    src.len()
}

/// How an element's attributes hide it.
#[derive(Default, Clone, Copy)]
struct Hiding {
    /// `hidden`, `aria-hidden=true`, an inline `display:none` or a `hide` class.
    hidden: bool,
    /// What hides it (see `HiddenBy`); a class wins over `aria-hidden`.
    by: HiddenBy,
}

/// How a class attribute hides its element, if it does: by a stylesheet's hiding class, a
/// token `hide` or `hidden` (Bootstrap's and Foundation's `display:none`), unless another
/// token shows it again at some screen width (Tailwind's `hidden md:block`); or on a
/// computer's screen, by Elementor's `elementor-hidden-desktop` (the builder's copy of a
/// block for phones: the page as read on a computer shows the desktop copy instead).
fn class_hides(value: &[u8]) -> Option<HiddenBy> {
    // Every element with a class comes here: a token is looked at only when it is as long
    // as one of these (most are not), and the value is read once.
    let mut hides = false;
    for token in value.split(|b| b.is_ascii_whitespace()) {
        match token.len() {
            4 => hides |= is_word_in_any_case(token, b"hide"),
            6 => hides |= is_word_in_any_case(token, b"hidden"),
            24 if token.eq_ignore_ascii_case(b"elementor-hidden-desktop") => {
                return Some(HiddenBy::Device);
            }
            _ => {}
        }
    }
    (hides && memchr(b':', value).is_none()).then_some(HiddenBy::Class)
}

/// Whether `token` is `word`, a word of lower-case ASCII letters, in any case: a byte with
/// 0x20 set is a lower-case letter only if it was that letter or its capital. A byte loop
/// the compiler inlines, where `eq_ignore_ascii_case` is a call in the release build (its
/// chunked loop is not inlined there), made for every class token of these lengths.
fn is_word_in_any_case(token: &[u8], word: &[u8]) -> bool {
    debug_assert!(word.iter().all(u8::is_ascii_lowercase));
    token.len() == word.len() && token.iter().zip(word).all(|(&t, &w)| t | 0x20 == w)
}

/// Whether an inline style says `display:none` or `visibility:hidden` (whitespace and case
/// aside).
fn style_hides(style: &[u8]) -> bool {
    fn squeezed<'s>(bytes: impl Iterator<Item = &'s u8>) -> impl Iterator<Item = u8> {
        bytes
            .filter(|b| !b.is_ascii_whitespace())
            .map(|b| b.to_ascii_lowercase())
    }
    // Each phrase holds one colon: the bytes on either side of each colon are compared in
    // place, whitespace skipped, with no compacted copy of the style built (tens of
    // thousands of styles, some long).
    memchr::memchr_iter(b':', style).any(|colon| {
        let (property, value) = (&style[..colon], &style[colon + 1..]);
        let ends = |word: &[u8]| {
            squeezed(property.iter().rev())
                .take(word.len())
                .eq(word.iter().rev().copied())
        };
        let starts = |word: &[u8]| {
            squeezed(value.iter())
                .take(word.len())
                .eq(word.iter().copied())
        };
        ends(b"display") && starts(b"none") || ends(b"visibility") && starts(b"hidden")
    })
}

/// HTML start tags that end foreign content (the spec's list, less the rare ones).
fn breaks_out_of_foreign_content(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::B
            | Tag::Big
            | Tag::Blockquote
            | Tag::Br
            | Tag::Center
            | Tag::Code
            | Tag::Dd
            | Tag::Div
            | Tag::Dl
            | Tag::Dt
            | Tag::Em
            | Tag::Embed
            | Tag::H1
            | Tag::H2
            | Tag::H3
            | Tag::H4
            | Tag::H5
            | Tag::H6
            | Tag::Hr
            | Tag::I
            | Tag::Img
            | Tag::Li
            | Tag::Menu
            | Tag::Meta
            | Tag::Ol
            | Tag::P
            | Tag::Pre
            | Tag::Ruby
            | Tag::S
            | Tag::Small
            | Tag::Span
            | Tag::Strong
            | Tag::Strike
            | Tag::Sub
            | Tag::Sup
            | Tag::Table
            | Tag::Tt
            | Tag::U
            | Tag::Ul
            | Tag::Var
    )
}

/// Where the markup of an `<svg>` whose content starts at `from` ends (after its `</svg>`),
/// when it can be passed over without building its nodes: nested `<svg>`s closed in order,
/// and no comment, CDATA section, link or HTML tag that ends foreign content (a `<p>` in a
/// broken icon) inside. `None` sends the parser through the markup as usual.
fn skippable_svg(src: &[u8], from: usize) -> Option<usize> {
    let mut depth = 1usize;
    let mut pos = from;
    loop {
        let lt = pos + memchr(b'<', src.get(pos..)?)?;
        let next = *src.get(lt + 1)?;
        if next == b'/' {
            let name_end = scan_name(src, lt + 2);
            if src[lt + 2..name_end].eq_ignore_ascii_case(b"svg") {
                depth -= 1;
                if depth == 0 {
                    return Some(skip_past_gt(src, name_end));
                }
            }
            pos = name_end;
        } else if next.is_ascii_alphabetic() {
            let name_end = scan_name(src, lt + 1);
            match tag_of(&src[lt + 1..name_end]) {
                Tag::Svg => depth += 1,
                Tag::A => return None,
                tag if breaks_out_of_foreign_content(tag) => return None,
                _ => {}
            }
            pos = name_end;
        } else if next == b'!' {
            return None;
        } else {
            pos = lt + 1;
        }
    }
}

/// Whether a `<noscript>` starting at `rest` holds a page's worth of markup (paragraphs,
/// posts) rather than a "please enable JavaScript" line or a tracking pixel.
fn is_page_in_noscript(rest: &[u8]) -> bool {
    let close = find_end_tag(rest, 0, b"noscript");
    let inner = &rest[..close.min(rest.len())];
    inner.len() >= 2000
        && memchr::memmem::find(inner, b"<p").is_some()
        && memchr::memmem::find(inner, b"<div").is_some()
}

/// Where a `<!DOCTYPE … [ internal subset ]>` at `lt` ends, when it has a subset (XHTML in
/// EPUBs declares entities there): the subset's declarations hold `>`, so the first `>`
/// is not the end, and the rest (`]>`) would be read as text.
fn doctype_with_subset_end(src: &[u8], lt: usize) -> Option<usize> {
    const DOCTYPE: &[u8] = b"<!doctype";
    let head = src.get(lt..lt + DOCTYPE.len())?;
    if !head.eq_ignore_ascii_case(DOCTYPE) {
        return None;
    }
    let gt = memchr(b'>', &src[lt..]).map_or(src.len(), |i| lt + i);
    let open = lt + memchr(b'[', &src[lt..gt])?;
    // The subset ends at `]`, spaces, `>`; a subset that never ends runs to the input's end.
    let mut at = open + 1;
    while let Some(i) = memchr(b']', &src[at..]) {
        let close = at + i;
        let after = close
            + 1
            + src[close + 1..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        if src.get(after) == Some(&b'>') {
            return Some(after + 1);
        }
        at = close + 1;
    }
    Some(src.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value at every place of every length a name may have, beside bytes of
    /// every case: what `to_ascii_lowercase` gives, and nothing past the name.
    #[test]
    fn names_are_lower_cased_as_to_ascii_lowercase_does() {
        for len in 0..=16 {
            for b in 0..=255u8 {
                for at in 0..len {
                    let mut name: Vec<u8> = (0..len).map(|i| b"Az@[`{Q\xC9"[i % 8]).collect();
                    name[at] = b;
                    let mut lower = [0u8; 16];
                    assert_eq!(
                        lowercase_into(&name, &mut lower),
                        name.to_ascii_lowercase().as_slice(),
                        "{name:?}"
                    );
                }
            }
        }
    }

    /// The table gives the tag the match on names gives: for every tag's name in upper
    /// and lower case, with any byte at any place in it, with a byte (a NUL too) after it
    /// or its last byte gone; for every name of one or two bytes; and for names too long.
    #[test]
    fn tags_by_table_are_tags_by_name() {
        let by_name = |name: &[u8]| {
            if name.len() > 16 {
                Tag::Other
            } else {
                Tag::from_lower(&name.to_ascii_lowercase())
            }
        };
        let check = |name: &[u8]| assert_eq!(tag_of(name), by_name(name), "{name:?}");
        let mut names: Vec<Vec<u8>> = Vec::new();
        for (name, _) in Tag::NAMED {
            for cased in [name.to_vec(), name.to_ascii_uppercase()] {
                for at in 0..cased.len() {
                    for b in 0..=255u8 {
                        let mut changed = cased.clone();
                        changed[at] = b;
                        names.push(changed);
                    }
                }
                for b in [0u8, b'a', b'1', b'-', 0xC9] {
                    names.push([cased.as_slice(), &[b]].concat());
                }
                names.push(cased[..cased.len() - 1].to_vec());
                names.push(cased.repeat(16));
            }
        }
        for a in 0..=255u8 {
            names.push(vec![a]);
            for b in 0..=255u8 {
                names.push(vec![a, b]);
            }
        }
        names.push(Vec::new());
        names.push(b"blockquoteblockq".to_vec());
        for name in &names {
            check(name);
        }
    }

    /// Every byte at every place: only the word's letters, in either case, make it.
    #[test]
    fn a_word_in_any_case_is_what_eq_ignore_ascii_case_finds() {
        for word in [&b"hide"[..], b"hidden"] {
            for at in 0..word.len() {
                for b in 0..=255u8 {
                    let mut token = word.to_ascii_uppercase();
                    token[at] = b;
                    assert_eq!(
                        is_word_in_any_case(&token, word),
                        token.eq_ignore_ascii_case(word),
                        "{token:?}"
                    );
                }
            }
            assert!(!is_word_in_any_case(&word[1..], word));
        }
    }

    fn texts(dom: &Dom) -> Vec<String> {
        (0..dom.nodes.len() as NodeId)
            .filter(|&i| dom.node(i).kind == Kind::Text)
            .map(|i| dom.text(i).to_owned())
            .collect()
    }

    #[test]
    fn style_hides_when_the_compacted_style_holds_a_hiding_phrase() {
        for style in [
            "",
            "display:none",
            "DISPLAY : None ;",
            "color:red; display: block",
            "visibility: hidden",
            "visibility:visible; x:hidden",
            "font-display:none",
            "display:none-ish",
            ":none display",
            "display:",
            "dis play:no ne",
            "a:b:display:none",
            "\u{e9}display:none",
        ] {
            let compact: Vec<u8> = style
                .bytes()
                .filter(|b| !b.is_ascii_whitespace())
                .map(|b| b.to_ascii_lowercase())
                .collect();
            let by_search = memchr::memmem::find(&compact, b"display:none").is_some()
                || memchr::memmem::find(&compact, b"visibility:hidden").is_some();
            assert_eq!(style_hides(style.as_bytes()), by_search, "{style:?}");
        }
    }

    #[test]
    fn entities_are_decoded() {
        let dom = parse("<p>caf&eacute; &amp; &#8212; &#x41; &nbsp;x &bogus; &amp</p>");
        assert_eq!(texts(&dom), vec!["café & — A  x &bogus; &"]);
    }

    #[test]
    fn an_inline_svg_is_passed_over_unless_it_ends_early() {
        let dom = parse(
            "<div><svg viewBox='0 0 9 9'><g><path d='M0 0'/></g><SVG><rect/></Svg>\
             <title>icon</title></svg><p>after</p></div>",
        );
        let svg = (0..dom.nodes.len() as NodeId)
            .find(|&i| dom.node(i).tag == Tag::Svg)
            .unwrap();
        assert_eq!(
            dom.node(svg).first_child,
            NONE,
            "the svg's markup built no nodes"
        );
        assert_eq!(texts(&dom), ["after"]);
        let p = (0..dom.nodes.len() as NodeId)
            .find(|&i| dom.node(i).tag == Tag::P)
            .unwrap();
        assert_eq!(dom.node(p).parent, dom.node(svg).parent);

        // A paragraph inside ends the svg (foreign content), and a link inside is kept for
        // the page's links: both are parsed as before.
        for page in [
            "<div><svg><circle r='1'/><p>broke out</p></div>",
            "<div><svg><a href='/x'><text>linked</text></a></svg><p>after</p></div>",
        ] {
            let dom = parse(page);
            let svg = (0..dom.nodes.len() as NodeId)
                .find(|&i| dom.node(i).tag == Tag::Svg)
                .unwrap();
            assert_ne!(dom.node(svg).first_child, NONE, "{page}");
        }
    }

    #[test]
    fn an_unclosed_svg_does_not_swallow_the_page() {
        let dom = parse(
            "<header><svg class=icon><path d='M0'></header><main><div><p>Body</p></div></main>",
        );
        let p = (0..dom.nodes.len() as NodeId)
            .find(|&i| dom.node(i).tag == Tag::P)
            .unwrap();
        let mut cur = dom.node(p).parent;
        while cur != NONE && cur != 0 {
            assert_ne!(
                dom.node(cur).tag,
                Tag::Svg,
                "the paragraph ended up inside the svg"
            );
            cur = dom.node(cur).parent;
        }
    }

    #[test]
    fn a_page_inside_noscript_is_parsed() {
        let post = "<div class=post><p>A reply with enough words to count as a post.</p></div>";
        let html = format!("<body><noscript>{}</noscript></body>", post.repeat(40));
        let dom = parse(&html);
        assert_eq!(texts(&dom).len(), 40);
        let tiny = parse("<noscript><p>Please enable JavaScript.</p></noscript><p>x</p>");
        assert_eq!(texts(&tiny), vec!["x"]);
    }

    #[test]
    fn implied_ends_make_siblings() {
        let dom = parse("<ul><li>a<li>b</ul><p>one<p>two");
        let lis: Vec<_> = (0..dom.nodes.len() as NodeId)
            .filter(|&i| dom.node(i).tag == Tag::Li)
            .collect();
        assert_eq!(lis.len(), 2);
        assert_eq!(dom.node(lis[0]).parent, dom.node(lis[1]).parent);
        let ps: Vec<_> = (0..dom.nodes.len() as NodeId)
            .filter(|&i| dom.node(i).tag == Tag::P)
            .collect();
        assert_eq!(dom.node(ps[0]).parent, dom.node(ps[1]).parent);
    }

    #[test]
    fn script_text_is_skipped_but_json_ld_kept() {
        let dom = parse(
            r#"<script>if (a < b) { x = "</div>"; }</script><script type="application/ld+json">{"a":"&amp;"}</script><p>t</p>"#,
        );
        assert_eq!(texts(&dom), vec![r#"{"a":"&amp;"}"#, "t"]);
    }

    #[test]
    fn a_hide_class_hides_unless_a_responsive_token_shows_it_again() {
        for (class, hides) in [
            ("hide", true),
            ("card Hidden", true),
            ("related hide js-related", true),
            ("hidden md:block", false),
            ("hidden-xs", false),
            ("overflow-hidden", false),
            ("hider", false),
            ("", false),
        ] {
            assert_eq!(
                class_hides(class.as_bytes()),
                hides.then_some(HiddenBy::Class),
                "{class:?}"
            );
        }
    }

    #[test]
    fn a_builder_block_hidden_on_a_computer_is_hidden_by_device() {
        for class in [
            "elementor-section elementor-hidden-desktop elementor-hidden-tablet",
            "elementor-element Elementor-Hidden-Desktop",
        ] {
            assert_eq!(
                class_hides(class.as_bytes()),
                Some(HiddenBy::Device),
                "{class:?}"
            );
        }
        assert_eq!(
            class_hides(b"elementor-section elementor-hidden-mobile elementor-hidden-tablet"),
            None
        );
    }

    #[test]
    fn hidden_elements_are_flagged() {
        let dom = parse(r#"<div style="display: none">x</div><div hidden>y</div><div>z</div>"#);
        let hidden: Vec<bool> = (0..dom.nodes.len() as NodeId)
            .filter(|&i| dom.node(i).tag == Tag::Div)
            .map(|i| dom.node(i).hidden)
            .collect();
        assert_eq!(hidden, vec![true, true, false]);
    }

    #[test]
    fn deep_nesting_is_capped() {
        let html = "<div>".repeat(10_000) + "deep";
        let dom = parse(&html);
        let mut depth = 0;
        let mut cur = (dom.nodes.len() - 1) as NodeId;
        while dom.node(cur).parent != NONE {
            cur = dom.node(cur).parent;
            depth += 1;
        }
        assert!(depth <= MAX_DEPTH + 1, "depth {depth}");
    }
}
