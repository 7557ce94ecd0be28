//! Tavily (`POST api.tavily.com/search`), keyed by `TAVILY_API_KEY`, or keyless
//! (`X-Tavily-Access-Mode: keyless`, rate limited) when `TRAWL_TAVILY_KEYLESS=1`.

use serde::Deserialize;

use super::prelude::*;

/// The Tavily engine.
#[derive(Debug, Default)]
pub struct Tavily;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
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

impl Engine for Tavily {
    fn spec(&self) -> &'static EngineSpec {
        &SPEC
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
    #[serde(flatten)]
    link: Listing,
    #[serde(default)]
    content: String,
    score: Option<f64>,
    published_date: Option<String>,
}

/// The words of Tavily's error envelopes.
const ERRORS: ErrorWords = ErrorWords {
    rate: &["rate", "retry_after"],
    quota: &["usage limit", "credits"],
    auth: &["api key", "unauthorized"],
};

/// Parse a `/search` response (or its error envelopes).
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error.or(r.detail) {
        return Err(ParseError::from_message(e.to_string(), &ERRORS));
    }
    let items = required(r.results, "results")?;
    Ok(items
        .into_iter()
        .map(|i| {
            RawItem::new(
                i.link.url,
                clean_text(&i.link.title),
                clean_text(&i.content),
            )
            .dated(i.published_date)
            .with_extra(i.score.map(|s| serde_json::json!({ "score": s })))
        })
        .collect())
}

/// tavily, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "tavily",
    group: "tavily",
    filters: Capabilities::named("site freshness region"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::TAVILY_API_KEY,
    base: "https://api.tavily.com",
    browser_like: false,
    confidence: "high: three real responses 2026-03; SDK 2026-06",
    routes: Routes::named("web all fast news"),
    fixtures: "tested on 3 real saved responses (captured 2026-03-06)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
