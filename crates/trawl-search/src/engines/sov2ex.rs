//! SOV2EX (`GET www.sov2ex.com/api/search`), a keyless full-text index of V2EX topics.
//! Hits carry the topic id; the result is the topic on V2EX itself
//! (`https://www.v2ex.com/t/<id>`), not the index's page.

use serde::Deserialize;

use super::prelude::*;

/// Where V2EX topics live; a hit's URL is this plus its id.
const TOPIC_BASE: &str = "https://www.v2ex.com/t/";

/// The request for one query: ten hits from `from`, newer than `gte` (epoch seconds)
/// when `--freshness` is given.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut p = vec![
        ("q", query.to_owned()),
        ("size", "10".to_owned()),
        ("from", ((f.page() - 1) * 10).to_string()),
        ("sort", "sumup".to_owned()),
    ];
    if let Some(fr) = f.freshness {
        let since = super::unix_now().saturating_sub(fr.days() * 86_400);
        p.push(("gte", since.to_string()));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/api/search", &p))
}

#[derive(Deserialize)]
struct Response {
    hits: Option<Vec<Hit>>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct Hit {
    #[serde(rename = "_source")]
    source: Topic,
}

#[derive(Deserialize)]
struct Topic {
    id: serde_json::Value,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: String,
    created: Option<String>,
    node: Option<serde_json::Value>,
    replies: Option<u64>,
    member: Option<String>,
}

/// Parse an `/api/search` answer: `{took, timed_out, total, hits: [{_source: {…}}]}`.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    let hits = r.hits.ok_or_else(|| {
        ParseError::Malformed(r.message.unwrap_or_else(|| "no `hits`".to_owned()))
    })?;
    Ok(hits
        .into_iter()
        .filter_map(|h| {
            let t = h.source;
            // Ids come as numbers or strings; anything else is not a topic.
            let id = match &t.id {
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::String(s) if s.chars().all(|c| c.is_ascii_digit()) => s.clone(),
                _ => return None,
            };
            let snippet: String = clean_text(&t.content).chars().take(300).collect();
            let url = format!("{TOPIC_BASE}{id}");
            let extra = serde_json::json!({
                "node": t.node, "replies": t.replies, "member": t.member,
            });
            Some(
                RawItem::new(url, clean_text(&t.title), snippet)
                    .dated(t.created)
                    .with_extra(Some(extra)),
            )
        })
        .collect())
}

/// sov2ex, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "sov2ex",
    group: "sov2ex",
    filters: Capabilities::named("freshness paging"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://www.sov2ex.com",
    browser_like: false,
    confidence: "medium: no saved response found in public code or test data; tested on a response built from the documented Elasticsearch-style shape (`hits[]._source` with id, title, content)",
    routes: Routes::named("social all"),
    fixtures: "not tested on a real saved response: built from the SOV2EX API's documented fields and a V2EX client's response types",
    request,
    parse,
};

#[cfg(test)]
mod tests;
