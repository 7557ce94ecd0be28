//! Reddit search JSON (`www.reddit.com/search.json`). Not in the default routes (public
//! access is often 403/429 from datacenter IPs); available by name and in `all`.

use serde::Deserialize;

use crate::engine::{
    Capabilities, Engine, EngineRequest, ParseError, RawItem, RequestContext, endpoint_with,
    json_body,
};
use crate::types::{Freshness, SafeSearch, SearchRequest};

/// The Reddit engine.
#[derive(Debug, Default)]
pub struct Reddit;

impl Engine for Reddit {
    fn name(&self) -> &'static str {
        "reddit"
    }
    fn group(&self) -> &'static str {
        "reddit"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: false,
            freshness: true,
            language: false,
            region: false,
            safesearch: true,
            paging: false,
        }
    }
    fn default_base(&self) -> &'static str {
        "https://www.reddit.com"
    }
    fn confidence(&self) -> &'static str {
        "high for shape (2016 real listing), medium for access (blocking)"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
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
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
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
            RawItem {
                url,
                title: p.title,
                snippet: crate::html::clean_text(&p.selftext.chars().take(300).collect::<String>()),
                published: p.created_utc.map(|t| (t as i64).to_string()),
                extra: Some(serde_json::json!({
                    "subreddit": p.subreddit, "score": p.score,
                    "num_comments": p.num_comments, "discussion": discussion,
                })),
                ..RawItem::default()
            }
        })
        .filter(|i| !i.url.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2016-07-12 real listing (oauth host, same shape as the public search.json).
    #[test]
    fn listing_2016() {
        let body = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/fixtures/serp/reddit/r-all-search-praw-oauth-search-2016.json"
        ))
        .unwrap();
        let items = parse(&body).unwrap();
        assert_eq!(items.len(), 6);
        assert!(
            items
                .iter()
                .all(|i| i.url.starts_with("https://") && !i.title.is_empty())
        );
    }
}
