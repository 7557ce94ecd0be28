//! A Firecrawl- and Jina-Reader-compatible API on `trawl serve`, so integrations written
//! for those services (their SDKs, `firecrawl-mcp`, LangChain's loader) move to trawl by
//! changing one URL.
//!
//! Every route calls the same agent tools and crawler as MCP does — the guard on every
//! URL and redirect, the store, site memory, the call gate — and is mounted beside `/mcp`
//! behind the same bearer token, Host/Origin checks and body limit (see `mcp::http`).
//!
//! - [`types`]: Firecrawl's request and response shapes, typed; options that would change
//!   a result and that trawl cannot honour are refused, never ignored.
//! - [`scrape`]: one page (`/v1|v2/scrape`), the unit every other route is built from.
//! - [`batch`], [`crawl`]: jobs with an id, polled and paged with `next`, cancellable.
//! - [`map`], [`search`]: a site's URLs; web results from trawl's engines.
//! - [`webhook`]: crawl and batch events POSTed to the caller, through the guard.
//! - [`jina`]: `GET /r/{url}` and `GET /s/{query}` in Jina Reader's layouts.

mod batch;
mod crawl;
mod error;
mod jina;
mod map;
mod scrape;
mod search;
mod types;
mod webhook;

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, header};
use axum::routing::{get, post};
use serde::de::DeserializeOwned;
use trawl_agent::tools::Agent;

use crate::mcp::server::ServerState;

pub use error::CompatError;

/// What every route works with.
#[derive(Clone)]
pub struct Compat {
    agent: Agent,
    server: Arc<ServerState>,
    batches: Arc<batch::Batches>,
    crawl_formats: Arc<crawl::CrawlFormats>,
}

impl Compat {
    /// Runs `work` holding one of the server's call slots, as an MCP tool call does.
    async fn gated<T>(
        &self,
        work: impl Future<Output = Result<T, CompatError>>,
    ) -> Result<T, CompatError> {
        let _permit = self
            .server
            .gate
            .enter()
            .await
            .map_err(|refusal| CompatError::busy(refusal.reason()))?;
        work.await
    }
}

/// `work` within a request's `timeout` (milliseconds; none: unbounded), else a `timeout`
/// error saying which work (`what`) ran out.
async fn within<T>(
    timeout_ms: Option<u64>,
    what: impl FnOnce() -> String,
    work: impl Future<Output = Result<T, CompatError>>,
) -> Result<T, CompatError> {
    match timeout_ms {
        Some(ms) => tokio::time::timeout(std::time::Duration::from_millis(ms), work)
            .await
            .unwrap_or_else(|_| {
                Err(trawl_core::TrawlError::new(
                    trawl_core::ErrorCode::Timeout,
                    format!("{} took longer than timeout ({ms} ms)", what()),
                )
                .into())
            }),
        None => work.await,
    }
}

/// Is `path` one of this module's routes (for the request counter's route label)?
pub fn is_compat_path(path: &str) -> bool {
    path.starts_with("/v1/")
        || path.starts_with("/v2/")
        || path.starts_with("/r/")
        || path.starts_with("/s/")
}

/// The routes, ready to be merged beside `/mcp` (which adds auth and Host/Origin checks).
pub fn router<S: Clone + Send + Sync + 'static>(
    agent: Agent,
    server: Arc<ServerState>,
) -> Router<S> {
    let compat = Compat {
        agent,
        server,
        batches: Arc::default(),
        crawl_formats: Arc::default(),
    };
    Router::new()
        .route("/v2/scrape", post(scrape::scrape_v2))
        .route("/v1/scrape", post(scrape::scrape_v1))
        .route("/v2/batch/scrape", post(batch::start_v2))
        .route("/v1/batch/scrape", post(batch::start_v1))
        .route(
            "/v2/batch/scrape/{id}",
            get(batch::status).delete(batch::cancel),
        )
        .route(
            "/v1/batch/scrape/{id}",
            get(batch::status).delete(batch::cancel),
        )
        .route("/v2/crawl", post(crawl::start_v2))
        .route("/v1/crawl", post(crawl::start_v1))
        .route("/v2/crawl/active", get(crawl::active))
        .route("/v1/crawl/active", get(crawl::active))
        .route("/v2/crawl/{id}", get(crawl::status).delete(crawl::cancel))
        .route("/v1/crawl/{id}", get(crawl::status).delete(crawl::cancel))
        .route("/v2/crawl/{id}/errors", get(crawl::errors))
        .route("/v1/crawl/{id}/errors", get(crawl::errors))
        .route("/v2/map", post(map::map_v2))
        .route("/v1/map", post(map::map_v1))
        .route("/v2/search", post(search::search_v2))
        .route("/v1/search", post(search::search_v1))
        .route("/r/{*target}", get(jina::read))
        .route("/s/{*query}", get(jina::search))
        .route("/v2/extract", post(error::not_offered))
        .route("/v1/extract", post(error::not_offered))
        .route("/v2/agent", post(error::not_offered))
        .route("/v2/deep-research", post(error::not_offered))
        .route("/v1/deep-research", post(error::not_offered))
        .route("/v1/llmstxt", post(error::not_offered))
        .route("/v2/browser", post(error::not_offered))
        .route("/v2/batch/scrape/{id}/errors", get(batch::errors))
        .route("/v1/batch/scrape/{id}/errors", get(batch::errors))
        .route("/v2/team/credit-usage", get(credit_usage))
        .route("/v1/team/credit-usage", get(credit_usage))
        .with_state(compat)
}

/// A body read as `T`, or Firecrawl's 400 naming the field that did not fit.
fn body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, CompatError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || path.is_empty() {
            CompatError::bad_request(format!(
                "the request body is not valid JSON for this route: {inner}"
            ))
        } else {
            CompatError::bad_request(format!("{path}: {inner}"))
        }
    })
}

/// `http://host` as the client reached this server, for the `url` and `next` links.
fn base_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{host}")
}

/// A self-hosted server has no credits; SDK helpers that ask get a plain answer.
async fn credit_usage() -> axum::response::Response {
    error::json_ok(serde_json::json!({
        "success": true,
        "data": {"remainingCredits": 0, "planCredits": 0, "billingPeriodStart": null, "billingPeriodEnd": null}
    }))
}
