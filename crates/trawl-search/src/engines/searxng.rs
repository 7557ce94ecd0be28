//! A self-hosted SearXNG instance's JSON API (`/search?format=json`). Its results are
//! split into correlation groups by the upstream engines it reports, so a SearXNG hit
//! from bing and google votes once in each of those groups.

use serde::Deserialize;

use super::prelude::*;

/// The SearXNG engine. It has no default base: `TRAWL_SEARXNG_URL` must be set.
#[derive(Debug, Default)]
pub struct Searxng;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    let mut p = vec![
        ("q", q),
        ("format", "json".to_owned()),
        ("pageno", f.page().to_string()),
    ];
    if let Some(fr) = f.freshness {
        p.push(("time_range", fr.word().into()));
    }
    if let Some(s) = f.safesearch {
        p.push(("safesearch", s.level().to_string()));
    }
    if let Some(l) = &f.language {
        p.push(("language", l.clone()));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/search", &p)).header("Accept", "application/json")
}

impl Engine for Searxng {
    fn spec(&self) -> &'static EngineSpec {
        &SPEC
    }
    fn note_from_body(&self, body: &[u8]) -> Option<String> {
        unresponsive(body)
    }
}

/// SearXNG's own list of upstream engines that failed, e.g.
/// `upstream failures: brave (Suspended: too many requests)`.
pub fn unresponsive(body: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Partial {
        #[serde(default)]
        unresponsive_engines: Vec<(String, String)>,
    }
    let p: Partial = serde_json::from_slice(body).ok()?;
    let list: Vec<String> = p
        .unresponsive_engines
        .iter()
        .map(|(e, why)| format!("{e} ({why})"))
        .collect();
    (!list.is_empty()).then(|| format!("upstream failures: {}", list.join(", ")))
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    results: Vec<Result_>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Result_ {
    url: Option<String>,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: Option<String>,
    engine: Option<String>,
    #[serde(default)]
    engines: Vec<String>,
    #[serde(default)]
    positions: Vec<u32>,
    #[serde(rename = "publishedDate")]
    published_date: Option<String>,
}

/// Parse a SearXNG JSON answer. Each item's `upstream` lists `(engine, rank)`: the rank is
/// the upstream engine's own position when SearXNG reports one per engine, else the item's
/// rank among that engine's items in this answer.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error {
        return Err(ParseError::Malformed(format!("searxng error: {e}")));
    }
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for res in r.results {
        let Some(url) = res.url.filter(|u| u.starts_with("http")) else {
            continue;
        };
        let mut engines = res.engines;
        if engines.is_empty()
            && let Some(e) = res.engine
        {
            engines.push(e);
        }
        let aligned = res.positions.len() == engines.len();
        let upstream = engines
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let counter = seen.entry(e.clone()).or_insert(0);
                *counter += 1;
                let rank = if aligned { res.positions[i] } else { *counter };
                (e.clone(), rank.max(1))
            })
            .collect();
        let snippet = clean_text(&res.content.unwrap_or_default());
        out.push(RawItem {
            upstream,
            ..RawItem::new(url, clean_text(&res.title), snippet).dated(res.published_date)
        });
    }
    Ok(out)
}

/// searxng, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "searxng",
    group: "searxng",
    filters: Capabilities::named("site freshness language safesearch paging"),
    key: KeyNeed::None,
    key_env: "",
    base: "",
    browser_like: false,
    confidence: "high: real 2024 response; matches 2026 code (number_of_results now optional); the instance must enable format=json",
    routes: Routes::named("web all"),
    fixtures: "tested on 1 real saved response (captured 2024)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
