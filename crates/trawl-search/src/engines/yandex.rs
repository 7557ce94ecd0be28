//! Yandex, keyless, through its site-search widget (`yandex.com/search/site/`), the one
//! Yandex results page served without a login: one of the keyless engines that answered
//! most reliably in other tools' doctor reports. Its own index and group.

use super::prelude::*;
use crate::serp::{HtmlLayout, extract};

/// The widget's public search id (the one SearXNG sends).
const SEARCH_ID: &str = "3131712";

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut p = vec![
        ("text", with_site(query, f)),
        ("web", "1".to_owned()),
        ("frame", "1".to_owned()),
        ("searchid", SEARCH_ID.to_owned()),
        ("tmpl_version", "releases".to_owned()),
        ("p", (f.page() - 1).to_string()),
    ];
    if let Some(l) = &f.language {
        p.push(("lang", l.to_lowercase()));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/search/site/", &p))
}

/// The widget's results page: `li.serp-item`, `a.b-serp-item__title-link`,
/// `.b-serp-item__text`.
const LAYOUT: HtmlLayout = HtmlLayout {
    titles: &["h3.b-serp-item__title", "h3"],
    snippet: ".b-serp-item__text, div[class*=text]",
    skip: &["yandex.ru/clck", "yandex.com/clck"],
    no_results: &[".b-serp-item_type_empty", ".misspell"],
    no_results_phrases: &["ничего не нашлось", "nothing was found"],
    ..HtmlLayout::new(&["li.serp-item"], &["a.b-serp-item__title-link", "h3 a"])
};

/// Parse a site-search widget page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    extract(body, &LAYOUT)
}

/// yandex, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "yandex",
    group: "yandex",
    filters: Capabilities::named("site language paging"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://yandex.com",
    browser_like: true,
    confidence: "low-medium: no saved page found in public code or test data; selectors from SearXNG and ddgs; tested on a page built from them",
    routes: Routes::named("all"),
    fixtures: "not tested on a real saved response: built from the widget markup SearXNG and ddgs parse",
    request,
    parse,
};

#[cfg(test)]
mod tests;
