//! A self-hosted SearXNG instance's JSON API (`/search?format=json`). Its results are
//! split into correlation groups by the upstream engines it reports, so a SearXNG hit
//! from bing and google votes once in each of those groups.

use serde::Deserialize;

use crate::engine::{
    Capabilities, Engine, EngineRequest, ParseError, RawItem, RequestContext, endpoint_with,
    json_body,
};
use crate::types::SearchRequest;

/// The SearXNG engine. It has no default base: `TRAWL_SEARXNG_URL` must be set.
#[derive(Debug, Default)]
pub struct Searxng;

impl Engine for Searxng {
    fn name(&self) -> &'static str {
        "searxng"
    }
    fn group(&self) -> &'static str {
        "searxng"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            freshness: true,
            language: true,
            region: false,
            safesearch: true,
            paging: true,
        }
    }
    fn default_base(&self) -> &'static str {
        ""
    }
    fn confidence(&self) -> &'static str {
        "high: real 2024 response; matches 2026 code (number_of_results now optional); the instance must enable format=json"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
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
        EngineRequest::get(endpoint_with(ctx.base, "/search", &p))
            .header("Accept", "application/json")
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
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
        out.push(RawItem {
            url,
            title: crate::html::clean_text(&res.title),
            snippet: crate::html::clean_text(&res.content.unwrap_or_default()),
            published: res.published_date,
            upstream,
            ..RawItem::default()
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real ≈2024-04 response: 30 results from bing, qwant, duckduckgo, google, wikipedia.
    #[test]
    fn real_response_splits_by_upstream() {
        let body = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/fixtures/serp/searxng/search-python-format-json.json"
        ))
        .unwrap();
        let items = parse(&body).unwrap();
        assert_eq!(items.len(), 30);
        assert_eq!(items[0].url, "https://www.python.org/");
        assert_eq!(
            items[0].upstream,
            vec![
                ("bing".into(), 1),
                ("qwant".into(), 1),
                ("duckduckgo".into(), 1)
            ]
        );
        assert_eq!(
            items[1].upstream,
            vec![
                ("bing".into(), 4),
                ("qwant".into(), 3),
                ("duckduckgo".into(), 2)
            ]
        );
        let ups: std::collections::BTreeSet<_> = items
            .iter()
            .flat_map(|i| i.upstream.iter().map(|(e, _)| e.as_str()))
            .collect();
        assert!(ups.contains("google") && ups.contains("wikipedia"));
    }

    #[test]
    fn unresponsive_upstreams_are_noted() {
        let body = br#"{"query":"x","results":[],"unresponsive_engines":[["brave","Suspended: too many requests"]]}"#;
        assert_eq!(
            unresponsive(body).as_deref(),
            Some("upstream failures: brave (Suspended: too many requests)")
        );
        assert_eq!(
            unresponsive(br#"{"results":[],"unresponsive_engines":[]}"#),
            None
        );
    }

    #[test]
    fn error_body() {
        assert!(parse(br#"{"error":"search error"}"#).is_err());
    }
}
