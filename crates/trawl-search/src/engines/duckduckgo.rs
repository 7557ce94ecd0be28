//! DuckDuckGo, html endpoint (`html.duckduckgo.com/html/`), POST form, no JavaScript.
//! Results are Bing-backed, so it votes in the `bing` correlation group.

use super::prelude::*;
use crate::html::{document, sel};
use crate::serp::{HtmlLayout, extract};
use crate::types::SafeSearch;

/// The DuckDuckGo html-endpoint engine. It keeps the `vqd` token of each query's last
/// page for an hour (as SearXNG does), because asking for page 2 without it looks like a
/// bot to DuckDuckGo.
///
/// When the html endpoint refuses (202, a challenge, its bare home page), the router asks
/// the lite endpoint ([`lite`]) in the same search, and this engine remembers the refusal
/// for [`LITE_MEMORY`], asking lite first meanwhile (as site memory does for read tiers).
#[derive(Debug, Default)]
pub struct DuckDuckGo {
    vqd: std::sync::Mutex<std::collections::HashMap<String, (String, std::time::Instant)>>,
    /// When the html endpoint last refused.
    refused_at: std::sync::Mutex<Option<std::time::Instant>>,
}

pub mod lite;

const VQD_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// How long a refusal of the html endpoint sends searches to the lite endpoint first.
pub const LITE_MEMORY: std::time::Duration = std::time::Duration::from_secs(30 * 60);

fn region_code(req: &SearchRequest) -> String {
    let f = &req.filters;
    match (&f.region, &f.language) {
        (Some(r), Some(l)) => format!("{}-{}", r.to_lowercase(), l.to_lowercase()),
        (Some(r), None) => format!("{}-en", r.to_lowercase()),
        (None, Some(l)) => format!("wt-{}", l.to_lowercase()),
        (None, None) => "wt-wt".into(),
    }
}

impl DuckDuckGo {
    fn cache_key(query: &str, req: &SearchRequest) -> String {
        format!("{query}\u{0}{}", region_code(req))
    }

    fn cached_vqd(&self, key: &str) -> Option<String> {
        let map = self.vqd.lock().unwrap_or_else(|e| e.into_inner());
        map.get(key)
            .filter(|(_, at)| at.elapsed() < VQD_TTL)
            .map(|(v, _)| v.clone())
    }
}

/// The request for one query, without a remembered `vqd` (the table's request builder).
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    request_with(query, req, ctx, None)
}

/// The request for one query, with the `vqd` of an earlier page of it when there is one.
fn request_with(
    query: &str,
    req: &SearchRequest,
    ctx: &RequestContext<'_>,
    vqd: Option<String>,
) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    let kl = region_code(req);
    let mut form = vec![("q".to_owned(), q)];
    if f.page() > 1 {
        // The hidden "Next" form of the html endpoint: offsets 10, 25, 40, …; the vqd
        // of an earlier page of this query when we have one (ddgs sends only `s`).
        let s = 10 + (f.page() - 2) * 15;
        form.push(("s".into(), s.to_string()));
        form.push(("dc".into(), (s + 1).to_string()));
        form.push(("nextParams".into(), String::new()));
        form.push(("api".into(), "d.js".into()));
        form.push(("o".into(), "json".into()));
        form.push(("v".into(), "l".into()));
        if let Some(v) = vqd {
            form.push(("vqd".into(), v));
        }
    } else {
        form.push(("b".to_owned(), String::new()));
    }
    form.push(("kl".to_owned(), kl));
    if let Some(fr) = f.freshness {
        form.push(("df".into(), fr.letter().into()));
    }
    if let Some(s) = f.safesearch {
        let kp = match s {
            SafeSearch::Strict => "1",
            SafeSearch::Moderate => "-1",
            SafeSearch::Off => "-2",
        };
        form.push(("kp".into(), kp.into()));
    }
    let url = endpoint(ctx.base, "/html/");
    EngineRequest::post(url, Body::Form(form))
        .header("Referer", "https://html.duckduckgo.com/")
        .header("Sec-Fetch-Dest", "document")
        .header("Sec-Fetch-Mode", "navigate")
        .header("Sec-Fetch-Site", "same-origin")
}

impl Engine for DuckDuckGo {
    fn spec(&self) -> &'static EngineSpec {
        &SPEC
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        request_with(
            query,
            req,
            ctx,
            self.cached_vqd(&Self::cache_key(query, req)),
        )
    }
    fn remember(&self, query: &str, req: &SearchRequest, body: &[u8]) {
        if let Some(v) = vqd(body) {
            let mut map = self.vqd.lock().unwrap_or_else(|e| e.into_inner());
            map.retain(|_, (_, at)| at.elapsed() < VQD_TTL);
            map.insert(Self::cache_key(query, req), (v, std::time::Instant::now()));
        }
    }
    fn classify_status(&self, status: u16) -> Option<ParseError> {
        // DDG answers 202 with an anomaly page when it rate-limits an IP.
        (status == 202).then(|| ParseError::RateLimited("answered 202 (anomaly page)".into()))
    }
    fn fallback(&self) -> Option<std::sync::Arc<dyn Engine>> {
        Some(std::sync::Arc::new(crate::engine::Described(&lite::SPEC)))
    }
    fn fallback_first(&self) -> bool {
        let at = self.refused_at.lock().unwrap_or_else(|e| e.into_inner());
        at.is_some_and(|t| t.elapsed() < LITE_MEMORY)
    }
    fn refused(&self) {
        let mut at = self.refused_at.lock().unwrap_or_else(|e| e.into_inner());
        *at = Some(std::time::Instant::now());
    }
    fn transport(&self) -> Option<&'static str> {
        Some(if self.fallback_first() {
            "lite (html refused recently)"
        } else {
            "html"
        })
    }
}

/// DuckDuckGo's html endpoint: `div.result` minus ads, `uddg=`-wrapped links.
const LAYOUT: HtmlLayout = HtmlLayout {
    origin: Some("https://duckduckgo.com"),
    snippet: ".result__snippet",
    skip: &["https://duckduckgo.com/y.js", "duckduckgo.com/l/?"],
    no_results: &[".result--no-result", "div.no-results"],
    no_results_phrases: &["No results."],
    ..HtmlLayout::new(
        &["div.result:not(.result--ad):not(.result--no-result)"],
        &["h2 a.result__a, a.result__a"],
    )
};

/// Parse an html-endpoint results page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    extract(body, &LAYOUT)
}

/// The `vqd` token of a page (html endpoint hidden input, or the JS page's
/// `deep_preload_link`), needed to ask for page 2.
pub fn vqd(body: &[u8]) -> Option<String> {
    let doc = document(body);
    if let Some(v) = doc
        .select(&sel("input[name=vqd]"))
        .find_map(|e| e.value().attr("value"))
    {
        return Some(v.to_owned());
    }
    let href = doc
        .select(&sel("link#deep_preload_link"))
        .find_map(|e| e.value().attr("href"))?;
    let u = url::Url::parse(href).ok()?;
    u.query_pairs()
        .find(|(k, _)| k == "vqd")
        .map(|(_, v)| v.into_owned())
}

/// duckduckgo, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "duckduckgo",
    group: "bing",
    filters: Capabilities::named("all"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://html.duckduckgo.com",
    browser_like: true,
    confidence: "high for parsing (3 real pages 2026-02 + 2020 page); getting through: medium (IP blocks, captchas)",
    routes: Routes::named("web all news"),
    fixtures: "tested on 5 real saved responses (captured 2020-07-16 to 2026-02-23)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
