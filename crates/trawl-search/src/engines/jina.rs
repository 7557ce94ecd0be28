//! Jina search (`GET s.jina.ai/?q=`), keyed by `JINA_API_KEY` (search needs a key now).

use serde::Deserialize;

use crate::engine::{
    Capabilities, Engine, EngineRequest, KeyNeed, ParseError, RawItem, RequestContext,
    endpoint_with, json_body,
};
use crate::types::SearchRequest;

/// The Jina search engine.
#[derive(Debug, Default)]
pub struct Jina;

impl Engine for Jina {
    fn name(&self) -> &'static str {
        "jina"
    }
    fn group(&self) -> &'static str {
        "jina"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            ..Capabilities::default()
        }
    }
    fn key_need(&self) -> KeyNeed {
        KeyNeed::Required
    }
    fn key_env(&self) -> Option<&'static str> {
        Some("JINA_API_KEY")
    }
    fn default_base(&self) -> &'static str {
        "https://s.jina.ai"
    }
    fn confidence(&self) -> &'static str {
        "medium: no saved response; tested on a minimal response built from the docs; limits change over time"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let mut r = EngineRequest::get(endpoint_with(ctx.base, "/", &[("q", query.to_owned())]))
            .header("Accept", "application/json")
            // Only the result list is wanted here, not every page's full content.
            .header("X-Respond-With", "no-content");
        if let Some(site) = &req.filters.site {
            r = r.header("X-Site", site.clone());
        }
        if let Some(k) = ctx.key {
            r = r.header("Authorization", format!("Bearer {k}"));
        }
        r
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
}

#[derive(Deserialize)]
struct Response {
    code: Option<i64>,
    data: Option<Vec<Item>>,
    message: Option<String>,
    readable_message: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    #[serde(rename = "publishedTime")]
    published_time: Option<String>,
}

/// Parse an `Accept: application/json` search response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    let Some(items) = r.data else {
        let msg = r
            .readable_message
            .or(r.message)
            .unwrap_or_else(|| "no `data`".into());
        return Err(match r.code {
            Some(401) => ParseError::Auth(msg),
            Some(402) => ParseError::Quota(msg),
            Some(429) => ParseError::RateLimited(msg),
            _ => ParseError::Malformed(msg),
        });
    };
    Ok(items
        .into_iter()
        .map(|i| RawItem {
            url: i.url,
            title: i.title,
            snippet: crate::html::clean_text(&i.description),
            published: i.published_time,
            ..RawItem::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // No saved Jina response exists (ENGINES.md §8): documented shape.
    #[test]
    fn documented_shape_parses() {
        let body = br#"{"code":200,"status":20000,"data":[{"title":"J","url":"https://j.example/","description":"d","content":"","usage":{"tokens":5}}]}"#;
        assert_eq!(parse(body).unwrap()[0].url, "https://j.example/");
        let err = br#"{"code":402,"name":"InsufficientBalanceError","message":"balance"}"#;
        assert!(matches!(parse(err), Err(ParseError::Quota(_))));
    }
}
