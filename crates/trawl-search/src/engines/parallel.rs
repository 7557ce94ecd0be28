//! Parallel Search (`POST api.parallel.ai/v1/search`), keyed by `PARALLEL_API_KEY` (sent
//! as `x-api-key`): ranked results with LLM-ready excerpts. Filters sit under
//! `advanced_settings.source_policy` (`include_domains`, `after_date`).

use serde::Deserialize;

use super::prelude::*;

/// The request for one query, in the cheap `fast` mode (the API's default, `advanced`,
/// costs several times more).
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut policy = serde_json::Map::new();
    if let Some(site) = &f.site {
        policy.insert("include_domains".into(), serde_json::json!([site]));
    }
    if let Some(fr) = f.freshness {
        let d = super::yyyymmdd_days_ago(fr.days());
        policy.insert(
            "after_date".into(),
            format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..]).into(),
        );
    }
    let mut settings = serde_json::json!({ "max_results": 10 });
    if !policy.is_empty() {
        settings["source_policy"] = policy.into();
    }
    let body = serde_json::json!({
        "search_queries": [query],
        "objective": query,
        "mode": "fast",
        "advanced_settings": settings,
    });
    let r = EngineRequest::post(endpoint(ctx.base, "/v1/search"), Body::Json(body));
    match ctx.key {
        Some(k) => r.header("x-api-key", k),
        None => r,
    }
}

#[derive(Deserialize)]
struct Response {
    results: Option<Vec<Item>>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(flatten)]
    link: Listing,
    publish_date: Option<String>,
    #[serde(default)]
    excerpts: Vec<String>,
}

/// The words of Parallel's error bodies.
const ERRORS: ErrorWords = ErrorWords {
    rate: &["rate limit", "too many requests"],
    quota: &["credit", "quota", "payment"],
    auth: &["api key", "unauthorized", "forbidden"],
};

/// Parse a `/v1/search` answer: `{search_id, results: [{url, title, publish_date, excerpts}]}`.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error {
        return Err(ParseError::from_message(e.to_string(), &ERRORS));
    }
    let items = required(r.results, "results")?;
    Ok(items
        .into_iter()
        .map(|i| {
            let joined = i.excerpts.join(" … ");
            let snippet: String = clean_text(&joined).chars().take(600).collect();
            RawItem::new(i.link.url, clean_text(&i.link.title), snippet).dated(i.publish_date)
        })
        .collect())
}

/// parallel, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "parallel",
    group: "parallel",
    filters: Capabilities::named("site freshness"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::PARALLEL_API_KEY,
    base: "https://api.parallel.ai",
    browser_like: false,
    confidence: "medium: no saved response found in public code or test data; request and response fields from Parallel's V1 docs and SDK wrappers (2026); tested on a response built from them",
    routes: Routes::named("web all fast"),
    fixtures: "not tested on a real saved response: built from the documented V1 response fields (results[].url, title, publish_date, excerpts)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
