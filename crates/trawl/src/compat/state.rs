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
    /// A result for each URL once its scrape ended (set with [`Job::put`]).
    pub(super) results: Mutex<Vec<Option<Result<FcDocument, String>>>>,
    /// The indexes of `results` in the order they were set, so a watch reads on from
    /// where it stopped (locked after `results`, never alone).
    ended: Mutex<Vec<usize>>,
    pub(super) cancel: CancellationToken,
    pub(super) finished: Mutex<bool>,
    pub(super) created: SystemTime,
}

impl Job {
    pub(super) fn new(id: String, urls: Vec<String>) -> Self {
        Job {
            id,
            results: Mutex::new(vec![None; urls.len()]),
            ended: Mutex::new(Vec::with_capacity(urls.len())),
            urls,
            cancel: CancellationToken::new(),
            finished: Mutex::new(false),
            created: SystemTime::now(),
        }
    }

    /// The result of URL `i`.
    pub(super) fn put(&self, i: usize, result: Result<FcDocument, String>) {
        let mut results = self.results.lock().unwrap_or_else(PoisonError::into_inner);
        results[i] = Some(result);
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(i);
    }

    /// The documents of the results set after the first `seen` (in the order of the URLs),
    /// and how many results are set now: the next call's `seen`.
    pub(super) fn documents_after(&self, seen: usize) -> (Vec<FcDocument>, usize) {
        let results = self.results.lock().unwrap_or_else(PoisonError::into_inner);
        let ended = self.ended.lock().unwrap_or_else(PoisonError::into_inner);
        let mut new: Vec<usize> = ended.get(seen..).unwrap_or_default().to_vec();
        new.sort_unstable();
        let documents = new
            .into_iter()
            .filter_map(|i| results[i].as_ref()?.as_ref().ok().cloned())
            .collect();
        (documents, ended.len())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str) -> FcDocument {
        let mut doc = FcDocument::default();
        doc.metadata.source_url = url.to_owned();
        doc
    }

    fn sources(docs: &[FcDocument]) -> Vec<&str> {
        docs.iter()
            .map(|d| d.metadata.source_url.as_str())
            .collect()
    }

    /// A watch reads each result once: those set since its last look, in the order of the
    /// URLs (results end in any order); a failed scrape is counted, not a document.
    #[test]
    fn a_look_reads_only_the_results_set_since_the_last() {
        let urls = ["u0", "u1", "u2", "u3"].map(String::from).to_vec();
        let job = Job::new("batch".into(), urls);
        job.put(2, Ok(page("u2")));
        job.put(0, Ok(page("u0")));
        let (first, seen) = job.documents_after(0);
        assert_eq!(sources(&first), ["u0", "u2"]);
        assert_eq!(seen, 2);
        let (nothing, still) = job.documents_after(seen);
        assert!(nothing.is_empty(), "{nothing:?}");
        assert_eq!(still, 2);
        job.put(3, Err("HTTP 500".into()));
        job.put(1, Ok(page("u1")));
        let (next, seen) = job.documents_after(seen);
        assert_eq!(sources(&next), ["u1"]);
        assert_eq!(seen, 4);
        assert!(job.documents_after(seen).0.is_empty());
        // A look from the start still sees them all, once each.
        assert_eq!(sources(&job.documents_after(0).0), ["u0", "u1", "u2"]);
    }
}
