//! Startpage (`www.startpage.com/sp/search`), HTML, Google-backed.

use super::prelude::*;
use crate::serp::{HtmlLayout, extract};
use crate::types::SafeSearch;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    // A plain GET, as the 2026-08 `sp` scraper does; the POST flow needs an `sc` token
    // from the home page first.
    let lang = match f.language.as_deref() {
        Some("de") => "deutsch",
        Some("fr") => "francais",
        Some("es") => "espanol",
        Some("it") => "italiano",
        Some("nl") => "nederlands",
        _ => "english",
    };
    let mut p = vec![
        ("query", q),
        ("cat", "web".to_owned()),
        ("language", lang.to_owned()),
        ("lui", lang.to_owned()),
    ];
    if f.page() > 1 {
        p.push(("page", f.page().to_string()));
    }
    if let Some(s) = f.safesearch {
        let v = match s {
            SafeSearch::Strict => "heavy",
            SafeSearch::Moderate => "moderate",
            SafeSearch::Off => "none",
        };
        p.push(("qadf", v.into()));
    }
    if let Some(fr) = f.freshness {
        p.push(("with_date", fr.letter().into()));
    }
    if let Some(r) = &f.region {
        let l = f.language.as_deref().unwrap_or("en");
        p.push(("qsr", format!("{}_{}", l.to_lowercase(), r.to_uppercase())));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/sp/search", &p))
        .header("Referer", "https://www.startpage.com/")
}

/// Startpage's results page; absolute links only, Google ad links skipped.
const LAYOUT: HtmlLayout = HtmlLayout {
    titles: &["h2, h3"],
    snippet: "p.description, .w-gl__description",
    skip: &["https://www.google.com"],
    no_results_phrases: &["did not match any", "No results found"],
    ..HtmlLayout::new(
        &["div.result, .w-gl__result"],
        &["a.result-title, a.w-gl__result-title, a.result-link"],
    )
};

/// Parse a Startpage results page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    extract(body, &LAYOUT)
}

/// startpage, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "startpage",
    group: "google",
    filters: Capabilities::named("all"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://www.startpage.com",
    browser_like: true,
    confidence: "medium: no real page saved; tested on a minimal page from the markup 3 HTML sources roughly agree on; captcha-prone",
    routes: Routes::named("all"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
