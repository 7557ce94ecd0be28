//! `POST /v2/crawl` (and v1), `GET /…/crawl/{id}` paged with `next`, `DELETE`, `/errors`
//! and `/active`: trawl-crawl's crawler, its state kept in the store (so a status poll
//! reads what any replica wrote), its pages served from the store; an opt-in webhook
//! hears of each page.

use std::sync::PoisonError;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use trawl_agent::tools::WebFetchArgs;
use trawl_crawl::{CrawlOptions, CrawlUrl, UrlState};

use super::batch::{PAGE, iso, skip_of};
use super::error::CompatError;
use super::error::json_ok;
use super::request::body;
use super::scrape::from_page;
use super::state::Compat;
use super::types::{FcDocument, Formats, ScrapeOptions, check_other};
use super::webhook::Webhook;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CrawlRequest {
    url: String,
    limit: Option<usize>,
    /// v2.
    max_discovery_depth: Option<u32>,
    /// v1.
    max_depth: Option<u32>,
    include_paths: Option<Vec<String>>,
    exclude_paths: Option<Vec<String>>,
    allow_subdomains: Option<bool>,
    /// v2: siblings and parents of the start URL too (default false: under its path).
    crawl_entire_domain: Option<bool>,
    /// v1's name for it.
    allow_backward_links: Option<bool>,
    /// v2: `include` (default) or `skip`.
    sitemap: Option<String>,
    /// v1.
    ignore_sitemap: Option<bool>,
    /// Seconds between requests.
    delay: Option<f64>,
    max_concurrency: Option<usize>,
    webhook: Option<Value>,
    scrape_options: Option<ScrapeOptions>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

pub async fn start_v2(
    State(compat): State<Compat>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    start(compat, headers, bytes, "v2").await
}

pub async fn start_v1(
    State(compat): State<Compat>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    start(compat, headers, bytes, "v1").await
}

async fn start(
    compat: Compat,
    headers: HeaderMap,
    bytes: Bytes,
    version: &str,
) -> Result<Response, CompatError> {
    let request: CrawlRequest = body(&bytes)?;
    // What trawl's crawler does anyway: one row per canonical URL, no external links.
    check_other(
        &request.other,
        &[
            "ignoreQueryParameters",
            "deduplicateSimilarURLs",
            "allowExternalLinks",
        ],
    )?;
    if request
        .other
        .get("allowExternalLinks")
        .is_some_and(|v| v == true)
    {
        return Err(CompatError::unsupported(
            "allowExternalLinks: true (a crawl stays on its site)",
        ));
    }
    let formats = match &request.scrape_options {
        Some(o) => {
            let formats = o.check(&[])?;
            if formats.need_raw()
                || formats.change_tracking.is_some()
                || formats.screenshot.is_some()
                || o.actions.as_ref().is_some_and(|a| !a.is_empty())
                || o.reshapes()
                || o.wait_for.is_some_and(|w| w > 0)
            {
                return Err(CompatError::unsupported(
                    "rawHtml, links, changeTracking, screenshot, actions, onlyMainContent: false, includeTags, \
                     excludeTags and waitFor in a crawl's scrapeOptions (a crawl keeps each page's Markdown; scrape a page for more)",
                ));
            }
            formats
        }
        None => Formats {
            markdown: true,
            ..Formats::default()
        },
    };
    // The crawl service bounds it as it bounds `web_crawl`: pages per crawl, crawls at once,
    // the per-host pace shared by every crawl of this server.
    let service = compat.agent.crawls()?.clone();
    let mut options = CrawlOptions::new(request.url);
    options.limit = request
        .limit
        .unwrap_or(trawl_crawl::DEFAULT_LIMIT.min(service.max_pages()));
    if let Some(depth) = request.max_discovery_depth.or(request.max_depth) {
        options.max_depth = depth;
    }
    options.include = request.include_paths.unwrap_or_default();
    options.exclude = request.exclude_paths.unwrap_or_default();
    options.subdomains = request.allow_subdomains.unwrap_or(false);
    // Firecrawl keeps a crawl under its start URL's path unless told otherwise.
    if !request
        .crawl_entire_domain
        .or(request.allow_backward_links)
        .unwrap_or(false)
    {
        options = options.within_section();
    }
    options.sitemap = match (request.sitemap.as_deref(), request.ignore_sitemap) {
        (Some("skip"), _) | (None, Some(true)) => false,
        (Some("include") | None, _) => true,
        (Some(other), _) => {
            return Err(CompatError::bad_request(format!(
                "sitemap: {other:?} is not one of include, skip"
            )));
        }
    };
    if let Some(delay) = request.delay {
        if !(0.0..=3600.0).contains(&delay) {
            return Err(CompatError::bad_request("delay: 0-3600 seconds"));
        }
        options.delay_ms = (delay * 1000.0) as u64;
    }
    if let Some(n) = request.max_concurrency {
        options.concurrency = n;
    }
    let fetcher = compat.agent.fetcher()?.clone();
    let webhook = Webhook::from_request(
        request.webhook.as_ref(),
        "crawl",
        fetcher.guard(),
        fetcher.proxy(),
    )
    .await?;
    // The crawl runs on in the background; its state is in the store.
    let id = service.start_options(options, None).await?.id;
    compat
        .crawl_formats
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id.clone(), formats);
    if let Some(hook) = webhook {
        tokio::spawn(deliver(compat.clone(), id.clone(), formats, hook));
    }
    Ok(json_ok(json!({
        "success": true,
        "id": id,
        "url": format!("{}/{version}/crawl/{id}", compat.base_url(&headers)),
    })))
}

/// trawl's crawl status as Firecrawl's; a running crawl asked to stop is `cancelled` at
/// once, as Firecrawl answers right after a `DELETE`.
pub(super) fn firecrawl_status(status: &str, cancel_requested: bool) -> &'static str {
    match status {
        "running" if cancel_requested => "cancelled",
        "running" => "scraping",
        "done" => "completed",
        "cancelled" => "cancelled",
        _ => "failed",
    }
}

/// `GET /…/crawl/{id}`: the status, or (asked to upgrade) its WebSocket stream.
pub async fn status_or_watch(
    State(compat): State<Compat>,
    Path(id): Path<String>,
    request: axum::extract::Request,
) -> Result<Response, CompatError> {
    if super::watch::is_upgrade(request.headers()) {
        let job = if compat.batches.get(&id).is_ok() {
            super::watch::Job::Batch
        } else {
            super::watch::Job::Crawl
        };
        return super::watch::upgrade(compat, id, job, request).await;
    }
    let (headers, uri) = (request.headers().clone(), request.uri().clone());
    status(compat, id, headers, uri).await
}

async fn status(
    compat: Compat,
    id: String,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, CompatError> {
    let store = compat.agent.store().clone();
    let status = match trawl_crawl::status(&store, &id).await {
        Ok(status) => status,
        // Firecrawl serves a batch's status on the crawl route too (the JS SDK's v1
        // `batchScrapeUrls` polls it there).
        Err(_) if compat.batches.get(&id).is_ok() => {
            return super::batch::status(compat, id, headers, uri).await;
        }
        Err(e) => return Err(e.into()),
    };
    let count = |state: &str| status.urls.get(state).copied().unwrap_or(0) as usize;
    // Pages that answered an HTTP error (404, 500 …) are documents too, as Firecrawl
    // answers them: counted with the stored pages.
    let error_pages = trawl_crawl::pages(&store, &id, &[UrlState::Failed], 0, 100_000)
        .await?
        .iter()
        .filter(|row| row.status.is_some())
        .count();
    let done = count("done") + error_pages;
    // `total` is what the job will return (Firecrawl's SDKs show "completed of total"):
    // the pages stored once it has ended; while it runs, the URLs it may still store, never
    // more than its limit.
    let seen = done + (count("failed") - error_pages) + count("queued") + count("fetching");
    let limit = status.summary["progress"]["limit"]
        .as_u64()
        .map(|l| l as usize);
    let total = if status.status == "running" {
        limit.map_or(seen, |limit| seen.min(limit))
    } else {
        done
    };
    let skip = skip_of(&uri);
    let rows =
        trawl_crawl::pages(&store, &id, &[UrlState::Done, UrlState::Failed], skip, PAGE).await?;
    let listed = count("done") + count("failed");
    let formats = compat
        .crawl_formats
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
        .copied()
        .unwrap_or(Formats {
            markdown: true,
            ..Formats::default()
        });
    let data = documents(&compat, &rows, formats).await;
    let next = (skip + rows.len() < listed).then(|| {
        format!(
            "{}{}?skip={}",
            compat.base_url(&headers),
            uri.path(),
            skip + rows.len()
        )
    });
    let created = std::time::UNIX_EPOCH + std::time::Duration::from_millis(status.created_ms);
    let mut answer = json!({
        "success": true,
        "status": firecrawl_status(&status.status, status.cancel_requested),
        "total": total,
        "completed": done,
        "creditsUsed": done,
        "expiresAt": iso(created + std::time::Duration::from_secs(86_400)),
        "data": data,
    });
    // Left out on the last page, as Firecrawl does (a `null` breaks the JS SDK's v1 client).
    if let Some(next) = next {
        answer["next"] = json!(next);
    }
    // A failed crawl says why (its summary's notes: the start URL's error, a stop).
    if status.status == "failed"
        && let Some(notes) = status.summary["notes"].as_array()
    {
        let why: Vec<&str> = notes.iter().filter_map(|n| n.as_str()).collect();
        if !why.is_empty() {
            answer["error"] = json!(why.join("; "));
        }
    }
    Ok(json_ok(answer))
}

/// The stored documents of a crawl's `rows`, in `formats`; a page evicted from the store
/// since is left out.
pub(super) async fn documents(
    compat: &Compat,
    rows: &[CrawlUrl],
    formats: Formats,
) -> Vec<FcDocument> {
    let mut data = Vec::new();
    for row in rows {
        if row.state == UrlState::Failed {
            // An error page's content is not stored: its document says what it answered.
            if let Some(status) = row.status {
                data.push(FcDocument::error_page(&row.url, status, row.detail.clone()));
            }
            continue;
        }
        let Some(handle) = &row.handle else { continue };
        let read = compat
            .agent
            .web_fetch(
                WebFetchArgs {
                    handle: Some(handle.clone()),
                    page_size_tokens: Some(0),
                    ..WebFetchArgs::default()
                },
                None,
            )
            .await;
        if let Ok(out) = read
            && let Some(page) = out.results.into_iter().next().and_then(|r| r.document)
        {
            let mut doc = from_page(&page, formats);
            super::scrape::with_head(&compat.agent, &mut doc).await;
            doc.metadata.source_url = row.url.clone();
            data.push(doc);
        }
    }
    data
}

/// How often a crawl with a webhook is looked at for new pages.
const WEBHOOK_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// A crawl's webhook events: `started`, a `page` for each page as the store has it, then
/// `completed` or `failed` (a cancelled crawl just stops). The crawl's state is read from
/// the store, as a status poll reads it.
async fn deliver(compat: Compat, id: String, formats: Formats, hook: Webhook) {
    hook.send("started", &id, Vec::new(), None).await;
    let store = compat.agent.store().clone();
    // Rows are listed in the order they were found, not done: new pages are told apart by URL.
    let mut sent = std::collections::HashSet::new();
    loop {
        let Ok(status) = trawl_crawl::status(&store, &id).await else {
            return;
        };
        let finished = status.status != "running";
        let mut offset = 0;
        while let Ok(rows) = trawl_crawl::pages(&store, &id, &[UrlState::Done], offset, PAGE).await
            && !rows.is_empty()
        {
            offset += rows.len();
            let new: Vec<CrawlUrl> = rows
                .into_iter()
                .filter(|row| sent.insert(row.url.clone()))
                .collect();
            for doc in documents(&compat, &new, formats).await {
                let data = vec![serde_json::to_value(doc).unwrap_or_default()];
                hook.send("page", &id, data, None).await;
            }
        }
        if finished {
            match status.status.as_str() {
                "done" => hook.send("completed", &id, Vec::new(), None).await,
                "cancelled" => {}
                other => {
                    let why = format!("the crawl ended {other}");
                    hook.send("failed", &id, Vec::new(), Some(&why)).await;
                }
            }
            return;
        }
        tokio::time::sleep(WEBHOOK_POLL).await;
    }
}

pub async fn cancel(
    State(compat): State<Compat>,
    Path(id): Path<String>,
) -> Result<Response, CompatError> {
    trawl_crawl::cancel(compat.agent.store(), &id).await?;
    Ok(json_ok(json!({"success": true, "status": "cancelled"})))
}

pub async fn errors(
    State(compat): State<Compat>,
    Path(id): Path<String>,
) -> Result<Response, CompatError> {
    let store = compat.agent.store().clone();
    let status = trawl_crawl::status(&store, &id).await?;
    let when = iso(std::time::UNIX_EPOCH + std::time::Duration::from_millis(status.updated_ms));
    let failed = trawl_crawl::pages(&store, &id, &[UrlState::Failed], 0, 1_000).await?;
    let skipped = trawl_crawl::pages(&store, &id, &[UrlState::Skipped], 0, 1_000).await?;
    let errors: Vec<Value> = failed
        .iter()
        .enumerate()
        .map(|(i, row)| {
            json!({"id": format!("{id}-{i}"), "timestamp": when, "url": row.url,
                   "error": row.detail.clone().unwrap_or_else(|| "failed".into())})
        })
        .collect();
    let robots: Vec<&str> = skipped
        .iter()
        .filter(|row| row.detail.as_deref().is_some_and(|d| d.contains("robots")))
        .map(|row| row.url.as_str())
        .collect();
    Ok(json_ok(json!({"errors": errors, "robotsBlocked": robots})))
}

pub async fn active(State(compat): State<Compat>) -> Result<Response, CompatError> {
    let crawls = trawl_crawl::list(compat.agent.store()).await?;
    let running: Vec<Value> = crawls
        .iter()
        .filter(|c| c.status == "running")
        .map(|c| json!({"id": c.id, "teamId": "trawl", "url": c.start_url, "options": {}}))
        .collect();
    Ok(json_ok(json!({"success": true, "crawls": running})))
}
