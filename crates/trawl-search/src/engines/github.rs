//! GitHub repository search (REST `GET /search/repositories`). A token is optional
//! (`GITHUB_TOKEN`); it raises the search bucket from 10 to 30 requests a minute.

use serde::{Deserialize, Serialize};

use super::prelude::*;

/// The GitHub engine.
#[derive(Debug, Default)]
pub struct GitHub;

/// Typed repository fields (also put in `RawItem::extra`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Repo {
    /// `owner/name`.
    pub full_name: String,
    /// Stars.
    pub stars: u64,
    /// Forks.
    pub forks: u64,
    /// Main language.
    pub language: Option<String>,
    /// Topics (absent in old responses).
    pub topics: Vec<String>,
    /// Last update.
    pub updated: Option<String>,
    /// Last push.
    pub pushed: Option<String>,
    /// SPDX licence id.
    pub license: Option<String>,
    /// Archived repositories are read-only.
    pub archived: bool,
}

/// GitHub's rate-limit headers, read from a response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RateLimit {
    /// `X-RateLimit-Limit`.
    pub limit: Option<u64>,
    /// `X-RateLimit-Remaining`.
    pub remaining: Option<u64>,
    /// `X-RateLimit-Reset` (epoch seconds).
    pub reset: Option<u64>,
    /// `X-RateLimit-Resource` (`search`).
    pub resource: Option<String>,
}

/// Read the rate-limit headers (names compared case-insensitively).
pub fn rate_limit(headers: &[(String, String)]) -> Option<RateLimit> {
    let get = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.trim().to_owned())
    };
    let rl = RateLimit {
        limit: get("x-ratelimit-limit").and_then(|v| v.parse().ok()),
        remaining: get("x-ratelimit-remaining").and_then(|v| v.parse().ok()),
        reset: get("x-ratelimit-reset").and_then(|v| v.parse().ok()),
        resource: get("x-ratelimit-resource"),
    };
    (rl.limit.is_some() || rl.remaining.is_some()).then_some(rl)
}

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut q = query.to_owned();
    if let Some(fr) = f.freshness {
        let d = super::yyyymmdd_days_ago(fr.days());
        q.push_str(&format!(" pushed:>{}-{}-{}", &d[..4], &d[4..6], &d[6..]));
    }
    let p = [
        ("q", q),
        ("per_page", "10".to_owned()),
        ("page", f.page().to_string()),
    ];
    let mut r = EngineRequest::get(endpoint_with(ctx.base, "/search/repositories", &p))
        .header("Accept", "application/vnd.github+json")
        .header("X-GitHub-Api-Version", "2022-11-28");
    if let Some(k) = ctx.key {
        r = r.header("Authorization", format!("Bearer {k}"));
    }
    r
}

impl Engine for GitHub {
    fn spec(&self) -> &'static EngineSpec {
        &SPEC
    }
    fn note_from_headers(&self, headers: &[(String, String)]) -> Option<String> {
        let rl = rate_limit(headers)?;
        Some(format!(
            "rate limit {}/{} left{}",
            rl.remaining.map_or("?".into(), |v| v.to_string()),
            rl.limit.map_or("?".into(), |v| v.to_string()),
            rl.reset
                .map_or(String::new(), |r| format!(", resets at {r}"))
        ))
    }
}

#[derive(Deserialize)]
struct Response {
    items: Option<Vec<Item>>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    html_url: String,
    // Repositories.
    full_name: Option<String>,
    description: Option<String>,
    stargazers_count: Option<u64>,
    forks_count: Option<u64>,
    language: Option<String>,
    #[serde(default)]
    topics: Vec<String>,
    updated_at: Option<String>,
    pushed_at: Option<String>,
    license: Option<License>,
    #[serde(default)]
    archived: bool,
    // Issues (the same search API, other endpoint).
    title: Option<String>,
    body: Option<String>,
    created_at: Option<String>,
}

#[derive(Deserialize)]
struct License {
    spdx_id: Option<String>,
}

/// Parse a repositories (or issues) search response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    let Some(items) = r.items else {
        let msg = r.message.unwrap_or_else(|| "no `items`".into());
        return Err(if msg.to_lowercase().contains("rate limit") {
            ParseError::RateLimited(msg)
        } else {
            ParseError::Malformed(msg)
        });
    };
    Ok(items
        .into_iter()
        .map(|it| match it.full_name {
            Some(full_name) => {
                let repo = Repo {
                    full_name: full_name.clone(),
                    stars: it.stargazers_count.unwrap_or(0),
                    forks: it.forks_count.unwrap_or(0),
                    language: it.language,
                    topics: it.topics,
                    updated: it.updated_at.clone(),
                    pushed: it.pushed_at,
                    license: it.license.and_then(|l| l.spdx_id),
                    archived: it.archived,
                };
                RawItem::new(it.html_url, full_name, it.description.unwrap_or_default())
                    .dated(it.updated_at)
                    .with_extra(serde_json::to_value(&repo).ok())
            }
            None => {
                let body: String = it.body.unwrap_or_default().chars().take(300).collect();
                RawItem::new(it.html_url, it.title.unwrap_or_default(), clean_text(&body))
                    .dated(it.created_at)
            }
        })
        .collect())
}

/// github, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "github",
    group: "github",
    filters: Capabilities::named("freshness paging"),
    key: KeyNeed::Optional,
    key_env: trawl_core::vars::GITHUB_TOKEN,
    base: "https://api.github.com",
    browser_like: false,
    confidence: "high: stable API; real responses from 2014 (repositories) and 2022 (issues, with rate-limit headers)",
    routes: Routes::named("dev all"),
    fixtures: "tested on 2 real saved responses (captured 2014-03-03 to 2022-07-19)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
