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
//! - [`watch`]: the WebSocket status stream of a crawl or batch, for Firecrawl's watchers.
//! - [`webhook`]: crawl and batch events POSTed to the caller, through the guard.
//! - [`jina`]: `GET /r/{url}` and `GET /s/{query}` in Jina Reader's layouts.
//! - [`team`]: credit and token usage, queue status, the concurrency check.
//! - [`log`]: each call on the request log and counted by route in `/metrics`.

mod batch;
mod crawl;
mod error;
mod jina;
pub mod log;
mod map;
mod request;
mod scrape;
mod search;
mod state;
mod team;
mod types;
mod watch;
mod webhook;

use std::sync::Arc;

use axum::Router;
use axum::routing::{any, get, post};
use trawl_agent::tools::Agent;

use crate::mcp::server::ServerState;

use state::Compat;

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
    public_url: Option<url::Url>,
) -> Router<S> {
    let compat = Compat {
        agent,
        server,
        batches: Arc::default(),
        crawl_formats: Arc::default(),
        public_url,
    };
    Router::new()
        .route("/v2/scrape", post(scrape::scrape_v2))
        .route("/v1/scrape", post(scrape::scrape_v1))
        .route("/v2/batch/scrape", post(batch::start_v2))
        .route("/v1/batch/scrape", post(batch::start_v1))
        .route(
            "/v2/batch/scrape/{id}",
            get(batch::status_or_watch).delete(batch::cancel),
        )
        .route(
            "/v1/batch/scrape/{id}",
            get(batch::status_or_watch).delete(batch::cancel),
        )
        .route("/v2/crawl", post(crawl::start_v2))
        .route("/v1/crawl", post(crawl::start_v1))
        .route("/v2/crawl/active", get(crawl::active))
        .route("/v1/crawl/active", get(crawl::active))
        .route(
            "/v2/crawl/{id}",
            get(crawl::status_or_watch).delete(crawl::cancel),
        )
        .route(
            "/v1/crawl/{id}",
            get(crawl::status_or_watch).delete(crawl::cancel),
        )
        .route("/v2/crawl/{id}/errors", get(crawl::errors))
        .route("/v1/crawl/{id}/errors", get(crawl::errors))
        .route("/v2/map", post(map::map_v2))
        .route("/v1/map", post(map::map_v1))
        .route("/v2/search", post(search::search_v2))
        .route("/v1/search", post(search::search_v1))
        .route("/r/{*target}", get(jina::read))
        .route("/r/", post(jina::read_posted))
        .route("/r", post(jina::read_posted))
        .route("/s/{*query}", get(jina::search))
        .route("/s/", get(jina::search_by_parameter))
        .route("/v2/extract", post(error::not_offered))
        .route("/v1/extract", post(error::not_offered))
        .route("/v2/agent", post(error::not_offered))
        .route("/v2/deep-research", post(error::not_offered))
        .route("/v1/deep-research", post(error::not_offered))
        .route("/v1/llmstxt", post(error::not_offered))
        .route("/v2/browser", post(error::not_offered))
        .route("/v2/batch/scrape/{id}/errors", get(batch::errors))
        .route("/v1/batch/scrape/{id}/errors", get(batch::errors))
        .route("/v2/crawl/params-preview", post(error::not_offered))
        .route("/v1/crawl/params-preview", post(error::not_offered))
        .route("/v2/team/credit-usage", get(team::credit_usage_v2))
        .route("/v1/team/credit-usage", get(team::credit_usage_v1))
        .route("/v2/team/token-usage", get(team::token_usage))
        .route("/v1/team/token-usage", get(team::token_usage))
        .route("/v2/team/queue-status", get(team::queue_status))
        .route("/v1/team/queue-status", get(team::queue_status))
        .route("/v2/concurrency-check", get(team::concurrency_check))
        .route("/v1/concurrency-check", get(team::concurrency_check))
        .route("/v1/{*rest}", any(error::no_route))
        .route("/v2/{*rest}", any(error::no_route))
        .with_state(compat)
}
