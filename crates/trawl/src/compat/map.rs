//! `POST /v2/map` and `/v1/map`: a site's URLs from trawl-crawl's `map_site` (robots.txt,
//! sitemaps, llms.txt, feeds, the start page's links), without reading the pages.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use trawl_crawl::{MapOptions, SiteMap, UrlSource, map_site};

use super::error::CompatError;
use super::error::json_ok;
use super::request::body;
use super::state::Compat;
use super::types::check_other;

/// The body of `/map` (both versions' spellings).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MapRequest {
    url: String,
    /// Rank the URLs by relevance to this.
    search: Option<String>,
    /// v2: `include` (default), `skip` or `only`.
    sitemap: Option<String>,
    /// v1: leave sitemap URLs out.
    ignore_sitemap: Option<bool>,
    /// v1: only sitemap URLs.
    sitemap_only: Option<bool>,
    /// Firecrawl's default: true.
    include_subdomains: Option<bool>,
    /// Keep only paths under the start URL's; Firecrawl's default: true.
    filter_by_path: Option<bool>,
    limit: Option<usize>,
    /// Milliseconds the map may take.
    timeout: Option<u64>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

pub async fn map_v2(State(compat): State<Compat>, bytes: Bytes) -> Result<Response, CompatError> {
    let map = run(&compat, &bytes).await?;
    let links: Vec<Value> = map
        .urls
        .iter()
        .map(|u| {
            let mut link = json!({"url": u.url});
            if let Some(title) = &u.title {
                link["title"] = json!(title);
            }
            link
        })
        .collect();
    Ok(json_ok(json!({"success": true, "links": links})))
}

/// v1 answers plain URL strings.
pub async fn map_v1(State(compat): State<Compat>, bytes: Bytes) -> Result<Response, CompatError> {
    let map = run(&compat, &bytes).await?;
    let links: Vec<&str> = map.urls.iter().map(|u| u.url.as_str()).collect();
    Ok(json_ok(json!({"success": true, "links": links})))
}

#[derive(Clone, Copy, PartialEq)]
enum SitemapUse {
    Include,
    Skip,
    Only,
}

async fn run(compat: &Compat, bytes: &Bytes) -> Result<SiteMap, CompatError> {
    let request: MapRequest = body(bytes)?;
    // `ignoreQueryParameters` is what trawl always does: URLs are kept once by their
    // canonical form.
    check_other(&request.other, &["ignoreQueryParameters", "location"])?;
    let sitemap = match (
        request.sitemap.as_deref(),
        request.ignore_sitemap,
        request.sitemap_only,
    ) {
        (Some("only"), _, _) | (None, _, Some(true)) => SitemapUse::Only,
        (Some("skip"), _, _) | (None, Some(true), _) => SitemapUse::Skip,
        (Some("include") | None, _, _) => SitemapUse::Include,
        (Some(other), _, _) => {
            return Err(CompatError::bad_request(format!(
                "sitemap: {other:?} is not one of include, skip, only"
            )));
        }
    };
    let mut options = MapOptions::new(request.url);
    options.search = request.search.filter(|s| !s.trim().is_empty());
    options.subdomains = request.include_subdomains.unwrap_or(true);
    options.section_only = request.filter_by_path.unwrap_or(true);
    options.sitemap = sitemap != SitemapUse::Skip;
    if let Some(limit) = request.limit {
        if !(1..=100_000).contains(&limit) {
            return Err(CompatError::bad_request("limit: must be 1-100000"));
        }
        options.limit = limit;
    }
    let agent = compat.agent.clone();
    let work = async move {
        let fetcher = agent.fetcher()?;
        let mut map = map_site(fetcher, &options).await?;
        let from_sitemap = |s: UrlSource| s == UrlSource::Sitemap;
        match sitemap {
            SitemapUse::Include | SitemapUse::Skip => {}
            SitemapUse::Only => map.urls.retain(|u| from_sitemap(u.source)),
        }
        Ok::<_, CompatError>(map)
    };
    compat
        .gated(super::request::within(
            request.timeout,
            || "the map".to_owned(),
            work,
        ))
        .await
}
