//! Firecrawl v2 search (`POST api.firecrawl.dev/v2/search`), keyed by `FIRECRAWL_API_KEY`.

use serde::Deserialize;

use super::prelude::*;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    // No scrapeOptions: a search here wants the result list, not every page's content
    // (which costs credits and time).
    let mut body = serde_json::json!({ "query": q, "limit": 10 });
    if let Some(fr) = f.freshness {
        body["tbs"] = format!("qdr:{}", fr.letter()).into();
    }
    if let Some(r) = &f.region {
        body["country"] = r.to_uppercase().into();
    }
    let mut r = EngineRequest::post(endpoint(ctx.base, "/v2/search"), Body::Json(body));
    if let Some(k) = ctx.key {
        r = r.header("Authorization", format!("Bearer {k}"));
    }
    r
}

#[derive(Deserialize)]
struct Response {
    success: Option<bool>,
    data: Option<serde_json::Value>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(flatten)]
    link: Listing,
    #[serde(default)]
    description: Option<String>,
}

/// The words of Firecrawl's `error` field.
const ERRORS: ErrorWords = ErrorWords {
    rate: &["rate limit"],
    quota: &["credits"],
    auth: &["unauthorized", "api key"],
};

/// Parse a v2 `/search` response (`data.web[]`; v1's flat `data[]` is accepted too).
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if r.success == Some(false) {
        let msg = r.error.unwrap_or_else(|| "success: false".into());
        return Err(ParseError::from_message(msg, &ERRORS));
    }
    let data = required(r.data, "data")?;
    let list = match &data {
        serde_json::Value::Array(_) => data.clone(),
        serde_json::Value::Object(o) => match o.get("web") {
            Some(w) => w.clone(),
            None if o.contains_key("markdown") => {
                return Err(ParseError::Malformed(
                    "a scrape response, not a search response".into(),
                ));
            }
            None => serde_json::Value::Array(Vec::new()),
        },
        _ => return Err(ParseError::Malformed("unexpected `data`".into())),
    };
    let items: Vec<Item> =
        serde_json::from_value(list).map_err(|e| ParseError::Malformed(e.to_string()))?;
    Ok(items
        .into_iter()
        .map(|i| {
            let snippet = clean_text(&i.description.unwrap_or_default());
            RawItem::new(i.link.url, i.link.title, snippet)
        })
        .collect())
}

/// firecrawl, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "firecrawl",
    group: "firecrawl",
    filters: Capabilities::named("site freshness region"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::FIRECRAWL_API_KEY,
    base: "https://api.firecrawl.dev",
    browser_like: false,
    confidence: "high: real v2 search and scrape responses 2025-10",
    routes: Routes::named("web all"),
    fixtures: "tested on 2 real saved responses (captured 2025-10-29)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
