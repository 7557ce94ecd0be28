//! Baidu AI Search (Qianfan/AppBuilder `POST qianfan.baidubce.com/v2/ai_search/web_search`),
//! keyed by `BAIDU_API_KEY` (an AppBuilder key, sent as `Authorization: Bearer`): Chinese web
//! search whose results carry cited excerpts. The answer-writing endpoint
//! (`ai_search/chat/completions`) is not used: trawl fuses results, it does not ask for
//! summaries.

use serde::Deserialize;

use super::prelude::*;
use crate::types::Freshness;

/// The request for one query. Baidu's recency filter knows week, month, semiyear and year:
/// `--freshness day` asks for the week, the closest it can do.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut body = serde_json::json!({
        "messages": [{ "role": "user", "content": query }],
        "search_source": "baidu_search_v2",
        "resource_type_filter": [{ "type": "web", "top_k": 10 }],
    });
    if let Some(site) = &f.site {
        body["search_filter"] = serde_json::json!({ "match": { "site": [site] } });
    }
    if let Some(fr) = f.freshness {
        body["search_recency_filter"] = match fr {
            Freshness::Day | Freshness::Week => "week",
            Freshness::Month => "month",
            Freshness::Year => "year",
        }
        .into();
    }
    let r = EngineRequest::post(
        endpoint(ctx.base, "/v2/ai_search/web_search"),
        Body::Json(body),
    );
    match ctx.key {
        Some(k) => r.header("Authorization", format!("Bearer {k}")),
        None => r,
    }
}

#[derive(Deserialize)]
struct Response {
    references: Option<Vec<Reference>>,
    code: Option<serde_json::Value>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct Reference {
    #[serde(flatten)]
    link: Listing,
    #[serde(default, deserialize_with = "crate::engine::null_as_empty")]
    content: String,
    date: Option<String>,
    website: Option<String>,
}

/// The words of Qianfan's error messages.
const ERRORS: ErrorWords = ErrorWords {
    rate: &["qps", "rate limit", "too many"],
    quota: &["quota", "balance", "arrears", "exhausted"],
    auth: &[
        "api key",
        "apikey",
        "unauthorized",
        "authenticat",
        "permission",
    ],
};

/// Parse a `web_search` answer: `{request_id, references: [{id, url, title, date, content,
/// website, web_anchor, type, …}]}`; a failure is `{request_id, code, message}`.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let (Some(code), None) = (&r.code, &r.references) {
        let msg = format!("{code}: {}", r.message.unwrap_or_default());
        return Err(ParseError::from_message(msg, &ERRORS));
    }
    Ok(required(r.references, "references")?
        .into_iter()
        .filter(|i| i.link.url.starts_with("http"))
        .map(|i| {
            let snippet: String = clean_text(&i.content).chars().take(600).collect();
            let extra = i.website.map(|w| serde_json::json!({ "website": w }));
            RawItem::new(i.link.url, clean_text(&i.link.title), snippet)
                .dated(i.date)
                .with_extra(extra)
        })
        .collect())
}

/// baidu, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "baidu",
    group: "baidu",
    filters: Capabilities::named("site freshness"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::BAIDU_API_KEY,
    base: "https://qianfan.baidubce.com",
    browser_like: false,
    confidence: "low-medium: no saved response found in public code or test data (only hand-made mocks); request and response fields from the Qianfan AI Search docs and SDK wrappers (2025); tested on a response built from them",
    routes: Routes::named("web all fast news"),
    fixtures: "not tested on a real saved response: built from the documented response fields (references[].url, title, date, content, website)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
