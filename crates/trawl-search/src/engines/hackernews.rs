//! Hacker News via Algolia (`hn.algolia.com/api/v1/search`).

use serde::Deserialize;

use super::prelude::*;

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut p = vec![
        ("query", query.to_owned()),
        ("tags", "story".to_owned()),
        ("hitsPerPage", "10".to_owned()),
        ("page", (f.page() - 1).to_string()),
    ];
    if let Some(fr) = f.freshness {
        let since = super::unix_now().saturating_sub(fr.days() * 86_400);
        p.push(("numericFilters", format!("created_at_i>{since}")));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/api/v1/search", &p))
}

#[derive(Deserialize)]
struct Response {
    hits: Vec<Hit>,
}

#[derive(Deserialize)]
struct Hit {
    #[serde(rename = "objectID")]
    object_id: String,
    title: Option<String>,
    url: Option<String>,
    story_text: Option<String>,
    comment_text: Option<String>,
    author: Option<String>,
    points: Option<i64>,
    num_comments: Option<i64>,
    created_at: Option<String>,
}

/// Parse an Algolia search response. Ask/Show HN stories without a `url` link to the
/// discussion page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    Ok(r.hits
        .into_iter()
        .map(|h| {
            let discussion = format!("https://news.ycombinator.com/item?id={}", h.object_id);
            let url = h
                .url
                .filter(|u| u.starts_with("http"))
                .unwrap_or_else(|| discussion.clone());
            let text = h.story_text.or(h.comment_text).unwrap_or_default();
            RawItem::new(url, h.title.unwrap_or_default(), strip_tags(&text))
                .dated(h.created_at)
                .with_extra(Some(serde_json::json!({
                    "points": h.points, "num_comments": h.num_comments,
                    "author": h.author, "discussion": discussion,
                })))
        })
        .collect())
}

/// hackernews, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "hackernews",
    group: "hackernews",
    filters: Capabilities::named("freshness paging"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://hn.algolia.com",
    browser_like: false,
    confidence: "high: stable API; no saved response, tested on a minimal response built from the documented fields",
    routes: Routes::named("dev all social"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse,
};

#[cfg(test)]
mod tests;
