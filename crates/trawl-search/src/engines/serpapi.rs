//! SerpAPI (`GET serpapi.com/search.json?engine=google`), keyed by `SERPAPI_API_KEY`.
//! The key travels in the query string; recordings strip it.

use serde::Deserialize;

use super::prelude::*;
use super::serper::Organic;
use crate::types::SafeSearch;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    let mut p = vec![("engine", "google".to_owned()), ("q", q)];
    if f.page() > 1 {
        p.push(("start", ((f.page() - 1) * 10).to_string()));
    }
    if let Some(s) = f.safesearch {
        p.push((
            "safe",
            if s == SafeSearch::Off {
                "off"
            } else {
                "active"
            }
            .into(),
        ));
    }
    if let Some(fr) = f.freshness {
        p.push(("tbs", format!("qdr:{}", fr.letter())));
    }
    if let Some(r) = &f.region {
        p.push(("gl", r.to_lowercase()));
    }
    if let Some(l) = &f.language {
        p.push(("hl", l.to_lowercase()));
    }
    if let Some(k) = ctx.key {
        p.push(("api_key", k.to_owned()));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/search.json", &p))
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    organic_results: Vec<Organic>,
    error: Option<String>,
}

/// The words of SerpAPI's `error` field.
const ERRORS: ErrorWords = ErrorWords {
    rate: &[],
    quota: &["run out of searches", "plan"],
    auth: &["api key"],
};

/// Parse a `search.json` response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error {
        let lower = e.to_lowercase();
        if lower.contains("hasn't returned any results") {
            return Ok(Vec::new());
        }
        return Err(ParseError::from_message(e, &ERRORS));
    }
    Ok(r.organic_results.into_iter().map(RawItem::from).collect())
}

/// serpapi, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "serpapi",
    group: "google",
    filters: Capabilities::named("all"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::SERPAPI_API_KEY,
    base: "https://serpapi.com",
    browser_like: false,
    confidence: "medium-high: no saved response; tested on a minimal response built from the documented fields",
    routes: Routes::named("web all"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
