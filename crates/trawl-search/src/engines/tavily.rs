//! Tavily (`POST api.tavily.com/search`), keyed by `TAVILY_API_KEY`, or keyless
//! (`X-Tavily-Access-Mode: keyless`, rate limited) when `TRAWL_TAVILY_KEYLESS=1`.

use serde::Deserialize;

use crate::engine::{
    Body, Capabilities, Engine, EngineRequest, KeyNeed, ParseError, RawItem, RequestContext,
    endpoint, json_body,
};
use crate::types::SearchRequest;

/// The Tavily engine.
#[derive(Debug, Default)]
pub struct Tavily;

impl Engine for Tavily {
    fn name(&self) -> &'static str {
        "tavily"
    }
    fn group(&self) -> &'static str {
        "tavily"
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
        Some("TAVILY_API_KEY")
    }
    fn default_base(&self) -> &'static str {
        "https://api.tavily.com"
    }
    fn confidence(&self) -> &'static str {
        "high: three real responses 2026-03; SDK 2026-06"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let mut body = serde_json::json!({
            "query": query,
            "search_depth": "basic",
            "topic": "general",
            "max_results": 10,
        });
        if let Some(site) = &f.site {
            body["include_domains"] = serde_json::json!([site]);
        }
        if let Some(fr) = f.freshness {
            body["time_range"] = fr.word().into();
        }
        if let Some(r) = &f.region {
            body["country"] = r.to_lowercase().into();
        }
        let r = EngineRequest::post(endpoint(ctx.base, "/search"), Body::Json(body));
        match ctx.key {
            Some(k) => r.header("Authorization", format!("Bearer {k}")),
            None => r.header("X-Tavily-Access-Mode", "keyless"),
        }
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
    fn classify_status(&self, status: u16) -> Option<ParseError> {
        // Tavily's plan and usage limits.
        matches!(status, 432 | 433)
            .then(|| ParseError::Quota(format!("answered {status} (plan or usage limit)")))
    }
}

#[derive(Deserialize)]
struct Response {
    results: Option<Vec<Item>>,
    error: Option<serde_json::Value>,
    detail: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: String,
    score: Option<f64>,
    published_date: Option<String>,
}

/// Parse a `/search` response (or its error envelopes).
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error.or(r.detail) {
        let msg = e.to_string();
        let lower = msg.to_lowercase();
        return Err(if lower.contains("rate") || lower.contains("retry_after") {
            ParseError::RateLimited(msg)
        } else if lower.contains("usage limit") || lower.contains("credits") {
            ParseError::Quota(msg)
        } else if lower.contains("api key") || lower.contains("unauthorized") {
            ParseError::Auth(msg)
        } else {
            ParseError::Malformed(msg)
        });
    }
    let items = r
        .results
        .ok_or_else(|| ParseError::Malformed("no `results`".into()))?;
    Ok(items
        .into_iter()
        .map(|i| RawItem {
            url: i.url,
            title: crate::html::clean_text(&i.title),
            snippet: crate::html::clean_text(&i.content),
            published: i.published_date,
            extra: i.score.map(|s| serde_json::json!({ "score": s })),
            ..RawItem::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/serp/tavily/"
    );

    fn read(name: &str) -> Vec<u8> {
        std::fs::read(format!("{DIR}{name}")).unwrap()
    }

    // Three real 2026-03-06 responses, each beside the request that produced it.
    #[test]
    fn real_responses_and_requests() {
        for (name, expect_domain) in [
            ("search-test_basic_search", None),
            ("search-test_search_with_include_domains", Some("arxiv.org")),
            ("search-test_factory_with_bound_params", Some("arxiv.org")),
        ] {
            let items = parse(&read(&format!("{name}.json"))).unwrap();
            assert!(!items.is_empty(), "{name}");
            assert!(items.iter().all(|i| i.url.starts_with("http")));
            if let Some(d) = expect_domain {
                assert!(items.iter().all(|i| i.url.contains(d)), "{name}");
            }
            // Our request carries the same fields the recorded one did.
            let recorded: serde_json::Value =
                serde_json::from_slice(&read(&format!("{name}.request.json"))).unwrap();
            let rb = &recorded["body"];
            let mut req = SearchRequest::new(rb["query"].as_str().unwrap());
            if let Some(d) = rb["include_domains"].as_array() {
                req.filters.site = d[0].as_str().map(str::to_owned);
            }
            let base = url::Url::parse("https://api.tavily.com").unwrap();
            let ours = Tavily.request(
                &req.query.clone(),
                &req,
                &RequestContext {
                    base: &base,
                    key: Some("k"),
                },
            );
            assert_eq!(ours.url.as_str(), recorded["uri"].as_str().unwrap());
            let Some(Body::Json(body)) = ours.body else {
                panic!()
            };
            assert_eq!(body["query"], rb["query"]);
            if !rb["include_domains"].is_null() {
                assert_eq!(body["include_domains"], rb["include_domains"]);
            }
            if !rb["search_depth"].is_null() {
                assert_eq!(body["search_depth"], rb["search_depth"]);
            }
        }
    }

    #[test]
    fn keyless_mode_and_limit_envelope() {
        let base = url::Url::parse("https://api.tavily.com").unwrap();
        let r = Tavily.request(
            "q",
            &SearchRequest::new("q"),
            &RequestContext {
                base: &base,
                key: None,
            },
        );
        assert!(
            r.headers
                .contains(&("X-Tavily-Access-Mode".into(), "keyless".into()))
        );
        let body = br#"{"error":{"code":"rate_limited","message":"slow","window":"1m","retry_after_seconds":30}}"#;
        assert!(matches!(parse(body), Err(ParseError::RateLimited(_))));
    }
}
