//! Serper (`POST google.serper.dev/search`), Google results, keyed by `SERPER_API_KEY`.

use serde::Deserialize;

use crate::engine::{
    Body, Capabilities, Engine, EngineRequest, KeyNeed, ParseError, RawItem, RequestContext,
    endpoint, json_body,
};
use crate::types::SearchRequest;

/// The Serper engine.
#[derive(Debug, Default)]
pub struct Serper;

impl Engine for Serper {
    fn name(&self) -> &'static str {
        "serper"
    }
    fn group(&self) -> &'static str {
        "google"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            freshness: true,
            language: true,
            region: true,
            safesearch: false,
            paging: true,
        }
    }
    fn key_need(&self) -> KeyNeed {
        KeyNeed::Required
    }
    fn key_env(&self) -> Option<&'static str> {
        Some("SERPER_API_KEY")
    }
    fn default_base(&self) -> &'static str {
        "https://google.serper.dev"
    }
    fn confidence(&self) -> &'static str {
        "medium-high: one ≈2022 sample (Serper's own docs); simple stable schema"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
        let mut body = serde_json::json!({ "q": q, "num": 10 });
        if f.page() > 1 {
            body["page"] = f.page().into();
        }
        if let Some(fr) = f.freshness {
            body["tbs"] = format!("qdr:{}", fr.letter()).into();
        }
        if let Some(r) = &f.region {
            body["gl"] = r.to_lowercase().into();
        }
        if let Some(l) = &f.language {
            body["hl"] = l.to_lowercase().into();
        }
        let mut r = EngineRequest::post(endpoint(ctx.base, "/search"), Body::Json(body));
        if let Some(k) = ctx.key {
            r = r.header("X-API-KEY", k);
        }
        r
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
}

#[derive(Deserialize)]
struct Response {
    organic: Option<Vec<Item>>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    link: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    snippet: String,
    date: Option<String>,
}

/// Parse a `/search` response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    let Some(items) = r.organic else {
        let msg = r.message.unwrap_or_else(|| "no `organic`".into());
        let lower = msg.to_lowercase();
        return Err(if lower.contains("credits") || lower.contains("quota") {
            ParseError::Quota(msg)
        } else if lower.contains("api key") || lower.contains("unauthorized") {
            ParseError::Auth(msg)
        } else {
            ParseError::Malformed(msg)
        });
    };
    Ok(items
        .into_iter()
        .map(|i| RawItem {
            url: i.link,
            title: i.title,
            snippet: i.snippet,
            published: i.date,
            ..RawItem::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // ≈2022 sample (`q: "apple inc"`), 8 organic results.
    #[test]
    fn apple_sample() {
        let body = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/fixtures/serp/serper/search-apple-inc.json"
        ))
        .unwrap();
        let items = parse(&body).unwrap();
        assert_eq!(items.len(), 8);
        assert!(items[0].url.contains("apple.com"));
    }

    #[test]
    fn out_of_credits() {
        let body = br#"{"message":"Not enough credits","statusCode":400}"#;
        assert!(matches!(parse(body), Err(ParseError::Quota(_))));
    }
}
