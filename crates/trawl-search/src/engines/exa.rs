//! Exa (`POST api.exa.ai/search`), keyed by `EXA_API_KEY`.

use serde::Deserialize;

use super::prelude::*;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut body = serde_json::json!({
        "query": query,
        "type": "auto",
        "numResults": 10,
        "contents": { "highlights": { "numSentences": 2 } },
    });
    if let Some(site) = &f.site {
        body["includeDomains"] = serde_json::json!([site]);
    }
    if let Some(fr) = f.freshness {
        let d = super::yyyymmdd_days_ago(fr.days());
        body["startPublishedDate"] =
            format!("{}-{}-{}T00:00:00.000Z", &d[..4], &d[4..6], &d[6..]).into();
    }
    if let Some(r) = &f.region {
        body["userLocation"] = r.to_uppercase().into();
    }
    let mut r = EngineRequest::post(endpoint(ctx.base, "/search"), Body::Json(body));
    if let Some(k) = ctx.key {
        r = r.header("x-api-key", k);
    }
    r
}

#[derive(Deserialize)]
struct Response {
    results: Option<Vec<Item>>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(flatten)]
    link: Listing,
    #[serde(rename = "publishedDate")]
    published_date: Option<String>,
    author: Option<String>,
    text: Option<String>,
    #[serde(default)]
    highlights: Vec<String>,
    summary: Option<String>,
}

/// Parse a `/search` response; the snippet is the summary, else highlights, else text.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error {
        return Err(ParseError::Malformed(e));
    }
    let items = required(r.results, "results")?;
    Ok(items
        .into_iter()
        .map(|i| {
            let snippet = i
                .summary
                .or_else(|| (!i.highlights.is_empty()).then(|| i.highlights.join(" … ")))
                .or_else(|| i.text.map(|t| t.chars().take(400).collect()))
                .unwrap_or_default();
            RawItem::new(i.link.url, i.link.title, clean_text(&snippet))
                .dated(i.published_date)
                .with_extra(i.author.map(|a| serde_json::json!({ "author": a })))
        })
        .collect())
}

/// exa, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "exa",
    group: "exa",
    filters: Capabilities::named("site freshness region"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::EXA_API_KEY,
    base: "https://api.exa.ai",
    browser_like: false,
    confidence: "medium-high: no saved response; tested on a minimal response built from the 2026-07 SDK's fields",
    routes: Routes::named("web all fast news"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
