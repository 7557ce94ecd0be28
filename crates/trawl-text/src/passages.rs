//! Passages: a document cut into search-sized pieces, and BM25 over them without a store.
//!
//! [`split`] cuts Markdown into passages of about [`TARGET_WORDS`] words (at most
//! [`MAX_WORDS`]), starting a new one at every heading and every page boundary, so each
//! passage remembers the heading path above it and the one page it sits on. The store
//! indexes them for `web_open --find`; [`Bm25`] ranks them in memory for query-aware
//! previews of search hits ([`best`], [`preview`]).
//!
//! The in-memory tokenizer lower-cases, splits on anything that is not a letter or digit
//! (like SQLite's unicode61) and strips a few English suffixes (plural `s` and `ies`,
//! `ing`, `ed`, `ly`); it is lighter than the store's Porter stemmer, which only makes
//! preview ranking a little less forgiving of word forms.

use std::collections::HashMap;
use std::ops::Range;

use crate::pager::{self, BlockKind, Pages};

/// Words a passage aims for.
pub const TARGET_WORDS: usize = 200;
/// Words a passage never exceeds (a longer block is cut at word boundaries).
pub const MAX_WORDS: usize = 300;

/// A piece of a document for full-text search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// 1-based page under the page size given to [`split`].
    pub page: u32,
    /// Headings above the passage, outermost first, joined by ` › ` (empty before the
    /// first heading).
    pub heading: String,
    /// The passage's Markdown, trimmed.
    pub text: String,
    /// Where the passage sits in the document (bytes; may include surrounding blanks).
    pub range: Range<usize>,
}

impl From<&Passage> for trawl_store::Passage {
    fn from(p: &Passage) -> Self {
        trawl_store::Passage {
            page: p.page,
            heading: p.heading.clone(),
            text: p.text.clone(),
            range: None,
        }
    }
}

impl From<Passage> for trawl_store::Passage {
    fn from(p: Passage) -> Self {
        trawl_store::Passage {
            page: p.page,
            heading: p.heading,
            text: p.text,
            range: None,
        }
    }
}

/// A document's passages as the store keeps them for find: cut at the store's page size
/// ([`pager::DEFAULT_PAGE_TOKENS`]), the title in the first one's heading when its text
/// does not hold it ([`split_titled`]), and each with the exact byte range of its text in
/// `markdown`, so the store can keep the range instead of a copy. One function for every
/// writer (a read, a change-tracking read, a crawl), so they index alike.
pub fn for_store(title: Option<&str>, markdown: &str) -> Vec<trawl_store::Passage> {
    split_titled(title, markdown, pager::DEFAULT_PAGE_TOKENS)
        .into_iter()
        .map(|p| {
            // `range` may hold blanks around the trimmed text: the text's own bytes.
            let exact = markdown.get(p.range.clone()).and_then(|slice| {
                let start = p.range.start + (slice.len() - slice.trim_start().len());
                let range = start..start + p.text.len();
                (markdown.get(range.clone()) == Some(p.text.as_str())).then_some(range)
            });
            trawl_store::Passage {
                page: p.page,
                heading: p.heading,
                text: p.text,
                range: exact,
            }
        })
        .collect()
}

/// Cuts `markdown` into passages, numbering pages as [`Pages::new`] with `page_tokens`
/// does (use [`pager::DEFAULT_PAGE_TOKENS`] for what the store keeps). Headings become
/// the `heading` of the passages under them; a heading with nothing under it before the
/// next heading of its level or above is a passage of its own (its Markdown line), so its
/// words can be found too.
pub fn split(markdown: &str, page_tokens: usize) -> Vec<Passage> {
    let pages = Pages::new(markdown, page_tokens);
    let mut builder = Builder::default();
    for block in pager::blocks(markdown) {
        if block.kind == BlockKind::Heading {
            builder.flush(markdown);
            let page = pages.page_of_offset(block.range.start) as u32;
            builder.enter_heading(markdown, block.range.clone(), page);
            continue;
        }
        // An over-budget block may straddle pages: take it page by page.
        for span in pages.spans() {
            let start = block.range.start.max(span.start);
            let end = block.range.end.min(span.end);
            if start < end {
                let page = pages.page_of_offset(start) as u32;
                builder.add(markdown, start..end, page);
            }
        }
    }
    builder.flush(markdown);
    builder.flush_empty_heading(markdown);
    builder.passages
}

/// [`split`] for a document stored with its `title`: the title is often in no heading of
/// the Markdown (a page's `<title>` and the H1 that repeats it are shown apart from the
/// text), so the first passage carries it in its heading, and a document with no text at
/// all is one passage of its title. A title the first passage already holds is left.
pub fn split_titled(title: Option<&str>, markdown: &str, page_tokens: usize) -> Vec<Passage> {
    let mut passages = split(markdown, page_tokens);
    let Some(title) = title.map(str::trim).filter(|t| !t.is_empty()) else {
        return passages;
    };
    let Some(first) = passages.first_mut() else {
        return vec![Passage {
            page: 1,
            heading: String::new(),
            text: title.to_owned(),
            range: 0..0,
        }];
    };
    let wanted = title.to_lowercase();
    let holds = |s: &str| s.to_lowercase().contains(&wanted);
    if !holds(&first.heading) && !holds(&first.text) {
        first.heading = if first.heading.is_empty() {
            title.to_owned()
        } else {
            format!("{title} › {}", first.heading)
        };
    }
    passages
}

#[derive(Default)]
struct Builder {
    passages: Vec<Passage>,
    /// (level, title) of the headings above the current position.
    headings: Vec<(usize, String)>,
    current: Option<(Range<usize>, u32)>,
    current_words: usize,
    /// The last heading entered, while nothing has been added under it: (level, its
    /// line's range, its page).
    empty_heading: Option<(usize, Range<usize>, u32)>,
}

impl Builder {
    fn enter_heading(&mut self, markdown: &str, range: Range<usize>, page: u32) {
        let line = markdown[range.clone()].trim();
        let level = line.chars().take_while(|&c| c == '#').count();
        // A deeper heading keeps an empty one in its heading path; a sibling or a higher
        // one would drop it unindexed.
        if self
            .empty_heading
            .as_ref()
            .is_some_and(|(empty, _, _)| level <= *empty)
        {
            self.flush_empty_heading(markdown);
        }
        self.empty_heading = Some((level, range, page));
        let title = line
            .trim_start_matches('#')
            .trim()
            .trim_end_matches('#')
            .trim();
        self.headings.retain(|(l, _)| *l < level);
        self.headings.push((level, title.to_owned()));
    }

    fn add(&mut self, markdown: &str, range: Range<usize>, page: u32) {
        self.empty_heading = None;
        let words = count_words(&markdown[range.clone()]);
        if words > MAX_WORDS {
            self.flush(markdown);
            for piece in cut_at_words(&markdown[range.clone()], TARGET_WORDS) {
                let piece = range.start + piece.start..range.start + piece.end;
                self.current = Some((piece, page));
                self.flush(markdown);
            }
            return;
        }
        match &mut self.current {
            Some((current, current_page))
                if *current_page == page && self.current_words + words <= MAX_WORDS =>
            {
                current.end = range.end;
                self.current_words += words;
            }
            _ => {
                self.flush(markdown);
                self.current = Some((range, page));
                self.current_words = words;
            }
        }
        if self.current_words >= TARGET_WORDS {
            self.flush(markdown);
        }
    }

    fn flush(&mut self, markdown: &str) {
        self.current_words = 0;
        let Some((range, page)) = self.current.take() else {
            return;
        };
        self.push(markdown, range, page);
    }

    /// The last heading as a passage of its own, when nothing was added under it.
    fn flush_empty_heading(&mut self, markdown: &str) {
        if let Some((_, range, page)) = self.empty_heading.take() {
            self.push(markdown, range, page);
        }
    }

    fn push(&mut self, markdown: &str, range: Range<usize>, page: u32) {
        let text = markdown[range.clone()].trim();
        if text.is_empty() {
            return;
        }
        let heading = self
            .headings
            .iter()
            .map(|(_, title)| title.as_str())
            .collect::<Vec<_>>()
            .join(" › ");
        self.passages.push(Passage {
            page,
            heading,
            text: text.to_owned(),
            range,
        });
    }
}

fn count_words(text: &str) -> usize {
    let bytes = text.as_bytes();
    if bytes.is_ascii() {
        // Eight bytes a step, as the token estimate counts them: a crawl counts the words
        // of every block it stores.
        return trawl_core::swar::ascii_words(bytes);
    }
    text.split_whitespace().count()
}

/// Byte ranges of consecutive runs of `words` words (the last may be shorter).
fn cut_at_words(text: &str, words: usize) -> Vec<Range<usize>> {
    let mut cuts = Vec::new();
    let mut start = 0;
    let mut count = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let wordy = !c.is_whitespace();
        if wordy && !in_word {
            if count == words {
                cuts.push(start..i);
                start = i;
                count = 0;
            }
            count += 1;
        }
        in_word = wordy;
    }
    cuts.push(start..text.len());
    cuts
}

/// The search terms of `text`: lower-cased letter-and-digit runs, lightly stemmed.
pub fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| stem(&w.to_lowercase()))
}

fn stem(word: &str) -> String {
    let n = word.chars().count();
    let strip = |suffix: &str, min_len: usize| {
        (n >= min_len && word.ends_with(suffix)).then(|| &word[..word.len() - suffix.len()])
    };
    if let Some(root) = strip("ies", 5) {
        return format!("{root}y");
    }
    if let Some(root) = strip("sses", 5) {
        return format!("{root}ss");
    }
    for (suffix, min_len) in [("ing", 6), ("ed", 5), ("ly", 5)] {
        if let Some(root) = strip(suffix, min_len) {
            return root.to_owned();
        }
    }
    match strip("s", 4) {
        Some(root) if !root.ends_with('s') => root.to_owned(),
        _ => word.to_owned(),
    }
}

/// Okapi BM25 over a small set of texts (one document's passages), in memory.
#[derive(Debug, Clone)]
pub struct Bm25 {
    term_counts: Vec<HashMap<String, u32>>,
    lengths: Vec<usize>,
    document_frequency: HashMap<String, usize>,
    average_length: f64,
}

impl Bm25 {
    /// Term saturation.
    pub const K1: f64 = 1.2;
    /// Length normalization.
    pub const B: f64 = 0.75;

    /// Indexes `texts` (a passage's heading can be passed in front of its text to
    /// weigh it in).
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut term_counts = Vec::new();
        let mut lengths = Vec::new();
        let mut document_frequency: HashMap<String, usize> = HashMap::new();
        for text in texts {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut length = 0;
            for term in terms(text) {
                *counts.entry(term).or_default() += 1;
                length += 1;
            }
            for term in counts.keys() {
                *document_frequency.entry(term.clone()).or_default() += 1;
            }
            term_counts.push(counts);
            lengths.push(length);
        }
        let average_length = if lengths.is_empty() {
            0.0
        } else {
            lengths.iter().sum::<usize>() as f64 / lengths.len() as f64
        };
        Self {
            term_counts,
            lengths,
            document_frequency,
            average_length,
        }
    }

    /// The score of every indexed text for `query`, in index order (0 = no query term).
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let mut query_terms: Vec<String> = terms(query).collect();
        query_terms.sort();
        query_terms.dedup();
        let n = self.term_counts.len() as f64;
        let idf: Vec<(String, f64)> = query_terms
            .into_iter()
            .filter_map(|term| {
                let df = *self.document_frequency.get(&term)? as f64;
                Some((term, ((n - df + 0.5) / (df + 0.5) + 1.0).ln()))
            })
            .collect();
        self.term_counts
            .iter()
            .zip(&self.lengths)
            .map(|(counts, &length)| {
                let norm = 1.0 - Self::B + Self::B * length as f64 / self.average_length.max(1.0);
                idf.iter()
                    .filter_map(|(term, idf)| {
                        let tf = f64::from(*counts.get(term)?);
                        Some(idf * tf * (Self::K1 + 1.0) / (tf + Self::K1 * norm))
                    })
                    .sum()
            })
            .collect()
    }
}

/// The passages matching `query` best, best first, at most `limit` (0 = all), restricted
/// to one page when `page` is given. Statistics come from all passages, so a page's
/// ranking knows which words are rare in the whole document. Only passages holding a
/// query term are returned.
pub fn best<'p>(
    passages: &'p [Passage],
    query: &str,
    page: Option<u32>,
    limit: usize,
) -> Vec<(&'p Passage, f64)> {
    let weighted: Vec<String> = passages
        .iter()
        .map(|p| format!("{0}\n{0}\n{1}", p.heading, p.text))
        .collect();
    let scores = Bm25::new(weighted.iter().map(String::as_str)).scores(query);
    let mut ranked: Vec<(&Passage, f64)> = passages
        .iter()
        .zip(scores)
        .filter(|(p, score)| *score > 0.0 && page.is_none_or(|n| p.page == n))
        .collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(a.0.range.start.cmp(&b.0.range.start))
    });
    if limit > 0 {
        ranked.truncate(limit);
    }
    ranked
}

/// A query-aware preview of at most `max_chars` characters: the best-matching passages
/// (of `page`, when given) in document order, whitespace collapsed, joined by ` … `;
/// the opening passages when nothing matches. Cut at a word boundary with `…`.
pub fn preview(passages: &[Passage], query: &str, page: Option<u32>, max_chars: usize) -> String {
    let mut chosen: Vec<&Passage> = best(passages, query, page, 3)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    if chosen.is_empty() {
        chosen = passages
            .iter()
            .filter(|p| page.is_none_or(|n| p.page == n))
            .take(2)
            .collect();
    }
    chosen.sort_by_key(|p| p.range.start);
    // Each passage gets an equal share; a longer one shows the part around its first
    // matching word, so the preview shows why the page matched, not how it begins.
    let share = if max_chars == 0 {
        0
    } else {
        (max_chars / chosen.len().max(1)).max(80)
    };
    let wanted: Vec<String> = terms(query).collect();
    let joined = chosen
        .iter()
        .map(|p| {
            let flat = p.text.split_whitespace().collect::<Vec<_>>().join(" ");
            window_around_match(&flat, &wanted, share)
        })
        .collect::<Vec<_>>()
        .join(" … ");
    truncate_at_word(&joined, max_chars)
}

/// At most `max_chars` of `text`, starting at the sentence (or, failing that, a few
/// words) before the first word whose stem is in `wanted`. 0 = all of it.
fn window_around_match(text: &str, wanted: &[String], max_chars: usize) -> String {
    if max_chars == 0 || text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut offset = 0;
    let mut first_match = None;
    for word in text.split(' ') {
        let stemmed: Vec<String> = terms(word).collect();
        if stemmed.iter().any(|t| wanted.contains(t)) {
            first_match = Some(offset);
            break;
        }
        offset += word.len() + 1;
    }
    let Some(hit) = first_match else {
        return truncate_at_word(text, max_chars);
    };
    let before = &text[..hit];
    // Start at the sentence holding the match when it is close; else a few words back.
    let sentence_start = before
        .rfind(". ")
        .map(|i| i + 2)
        .filter(|&i| text[i..hit].chars().count() < max_chars / 2);
    let start = sentence_start.unwrap_or_else(|| {
        let mut start = hit;
        for _ in 0..6 {
            match text[..start.saturating_sub(1)].rfind(' ') {
                Some(i) => start = i + 1,
                None => {
                    start = 0;
                    break;
                }
            }
        }
        start
    });
    let body = truncate_at_word(&text[start..], max_chars.saturating_sub(1));
    if start == 0 {
        body
    } else {
        format!("…{body}")
    }
}

fn truncate_at_word(text: &str, max_chars: usize) -> String {
    if max_chars == 0 || text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let cut = text
        .char_indices()
        .nth(max_chars.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..cut];
    let head = head.rfind(' ').map_or(head, |space| &head[..space]);
    format!("{}…", head.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pager::DEFAULT_PAGE_TOKENS;

    const DOC: &str = "\
# Tokio

Tokio is an asynchronous runtime for the Rust programming language.

## Runtime

The runtime drives futures to completion on a pool of worker threads.
It schedules tasks cooperatively.

### Blocking

Blocking calls belong on spawn_blocking, which runs them on a separate thread pool.

## Channels

Channels pass messages between tasks: mpsc, oneshot, broadcast and watch.
";

    /// The words counted eight bytes a step are the words `split_whitespace` finds: every
    /// pair of ASCII bytes, in runs that cross the eight-byte steps at each offset, and a
    /// text that is not ASCII.
    #[test]
    fn word_counts_are_split_whitespaces() {
        for a in 0u8..128 {
            for b in 0u8..128 {
                for len in [1, 2, 7, 8, 9, 16, 17, 25] {
                    for every in [2, 3, 5] {
                        let t: String = (0..len)
                            .map(|i| char::from(if i % every == 0 { a } else { b }))
                            .collect();
                        assert_eq!(count_words(&t), t.split_whitespace().count(), "{t:?}");
                    }
                }
            }
        }
        let t = "naïve\u{a0}words\u{2003}and\u{3000}more  here\u{b}too";
        assert_eq!(count_words(t), 6);
        assert_eq!(count_words(t), t.split_whitespace().count());
    }

    #[test]
    fn a_long_passage_previews_around_its_match() {
        let mut md = String::new();
        md.push_str(&"Filler words about other things entirely. ".repeat(40));
        md.push_str("The zeppelin moored at the mast overnight. ");
        md.push_str(&"More filler words follow here. ".repeat(10));
        let passages = split(&md, 0);
        let p = preview(&passages, "zeppelin", None, 200);
        assert!(p.contains("zeppelin"), "{p}");
        assert!(p.starts_with("…The zeppelin"), "{p}");
        assert!(p.chars().count() <= 201, "{p}");
    }

    #[test]
    fn passages_carry_their_heading_path_and_page() {
        let passages = split(DOC, DEFAULT_PAGE_TOKENS);
        let headings: Vec<&str> = passages.iter().map(|p| p.heading.as_str()).collect();
        assert_eq!(
            headings,
            [
                "Tokio",
                "Tokio › Runtime",
                "Tokio › Runtime › Blocking",
                "Tokio › Channels"
            ]
        );
        assert!(passages.iter().all(|p| p.page == 1));
        assert!(
            passages[1].text.starts_with("The runtime")
                && passages[1].text.ends_with("cooperatively.")
        );
        for p in &passages {
            assert!(DOC[p.range.clone()].contains(&p.text));
        }
    }

    #[test]
    fn passages_never_straddle_pages() {
        let doc: String = (0..40)
            .map(|i| format!("Paragraph {i} talks about topic{i} at some length here.\n\n"))
            .collect();
        let pages = Pages::new(&doc, 60);
        assert!(pages.count() > 3);
        let passages = split(&doc, 60);
        for p in &passages {
            let page = pages.get(p.page as usize).unwrap();
            assert!(
                page.range.start <= p.range.start && p.range.end <= page.range.end,
                "{p:?}"
            );
        }
        let all_words: usize = passages.iter().map(|p| count_words(&p.text)).sum();
        assert_eq!(all_words, count_words(&doc), "no text lost");
    }

    #[test]
    fn long_sections_are_cut_near_the_target() {
        let doc = format!("# Long\n\n{}", "word ".repeat(1000));
        let passages = split(&doc, 0);
        assert_eq!(passages.len(), 5);
        assert!(passages.iter().all(|p| count_words(&p.text) <= MAX_WORDS));
        let short: String = (0..30)
            .map(|i| format!("Short paragraph {i} here.\n\n"))
            .collect();
        let passages = split(&short, 0);
        assert!(
            passages.len() < 5,
            "small blocks are grouped: {}",
            passages.len()
        );
        assert!(passages.iter().all(|p| count_words(&p.text) <= MAX_WORDS));
    }

    #[test]
    fn converts_into_store_passages() {
        let passages = split(DOC, DEFAULT_PAGE_TOKENS);
        let stored: Vec<trawl_store::Passage> = passages.iter().map(Into::into).collect();
        assert_eq!(stored[2].heading, "Tokio › Runtime › Blocking");
        assert_eq!(stored[2].page, 1);
    }

    #[test]
    fn stemming_is_light_and_consistent() {
        let t: Vec<String> = terms("Queries QUERY running runs blocked classes gas").collect();
        assert_eq!(
            t,
            ["query", "query", "runn", "run", "block", "class", "gas"]
        );
    }

    #[test]
    fn bm25_prefers_rare_terms_and_short_passages() {
        let index = Bm25::new([
            "the cat sat on the mat",
            "the dog sat on the log",
            "the cat and the dog and the bird and the fish and the mouse",
        ]);
        let scores = index.scores("cat");
        assert!(
            scores[0] > scores[2] && scores[2] > 0.0 && scores[1] == 0.0,
            "{scores:?}"
        );
        let scores = index.scores("the dog");
        assert!(scores[1] > scores[0], "{scores:?}");
        assert!(index.scores("").iter().all(|&s| s == 0.0));
        assert!(Bm25::new([]).scores("x").is_empty());
    }

    #[test]
    fn best_passages_rank_by_query_within_a_page() {
        let passages = split(DOC, DEFAULT_PAGE_TOKENS);
        let ranked = best(&passages, "blocking thread pool", None, 0);
        assert_eq!(ranked[0].0.heading, "Tokio › Runtime › Blocking");
        assert!(best(&passages, "blocking", Some(2), 0).is_empty());
        assert!(best(&passages, "zeppelin", None, 0).is_empty());
        assert_eq!(best(&passages, "tasks", None, 1).len(), 1);
    }

    #[test]
    fn preview_shows_matching_passages_not_the_first_characters() {
        let passages = split(DOC, DEFAULT_PAGE_TOKENS);
        let preview = preview(&passages, "channels broadcast", None, 200);
        assert!(preview.starts_with("Channels pass messages"), "{preview}");
        let fallback = super::preview(&passages, "zeppelin", None, 40);
        assert!(
            fallback.starts_with("Tokio is an") && fallback.ends_with('…'),
            "{fallback}"
        );
        assert!(fallback.chars().count() <= 40);
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    fn document() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            4 => prop::collection::vec("[a-zA-Zé0-9]{1,10}", 1..40).prop_map(|w| w.join(" ")),
            1 => (1..=4usize, "[a-z]{1,8}").prop_map(|(n, w)| format!("{} {w}", "#".repeat(n))),
            1 => Just("```".to_owned()),
            2 => Just(String::new()),
        ];
        prop::collection::vec(line, 0..80).prop_map(|lines| lines.join("\n"))
    }

    proptest! {
        #[test]
        fn passages_keep_every_word_on_one_page(
            doc in document(),
            budget in prop_oneof![Just(0usize), 20..300usize],
        ) {
            let pages = Pages::new(&doc, budget);
            let passages = split(&doc, budget);
            for p in &passages {
                let page = pages.get(p.page as usize).unwrap();
                prop_assert!(page.range.start <= p.range.start && p.range.end <= page.range.end);
                prop_assert!(count_words(&p.text) <= MAX_WORDS);
                prop_assert!(!p.text.is_empty());
            }
            let headings: Vec<Range<usize>> = pager::blocks(&doc)
                .into_iter()
                .filter(|b| b.kind == BlockKind::Heading)
                .map(|b| b.range)
                .collect();
            let heading_words: usize = headings.iter().map(|r| count_words(&doc[r.clone()])).sum();
            // An empty heading's passage is its line: counted with the headings already.
            let passage_words: usize = passages
                .iter()
                .filter(|p| !headings.contains(&p.range))
                .map(|p| count_words(&p.text))
                .sum();
            prop_assert_eq!(passage_words + heading_words, count_words(&doc));
        }
    }
}

#[cfg(test)]
mod store_tests {
    use super::for_store;

    /// Every passage of an ordinary page points at its own text: the store keeps ranges.
    #[test]
    fn passages_for_the_store_carry_their_exact_range() {
        let markdown = format!(
            "# Harbour\n\n{}\n\n## Tides\n\n  {}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            "Boats leave at dawn. ".repeat(120),
            "Spring tides run high. ".repeat(40)
        );
        let passages = for_store(Some("A title not in the text"), &markdown);
        assert!(passages.len() >= 3, "{passages:?}");
        for p in &passages {
            let range = p.range.clone().expect("a range");
            assert_eq!(&markdown[range], p.text);
        }
        assert!(passages[0].heading.starts_with("A title not in the text"));
    }
}
