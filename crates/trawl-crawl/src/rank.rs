//! Relevance of a URL to a query, from what is known before reading it: the words of its
//! path, a title from a sitemap or feed, a link's anchor text. Used by `map --search` to
//! order URLs and by the best-first crawl to order its frontier.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

/// A query cut into lower-case words (letters and digits), stop words and one-letter
/// words left out.
#[derive(Debug, Clone, Default)]
pub struct Query {
    words: Vec<String>,
}

const STOP: &[&str] = &[
    "the", "and", "for", "with", "how", "what", "are", "from", "into", "that", "this", "of", "to",
    "in", "on", "a", "an", "is", "it", "by", "or", "at", "be",
];

/// The English Snowball stemmer, as `open --find` stems (SQLite's porter tokenizer, and
/// the Redis store's index with this same crate): `volcano` meets `volcanoes`.
static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Lower-case words of `text` of two letters or more.
fn lower_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 1)
        .map(str::to_lowercase)
}

fn stem(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

/// Lower-case words of `text`, stemmed.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    lower_words(text).map(|w| stem(&w))
}

impl Query {
    /// Parse a query; `None` when it has no usable word.
    pub fn new(text: &str) -> Option<Self> {
        let mut list: Vec<String> = lower_words(text)
            .filter(|w| !STOP.contains(&w.as_str()))
            .map(|w| stem(&w))
            .collect();
        list.dedup();
        (!list.is_empty()).then_some(Query { words: list })
    }

    /// The fraction of query words (0..=1) found in `text`.
    pub fn coverage(&self, text: &str) -> f32 {
        if text.is_empty() {
            return 0.0;
        }
        let found: Vec<String> = words(text).collect();
        let hits = self.words.iter().filter(|w| found.contains(w)).count();
        hits as f32 / self.words.len() as f32
    }

    /// Score of a URL from its path and the text known about it (a title, anchor text):
    /// the text counts more than the path, since it was written for readers.
    pub fn score(&self, url: &url::Url, text: Option<&str>) -> f32 {
        let path = format!("{} {}", url.path(), url.query().unwrap_or(""));
        let path_score = self.coverage(&path);
        let text_score = text.map_or(0.0, |t| self.coverage(t));
        path_score + 1.5 * text_score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_and_title_words_score() {
        let q = Query::new("the pricing pages").unwrap();
        let u = |s: &str| url::Url::parse(s).unwrap();
        let plain = q.score(&u("https://e.com/about"), None);
        let path = q.score(&u("https://e.com/docs/pricing-page"), None);
        let title = q.score(&u("https://e.com/p/12"), Some("Pricing and pages"));
        assert_eq!(plain, 0.0);
        assert!(path > plain);
        assert!(title > path, "{title} > {path}");
        assert!(Query::new("the of a").is_none());
    }

    #[test]
    fn word_forms_meet() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        let volcanoes = u("https://e.com/volcanoes");
        for q in ["volcano", "Volcanoes"] {
            assert_eq!(Query::new(q).unwrap().score(&volcanoes, None), 1.0, "{q}");
        }
        let q = Query::new("running guides").unwrap();
        assert!(q.score(&u("https://e.com/guide/run"), None) == 1.0);
    }
}
