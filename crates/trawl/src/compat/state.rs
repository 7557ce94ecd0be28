//! What every route of the compatible API shares: the agent, the server's call gate, and
//! what this process remembers between calls (batch jobs, each crawl's formats).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;
use trawl_agent::tools::Agent;

use super::error::CompatError;
use super::types::{FcDocument, Formats};
use crate::mcp::server::ServerState;

/// What every route works with.
#[derive(Clone)]
pub struct Compat {
    pub(super) agent: Agent,
    pub(super) server: Arc<ServerState>,
    pub(super) batches: Arc<Batches>,
    pub(super) crawl_formats: Arc<CrawlFormats>,
    /// Where clients reach the server (`--public-url`), when set.
    pub(super) public_url: Option<url::Url>,
}

impl Compat {
    /// The base of every link an answer carries: `--public-url`, else `http://` and the
    /// Host the client sent.
    pub(super) fn base_url(&self, headers: &axum::http::HeaderMap) -> String {
        match &self.public_url {
            Some(url) => url.as_str().trim_end_matches('/').to_owned(),
            None => super::request::base_url(headers),
        }
    }

    /// Runs `work` holding one of the server's call slots, as an MCP tool call does.
    pub(super) async fn gated<T>(
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

/// Batches kept for polling; the oldest is forgotten first.
pub const MAX_JOBS: usize = 256;

/// One batch's progress.
pub(super) struct Job {
    pub(super) id: String,
    pub(super) urls: Vec<String>,
    pub(super) results: Mutex<Vec<Option<Result<FcDocument, String>>>>,
    pub(super) cancel: CancellationToken,
    pub(super) finished: Mutex<bool>,
    pub(super) created: SystemTime,
}

/// The batches of this server.
#[derive(Default)]
pub struct Batches {
    jobs: Mutex<VecDeque<Arc<Job>>>,
}

impl Batches {
    pub(super) fn add(&self, job: Arc<Job>) {
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        if jobs.len() >= MAX_JOBS {
            jobs.pop_front();
        }
        jobs.push_back(job);
    }

    /// Batches still running.
    pub(super) fn running(&self) -> usize {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|j| !*j.finished.lock().unwrap_or_else(PoisonError::into_inner))
            .count()
    }

    pub(super) fn get(&self, id: &str) -> Result<Arc<Job>, CompatError> {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|j| j.id == id)
            .cloned()
            .ok_or_else(|| CompatError::not_found(format!("no batch scrape job with id {id:?}")))
    }
}

/// The formats each crawl of this process was asked for (markdown when unknown).
#[derive(Default)]
pub struct CrawlFormats(pub(super) Mutex<HashMap<String, Formats>>);
