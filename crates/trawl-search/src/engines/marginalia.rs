//! Marginalia (`api2.marginalia-search.com/search`), an independent index of the small,
//! non-commercial web. Keyed by `MARGINALIA_API_KEY`: the shared `public` key exists but
//! is throttled so hard that SearXNG refuses to use it, so it is not a default.

use serde::Deserialize;

use super::prelude::*;
use crate::types::SafeSearch;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    let nsfw = if f.safesearch == Some(SafeSearch::Off) {
        "1"
    } else {
        "0"
    };
    let p = [
        ("query", q),
        ("count", "10".to_owned()),
        ("page", f.page().to_string()),
        ("nsfw", nsfw.to_owned()),
    ];
    let mut r = EngineRequest::get(endpoint_with(ctx.base, "/search", &p));
    if let Some(k) = ctx.key {
        r = r.header("API-Key", k);
    }
    r
}

#[derive(Deserialize)]
struct Response {
    results: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(flatten)]
    link: Listing,
    #[serde(default)]
    description: String,
    quality: Option<f64>,
}

/// Parse a search response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    Ok(r.results
        .into_iter()
        .map(|i| {
            RawItem::new(i.link.url, i.link.title, clean_text(&i.description))
                .with_extra(i.quality.map(|q| serde_json::json!({ "quality": q })))
        })
        .collect())
}

/// marginalia, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "marginalia",
    group: "marginalia",
    filters: Capabilities::named("site safesearch paging"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::MARGINALIA_API_KEY,
    base: "https://api2.marginalia-search.com",
    browser_like: false,
    confidence: "medium: no saved response; tested on a minimal response from the ApiSearchResult schema",
    routes: Routes::named("web all"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
