//! Yahoo web (`search.yahoo.com/search`), HTML, Bing-backed. Links are wrapped as
//! `r.search.yahoo.com/…/RU=<pct-encoded>/RK=…`.

use super::prelude::*;
use crate::serp::{HtmlLayout, extract};
use crate::types::{Freshness, SafeSearch};

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    let mut p = vec![("p", q)];
    if f.page() > 1 {
        p.push(("b", ((f.page() - 1) * 7 + 1).to_string()));
    }
    if let Some(fr) = f.freshness {
        // Yahoo knows d|w|m only; a year window is sent as no window (wider, not narrower).
        if fr != Freshness::Year {
            p.push(("btf", fr.letter().into()));
        }
    }
    let mut r = EngineRequest::get(endpoint_with(ctx.base, "/search", &p));
    if let Some(s) = f.safesearch {
        let vm = match s {
            SafeSearch::Off => "p",
            SafeSearch::Moderate => "i",
            SafeSearch::Strict => "r",
        };
        r = r.header(
            "Cookie",
            format!("sB=v=1&vm={vm}&fl=1&pn=10&rw=new&userset=1"),
        );
    }
    r
}

/// Yahoo's results page (2020 `h3 > a` and 2026 `a > h3 > span` title markup), links
/// `RU=` wrapped.
const LAYOUT: HtmlLayout = HtmlLayout {
    origin: Some("https://search.yahoo.com"),
    title_attr: Some("aria-label"),
    titles: &[".compTitle h3"],
    snippet: ".compText",
    skip: &["bing.com/aclick"],
    no_results: &["div.zrp"],
    no_results_phrases: &["We did not find results"],
    ..HtmlLayout::new(&["div.algo-sr"], &[".compTitle a[href]"])
};

/// Parse a Yahoo results page (2020 `h3 > a` and 2026 `a > h3 > span` title markup).
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    extract(body, &LAYOUT)
}

/// yahoo, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "yahoo",
    group: "bing",
    filters: Capabilities::named("site freshness safesearch paging"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://search.yahoo.com",
    browser_like: true,
    confidence: "medium: only a 2020 page; title markup differs between sources (both handled)",
    routes: Routes::named("all"),
    fixtures: "tested on 1 real saved response (captured 2020-07-16)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
