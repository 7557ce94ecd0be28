//! `POST /v2/batch/scrape` (and v1), `GET` and `DELETE /…/batch/scrape/{id}`: many URLs
//! scraped in the background as [`super::scrape`] does one, polled and paged with `next`.
//! Jobs live in this process's memory (the most recent [`MAX_JOBS`]): a batch is a
//! short-lived fan-out, its pages are in the store either way.

use std::sync::{Arc, PoisonError};
use std::time::{Duration, SystemTime};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::CompatError;
use super::error::json_ok;
use super::request::body;
use super::scrape::scrape;
use super::state::{Compat, Job};
use super::types::{FcDocument, ScrapeOptions, job_id};
use super::webhook::Webhook;

/// Most URLs in one batch.
pub const MAX_URLS: usize = 1_000;
/// Documents per answer of a status poll; the rest are behind `next`.
pub const PAGE: usize = 100;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BatchRequest {
    urls: Vec<String>,
    max_concurrency: Option<usize>,
    /// The API reference spells it `ignoreInvalidURLs`, the SDKs `ignoreInvalidURLs` too;
    /// older clients `ignoreInvalidUrls`: both are read.
    #[serde(alias = "ignoreInvalidURLs")]
    ignore_invalid_urls: Option<bool>,
    webhook: Option<Value>,
    #[serde(flatten)]
    options: ScrapeOptions,
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
    let request: BatchRequest = body(&bytes)?;
    request.options.check(&["appendToId"])?;
    if request.urls.is_empty() || request.urls.len() > MAX_URLS {
        return Err(CompatError::bad_request(format!(
            "urls: give 1-{MAX_URLS} URLs"
        )));
    }
    // Refuse what the guard refuses now, so the caller hears it at once.
    let fetcher = compat.agent.fetcher()?;
    let guard = fetcher.guard().clone();
    let webhook = Webhook::from_request(
        request.webhook.as_ref(),
        "batch_scrape",
        &guard,
        fetcher.proxy(),
    )
    .await?;
    let (mut urls, mut invalid) = (Vec::new(), Vec::new());
    for url in request.urls {
        match guard.check_raw(&url, None) {
            Ok(_) => urls.push(url),
            Err(e) if request.ignore_invalid_urls == Some(true) => {
                let _ = e;
                invalid.push(url);
            }
            Err(e) => return Err(CompatError::from(e)),
        }
    }
    let id = job_id();
    let job = Arc::new(Job::new(id.clone(), urls));
    compat.batches.add(job.clone());
    let concurrency = request.max_concurrency.unwrap_or(5).clamp(1, 20);
    let options = request.options;
    let agent = compat.agent.clone();
    tokio::spawn(async move {
        if let Some(hook) = &webhook {
            hook.send("started", &job.id, Vec::new(), None).await;
        }
        let work = futures_util::stream::iter(job.urls.clone().into_iter().enumerate())
            .map(|(i, url)| {
                let (agent, options, job) = (agent.clone(), options.clone(), job.clone());
                let webhook = webhook.clone();
                async move {
                    let result = scrape(&agent, &url, &options).await.map_err(|e| e.message);
                    if let Some(hook) = &webhook {
                        match &result {
                            Ok(doc) => {
                                let data = vec![serde_json::to_value(doc).unwrap_or_default()];
                                hook.send("page", &job.id, data, None).await;
                            }
                            Err(e) => hook.send("page", &job.id, Vec::new(), Some(e)).await,
                        }
                    }
                    job.put(i, result);
                }
            })
            .buffer_unordered(concurrency)
            .collect::<Vec<()>>();
        let cancelled = tokio::select! {
            _ = work => false,
            () = job.cancel.cancelled() => true,
        };
        *job.finished.lock().unwrap_or_else(PoisonError::into_inner) = true;
        if let Some(hook) = &webhook
            && !cancelled
        {
            hook.send("completed", &job.id, Vec::new(), None).await;
        }
    });
    let mut answer = json!({
        "success": true,
        "id": id,
        "url": format!("{}/{version}/batch/scrape/{id}", compat.base_url(&headers)),
    });
    if !invalid.is_empty() {
        answer["invalidURLs"] = json!(invalid);
    }
    Ok(json_ok(answer))
}

/// `skip=N` from a query string (the offset `next` links carry).
pub fn skip_of(uri: &Uri) -> usize {
    uri.query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|kv| kv.strip_prefix("skip="))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// An ISO 8601 time, as Firecrawl's `expiresAt` and error timestamps are written.
pub fn iso(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `GET /…/batch/scrape/{id}`: the status, or (asked to upgrade) its WebSocket stream.
pub async fn status_or_watch(
    State(compat): State<Compat>,
    Path(id): Path<String>,
    request: axum::extract::Request,
) -> Result<Response, CompatError> {
    if super::watch::is_upgrade(request.headers()) {
        return super::watch::upgrade(compat, id, super::watch::Job::Batch, request).await;
    }
    let (headers, uri) = (request.headers().clone(), request.uri().clone());
    status(compat, id, headers, uri).await
}

pub(super) async fn status(
    compat: Compat,
    id: String,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, CompatError> {
    let job = compat.batches.get(&id)?;
    let skip = skip_of(&uri);
    let results = job
        .results
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let finished = *job.finished.lock().unwrap_or_else(PoisonError::into_inner);
    let done: Vec<&FcDocument> = results
        .iter()
        .flatten()
        .filter_map(|r| r.as_ref().ok())
        .collect();
    let completed = results.iter().filter(|r| r.is_some()).count();
    let status = if job.cancel.is_cancelled() {
        "cancelled"
    } else if finished {
        "completed"
    } else {
        "scraping"
    };
    let page: Vec<&FcDocument> = done.iter().skip(skip).take(PAGE).copied().collect();
    let next = (skip + page.len() < done.len()).then(|| {
        format!(
            "{}{}?skip={}",
            compat.base_url(&headers),
            uri.path(),
            skip + page.len()
        )
    });
    let mut answer = json!({
        "success": true,
        "status": status,
        "total": job.urls.len(),
        "completed": completed,
        "creditsUsed": completed,
        "expiresAt": iso(job.created + Duration::from_secs(86_400)),
        "data": page,
    });
    // Firecrawl leaves `next` out on the last page; the JS SDK's v1 client takes a
    // `null` for a URL to fetch ("Invalid URL").
    if let Some(next) = next {
        answer["next"] = json!(next);
    }
    Ok(json_ok(answer))
}

pub async fn cancel(
    State(compat): State<Compat>,
    Path(id): Path<String>,
) -> Result<Response, CompatError> {
    let job = compat.batches.get(&id)?;
    job.cancel.cancel();
    Ok(json_ok(
        json!({"success": true, "status": "cancelled", "message": "batch scrape job cancelled"}),
    ))
}

pub async fn errors(
    State(compat): State<Compat>,
    Path(id): Path<String>,
) -> Result<Response, CompatError> {
    let job = compat.batches.get(&id)?;
    let results = job
        .results
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let errors: Vec<Value> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r {
            Some(Err(e)) => Some(
                json!({"id": format!("{id}-{i}"), "timestamp": iso(job.created),
                                       "url": job.urls[i], "error": e}),
            ),
            _ => None,
        })
        .collect();
    Ok(json_ok(json!({"errors": errors, "robotsBlocked": []})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_times_are_in_firecrawls_shapes() {
        let id = job_id();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert_eq!(iso(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_709_210_096);
        assert_eq!(iso(t), "2024-02-29T12:34:56.000Z");
        let uri: Uri = "/v2/batch/scrape/x?skip=40".parse().unwrap();
        assert_eq!(skip_of(&uri), 40);
    }
}
