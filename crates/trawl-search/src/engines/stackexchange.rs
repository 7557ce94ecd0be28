//! StackExchange 2.3 advanced search (Stack Overflow by default).

use serde::Deserialize;

use super::prelude::*;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut p = vec![
        ("q", query.to_owned()),
        ("site", "stackoverflow".to_owned()),
        ("sort", "relevance".to_owned()),
        ("order", "desc".to_owned()),
        ("pagesize", "10".to_owned()),
        ("page", f.page().to_string()),
    ];
    if let Some(fr) = f.freshness {
        let since = super::unix_now().saturating_sub(fr.days() * 86_400);
        p.push(("fromdate", since.to_string()));
    }
    if let Some(k) = ctx.key {
        p.push(("key", k.to_owned()));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/2.3/search/advanced", &p))
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    items: Vec<Question>,
    error_id: Option<i64>,
    error_name: Option<String>,
    error_message: Option<String>,
    quota_remaining: Option<i64>,
}

#[derive(Deserialize)]
struct Question {
    question_id: i64,
    title: String,
    link: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    is_answered: Option<bool>,
    answer_count: Option<i64>,
    score: Option<i64>,
    creation_date: Option<i64>,
}

/// Parse an advanced-search response (or its error wrapper).
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(id) = r.error_id {
        let name = r.error_name.unwrap_or_default();
        let msg = format!("{name} ({id}): {}", r.error_message.unwrap_or_default());
        return Err(match name.as_str() {
            "throttle_violation" => ParseError::RateLimited(msg),
            "access_denied" | "key" | "access_token" => ParseError::Auth(msg),
            _ => ParseError::Malformed(msg),
        });
    }
    if r.items.is_empty() && r.quota_remaining == Some(0) {
        return Err(ParseError::Quota("quota_remaining is 0".into()));
    }
    Ok(r.items
        .into_iter()
        .map(|q| {
            let url = q
                .link
                .unwrap_or_else(|| format!("https://stackoverflow.com/q/{}", q.question_id));
            let answered = if q.is_answered == Some(true) {
                ", answered"
            } else {
                ""
            };
            let (score, answers) = (q.score.unwrap_or(0), q.answer_count.unwrap_or(0));
            let tags = q.tags.join(", ");
            let snippet = format!("[{tags}] score {score}, {answers} answers{answered}");
            RawItem::new(url, strip_tags(&q.title), snippet)
                .dated(q.creation_date.map(|d| d.to_string()))
                .with_extra(Some(serde_json::json!({
                    "tags": q.tags, "score": q.score, "answer_count": q.answer_count,
                    "is_answered": q.is_answered,
                })))
        })
        .collect())
}

/// stackexchange, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "stackexchange",
    group: "stackexchange",
    filters: Capabilities::named("freshness paging"),
    key: KeyNeed::Optional,
    key_env: trawl_core::vars::STACKEXCHANGE_KEY,
    base: "https://api.stackexchange.com",
    browser_like: false,
    confidence: "high: stable API; no saved response, tested on a minimal response built from the documented fields",
    routes: Routes::named("dev all"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
