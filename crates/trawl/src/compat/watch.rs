//! The WebSocket status stream Firecrawl's watchers open on a job's status URL
//! (`ws://…/v1|v2/crawl/{id}`, `…/v2/batch/scrape/{id}`; the API key comes as the
//! subprotocol, see `mcp::http`): a `catchup` with what is done so far, a `document` for
//! each page as it is stored, then `done` (or `error` for a failed job), the same message
//! again as the close frame's reason (the v1 client reads it there). A job no longer
//! running ends the stream; so does the client closing it, or an hour without an end.

use std::collections::HashSet;
use std::sync::PoisonError;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request};
use axum::http::{HeaderMap, header};
use axum::response::Response;
use serde_json::{Value, json};
use trawl_crawl::{CrawlUrl, UrlState};

use super::batch::PAGE;
use super::crawl::{documents, firecrawl_status};
use super::error::CompatError;
use super::state::Compat;
use super::types::{FcDocument, Formats};

/// How often a watched job is looked at.
const POLL: Duration = Duration::from_millis(300);
/// The longest a watch stays open.
const MAX_WATCH: Duration = Duration::from_secs(3_600);
/// A close frame's reason holds at most 123 bytes.
const MAX_REASON: usize = 123;

/// Whether `headers` ask to upgrade to a WebSocket.
pub fn is_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// What is watched.
#[derive(Clone, Copy)]
pub enum Job {
    Crawl,
    Batch,
}

/// Upgrades `request` and streams job `id`'s progress on the socket.
pub async fn upgrade(
    compat: Compat,
    id: String,
    job: Job,
    request: Request,
) -> Result<Response, CompatError> {
    // The job must exist before the upgrade: a wrong id is an HTTP 404, as a poll's is.
    match job {
        Job::Crawl => {
            trawl_crawl::status(compat.agent.store(), &id).await?;
        }
        Job::Batch => {
            compat.batches.get(&id)?;
        }
    }
    let (mut parts, _) = request.into_parts();
    // The subprotocol the client offered (its API key) is echoed, as a WebSocket client
    // that offers one requires.
    let offered: Vec<String> = parts
        .headers
        .get(header::SEC_WEBSOCKET_PROTOCOL)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(',').map(|p| p.trim().to_owned()).collect())
        .unwrap_or_default();
    let upgrade = WebSocketUpgrade::from_request_parts(&mut parts, &())
        .await
        .map_err(|e| CompatError::bad_request(format!("WebSocket upgrade: {e}")))?
        .protocols(offered);
    Ok(upgrade.on_upgrade(move |socket| async move {
        let _ = tokio::time::timeout(MAX_WATCH, stream(compat, id, job, socket)).await;
    }))
}

/// Where a watch stands: the source URLs sent, and (a batch) how many of its results it
/// has read.
#[derive(Default)]
struct Position {
    sent: HashSet<String>,
    results_read: usize,
}

/// One look at the job: its status and counts, and the documents it has that were not
/// sent yet (keyed by source URL; the watch drops those it sent): a crawl's done pages not
/// in `sent`, a batch's results set since the last look.
struct Look {
    status: &'static str,
    total: usize,
    completed: usize,
    documents: Vec<(String, Value)>,
    error: Option<String>,
}

async fn look(
    compat: &Compat,
    id: &str,
    job: Job,
    position: &mut Position,
) -> Result<Look, CompatError> {
    match job {
        Job::Crawl => {
            let store = compat.agent.store().clone();
            let status = trawl_crawl::status(&store, id).await?;
            let formats = compat
                .crawl_formats
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(id)
                .copied()
                .unwrap_or(Formats {
                    markdown: true,
                    ..Formats::default()
                });
            // Only pages not sent yet are read from the store, but every done row is listed
            // again on each look: the store lists a crawl's rows in the order they were
            // found (`seq`), not the order they were done in (pages end out of that order,
            // so a new row may come before the last one listed), and keeps no sequence of
            // when rows were done that a look could read on from.
            let mut rows: Vec<CrawlUrl> = Vec::new();
            let mut stored = 0;
            let mut offset = 0;
            while let Ok(page) =
                trawl_crawl::pages(&store, id, &[UrlState::Done], offset, PAGE).await
                && !page.is_empty()
            {
                offset += page.len();
                stored += page.len();
                rows.extend(page.into_iter().filter(|r| !position.sent.contains(&r.url)));
            }
            let docs = documents(compat, &rows, formats).await;
            let documents: Vec<(String, Value)> = docs
                .into_iter()
                .map(|d| {
                    (
                        d.metadata.source_url.clone(),
                        serde_json::to_value(d).unwrap_or_default(),
                    )
                })
                .collect();
            let error = (status.status == "failed").then(|| {
                status.summary["notes"]
                    .as_array()
                    .map(|n| {
                        n.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                    .filter(|w| !w.is_empty())
                    .unwrap_or_else(|| "the crawl failed".to_owned())
            });
            Ok(Look {
                status: firecrawl_status(&status.status, status.cancel_requested),
                total: stored,
                completed: stored,
                documents,
                error,
            })
        }
        Job::Batch => {
            let job = compat.batches.get(id)?;
            // The finished flag first: a batch seen finished has every result it will have.
            let finished = *job.finished.lock().unwrap_or_else(PoisonError::into_inner);
            // Only the results set since the last look.
            let (new, completed) = job.documents_after(position.results_read);
            position.results_read = completed;
            let documents: Vec<(String, Value)> = new
                .into_iter()
                .map(|d: FcDocument| {
                    (
                        d.metadata.source_url.clone(),
                        serde_json::to_value(d).unwrap_or_default(),
                    )
                })
                .collect();
            Ok(Look {
                status: if job.cancel.is_cancelled() {
                    "cancelled"
                } else if finished {
                    "completed"
                } else {
                    "scraping"
                },
                total: job.urls.len(),
                completed,
                documents,
                error: None,
            })
        }
    }
}

async fn send(socket: &mut WebSocket, message: &Value) -> bool {
    socket
        .send(Message::Text(Utf8Bytes::from(message.to_string())))
        .await
        .is_ok()
}

async fn close(socket: &mut WebSocket, message: &Value) {
    let mut reason = message.to_string();
    if reason.len() > MAX_REASON {
        reason = json!({"type": message["type"]}).to_string();
    }
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code: 1000,
            reason: Utf8Bytes::from(reason),
        })))
        .await;
}

async fn stream(compat: Compat, id: String, job: Job, mut socket: WebSocket) {
    let mut position = Position::default();
    let mut first = true;
    loop {
        let now = match look(&compat, &id, job, &mut position).await {
            Ok(now) => now,
            Err(e) => {
                let message = json!({"type": "error", "error": e.message});
                send(&mut socket, &message).await;
                close(&mut socket, &message).await;
                return;
            }
        };
        let fresh: Vec<Value> = now
            .documents
            .iter()
            .filter(|(key, _)| position.sent.insert(key.clone()))
            .map(|(_, doc)| doc.clone())
            .collect();
        let counts = json!({"status": now.status, "total": now.total,
                            "completed": now.completed, "creditsUsed": now.completed});
        if first {
            first = false;
            let mut catchup = counts.clone();
            catchup["data"] = Value::Array(fresh);
            if !send(&mut socket, &json!({"type": "catchup", "data": catchup})).await {
                return;
            }
        } else {
            for doc in fresh {
                if !send(&mut socket, &json!({"type": "document", "data": doc})).await {
                    return;
                }
            }
        }
        let ended = match now.status {
            "completed" => Some(json!({"type": "done", "data": {
                "status": "completed", "data": [], "total": now.total,
                "completed": now.completed, "creditsUsed": now.completed}})),
            "failed" => Some(json!({"type": "error",
                "error": now.error.unwrap_or_else(|| "the job failed".to_owned())})),
            // The v2 watcher ends on a snapshot whose status is terminal; the v1 one on an
            // error.
            "cancelled" => Some(json!({"type": "error", "error": "cancelled",
                                       "data": counts})),
            _ => None,
        };
        if let Some(message) = ended {
            if message["type"] == "error" && now.status == "cancelled" {
                send(&mut socket, &json!({"type": "status", "data": counts})).await;
            } else {
                send(&mut socket, &message).await;
            }
            close(&mut socket, &message).await;
            return;
        }
        // The client may close first; anything it sends is not needed.
        if let Ok(None | Some(Err(_) | Ok(Message::Close(_)))) =
            tokio::time::timeout(POLL, socket.recv()).await
        {
            return;
        }
    }
}
