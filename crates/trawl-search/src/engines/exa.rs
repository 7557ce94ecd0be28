//! Exa (`POST api.exa.ai/search`), keyed by `EXA_API_KEY`.

use serde::Deserialize;

use crate::engine::{
    Body, Capabilities, Engine, EngineRequest, KeyNeed, ParseError, RawItem, RequestContext,
    endpoint, json_body,
};
use crate::types::SearchRequest;

/// The Exa engine.
#[derive(Debug, Default)]
pub struct Exa;

impl Engine for Exa {
    fn name(&self) -> &'static str {
        "exa"
    }
    fn group(&self) -> &'static str {
        "exa"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            freshness: true,
            language: false,
            region: true,
            safesearch: false,
            paging: false,
        }
    }
    fn key_need(&self) -> KeyNeed {
        KeyNeed::Required
    }
    fn key_env(&self) -> Option<&'static str> {
        Some("EXA_API_KEY")
    }
    fn default_base(&self) -> &'static str {
        "https://api.exa.ai"
    }
    fn confidence(&self) -> &'static str {
        "medium-high: no saved response; tested on a minimal response built from the 2026-07 SDK's fields"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let mut body = serde_json::json!({
            "query": query,
            "type": "auto",
            "numResults": 10,
            "contents": { "highlights": { "numSentences": 2 } },
        });
        if let Some(site) = &f.site {
            body["includeDomains"] = serde_json::json!([site]);
        }
        if let Some(fr) = f.freshness {
            let d = super::yyyymmdd_days_ago(fr.days());
            body["startPublishedDate"] =
                format!("{}-{}-{}T00:00:00.000Z", &d[..4], &d[4..6], &d[6..]).into();
        }
        if let Some(r) = &f.region {
            body["userLocation"] = r.to_uppercase().into();
        }
        let mut r = EngineRequest::post(endpoint(ctx.base, "/search"), Body::Json(body));
        if let Some(k) = ctx.key {
            r = r.header("x-api-key", k);
        }
        r
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
}

#[derive(Deserialize)]
struct Response {
    results: Option<Vec<Item>>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    title: Option<String>,
    #[serde(rename = "publishedDate")]
    published_date: Option<String>,
    author: Option<String>,
    text: Option<String>,
    #[serde(default)]
    highlights: Vec<String>,
    summary: Option<String>,
}

/// Parse a `/search` response; the snippet is the summary, else highlights, else text.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error {
        return Err(ParseError::Malformed(e));
    }
    let items = r
        .results
        .ok_or_else(|| ParseError::Malformed("no `results`".into()))?;
    Ok(items
        .into_iter()
        .map(|i| {
            let snippet = i
                .summary
                .or_else(|| (!i.highlights.is_empty()).then(|| i.highlights.join(" … ")))
                .or_else(|| i.text.map(|t| t.chars().take(400).collect()))
                .unwrap_or_default();
            RawItem {
                url: i.url,
                title: i.title.unwrap_or_default(),
                snippet: crate::html::clean_text(&snippet),
                published: i.published_date,
                extra: i.author.map(|a| serde_json::json!({ "author": a })),
                ..RawItem::default()
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // No saved Exa response exists (ENGINES.md §8): built from the SDK's documented fields.
    #[test]
    fn documented_shape_parses() {
        let body = br#"{"requestId":"r","resolvedSearchType":"neural","results":[
          {"id":"https://a.example/","url":"https://a.example/","title":"A","score":0.9,"publishedDate":"2026-01-01T00:00:00.000Z","author":null,"highlights":["one.","two."]},
          {"id":"b","url":"https://b.example/","title":null,"text":"body text"}],"costDollars":{"total":0.005}}"#;
        let items = parse(body).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].snippet, "one. … two.");
        assert_eq!(items[1].snippet, "body text");
    }
}
