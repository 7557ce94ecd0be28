//! Brave Search API (`api.search.brave.com/res/v1/web/search`), keyed by `BRAVE_API_KEY`.

use serde::Deserialize;

use super::prelude::*;
use crate::types::Freshness;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
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
    #[serde(flatten)]
    link: Listing,
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
        .map(|i| {
            RawItem::new(
                i.link.url,
                strip_tags(&i.link.title),
                strip_tags(&i.description),
            )
            .dated(i.page_age.or(i.age))
        })
        .collect())
}

/// brave_api, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "brave_api",
    group: "brave",
    filters: Capabilities::named("all"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::BRAVE_API_KEY,
    base: "https://api.search.brave.com",
    browser_like: false,
    confidence: "high: official versioned API; real web and news responses ≈2025-01",
    routes: Routes::named("web all fast news"),
    fixtures: "tested on 2 real saved responses (captured 2024-12 to 2025)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
