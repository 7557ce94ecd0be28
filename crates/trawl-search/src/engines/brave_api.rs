//! Brave Search API (`api.search.brave.com/res/v1/web/search`), keyed by `BRAVE_API_KEY`.

use serde::Deserialize;

use crate::engine::{
    Capabilities, Engine, EngineRequest, KeyNeed, ParseError, RawItem, RequestContext,
    endpoint_with, json_body,
};
use crate::html::strip_tags;
use crate::types::{Freshness, SearchRequest};

/// The Brave Search API engine.
#[derive(Debug, Default)]
pub struct BraveApi;

impl Engine for BraveApi {
    fn name(&self) -> &'static str {
        "brave_api"
    }
    fn group(&self) -> &'static str {
        "brave"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            freshness: true,
            language: true,
            region: true,
            safesearch: true,
            paging: true,
        }
    }
    fn key_need(&self) -> KeyNeed {
        KeyNeed::Required
    }
    fn key_env(&self) -> Option<&'static str> {
        Some("BRAVE_API_KEY")
    }
    fn default_base(&self) -> &'static str {
        "https://api.search.brave.com"
    }
    fn confidence(&self) -> &'static str {
        "high: official versioned API; real web and news responses ≈2025-01"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
        let mut p = vec![("q", q), ("count", "10".to_owned())];
        if f.page() > 1 {
            p.push(("offset", (f.page() - 1).min(9).to_string()));
        }
        if let Some(s) = f.safesearch {
            p.push(("safesearch", s.word().into()));
        }
        if let Some(fr) = f.freshness {
            let v = match fr {
                Freshness::Day => "pd",
                Freshness::Week => "pw",
                Freshness::Month => "pm",
                Freshness::Year => "py",
            };
            p.push(("freshness", v.into()));
        }
        if let Some(r) = &f.region {
            p.push(("country", r.to_lowercase()));
        }
        if let Some(l) = &f.language {
            p.push(("search_lang", l.to_lowercase()));
        }
        let mut r = EngineRequest::get(endpoint_with(ctx.base, "/res/v1/web/search", &p))
            .header("Accept", "application/json");
        if let Some(k) = ctx.key {
            r = r.header("X-Subscription-Token", k);
        }
        r
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
}

#[derive(Deserialize)]
struct Response {
    web: Option<Block>,
    // The news endpoint puts results at the top level.
    results: Option<Vec<Item>>,
    #[serde(rename = "type")]
    kind: Option<String>,
    error: Option<ApiError>,
}

#[derive(Deserialize)]
struct Block {
    #[serde(default)]
    results: Vec<Item>,
}

#[derive(Deserialize)]
struct ApiError {
    code: Option<String>,
    detail: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    page_age: Option<String>,
    age: Option<String>,
}

/// Parse a web (or news) search response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if r.kind.as_deref() == Some("ErrorResponse") || r.error.is_some() {
        let e = r.error.unwrap_or(ApiError {
            code: None,
            detail: None,
        });
        let code = e.code.unwrap_or_default();
        let msg = format!("{code}: {}", e.detail.unwrap_or_default());
        return Err(match code.as_str() {
            "RATE_LIMITED" => ParseError::RateLimited(msg),
            "SUBSCRIPTION_TOKEN_INVALID" => ParseError::Auth(msg),
            c if c.contains("QUOTA") => ParseError::Quota(msg),
            _ => ParseError::Malformed(msg),
        });
    }
    let items = match (r.web, r.results) {
        (Some(b), _) => b.results,
        (None, Some(res)) => res,
        // A search with no web block at all: Brave found nothing.
        (None, None) => Vec::new(),
    };
    Ok(items
        .into_iter()
        .map(|i| RawItem {
            url: i.url,
            title: strip_tags(&i.title),
            snippet: strip_tags(&i.description),
            published: i.page_age.or(i.age),
            ..RawItem::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/serp/brave-api/"
    );

    // ≈2024-12-31 real `web/search?q=hello world`.
    #[test]
    fn web_search() {
        let items =
            parse(&std::fs::read(format!("{DIR}web-search-hello-world.json")).unwrap()).unwrap();
        assert_eq!(items.len(), 20);
        assert!(
            items
                .iter()
                .all(|i| i.url.starts_with("http") && !i.title.contains("<strong>"))
        );
    }

    // ≈early 2025 real `news/search`.
    #[test]
    fn news_search() {
        let items = parse(&std::fs::read(format!("{DIR}news-search.json")).unwrap()).unwrap();
        assert!(!items.is_empty());
        assert!(items.iter().all(|i| i.url.starts_with("http")));
    }

    #[test]
    fn error_response() {
        let body = br#"{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"bad","status":401}}"#;
        assert!(matches!(parse(body), Err(ParseError::Auth(_))));
    }
}
