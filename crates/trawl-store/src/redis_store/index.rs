//! The Redis backend's passage index: words, stems, postings and BM25.
//!
//! Debian's Redis has no RediSearch, so trawl keeps its own inverted index in plain
//! Redis structures (one sorted set of postings per stem, scored by term frequency) and
//! ranks the candidates it finds there with BM25 computed here. The tokenizer mirrors
//! the SQLite backend's `porter unicode61`: split on anything that is not a letter or a
//! digit, lowercase, Snowball English stem, so both backends find the same passages.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};

/// BM25's term-frequency saturation and length normalization (FTS5's defaults).
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// A word in a heading counts this many times a word in the body (the SQLite backend
/// weighs its heading column 2.0 against the body's 1.0).
pub(super) const HEADING_WEIGHT: u32 = 2;

/// Lowercased words of `text`, split where unicode61 splits.
pub(super) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The index's form of one lowercased word.
pub(super) fn stem(stemmer: &Stemmer, word: &str) -> String {
    stemmer.stem(word).into_owned()
}

pub(super) fn stemmer() -> Stemmer {
    Stemmer::create(Algorithm::English)
}

/// A passage's weighted term frequencies and weighted length, as indexed.
pub(super) fn passage_terms(
    stemmer: &Stemmer,
    heading: &str,
    text: &str,
) -> (HashMap<String, u32>, u32) {
    let mut tf: HashMap<String, u32> = HashMap::new();
    let mut len = 0u32;
    for (part, weight) in [(heading, HEADING_WEIGHT), (text, 1)] {
        for word in words(part) {
            *tf.entry(stem(stemmer, &word)).or_default() += weight;
            len += weight;
        }
    }
    (tf, len)
}

/// One part of a find query: a word, or a quoted phrase whose words must also appear
/// next to each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct QueryPart {
    /// Stems that must all be present.
    pub stems: Vec<String>,
    /// For a phrase, its lowercased words, checked against the passage text.
    pub phrase: Option<Vec<String>>,
}

/// Plain words and `"quoted phrases"`; no other syntax (the same reading as the SQLite
/// backend's, so `NEAR(x)` or `title:y*` are just words).
pub(super) fn parse_query(stemmer: &Stemmer, query: &str) -> Vec<QueryPart> {
    let mut parts = Vec::new();
    for (i, chunk) in query.split('"').enumerate() {
        let chunk_words: Vec<String> = words(chunk).collect();
        if i % 2 == 1 && chunk_words.len() > 1 {
            parts.push(QueryPart {
                stems: chunk_words.iter().map(|w| stem(stemmer, w)).collect(),
                phrase: Some(chunk_words),
            });
        } else {
            parts.extend(chunk_words.iter().map(|w| QueryPart {
                stems: vec![stem(stemmer, w)],
                phrase: None,
            }));
        }
    }
    parts
}

/// Whether `words` appear consecutively among the heading's or the text's words.
pub(super) fn has_phrase(heading: &str, text: &str, phrase: &[String]) -> bool {
    [heading, text].iter().any(|part| {
        let all: Vec<String> = words(part).collect();
        all.windows(phrase.len()).any(|w| w == phrase)
    })
}

/// Corpus figures BM25 needs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Corpus {
    /// Indexed passages.
    pub passages: f64,
    /// Mean weighted passage length.
    pub mean_len: f64,
}

/// BM25 of one passage: `tfs` pairs each query stem's document frequency with its
/// weighted frequency in this passage.
pub(super) fn bm25(corpus: Corpus, len: u32, tfs: impl Iterator<Item = (u64, f64)>) -> f64 {
    let n = corpus.passages.max(1.0);
    let mean = corpus.mean_len.max(1.0);
    tfs.map(|(df, tf)| {
        let df = df as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * f64::from(len) / mean))
    })
    .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_like_porter_and_weighs_headings() {
        let s = stemmer();
        let (tf, len) = passage_terms(&s, "Connecting", "Connection pools pool connections.");
        assert_eq!(tf["connect"], 2 + 2);
        assert_eq!(tf["pool"], 2);
        assert_eq!(len, 2 + 4);
    }

    #[test]
    fn phrases_and_words() {
        let s = stemmer();
        let parts = parse_query(&s, "say \"Lazy  dog\" NEAR(x) \"one\"");
        assert_eq!(parts.len(), 5);
        assert_eq!(
            parts[1].phrase.as_deref(),
            Some(&["lazy".to_owned(), "dog".to_owned()][..])
        );
        assert_eq!(parts[4].phrase, None);
        assert!(has_phrase(
            "",
            "the lazy dog.",
            &["lazy".into(), "dog".into()]
        ));
        assert!(!has_phrase(
            "",
            "the dog lazy",
            &["lazy".into(), "dog".into()]
        ));
    }

    #[test]
    fn rarer_and_more_frequent_terms_score_higher() {
        let corpus = Corpus {
            passages: 100.0,
            mean_len: 10.0,
        };
        let rare = bm25(corpus, 10, [(1, 1.0)].into_iter());
        let common = bm25(corpus, 10, [(50, 1.0)].into_iter());
        let twice = bm25(corpus, 10, [(1, 2.0)].into_iter());
        assert!(rare > common && twice > rare && common > 0.0);
    }
}
