//! Jina search (`GET s.jina.ai/?q=`), keyed by `JINA_API_KEY` (search needs a key now).

use serde::Deserialize;

use super::prelude::*;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let mut r = EngineRequest::get(endpoint_with(ctx.base, "/", &[("q", query.to_owned())]))
        .header("Accept", "application/json")
        // Only the result list is wanted here, not every page's full content.
        .header("X-Respond-With", "no-content");
    if let Some(site) = &req.filters.site {
        r = r.header("X-Site", site.clone());
    }
    if let Some(k) = ctx.key {
        r = r.header("Authorization", format!("Bearer {k}"));
    }
    r
}

#[derive(Deserialize)]
struct Response {
    code: Option<i64>,
    data: Option<Vec<Item>>,
    message: Option<String>,
    readable_message: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(flatten)]
    link: Listing,
    #[serde(default)]
    description: String,
    #[serde(rename = "publishedTime")]
    published_time: Option<String>,
}

/// Parse an `Accept: application/json` search response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    let Some(items) = r.data else {
        let msg = r
            .readable_message
            .or(r.message)
            .unwrap_or_else(|| "no `data`".into());
        return Err(match r.code {
            Some(401) => ParseError::Auth(msg),
            Some(402) => ParseError::Quota(msg),
            Some(429) => ParseError::RateLimited(msg),
            _ => ParseError::Malformed(msg),
        });
    };
    Ok(items
        .into_iter()
        .map(|i| {
            RawItem::new(i.link.url, i.link.title, clean_text(&i.description))
                .dated(i.published_time)
        })
        .collect())
}

/// jina, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "jina",
    group: "jina",
    filters: Capabilities::named("site"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::JINA_API_KEY,
    base: "https://s.jina.ai",
    browser_like: false,
    confidence: "medium: no saved response; tested on a minimal response built from the docs; limits change over time",
    routes: Routes::named("web all"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
