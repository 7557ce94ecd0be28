//! Hacker News via Algolia (`hn.algolia.com/api/v1/search`).

use serde::Deserialize;

use crate::engine::{
    Capabilities, Engine, EngineRequest, ParseError, RawItem, RequestContext, endpoint_with,
    json_body,
};
use crate::html::strip_tags;
use crate::types::SearchRequest;

/// The Hacker News engine.
#[derive(Debug, Default)]
pub struct HackerNews;

impl Engine for HackerNews {
    fn name(&self) -> &'static str {
        "hackernews"
    }
    fn group(&self) -> &'static str {
        "hackernews"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: false,
            freshness: true,
            language: false,
            region: false,
            safesearch: false,
            paging: true,
        }
    }
    fn default_base(&self) -> &'static str {
        "https://hn.algolia.com"
    }
    fn confidence(&self) -> &'static str {
        "high: stable API; no saved response, tested on a minimal response built from the documented fields"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let mut p = vec![
            ("query", query.to_owned()),
            ("tags", "story".to_owned()),
            ("hitsPerPage", "10".to_owned()),
            ("page", (f.page() - 1).to_string()),
        ];
        if let Some(fr) = f.freshness {
            let since = super::unix_now().saturating_sub(fr.days() * 86_400);
            p.push(("numericFilters", format!("created_at_i>{since}")));
        }
        EngineRequest::get(endpoint_with(ctx.base, "/api/v1/search", &p))
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
}

#[derive(Deserialize)]
struct Response {
    hits: Vec<Hit>,
}

#[derive(Deserialize)]
struct Hit {
    #[serde(rename = "objectID")]
    object_id: String,
    title: Option<String>,
    url: Option<String>,
    story_text: Option<String>,
    comment_text: Option<String>,
    author: Option<String>,
    points: Option<i64>,
    num_comments: Option<i64>,
    created_at: Option<String>,
}

/// Parse an Algolia search response. Ask/Show HN stories without a `url` link to the
/// discussion page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    Ok(r.hits
        .into_iter()
        .map(|h| {
            let discussion = format!("https://news.ycombinator.com/item?id={}", h.object_id);
            let url = h
                .url
                .filter(|u| u.starts_with("http"))
                .unwrap_or_else(|| discussion.clone());
            let text = h.story_text.or(h.comment_text).unwrap_or_default();
            RawItem {
                url,
                title: h.title.unwrap_or_default(),
                snippet: strip_tags(&text),
                published: h.created_at,
                extra: Some(serde_json::json!({
                    "points": h.points, "num_comments": h.num_comments,
                    "author": h.author, "discussion": discussion,
                })),
                ..RawItem::default()
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // No saved HN Algolia response exists (ENGINES.md §8): documented shape.
    #[test]
    fn documented_shape_parses() {
        let body = br#"{"hits":[
          {"objectID":"1","title":"Show HN: X","url":"","author":"a","points":10,"num_comments":2,"story_text":"<p>Hi &amp; bye</p>","created_at":"2026-01-01T00:00:00Z","_tags":["story"]},
          {"objectID":"2","title":"Y","url":"https://y.example/","author":"b","points":5,"num_comments":0,"created_at":"2026-01-02T00:00:00Z"}],
          "nbHits":2,"page":0,"nbPages":1,"hitsPerPage":10,"query":"x","params":"query=x"}"#;
        let items = parse(body).unwrap();
        assert_eq!(items[0].url, "https://news.ycombinator.com/item?id=1");
        assert_eq!(items[0].snippet, "Hi & bye");
        assert_eq!(items[1].url, "https://y.example/");
        assert_eq!(items[1].extra.as_ref().unwrap()["points"], 5);
    }

    /// HN's `story_text` separates paragraphs with `<p>` alone: the words on either side
    /// must not run together.
    #[test]
    fn paragraphs_are_joined_with_a_space() {
        let body = br#"{"hits":[{"objectID":"7","title":"Ask HN: Y","url":null,"story_text":"I built this using Claude AI.<p>The problem is <i>scale</i>.<p>Thoughts?","_tags":["story"]}]}"#;
        let items = parse(body).unwrap();
        assert_eq!(
            items[0].snippet,
            "I built this using Claude AI. The problem is scale. Thoughts?"
        );
    }
}
