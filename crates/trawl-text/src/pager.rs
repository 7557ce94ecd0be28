//! Token-budget pages of a Markdown document, cut on block boundaries, losslessly.
//!
//! A document is read as blocks: a fenced code block (opening to closing fence, blank
//! lines included), an ATX heading line, or a run of non-blank lines (a paragraph, a
//! table, a list item). Blank lines belong to the block before them (leading ones to
//! the first block), so the blocks tile the document byte for byte and the pages, being
//! runs of blocks, join back into exactly the document.
//!
//! Pages are filled greedily. A page never ends inside a block unless that block alone is
//! over the budget; such a block starts a new page when the current one is at least half
//! full (so its start is not buried at the foot of a page, nor a page left nearly empty),
//! and is split at line boundaries, a line that is still too big at word boundaries, and a
//! word that is still too big (a base64 blob) at character boundaries. A page never ends
//! on a heading (or a run of headings) when it fits on the next page with what follows.
//!
//! Page numbers are 1-based: page N of M. A budget of 0 means one page, the whole
//! document; an empty document is one empty page, so page 1 always exists.

use std::ops::Range;

/// The default page size, in estimated tokens.
pub const DEFAULT_PAGE_TOKENS: usize = 4000;

/// A cheap, conservative token count: `ceil(ascii_chars / 4) + non_ascii_chars`, floored
/// at the number of whitespace-separated words.
///
/// Why this shape: BPE tokenizers (cl100k, o200k and kin) average about four characters
/// per token on English prose and code, but spend a token or more per character on CJK
/// text and one per short word or symbol in tables and numbers. Counting every non-ASCII
/// character as a token over-counts Cyrillic or Greek about twofold, and the word floor
/// catches `| a | b |` rows; both err on the side of smaller pages, which is the safe
/// side for a context window. It is additive enough for paging: the estimate of a
/// concatenation never exceeds the sum of the parts' estimates.
pub fn estimate_tokens(text: &str) -> usize {
    let bytes = text.as_bytes();
    if bytes.is_ascii() {
        // All ASCII (most pages): bytes, and the words, eight bytes a step
        // (`trawl_core::swar`; a crawl estimates every block of every page it stores).
        let words = trawl_core::swar::ascii_words(bytes);
        return bytes.len().div_ceil(4).max(words);
    }
    let mut counter = TokenCounter::default();
    // ASCII bytes are counted as bytes (decoding each character was most of the cost);
    // the rest as characters.
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b.is_ascii() {
            counter.push_ascii(b);
            at += 1;
        } else {
            let c = text[at..].chars().next().unwrap_or_default();
            counter.push(c);
            at += c.len_utf8();
        }
    }
    counter.tokens()
}

#[derive(Default, Clone, Copy)]
struct TokenCounter {
    ascii: usize,
    other: usize,
    words: usize,
    in_word: bool,
}

impl TokenCounter {
    fn push(&mut self, c: char) {
        if c.is_ascii() {
            self.ascii += 1;
        } else {
            self.other += 1;
        }
        let wordy = !c.is_whitespace();
        if wordy && !self.in_word {
            self.words += 1;
        }
        self.in_word = wordy;
    }

    /// [`push`](Self::push) of an ASCII character (`char::is_whitespace` is, in ASCII,
    /// tab to carriage return and space).
    #[inline]
    fn push_ascii(&mut self, b: u8) {
        self.ascii += 1;
        let wordy = !matches!(b, b'\t'..=b'\r' | b' ');
        if wordy && !self.in_word {
            self.words += 1;
        }
        self.in_word = wordy;
    }

    fn tokens(&self) -> usize {
        (self.ascii.div_ceil(4) + self.other).max(self.words)
    }
}

/// One page: its number, the page count, and its slice of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<'a> {
    /// 1-based.
    pub number: usize,
    /// How many pages the document has under this budget.
    pub of: usize,
    /// The page's Markdown, exactly as it appears in the document.
    pub text: &'a str,
    /// Byte range of `text` in the document.
    pub range: Range<usize>,
    /// [`estimate_tokens`] of `text`.
    pub tokens: usize,
}

/// A document cut into pages.
#[derive(Debug, Clone)]
pub struct Pages<'a> {
    markdown: &'a str,
    spans: Vec<Range<usize>>,
}

impl<'a> Pages<'a> {
    /// Cuts `markdown` into pages of at most `page_tokens` estimated tokens (0 = one page).
    pub fn new(markdown: &'a str, page_tokens: usize) -> Self {
        Self {
            markdown,
            spans: paginate(markdown, page_tokens),
        }
    }

    /// How many pages (at least 1).
    pub fn count(&self) -> usize {
        self.spans.len()
    }

    /// Page `number` (1-based), or `None` past the end.
    pub fn get(&self, number: usize) -> Option<Page<'a>> {
        let range = self.spans.get(number.checked_sub(1)?)?.clone();
        let text = &self.markdown[range.clone()];
        Some(Page {
            number,
            of: self.count(),
            text,
            range,
            tokens: estimate_tokens(text),
        })
    }

    /// Every page in order.
    pub fn iter(&self) -> impl Iterator<Item = Page<'a>> + '_ {
        (1..=self.count()).filter_map(|n| self.get(n))
    }

    /// The page (1-based) holding byte `offset`; offsets past the end are on the last page.
    pub fn page_of_offset(&self, offset: usize) -> usize {
        self.spans
            .partition_point(|span| span.end <= offset)
            .min(self.count() - 1)
            + 1
    }

    /// Byte ranges of the pages, in order; they tile the document.
    pub fn spans(&self) -> &[Range<usize>] {
        &self.spans
    }
}

/// The byte ranges of the pages of `markdown` (see the module docs). Never empty; the
/// ranges are contiguous and cover the whole document.
pub fn paginate(markdown: &str, page_tokens: usize) -> Vec<Range<usize>> {
    if page_tokens == 0 || markdown.is_empty() {
        #[allow(
            clippy::single_range_in_vec_init,
            reason = "one page, the whole document"
        )]
        return vec![0..markdown.len()];
    }
    let mut spans = Vec::new();
    let mut page_start = 0;
    let mut page_tokens_used = 0;
    // Start and size of the run of headings that ends the page so far, if one does.
    let mut trailing_heading: Option<(usize, usize)> = None;
    for piece in pieces(markdown, page_tokens) {
        let page_has_content = piece.range.start > page_start;
        let overflow = page_tokens_used + piece.tokens > page_tokens;
        let half_full = page_tokens_used * 2 >= page_tokens;
        if page_has_content && (overflow || (piece.breaks_before && half_full)) {
            match trailing_heading {
                // Carry the headings over to sit above what they title.
                Some((start, tokens))
                    if start > page_start && tokens + piece.tokens <= page_tokens =>
                {
                    spans.push(page_start..start);
                    page_start = start;
                    page_tokens_used = tokens;
                }
                _ => {
                    spans.push(page_start..piece.range.start);
                    page_start = piece.range.start;
                    page_tokens_used = 0;
                    trailing_heading = None;
                }
            }
        }
        page_tokens_used += piece.tokens;
        trailing_heading = match (piece.is_heading, trailing_heading) {
            (false, _) => None,
            (true, Some((start, tokens))) => Some((start, tokens + piece.tokens)),
            (true, None) => Some((piece.range.start, piece.tokens)),
        };
    }
    spans.push(page_start..markdown.len());
    spans
}

/// A unit the packer places whole: a block, or a fragment of an over-budget block.
#[derive(Debug)]
struct Piece {
    range: Range<usize>,
    tokens: usize,
    is_heading: bool,
    /// The first fragment of an over-budget block: starts a new page if this one is at
    /// least half full.
    breaks_before: bool,
}

fn pieces(markdown: &str, budget: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    for block in blocks(markdown) {
        let text = &markdown[block.range.clone()];
        let tokens = estimate_tokens(text);
        if tokens <= budget {
            out.push(Piece {
                range: block.range,
                tokens,
                is_heading: block.kind == BlockKind::Heading,
                breaks_before: false,
            });
            continue;
        }
        let first = out.len();
        split_over_budget(markdown, block.range, budget, &mut out);
        if let Some(piece) = out.get_mut(first) {
            piece.breaks_before = true;
        }
    }
    out
}

/// Splits an over-budget range into lines, lines into words, words into characters,
/// each only as far as needed to fit.
fn split_over_budget(markdown: &str, range: Range<usize>, budget: usize, out: &mut Vec<Piece>) {
    let text = &markdown[range.clone()];
    for (line_start, line) in offsets(lines_inclusive(text), range.start) {
        let tokens = estimate_tokens(line);
        if tokens <= budget {
            out.push(fragment(line_start..line_start + line.len(), tokens));
            continue;
        }
        for (word_start, word) in offsets(split_words(line), line_start) {
            let tokens = estimate_tokens(word);
            if tokens <= budget {
                out.push(fragment(word_start..word_start + word.len(), tokens));
            } else {
                split_chars(word, word_start, budget, out);
            }
        }
    }
}

fn split_chars(word: &str, start: usize, budget: usize, out: &mut Vec<Piece>) {
    let mut chunk_start = 0;
    let mut counter = TokenCounter::default();
    for (i, c) in word.char_indices() {
        let mut next = counter;
        next.push(c);
        if next.tokens() > budget && i > chunk_start {
            out.push(fragment(start + chunk_start..start + i, counter.tokens()));
            chunk_start = i;
            counter = TokenCounter::default();
            counter.push(c);
        } else {
            counter = next;
        }
    }
    out.push(fragment(
        start + chunk_start..start + word.len(),
        counter.tokens(),
    ));
}

fn fragment(range: Range<usize>, tokens: usize) -> Piece {
    Piece {
        range,
        tokens,
        is_heading: false,
        breaks_before: false,
    }
}

/// Each word with the whitespace after it (leading whitespace joins the first word).
fn split_words(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let lead = rest.len() - rest.trim_start().len();
        let word_end = rest[lead..]
            .find(char::is_whitespace)
            .map_or(rest.len(), |i| lead + i);
        let end = rest[word_end..]
            .find(|c: char| !c.is_whitespace())
            .map_or(rest.len(), |i| word_end + i);
        let (word, tail) = rest.split_at(end);
        rest = tail;
        Some(word)
    })
}

/// `text`'s lines, each with its `\n`, as `str::split_inclusive('\n')` gives them. Found
/// with memchr's SIMD search: std's (`split_inclusive`'s) steps a word at a time in the
/// release build (which vectorizes no loop), and every stored page is cut into lines here,
/// twice (its pages, then its passages).
fn lines_inclusive(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest.as_bytes()).map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

/// Pairs each part with its byte offset, given that the parts tile a text at `base`.
fn offsets<'a>(
    parts: impl Iterator<Item = &'a str>,
    base: usize,
) -> impl Iterator<Item = (usize, &'a str)> {
    parts.scan(base, |at, part| {
        let start = *at;
        *at += part.len();
        Some((start, part))
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Heading,
    Code,
    Text,
}

/// A block with the blank lines after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) range: Range<usize>,
    pub(crate) kind: BlockKind,
}

/// The blocks of `markdown`; they tile it exactly (empty input, no blocks).
pub(crate) fn blocks(markdown: &str) -> Vec<Block> {
    let lines: Vec<(usize, &str)> = offsets(lines_inclusive(markdown), 0).collect();
    // (first line, kind) of each block's content.
    let mut starts: Vec<(usize, BlockKind)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].1;
        if is_blank(line) {
            i += 1;
            continue;
        }
        if let Some(fence) = fence_opener(line) {
            starts.push((i, BlockKind::Code));
            i += 1;
            while i < lines.len() && !fence.is_closed_by(lines[i].1) {
                i += 1;
            }
            i += 1; // the closing fence (or past the end)
        } else if is_atx_heading(line) {
            starts.push((i, BlockKind::Heading));
            i += 1;
        } else {
            starts.push((i, BlockKind::Text));
            i += 1;
            while i < lines.len() {
                let line = lines[i].1;
                if is_blank(line) || fence_opener(line).is_some() || is_atx_heading(line) {
                    break;
                }
                i += 1;
            }
        }
    }
    if starts.is_empty() {
        // Only blank lines (or nothing): one block, if any text at all.
        if markdown.is_empty() {
            return Vec::new();
        }
        return vec![Block {
            range: 0..markdown.len(),
            kind: BlockKind::Text,
        }];
    }
    let mut blocks: Vec<Block> = Vec::with_capacity(starts.len());
    for (n, &(line, kind)) in starts.iter().enumerate() {
        let start = if n == 0 { 0 } else { lines[line].0 };
        let end = starts
            .get(n + 1)
            .map_or(markdown.len(), |&(next, _)| lines[next].0);
        blocks.push(Block {
            range: start..end,
            kind,
        });
    }
    blocks
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Up to three spaces of indentation, then the rest (None if indented further).
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    (spaces <= 3).then(|| &line[spaces..])
}

fn is_atx_heading(line: &str) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    (1..=6).contains(&hashes)
        && rest[hashes..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
}

struct Fence {
    marker: char,
    len: usize,
}

impl Fence {
    fn is_closed_by(&self, line: &str) -> bool {
        let rest = line.trim_start_matches([' ', '\t']);
        let run = rest.len() - rest.trim_start_matches(self.marker).len();
        run >= self.len && rest[run..].trim().is_empty()
    }
}

/// A code fence opener at any indentation: CommonMark allows at most three spaces at the
/// top level, but fences nested in list items are indented further, and splitting one of
/// those at a blank line is worse than the rare indented code block that holds ```.
fn fence_opener(line: &str) -> Option<Fence> {
    let rest = line.trim_start_matches([' ', '\t']);
    let marker = rest.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = rest.len() - rest.trim_start_matches(marker).len();
    // A backtick fence's info string may not contain a backtick (CommonMark).
    let info_ok = marker == '~' || !rest[len..].contains('`');
    (len >= 3 && info_ok).then_some(Fence { marker, len })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_texts(md: &str, budget: usize) -> Vec<&str> {
        paginate(md, budget).into_iter().map(|r| &md[r]).collect()
    }

    #[test]
    fn estimate_is_chars_over_four_with_floors() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("a b c d e f"), 6, "word floor");
        assert_eq!(
            estimate_tokens("日本語のテキスト"),
            8,
            "one per non-ASCII char"
        );
        let prose = "The quick brown fox jumps over the lazy dog. ".repeat(10);
        assert_eq!(estimate_tokens(&prose), 113);
    }

    #[test]
    fn zero_budget_and_empty_documents_are_one_page() {
        let md = "# T\n\nlong text ".repeat(1000);
        assert_eq!(paginate(&md, 0), vec![0..md.len()]);
        assert_eq!(paginate("", 10), vec![0..0]);
        let pages = Pages::new("", 4000);
        assert_eq!(pages.count(), 1);
        assert_eq!(pages.get(1).unwrap().text, "");
        assert!(pages.get(0).is_none() && pages.get(2).is_none());
    }

    #[test]
    fn blocks_tile_the_document() {
        let md = "\n\nIntro line\nsecond line\n\n# Head\nText\n```rust\nfn a() {}\n\nfn b() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\n";
        let blocks = blocks(md);
        let kinds: Vec<_> = blocks.iter().map(|b| b.kind).collect();
        use BlockKind::*;
        assert_eq!(kinds, [Text, Heading, Text, Code, Text]);
        assert_eq!(
            &md[blocks[0].range.clone()],
            "\n\nIntro line\nsecond line\n\n"
        );
        assert_eq!(
            &md[blocks[3].range.clone()],
            "```rust\nfn a() {}\n\nfn b() {}\n```\n\n"
        );
        assert_eq!(
            &md[blocks[4].range.clone()],
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n\n"
        );
        let joined: String = blocks.iter().map(|b| &md[b.range.clone()]).collect();
        assert_eq!(joined, md);
    }

    #[test]
    fn code_fence_is_never_split_when_it_fits() {
        let code = format!("```\n{}```\n\n", "let x = 1;\n\n".repeat(20));
        let md = format!(
            "{}{code}{}",
            "Para one words here.\n\n".repeat(5),
            "End para.\n\n".repeat(5)
        );
        let budget = estimate_tokens(&code) + 5;
        let pages = page_texts(&md, budget);
        assert!(pages.iter().any(|p| p.contains(&code)), "{pages:#?}");
        for page in &pages {
            assert_eq!(page.matches("```").count() % 2, 0, "{page}");
        }
    }

    #[test]
    fn tilde_fences_and_longer_closers() {
        let md = "~~~~\n```\nnot a close\n~~~\n~~~~~\n\nafter\n";
        let blocks = blocks(md);
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            &md[blocks[0].range.clone()],
            "~~~~\n```\nnot a close\n~~~\n~~~~~\n\n"
        );
    }

    #[test]
    fn fences_nested_in_list_items_hold_their_blank_lines() {
        let md =
            "1. Install:\n\n    ```sh\n    cargo build\n\n    cargo test\n    ```\n\n2. Done.\n";
        let blocks = blocks(md);
        let kinds: Vec<_> = blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BlockKind::Text, BlockKind::Code, BlockKind::Text]);
        assert!(md[blocks[1].range.clone()].contains("cargo build\n\n    cargo test"));
    }

    #[test]
    fn unclosed_fence_runs_to_the_end() {
        let md = "before\n\n```\ncode\n\nmore code\n";
        let blocks = blocks(md);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1].kind, BlockKind::Code);
    }

    #[test]
    fn table_rows_stay_together_when_the_table_fits() {
        let table = format!(
            "| h1 | h2 |\n|----|----|\n{}\n",
            "| cell | cell |\n".repeat(10)
        );
        let md = format!("Intro paragraph text.\n\n{table}Outro paragraph.\n");
        let budget = estimate_tokens(&table) + 2;
        let pages = page_texts(&md, budget);
        assert!(pages.iter().any(|p| p.contains(&table)), "{pages:#?}");
    }

    #[test]
    fn oversized_table_splits_between_rows() {
        let table: String = (0..50)
            .map(|i| format!("| row {i} | value {i} |\n"))
            .collect();
        let md = format!("Intro.\n\n{table}");
        let pages = page_texts(&md, 30);
        assert!(pages.len() > 3);
        assert!(
            pages[0].starts_with("Intro.\n\n| row 0 |"),
            "a near-empty page is filled"
        );
        for page in &pages {
            assert!(page.ends_with("|\n"), "split mid-row: {page:?}");
            assert!(estimate_tokens(page) <= 30);
        }
        assert_eq!(pages.concat(), md);
    }

    #[test]
    fn oversized_block_starts_a_new_page_after_a_half_full_one() {
        let intro = "Intro words here. ".repeat(5) + "\n\n";
        let table: String = (0..50)
            .map(|i| format!("| row {i} | value {i} |\n"))
            .collect();
        let md = format!("{intro}{table}");
        assert!(estimate_tokens(&intro) * 2 >= 40);
        let pages = page_texts(&md, 40);
        assert_eq!(pages[0], intro);
        assert!(pages[1].starts_with("| row 0 |"));
    }

    #[test]
    fn oversized_paragraph_splits_at_words_then_chars() {
        let para = "word ".repeat(100);
        let pages = page_texts(&para, 10);
        for page in &pages {
            assert!(estimate_tokens(page) <= 10);
            assert!(page.ends_with(' '), "split mid-word: {page:?}");
        }
        let blob = "A".repeat(1000);
        let pages = page_texts(&blob, 7);
        assert!(pages.iter().all(|p| estimate_tokens(p) <= 7));
        assert_eq!(pages.concat(), blob);
        let cjk = "漢字".repeat(50);
        let pages = page_texts(&cjk, 9);
        assert!(pages.iter().all(|p| estimate_tokens(p) <= 9));
        assert_eq!(pages.concat(), cjk);
    }

    #[test]
    fn paragraphs_are_not_split_when_they_fit() {
        let paras: Vec<String> = (0..30)
            .map(|i| format!("Paragraph {i} has a handful of words in it.\n\n"))
            .collect();
        let md = paras.concat();
        for page in page_texts(&md, 40) {
            assert!(
                page.starts_with("Paragraph") && page.ends_with("\n\n"),
                "{page:?}"
            );
        }
    }

    #[test]
    fn a_heading_moves_to_the_page_of_its_section() {
        let md = format!(
            "{}## Section two\n\n{}",
            "Filler words go here. ".repeat(8) + "\n\n",
            "Section two body text. ".repeat(8)
        );
        let pages = page_texts(&md, 60);
        assert_eq!(pages.len(), 2, "{pages:#?}");
        assert!(pages[1].starts_with("## Section two"), "{pages:#?}");
    }

    #[test]
    fn a_run_of_headings_moves_together() {
        let md = format!(
            "{}## Part three\n\n### Section 3.1\n\n{}",
            "Filler words go here. ".repeat(8) + "\n\n",
            "Section body text. ".repeat(8)
        );
        let pages = page_texts(&md, 60);
        assert_eq!(pages.len(), 2, "{pages:#?}");
        assert!(
            pages[1].starts_with("## Part three\n\n### Section 3.1"),
            "{pages:#?}"
        );
    }

    #[test]
    fn page_of_offset_and_numbering() {
        let md = "aaaa aaaa\n\nbbbb bbbb\n\ncccc cccc\n";
        let pages = Pages::new(md, 3);
        assert_eq!(pages.count(), 3);
        let p2 = pages.get(2).unwrap();
        assert_eq!((p2.number, p2.of, p2.text), (2, 3, "bbbb bbbb\n\n"));
        assert_eq!(pages.page_of_offset(0), 1);
        assert_eq!(pages.page_of_offset(p2.range.start), 2);
        assert_eq!(pages.page_of_offset(md.len() - 1), 3);
        assert_eq!(pages.page_of_offset(md.len() + 5), 3);
        assert_eq!(pages.iter().map(|p| p.text).collect::<String>(), md);
    }

    #[test]
    fn default_budget_keeps_a_short_document_whole() {
        let md = "# Title\n\nShort body.\n";
        assert_eq!(page_texts(md, DEFAULT_PAGE_TOKENS), [md]);
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    fn words(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec("[a-zA-Zé漢0-9]{1,12}[,.]?", 1..max).prop_map(|w| w.join(" "))
    }

    /// One generated block, ending in a newline; code may hold blank lines and lines
    /// that would be headings or tables outside a fence.
    fn block() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::collection::vec(words(30), 1..4).prop_map(|lines| lines.join("\n") + "\n"),
            (1..=6usize, words(6)).prop_map(|(n, w)| format!("{} {w}\n", "#".repeat(n))),
            prop::collection::vec(
                prop_oneof![
                    words(8),
                    Just(String::new()),
                    Just("# not a heading".to_owned()),
                    Just("| a | b |".to_owned())
                ],
                0..12
            )
            .prop_map(|lines| format!(
                "```text\n{}```\n",
                lines.iter().map(|l| format!("{l}\n")).collect::<String>()
            )),
            prop::collection::vec(words(4), 1..8)
                .prop_map(|cells| { cells.iter().map(|c| format!("| {c} | {c} |\n")).collect() }),
        ]
    }

    /// Blocks joined by one to three blank lines; also returns where each block starts.
    fn document() -> impl Strategy<Value = (String, Vec<usize>)> {
        prop::collection::vec((block(), 1..=3usize), 1..25).prop_map(|parts| {
            let mut doc = String::new();
            let mut starts = Vec::new();
            for (block, blanks) in parts {
                starts.push(doc.len());
                doc.push_str(&block);
                doc.push_str(&"\n".repeat(blanks));
            }
            (doc, starts)
        })
    }

    fn check_tiling(doc: &str, budget: usize) -> Result<(), TestCaseError> {
        let spans = paginate(doc, budget);
        prop_assert!(!spans.is_empty());
        prop_assert_eq!(spans[0].start, 0);
        prop_assert_eq!(spans.last().unwrap().end, doc.len());
        for pair in spans.windows(2) {
            prop_assert_eq!(pair[0].end, pair[1].start);
            prop_assert!(pair[0].start < pair[0].end, "empty page");
        }
        let joined: String = spans.iter().map(|s| &doc[s.clone()]).collect();
        prop_assert_eq!(joined, doc);
        if budget > 0 {
            for span in &spans {
                prop_assert!(estimate_tokens(&doc[span.clone()]) <= budget);
            }
        }
        Ok(())
    }

    proptest! {
        /// Lines are cut as `split_inclusive('\n')` cuts them.
        #[test]
        fn lines_are_cut_as_split_inclusive_cuts_them(text in "(\n|\r|a|é| ){0,40}") {
            let ours: Vec<&str> = lines_inclusive(&text).collect();
            let std: Vec<&str> = text.split_inclusive('\n').collect();
            prop_assert_eq!(ours, std);
        }

        /// The ASCII fast path counts as pushing every character would.
        #[test]
        fn the_estimate_counts_as_character_by_character(
            text in "([ -~\t-\r]|\u{85}|\u{a0}|\u{2003}|é|漢){0,80}",
        ) {
            let mut counter = TokenCounter::default();
            text.chars().for_each(|c| counter.push(c));
            prop_assert_eq!(estimate_tokens(&text), counter.tokens());
        }

        /// All-ASCII text, which takes the whole-text path.
        #[test]
        fn an_ascii_estimate_counts_as_character_by_character(
            text in "([ -~\t-\r]|  |a\n\t ){0,200}",
        ) {
            let mut counter = TokenCounter::default();
            text.chars().for_each(|c| counter.push(c));
            prop_assert_eq!(estimate_tokens(&text), counter.tokens());
        }

        #[test]
        fn any_text_pages_join_back_exactly(doc in any::<String>(), budget in 0..60usize) {
            check_tiling(&doc, budget)?;
        }

        #[test]
        fn markdown_pages_join_back_exactly((doc, _) in document(), budget in 0..300usize) {
            check_tiling(&doc, budget)?;
        }

        #[test]
        fn pages_end_only_between_blocks_that_fit(
            (doc, starts) in document(),
            slack in 0..200usize,
        ) {
            let mut ends: Vec<usize> = starts[1..].to_vec();
            ends.push(doc.len());
            let biggest = starts
                .iter()
                .zip(&ends)
                .map(|(&s, &e)| estimate_tokens(&doc[s..e]))
                .max()
                .unwrap();
            let spans = paginate(&doc, biggest + slack);
            for span in &spans {
                prop_assert!(ends.contains(&span.end), "page ends inside a block at {}", span.end);
            }
        }
    }
}
