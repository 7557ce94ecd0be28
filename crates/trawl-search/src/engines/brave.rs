//! Brave Search HTML (`search.brave.com/search`), keyless. Its own index, shared with the
//! Brave Search API (`brave_api`), so both vote in the `brave` group.

use super::prelude::*;
use crate::serp::{HtmlLayout, extract};
use crate::types::Freshness;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    let mut p = vec![("q", q), ("source", "web".to_owned())];
    if f.page() > 1 {
        p.push(("offset", (f.page() - 1).to_string()));
    }
    if let Some(fr) = f.freshness {
        let tf = match fr {
            Freshness::Day => "pd",
            Freshness::Week => "pw",
            Freshness::Month => "pm",
            Freshness::Year => "py",
        };
        p.push(("tf", tf.into()));
    }
    let mut cookies = vec!["useLocation=0".to_owned(), "summarizer=0".to_owned()];
    if let Some(s) = f.safesearch {
        cookies.push(format!("safesearch={}", s.word()));
    }
    if let Some(r) = &f.region {
        cookies.push(format!("country={}", r.to_lowercase()));
    }
    if let Some(l) = &f.language {
        cookies.push(format!("ui_lang={}", l.to_lowercase()));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/search", &p)).header("Cookie", cookies.join("; "))
}

/// Brave's results page: the structural `[data-type=web]` item (ddgs, hd), falling back
/// to sxng's multi-class `div.snippet`; ads and partial results have no absolute href.
const LAYOUT: HtmlLayout = HtmlLayout {
    titles: &[".title, .snippet-title, .sitename-container"],
    snippet: ".snippet-description, .content, .generic-snippet",
    skip: &["search.brave.com"],
    dated_snippets: true,
    no_results: &["#search-elsewhere"],
    no_results_phrases: &["Not many great matches"],
    ..HtmlLayout::new(&["div[data-type=web]", "div.snippet"], &["a[href]"])
};

/// Parse a Brave results page. Prefers the structural `[data-type=web]` item (ddgs, hd)
/// and falls back to sxng's multi-class `div.snippet`.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    extract(body, &LAYOUT)
}

/// brave, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "brave",
    group: "brave",
    filters: Capabilities::named("all"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://search.brave.com",
    browser_like: true,
    confidence: "medium-low: no real page saved; sources disagree and classes are build hashes; tested on a minimal page from the documented shapes",
    routes: Routes::named("web all news"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
