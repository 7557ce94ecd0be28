//! Reddit search JSON (`www.reddit.com/search.json`). Not in the default routes (public
//! access is often 403/429 from datacenter IPs); available by name and in `all`.

use serde::Deserialize;

use super::prelude::*;
use crate::types::{Freshness, SafeSearch};

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut p = vec![
        ("q", query.to_owned()),
        ("sort", "relevance".to_owned()),
        ("limit", "10".to_owned()),
        ("type", "link".to_owned()),
        ("raw_json", "1".to_owned()),
    ];
    if let Some(fr) = f.freshness {
        let t = match fr {
            Freshness::Day => "day",
            Freshness::Week => "week",
            Freshness::Month => "month",
            Freshness::Year => "year",
        };
        p.push(("t", t.into()));
    }
    if f.safesearch == Some(SafeSearch::Off) {
        p.push(("include_over_18", "on".into()));
    }
    EngineRequest::get(endpoint_with(ctx.base, "/search.json", &p))
}

#[derive(Deserialize)]
struct Listing {
    data: ListingData,
}

#[derive(Deserialize)]
struct ListingData {
    children: Vec<Child>,
}

#[derive(Deserialize)]
struct Child {
    data: Post,
}

#[derive(Deserialize)]
struct Post {
    title: String,
    url: Option<String>,
    permalink: Option<String>,
    #[serde(default)]
    selftext: String,
    subreddit: Option<String>,
    score: Option<i64>,
    num_comments: Option<i64>,
    created_utc: Option<f64>,
    #[serde(default)]
    is_self: bool,
}

/// Parse a `Listing` of posts. Self posts link to their discussion.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let l: Listing = json_body(body)?;
    Ok(l.data
        .children
        .into_iter()
        .map(|c| {
            let p = c.data;
            let discussion = p
                .permalink
                .as_deref()
                .map(|pl| format!("https://www.reddit.com{pl}"));
            let url = match (&p.url, p.is_self) {
                (Some(u), false) if u.starts_with("http") => u.clone(),
                _ => discussion.clone().unwrap_or_default(),
            };
            let snippet = clean_text(&p.selftext.chars().take(300).collect::<String>());
            RawItem::new(url, p.title, snippet)
                .dated(p.created_utc.map(|t| (t as i64).to_string()))
                .with_extra(Some(serde_json::json!({
                    "subreddit": p.subreddit, "score": p.score,
                    "num_comments": p.num_comments, "discussion": discussion,
                })))
        })
        .filter(|i| !i.url.is_empty())
        .collect())
}

/// reddit, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "reddit",
    group: "reddit",
    filters: Capabilities::named("freshness safesearch"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://www.reddit.com",
    browser_like: false,
    confidence: "high for shape (2016 real listing), medium for access (blocking)",
    routes: Routes::named("all social"),
    fixtures: "tested on 1 real saved response (captured 2016-07-12)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
