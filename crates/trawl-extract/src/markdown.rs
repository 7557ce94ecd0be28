//! Serialising the chosen content as Markdown (or plain text) straight from the arena.
//!
//! trawl writes its own serializer instead of handing HTML to a converter crate because it
//! needs three things no converter crate gave together: links and images made
//! absolute against the page URL or `<base href>`, the language of code blocks kept from
//! `class="language-x"` and friends, and no second parse of the HTML (speed). It also
//! skips whatever the content pass dropped without building a new tree.

mod table;

use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use url::Url;

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Markdown,
    Text,
}

/// Render `roots` (skipping `dropped` nodes) in `mode`.
pub(crate) fn render(
    dom: &Dom,
    dropped: &[bool],
    roots: &[NodeId],
    base: &Url,
    mode: Mode,
) -> String {
    let mut w = Writer::new(dom, dropped, base, mode);
    for &root in roots {
        if dom.node(root).kind == Kind::Document {
            w.children(root);
        } else {
            w.node(root);
        }
        w.block(2);
    }
    let mut out = w.out;
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

struct Writer<'a> {
    dom: &'a Dom,
    dropped: &'a [bool],
    base: &'a Url,
    mode: Mode,
    out: String,
    /// Written at the start of every line: block quote markers and list indentation.
    prefix: String,
    /// A list marker to write instead of `prefix` on the next line (first line of an item),
    /// when `marker_owed`. A buffer kept from item to item, not a string for each.
    marker_prefix: String,
    marker_owed: bool,
    /// Line breaks owed before the next text: 1 = new line, 2 = blank line.
    pending_break: u8,
    /// How much of `prefix` the owed blank line carries, when a quote opened after it was
    /// owed: the line before a quote belongs outside it (a bare `>` line otherwise).
    break_prefix: Option<usize>,
    pending_space: bool,
    /// Inside a heading, link or table cell: blocks become spaces.
    inline_only: u32,
    /// Ordinal of the current `<ol>` item.
    list_counters: Vec<Option<usize>>,
    /// Link and image targets made absolute, by what the page wrote: resolving against the
    /// base is a URL parse, and pages link the same target many times.
    resolved: FxHashMap<&'a str, Option<String>>,
    /// A buffer for text gathered before it is written (inline code), kept between uses.
    scratch: String,
}

impl<'a> Writer<'a> {
    fn new(dom: &'a Dom, dropped: &'a [bool], base: &'a Url, mode: Mode) -> Self {
        Self::with_out(dom, dropped, base, mode, String::with_capacity(8192))
    }

    fn with_out(dom: &'a Dom, dropped: &'a [bool], base: &'a Url, mode: Mode, out: String) -> Self {
        Writer {
            dom,
            dropped,
            base,
            mode,
            out,
            prefix: String::new(),
            marker_prefix: String::new(),
            marker_owed: false,
            pending_break: 0,
            break_prefix: None,
            pending_space: false,
            inline_only: 0,
            list_counters: Vec::new(),
            resolved: FxHashMap::default(),
            scratch: String::new(),
        }
    }

    /// Back to a new writer's state with `inline_only` at 1, as a table's cell is written,
    /// keeping the buffers (and the resolved links: the base is the same).
    fn reset_inline(&mut self) {
        self.out.clear();
        self.prefix.clear();
        self.marker_prefix.clear();
        self.marker_owed = false;
        self.pending_break = 0;
        self.break_prefix = None;
        self.pending_space = false;
        self.inline_only = 1;
        self.list_counters.clear();
    }

    fn md(&self) -> bool {
        self.mode == Mode::Markdown
    }

    /// Owe a line break (1) or a blank line (2) before the next text.
    fn block(&mut self, lines: u8) {
        if self.inline_only > 0 {
            self.pending_space = true;
        } else {
            self.pending_break = self.pending_break.max(lines);
        }
    }

    /// Pay owed breaks (and the owed space) before writing visible text.
    fn flush(&mut self) {
        if self.pending_break > 0 {
            let trimmed = self.out.trim_end_matches([' ', '\t']).len();
            self.out.truncate(trimmed);
            if !self.out.is_empty() {
                self.out.push('\n');
                if self.pending_break > 1 {
                    let carried = self
                        .break_prefix
                        .unwrap_or(usize::MAX)
                        .min(self.prefix.len());
                    self.out.push_str(self.prefix[..carried].trim_end());
                    self.out.push('\n');
                }
            }
            if self.marker_owed {
                self.marker_owed = false;
                self.out.push_str(&self.marker_prefix);
            } else {
                self.out.push_str(&self.prefix);
            }
            self.pending_break = 0;
            self.break_prefix = None;
            self.pending_space = false;
        } else if self.marker_owed {
            self.marker_owed = false;
            if !self.out.is_empty() && !self.out.ends_with('\n') {
                self.out.push('\n');
            }
            self.out.push_str(&self.marker_prefix);
            self.pending_space = false;
        } else if self.pending_space {
            if !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
                self.out.push(' ');
            }
            self.pending_space = false;
        }
    }

    fn text(&mut self, text: &str) {
        let trimmed = text.trim_ascii();
        if !trimmed.is_empty() {
            self.flush();
            push_single_spaced(&mut self.out, trimmed);
        }
        // The last byte, not the last char: a byte below 0x80 is a whole character.
        if text.as_bytes().last().is_some_and(u8::is_ascii_whitespace) {
            self.pending_space = true;
        }
    }

    /// Leading whitespace of a text node must become a space before its first word.
    fn text_node(&mut self, text: &str) {
        if text.starts_with(|c: char| c.is_ascii_whitespace()) {
            self.pending_space = true;
        }
        self.text(text);
    }

    fn children(&mut self, id: NodeId) {
        for child in self.dom.children(id) {
            self.node(child);
        }
    }

    fn node(&mut self, id: NodeId) {
        if self.dropped[id as usize] {
            return;
        }
        let node = self.dom.node(id);
        match node.kind {
            Kind::Text => {
                let text = self.dom.text(id);
                self.text_node(text);
                return;
            }
            Kind::Document => return self.children(id),
            Kind::Element => {}
        }
        let tag = node.tag;
        if let Some(level) = tag.heading_level() {
            return self.heading(id, level);
        }
        match tag {
            Tag::P
            | Tag::Div
            | Tag::Section
            | Tag::Article
            | Tag::Main
            | Tag::Header
            | Tag::Footer
            | Tag::Aside
            | Tag::Nav
            | Tag::Address
            | Tag::Figure
            | Tag::Figcaption
            | Tag::Details
            | Tag::Summary
            | Tag::Center
            | Tag::Form
            | Tag::Fieldset
            | Tag::Hgroup
            | Tag::Dialog
            | Tag::Legend
            | Tag::Caption => {
                self.block(2);
                self.children(id);
                self.block(2);
            }
            Tag::Br => {
                if self.inline_only > 0 {
                    self.pending_space = true;
                } else {
                    self.block(1);
                }
            }
            Tag::Hr => {
                self.block(2);
                if self.md() && self.inline_only == 0 {
                    self.flush();
                    self.out.push_str("---");
                }
                self.block(2);
            }
            Tag::Ul | Tag::Ol | Tag::Menu => self.list(id, tag == Tag::Ol),
            Tag::Li => self.list_item(id),
            Tag::Dl => {
                self.block(2);
                self.children(id);
                self.block(2);
            }
            Tag::Dt => {
                self.block(1);
                self.emphasis(id, "**");
                self.block(1);
            }
            Tag::Dd => {
                self.block(1);
                self.children(id);
                self.block(1);
            }
            Tag::Blockquote => self.blockquote(id),
            Tag::Pre => self.pre(id),
            Tag::Code | Tag::Kbd | Tag::Samp | Tag::Tt => self.inline_code(id),
            Tag::A => self.link(id),
            Tag::Img => self.image(id),
            Tag::Strong | Tag::B => self.emphasis(id, "**"),
            Tag::Em | Tag::I | Tag::Cite | Tag::Dfn | Tag::Var => self.emphasis(id, "*"),
            Tag::Del | Tag::S | Tag::Strike => self.emphasis(id, "~~"),
            Tag::Table => self.table(id),
            Tag::Tr => {
                self.block(1);
                self.children(id);
                self.block(1);
            }
            Tag::Td | Tag::Th => {
                self.pending_space = true;
                self.children(id);
                self.pending_space = true;
            }
            _ => self.children(id),
        }
    }

    fn heading(&mut self, id: NodeId, level: usize) {
        self.block(2);
        if self.inline_only > 0 || !self.md() {
            self.children(id);
            self.block(2);
            return;
        }
        self.flush();
        let mark = self.out.len();
        for _ in 0..level {
            self.out.push('#');
        }
        self.out.push(' ');
        let body = self.out.len();
        self.inline_only += 1;
        self.children(id);
        self.inline_only -= 1;
        if self.out.len() == body {
            self.out.truncate(mark);
        }
        self.pending_space = false;
        self.block(2);
    }

    fn list(&mut self, id: NodeId, ordered: bool) {
        if self.inline_only > 0 {
            return self.children(id);
        }
        let nested = !self.list_counters.is_empty();
        self.block(if nested { 1 } else { 2 });
        self.list_counters.push(ordered.then_some(0));
        self.children(id);
        self.list_counters.pop();
        self.block(if nested { 1 } else { 2 });
    }

    fn list_item(&mut self, id: NodeId) {
        if self.inline_only > 0 {
            self.pending_space = true;
            return self.children(id);
        }
        self.block(1);
        let md = self.md();
        // The first line's prefix is built in place: no marker string of its own, and no
        // formatting of the two together.
        let saved = self.prefix.len();
        self.marker_prefix.clear();
        self.marker_prefix.push_str(&self.prefix);
        match self.list_counters.last_mut() {
            Some(Some(n)) => {
                *n += 1;
                let _ = write!(self.marker_prefix, "{n}. ");
            }
            _ if md => self.marker_prefix.push_str("- "),
            _ => {}
        }
        for _ in saved..self.marker_prefix.len() {
            self.prefix.push(' ');
        }
        self.marker_owed = true;
        self.children(id);
        self.marker_owed = false;
        self.prefix.truncate(saved);
        self.block(1);
    }

    fn blockquote(&mut self, id: NodeId) {
        if self.inline_only > 0 || !self.md() {
            self.block(2);
            self.children(id);
            self.block(2);
            return;
        }
        self.block(2);
        let saved = self.prefix.len();
        if self.marker_owed {
            // A quote as the first thing in a list item keeps the item's marker.
            self.flush_marker();
        }
        if self.pending_break > 1 && self.break_prefix.is_none() {
            self.break_prefix = Some(saved);
        }
        self.prefix.push_str("> ");
        self.children(id);
        self.block(2);
        // Pay the break while still inside, so the quote's last line is not left open.
        self.prefix.truncate(saved);
    }

    fn flush_marker(&mut self) {
        self.marker_owed = false;
        self.flush();
        self.out.push_str(&self.marker_prefix);
        self.pending_break = 0;
    }

    fn pre(&mut self, id: NodeId) {
        let mut code = String::new();
        self.collect_pre_text(id, &mut code);
        let code = code.trim_start_matches('\n').trim_end();
        if code.is_empty() {
            return;
        }
        if self.inline_only > 0 {
            self.flush();
            self.text(code);
            return;
        }
        self.block(2);
        self.flush();
        if self.md() {
            let fence = "`".repeat(longest_run(code, '`').max(2) + 1);
            self.out.push_str(&fence);
            if let Some(lang) = code_language(self.dom, id) {
                self.out.push_str(&lang);
            }
            self.out.push('\n');
            self.write_lines(code);
            self.out.push('\n');
            self.out.push_str(&self.prefix);
            self.out.push_str(&fence);
        } else {
            self.write_lines(code);
        }
        self.block(2);
    }

    fn write_lines(&mut self, code: &str) {
        for (i, line) in code.split('\n').enumerate() {
            if i > 0 {
                self.out.push('\n');
                self.out.push_str(&self.prefix);
            } else if !self.out.ends_with('\n') && !self.out.ends_with(self.prefix.as_str()) {
                self.out.push_str(&self.prefix);
            }
            self.out.push_str(line.trim_end_matches('\r'));
        }
    }

    fn collect_pre_text(&self, id: NodeId, out: &mut String) {
        let end = self.dom.subtree_end(id);
        for i in id + 1..end {
            if self.dropped[i as usize] {
                continue;
            }
            let node = self.dom.node(i);
            match node.kind {
                Kind::Text => out.push_str(self.dom.text(i)),
                Kind::Element if node.tag == Tag::Br => out.push('\n'),
                _ => {}
            }
        }
    }

    fn inline_code(&mut self, id: NodeId) {
        let mut raw = std::mem::take(&mut self.scratch);
        raw.clear();
        self.dom.raw_text_into(id, &mut raw);
        // The code is `raw`'s words joined by single spaces, written straight to `out`:
        // collapsing whitespace neither makes nor breaks a run of backticks, and the words'
        // first and last characters are the trimmed text's.
        let code = raw.trim_ascii();
        if !code.is_empty() {
            self.flush();
            if self.md() {
                let ticks = longest_run(code, '`') + 1;
                let pad = code.starts_with('`') || code.ends_with('`');
                push_repeated(&mut self.out, '`', ticks);
                if pad {
                    self.out.push(' ');
                }
                push_single_spaced(&mut self.out, code);
                if pad {
                    self.out.push(' ');
                }
                push_repeated(&mut self.out, '`', ticks);
            } else {
                push_single_spaced(&mut self.out, code);
            }
        }
        self.scratch = raw;
    }

    fn emphasis(&mut self, id: NodeId, marker: &str) {
        if !self.md() {
            return self.children(id);
        }
        self.flush();
        let mark = self.out.len();
        self.out.push_str(marker);
        let body = self.out.len();
        self.children(id);
        if self.out.len() == body {
            self.out.truncate(mark);
            return;
        }
        // Markers must hug the text: a trailing space moves outside (it is still pending).
        let trimmed = self.out.trim_end().len();
        self.out.truncate(trimmed.max(body));
        if self.out.len() == body {
            self.out.truncate(mark);
            return;
        }
        self.out.push_str(marker);
    }

    fn link(&mut self, id: NodeId) {
        let href = self
            .dom
            .attr(id, AttrName::Href)
            .map(str::trim)
            .unwrap_or("");
        if href.starts_with('#') && self.is_anchor_marker(id) {
            // A heading's permalink (`¶`, `#`, `§`): not text.
            return;
        }
        let linked = self.md() && !href.is_empty() && !href.starts_with('#') && self.absolute(href);
        if !linked {
            return self.children(id);
        }
        self.flush();
        let mark = self.out.len();
        self.out.push('[');
        let body = self.out.len();
        self.inline_only += 1;
        self.children(id);
        self.inline_only -= 1;
        let trimmed = self.out.trim_end().len();
        self.out.truncate(trimmed.max(body));
        if self.out.len() == body {
            self.out.truncate(mark);
            return;
        }
        self.out.push_str("](");
        // Looked up again, not held: the link's children may have resolved more targets.
        if let Some(Some(target)) = self.resolved.get(href) {
            self.out.push_str(target);
        }
        self.out.push(')');
    }

    /// Whether link `id`'s text is a heading permalink's mark (see `is_anchor_marker`).
    fn is_anchor_marker(&mut self, id: NodeId) -> bool {
        let mut raw = std::mem::take(&mut self.scratch);
        raw.clear();
        self.dom.raw_text_into(id, &mut raw);
        let marker = is_anchor_marker(&raw);
        self.scratch = raw;
        marker
    }

    fn image(&mut self, id: NodeId) {
        if !self.md() {
            return;
        }
        let alt = self
            .dom
            .attr(id, AttrName::Alt)
            .map(|a| a.split_ascii_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        if alt.is_empty() {
            return;
        }
        let src = self
            .dom
            .attr(id, AttrName::Src)
            .filter(|s| !s.trim().is_empty() && !s.starts_with("data:"))
            .or_else(|| self.dom.attr(id, AttrName::DataSrc));
        let alt = alt.replace(['[', ']'], "");
        self.flush();
        let src = src.map(str::trim);
        match src.filter(|&s| self.absolute(s)) {
            Some(src) => {
                self.out.push_str("![");
                self.out.push_str(&alt);
                self.out.push_str("](");
                if let Some(Some(url)) = self.resolved.get(src) {
                    self.out.push_str(url);
                }
                self.out.push(')');
            }
            None => {
                self.out.push_str("![");
                self.out.push_str(&alt);
                self.out.push_str("]()");
            }
        }
    }

    /// Whether `href` resolves (`resolve`), resolved once per distinct `href` of the page
    /// and kept in `resolved`, where the writer reads the target.
    fn absolute(&mut self, href: &'a str) -> bool {
        let base = self.base;
        self.resolved
            .entry(href)
            .or_insert_with(|| resolve(base, href))
            .is_some()
    }
}

/// `href` resolved against `base`, with the characters that would end a Markdown link
/// target escaped. `javascript:` links are not links.
fn resolve(base: &Url, href: &str) -> Option<String> {
    if href.len() > 4096 {
        return None;
    }
    let url = base.join(href).ok()?;
    // A local file (or a member of an archive) linking another file: the link is kept
    // as written, relative to where the file is, since a file:// address would name
    // this machine's paths and open nowhere else. (`--url BASE` makes them absolute.)
    let relative_file =
        url.scheme() == "file" && base.scheme() == "file" && url::Url::parse(href).is_err();
    let s = if relative_file {
        let written = href.trim();
        if written.is_empty() || written.starts_with('#') {
            return None;
        }
        written.to_owned()
    } else if matches!(url.scheme(), "http" | "https" | "mailto" | "ftp") {
        // The URL's own string, not a copy of it.
        String::from(url)
    } else {
        return None;
    };
    if s.contains(['(', ')', ' ']) {
        let mut escaped = String::with_capacity(s.len() + 8);
        for c in s.chars() {
            match c {
                '(' => escaped.push_str("%28"),
                ')' => escaped.push_str("%29"),
                ' ' => escaped.push_str("%20"),
                c => escaped.push(c),
            }
        }
        Some(escaped)
    } else {
        Some(s)
    }
}

/// Language of a code block from `class` on the `<pre>` or its `<code>`: `language-x`,
/// `lang-x`, `highlight-x`, `highlight-source-x`, `brush: x`.
fn code_language(dom: &Dom, pre: NodeId) -> Option<String> {
    let end = dom.subtree_end(pre);
    let candidates = std::iter::once(pre)
        .chain(
            (pre + 1..end)
                .filter(|&i| dom.node(i).tag == Tag::Code)
                .take(1),
        )
        .chain(std::iter::once(dom.node(pre).parent))
        // Sphinx wraps as `div.highlight-python > div.highlight > pre`.
        .chain(
            std::iter::once(dom.node(pre).parent)
                .filter(|&p| p != crate::dom::NONE)
                .map(|p| dom.node(p).parent),
        );
    for id in candidates {
        if id == crate::dom::NONE || dom.node(id).kind != Kind::Element {
            continue;
        }
        let Some(class) = dom.attr(id, AttrName::Class) else {
            continue;
        };
        let mut words = class.split_ascii_whitespace();
        while let Some(word) = words.next() {
            let lower = word.to_ascii_lowercase();
            let lang = [
                "language-",
                "lang-",
                "highlight-source-",
                "highlight-",
                "sourcecode-",
            ]
            .iter()
            .find_map(|p| lower.strip_prefix(p))
            .map(str::to_owned)
            .or_else(|| {
                if lower == "brush:" {
                    words
                        .next()
                        .map(|w| w.trim_end_matches(';').to_ascii_lowercase())
                } else {
                    lower
                        .strip_prefix("brush:")
                        .map(|w| w.trim_end_matches(';').to_owned())
                }
            });
            if let Some(lang) = lang.filter(|l| {
                !l.is_empty()
                    && l.len() <= 32
                    && l.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-#._".contains(c))
            }) {
                return Some(lang);
            }
        }
    }
    None
}

fn is_anchor_marker(text: &str) -> bool {
    matches!(text.trim(), "" | "¶" | "#" | "§" | "🔗" | "link")
}

fn push_repeated(out: &mut String, ch: char, n: usize) {
    for _ in 0..n {
        out.push(ch);
    }
}

fn longest_run(s: &str, ch: char) -> usize {
    let mut best = 0;
    let mut cur = 0;
    for c in s.chars() {
        if c == ch {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// Push the words of `text` (trimmed) joined by single spaces. Most prose is that
/// already: the runs of other whitespace are found in blocks (see `extra_space_at`) and
/// what lies between them is copied whole, with no splitting into words.
fn push_single_spaced(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = extra_space_at(rest.as_bytes()) {
        out.push_str(rest[..at].trim_ascii_end());
        out.push(' ');
        rest = rest[at..].trim_ascii_start();
    }
    out.push_str(rest);
}

/// The first ASCII whitespace in `s` (trimmed) that is not a single space between other
/// bytes: up to there, writing `s` word by word with one space between would copy it
/// unchanged.
fn extra_space_at(s: &[u8]) -> Option<usize> {
    use trawl_core::swar;
    // Eight bytes a step (`trawl_core::swar`): this reads every text of every rendering.
    let space = |w: u64| swar::equal(w, b' ');
    let mut words = swar::words(s).peekable();
    let mut at = 0;
    while let Some(w) = words.next() {
        let spaces = space(w);
        // A space whose next byte (the next word's first, for the last) is a space too.
        let next = words.peek().map_or(0x80, |&n| space(n) & 0x80);
        let doubled = spaces & ((spaces >> 8) | (next << 56));
        // Any other ASCII whitespace: tab, newline, form feed, carriage return.
        let hits = doubled | (swar::ascii_space(w) & !spaces);
        if hits != 0 {
            // The padding after the end is spaces: a hit there is none.
            let i = at + (hits.trailing_zeros() / 8) as usize;
            return (i < s.len()).then_some(i);
        }
        at += 8;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::push_single_spaced;

    #[test]
    fn text_is_written_as_its_words_joined_by_single_spaces() {
        let long = "word ".repeat(300) + "\n\tnext  line " + &"x".repeat(600) + " \r\n end";
        let samples = [
            "a",
            "a b",
            "a  b",
            "a\tb",
            "a\nb",
            "a \n b",
            "a\x0c\x0cb  \t c",
            "one, two. three",
            "x \u{a0} y",
            "é b",
            long.as_str(),
        ];
        for text in
            &crate::dom::at_every_offset(&samples, |n, t| "y".repeat(n) + t + " " + t + " z")
        {
            let joined = text.split_ascii_whitespace().collect::<Vec<_>>().join(" ");
            let mut out = String::new();
            push_single_spaced(&mut out, text.trim_ascii());
            assert_eq!(out, joined, "{text:?}");
        }
    }
}
