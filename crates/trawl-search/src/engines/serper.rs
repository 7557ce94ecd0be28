//! Serper (`POST google.serper.dev/search`), Google results, keyed by `SERPER_API_KEY`.

use serde::Deserialize;

use super::prelude::*;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
    let mut body = serde_json::json!({ "q": q, "num": 10 });
    if f.page() > 1 {
        body["page"] = f.page().into();
    }
    if let Some(fr) = f.freshness {
        body["tbs"] = format!("qdr:{}", fr.letter()).into();
    }
    if let Some(r) = &f.region {
        body["gl"] = r.to_lowercase().into();
    }
    if let Some(l) = &f.language {
        body["hl"] = l.to_lowercase().into();
    }
    let mut r = EngineRequest::post(endpoint(ctx.base, "/search"), Body::Json(body));
    if let Some(k) = ctx.key {
        r = r.header("X-API-KEY", k);
    }
    r
}

#[derive(Deserialize)]
struct Response {
    organic: Option<Vec<Organic>>,
    message: Option<String>,
}

/// One Google organic result as the Google resellers give it (SerpAPI's is the same).
#[derive(Deserialize)]
pub(crate) struct Organic {
    #[serde(flatten)]
    link: Listing,
    #[serde(default)]
    snippet: String,
    date: Option<String>,
}

impl From<Organic> for RawItem {
    fn from(o: Organic) -> Self {
        RawItem::new(o.link.url, o.link.title, o.snippet).dated(o.date)
    }
}

/// The words of Serper's error messages.
const ERRORS: ErrorWords = ErrorWords {
    rate: &[],
    quota: &["credits", "quota"],
    auth: &["api key", "unauthorized"],
};

/// Parse a `/search` response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    let Some(items) = r.organic else {
        let msg = r.message.unwrap_or_else(|| "no `organic`".into());
        return Err(ParseError::from_message(msg, &ERRORS));
    };
    Ok(items.into_iter().map(RawItem::from).collect())
}

/// serper, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "serper",
    group: "google",
    filters: Capabilities::named("site freshness language region paging"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::SERPER_API_KEY,
    base: "https://google.serper.dev",
    browser_like: false,
    confidence: "medium-high: one ≈2022 sample (Serper's own docs); simple stable schema",
    routes: Routes::named("web all fast news"),
    fixtures: "tested on 1 real saved response (captured 2022)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
