//! Mojeek (`www.mojeek.com/search`), HTML, its own independent index.

use super::prelude::*;
use crate::serp::{HtmlLayout, extract};
use crate::types::SafeSearch;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut p = vec![("q", query.to_owned())];
    if let Some(site) = &f.site {
        p.push(("site", site.clone()));
    }
    // `s` is 1-based like Mojeek's API docs; sxng warns that `s` on page 1 draws rate
    // limiting, so it is only sent from page 2.
    if f.page() > 1 {
        p.push(("s", ((f.page() - 1) * 10 + 1).to_string()));
    }
    if let Some(s) = f.safesearch {
        p.push(("safe", if s == SafeSearch::Off { "0" } else { "1" }.into()));
    }
    if let Some(fr) = f.freshness {
        p.push(("since", super::yyyymmdd_days_ago(fr.days())));
    }
    let mut r = EngineRequest::get(endpoint_with(ctx.base, "/search", &p));
    let mut cookies = Vec::new();
    if let Some(l) = &f.language {
        cookies.push(format!("lb={}", l.to_lowercase()));
    }
    if let Some(reg) = &f.region {
        cookies.push(format!("arc={}", reg.to_lowercase()));
    }
    if !cookies.is_empty() {
        r = r.header("Cookie", cookies.join("; "));
    }
    r
}

/// Mojeek's results page: `ul.results-standard > li`, `h2 > a.title`, `p.s`.
const LAYOUT: HtmlLayout = HtmlLayout {
    origin: Some("https://www.mojeek.com"),
    titles: &["h2 a"],
    snippet: "p.s",
    no_results_phrases: &["No pages found matching"],
    ..HtmlLayout::new(&["ul.results-standard > li"], &["h2 a", "a.ob"])
};

/// Parse a Mojeek results page: `ul.results-standard > li`, `h2 > a.title`, `p.s`.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    extract(body, &LAYOUT)
}

/// mojeek, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "mojeek",
    group: "mojeek",
    filters: Capabilities::named("all"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://www.mojeek.com",
    browser_like: true,
    confidence: "medium-high: no real page saved; tested on a minimal page built from the markup 4 sources agree on",
    routes: Routes::named("web all"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
