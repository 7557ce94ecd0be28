//! Relevance of a URL to a query, from what is known before reading it: the words of its
//! path, a title from a sitemap or feed, a link's anchor text. Used by `map --search` to
//! order URLs and by the best-first crawl to order its frontier.

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

/// Lower-case words of `text`, with a plural `s` taken off so `pages` meets `page`.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 1)
        .map(|w| {
            let w = w.to_lowercase();
            match w.strip_suffix('s') {
                Some(stem) if stem.len() > 2 && !stem.ends_with('s') => stem.to_owned(),
                _ => w,
            }
        })
}

impl Query {
    /// Parse a query; `None` when it has no usable word.
    pub fn new(text: &str) -> Option<Self> {
        let mut list: Vec<String> = words(text)
            .filter(|w| !STOP.contains(&w.as_str()))
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
}
