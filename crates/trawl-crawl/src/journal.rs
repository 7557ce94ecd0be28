//! A crawl kept in the store as it runs (see `trawl_store::CrawlStore`), and the calls to
//! look at kept crawls from outside: [`list`], [`status`], [`pages`], [`cancel`].
//!
//! What is written when: a URL's row when it is first seen (so the seen set survives), its
//! state `fetching` before the request and `done` (with its handle) after the document is
//! stored, the crawl's record at start, every few seconds, and at the end. A crawl killed
//! at any point resumes from these rows; see `Crawler::resume`. A shared crawl (see
//! `shared.rs`) writes `fetching` by its claims, settles each URL under its lease, and its
//! record at start, once seeded, and once at the end (by whichever worker ends it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use crate::committer::Committer;
use serde::Serialize;
use trawl_core::{ErrorCode, TrawlError};
use trawl_store::{
    ClaimedUrl, CrawlRecord, CrawlUrl, PageNotes, SharedStore, UrlOutcome, UrlState,
};

/// A store error as a trawl error.
pub(crate) fn store_error(e: trawl_store::Error) -> TrawlError {
    TrawlError::new(ErrorCode::Internal, format!("store: {e}"))
}

fn not_kept() -> TrawlError {
    TrawlError::invalid_input(
        "this store does not keep crawls (crawl state needs the SQLite or Redis store)",
    )
}

/// One crawl's rows in the store; a no-op when the store keeps no crawls.
#[derive(Debug, Clone)]
pub(crate) struct Journal {
    store: SharedStore,
    id: String,
    kept: bool,
    /// This run's name as a worker of a shared crawl (see [`Journal::shared`]).
    worker: Option<Arc<str>>,
    /// The running crawl's calls, committed together (see `committer.rs`).
    committer: Option<Committer>,
}

/// A worker name unique across processes and hosts: process id, start time, a counter.
fn worker_name() -> String {
    static STARTED: LazyLock<u128> = LazyLock::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    });
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}:{}:{}",
        std::process::id(),
        *STARTED,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl Journal {
    pub(crate) fn new(store: SharedStore, id: String) -> Self {
        let state = store.store().crawl_state();
        let kept = state.is_some();
        let worker = state
            .is_some_and(|c| c.shares_work())
            .then(|| Arc::from(worker_name()));
        Journal {
            store,
            id,
            kept,
            worker,
            committer: None,
        }
    }

    /// The journal of a crawl running on one machine: its calls go through one
    /// [`Committer`] (a shared crawl's go to the store one by one, as other workers' do).
    pub(crate) fn committing(mut self) -> Self {
        if self.kept && !self.shared() {
            self.committer = Some(Committer::start(self.store.clone()));
        }
        self
    }

    /// Where this crawl's page writes go: its committer, when it has one.
    pub(crate) fn committer(&self) -> Option<&Committer> {
        self.committer.as_ref()
    }

    pub(crate) fn kept(&self) -> bool {
        self.kept
    }

    /// The store lets several processes work on this crawl (Redis): URLs are claimed
    /// with leases and settled under them.
    pub(crate) fn shared(&self) -> bool {
        self.worker.is_some()
    }

    /// This run's worker name, on a shared crawl.
    pub(crate) fn worker(&self) -> Option<&str> {
        self.worker.as_deref()
    }

    /// Runs `f` on the crawl's state, through the committer when there is one (after
    /// every write asked for before it).
    async fn with<T: Send + 'static + Default>(
        &self,
        f: impl FnOnce(&dyn trawl_store::CrawlStore, &str) -> trawl_store::Result<T> + Send + 'static,
    ) -> Result<T, TrawlError> {
        self.run_on(self.committer.as_ref(), f).await
    }

    /// Runs `f` on what the store has committed now, without waiting for the committer.
    async fn with_committed<T: Send + 'static + Default>(
        &self,
        f: impl FnOnce(&dyn trawl_store::CrawlStore, &str) -> trawl_store::Result<T> + Send + 'static,
    ) -> Result<T, TrawlError> {
        self.run_on(None, f).await
    }

    async fn run_on<T: Send + 'static + Default>(
        &self,
        committer: Option<&Committer>,
        f: impl FnOnce(&dyn trawl_store::CrawlStore, &str) -> trawl_store::Result<T> + Send + 'static,
    ) -> Result<T, TrawlError> {
        if !self.kept {
            return Ok(T::default());
        }
        let id = self.id.clone();
        let call = move |s: &dyn trawl_store::Store| match s.crawl_state() {
            Some(c) => f(c, &id),
            None => Ok(T::default()),
        };
        match committer {
            Some(c) => c.run(call).await,
            None => self.store.run(call).await,
        }
        .map_err(store_error)
    }

    pub(crate) async fn put(&self, record: CrawlRecord) -> Result<(), TrawlError> {
        self.with(move |c, _| c.put_crawl(&record)).await
    }

    pub(crate) async fn clear_cancel(&self) -> Result<(), TrawlError> {
        self.with(|c, id| c.clear_cancel(id)).await
    }

    pub(crate) async fn record(&self) -> Result<Option<CrawlRecord>, TrawlError> {
        self.with(|c, id| c.get_crawl(id)).await
    }

    /// Adds rows without waiting for the write when the crawl has a committer (later
    /// calls find them written; an error stops the crawl at [`Journal::failure`]).
    pub(crate) async fn add_soon(&self, urls: Vec<CrawlUrl>) -> Result<(), TrawlError> {
        match &self.committer {
            Some(c) if !urls.is_empty() => {
                let id = self.id.clone();
                c.queue(move |s| match s.crawl_state() {
                    Some(crawls) => crawls.add_crawl_urls(&id, &urls).map(drop),
                    None => Ok(()),
                });
                Ok(())
            }
            _ => self.add(urls).await.map(drop),
        }
    }

    /// Marks `key` as being fetched, without waiting when the crawl has a committer.
    pub(crate) async fn fetching_soon(&self, key: String) -> Result<(), TrawlError> {
        match &self.committer {
            Some(c) => {
                let id = self.id.clone();
                c.queue(move |s| match s.crawl_state() {
                    Some(crawls) => crawls.set_crawl_url_state(
                        &id,
                        &[key],
                        UrlState::Fetching,
                        &UrlOutcome::default(),
                    ),
                    None => Ok(()),
                });
                Ok(())
            }
            None => {
                self.set(vec![key], UrlState::Fetching, UrlOutcome::default())
                    .await
            }
        }
    }

    /// The error of a write nobody waited for, once one failed: the crawl stops on it.
    pub(crate) fn failure(&self) -> Result<(), TrawlError> {
        match self.committer.as_ref().and_then(Committer::failure) {
            Some(message) => Err(TrawlError::new(
                ErrorCode::Internal,
                format!("store: {message}"),
            )),
            None => Ok(()),
        }
    }

    pub(crate) async fn add(&self, urls: Vec<CrawlUrl>) -> Result<usize, TrawlError> {
        if urls.is_empty() {
            return Ok(0);
        }
        self.with(move |c, id| c.add_crawl_urls(id, &urls)).await
    }

    /// The keys among `keys` this crawl's rows hold.
    pub(crate) async fn known(&self, keys: Vec<String>) -> Result<Vec<String>, TrawlError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.with(move |c, id| c.known_crawl_urls(id, &keys)).await
    }

    /// [`Journal::known`] from what is committed now, without waiting for the writes the
    /// committer holds: the caller knows the keys of the rows it queued and that are not
    /// yet written (see [`Journal::once_written`]). Asked for every page of a crawl whose
    /// frontier spilled, a wait for the next batch's commit there stalled the whole loop.
    pub(crate) async fn known_now(&self, keys: Vec<String>) -> Result<Vec<String>, TrawlError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.with_committed(move |c, id| c.known_crawl_urls(id, &keys))
            .await
    }

    /// Resolves once every write asked for before this call is committed (at once without
    /// a committer, whose writes are committed when asked); its error is the crawl's
    /// ([`Journal::failure`]).
    pub(crate) fn once_written(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let done = self.committer.as_ref().map(|c| c.run(|_| Ok(())));
        async move {
            if let Some(done) = done {
                let _ = done.await;
            }
        }
    }

    pub(crate) async fn set(
        &self,
        keys: Vec<String>,
        state: UrlState,
        outcome: UrlOutcome,
    ) -> Result<(), TrawlError> {
        self.with(move |c, id| c.set_crawl_url_state(id, &keys, state, &outcome))
            .await
    }

    /// Keeps notes beside the crawl's rows (see `changes.rs`).
    pub(crate) async fn notes(&self, notes: Vec<PageNotes>) -> Result<(), TrawlError> {
        if notes.is_empty() {
            return Ok(());
        }
        self.with(move |c, id| c.put_page_notes(id, &notes)).await
    }

    /// Every note kept beside the crawl's rows.
    pub(crate) async fn all_notes(&self) -> Result<Vec<PageNotes>, TrawlError> {
        self.with(|c, id| c.page_notes(id, &[])).await
    }

    /// The first `limit` URLs still `queued`, in the order they were found.
    pub(crate) async fn queued(&self, limit: usize) -> Result<Vec<CrawlUrl>, TrawlError> {
        self.with(move |c, id| c.crawl_urls(id, &[UrlState::Queued], 0, limit))
            .await
    }

    /// Every URL done, in the order they were found.
    pub(crate) async fn done_pages(&self) -> Result<Vec<CrawlUrl>, TrawlError> {
        self.with(|c, id| c.crawl_urls(id, &[UrlState::Done], 0, 0))
            .await
    }

    pub(crate) async fn urls(&self) -> Result<Vec<CrawlUrl>, TrawlError> {
        self.with(|c, id| c.crawl_urls(id, &[], 0, 0)).await
    }

    pub(crate) async fn counts(&self) -> Result<Vec<(UrlState, u64)>, TrawlError> {
        self.with(|c, id| c.crawl_url_counts(id)).await
    }

    /// Claims up to `n` URLs for this worker (shared crawls).
    pub(crate) async fn claim(
        &self,
        n: usize,
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<ClaimedUrl>, TrawlError> {
        let Some(worker) = self.worker.clone() else {
            return Ok(Vec::new());
        };
        self.with(move |c, id| c.claim_crawl_urls(id, &worker, n, lease, limit))
            .await
    }

    /// Renews this worker's leases on `keys` (shared crawls).
    pub(crate) async fn renew(&self, keys: Vec<String>, lease: Duration) -> Result<(), TrawlError> {
        let Some(worker) = self.worker.clone() else {
            return Ok(());
        };
        self.with(move |c, id| c.renew_crawl_leases(id, &worker, &keys, lease).map(drop))
            .await
    }

    /// Records a URL's outcome: under this worker's lease on a shared crawl (`false` when
    /// the lease was lost and another worker has the URL), plainly otherwise.
    pub(crate) async fn settle(
        &self,
        key: String,
        state: UrlState,
        outcome: UrlOutcome,
    ) -> Result<bool, TrawlError> {
        let worker = self.worker.clone();
        let settled = self
            .with(move |c, id| settle_in(c, id, worker.as_deref(), &key, state, &outcome))
            .await?;
        Ok(settled || !self.kept)
    }

    /// Ends the crawl with `record`'s status and summary; `false` when it had ended
    /// already (another worker of a shared crawl ended it).
    pub(crate) async fn end(&self, record: CrawlRecord) -> Result<bool, TrawlError> {
        self.with(move |c, id| c.end_crawl(id, &record.status, &record.summary))
            .await
    }
}

/// A `skipped` row that names the stored page it stands for: a redirect target or a
/// canonical page of one just stored, or a page a changes-crawl found removed.
pub(crate) fn skipped_row(
    key: String,
    url: String,
    depth: u32,
    handle: String,
    detail: String,
) -> CrawlUrl {
    CrawlUrl {
        key,
        url,
        depth,
        priority: 0.0,
        run: 0,
        state: UrlState::Skipped,
        handle: Some(handle),
        title: None,
        words: 0,
        status: None,
        detail: Some(detail),
    }
}

/// [`Journal::settle`] inside a store call (a page's store task uses it too).
pub(crate) fn settle_in(
    c: &dyn trawl_store::CrawlStore,
    id: &str,
    worker: Option<&str>,
    key: &str,
    state: UrlState,
    outcome: &UrlOutcome,
) -> trawl_store::Result<bool> {
    match worker {
        Some(w) => c.settle_crawl_url(id, w, key, state, outcome),
        None => c
            .set_crawl_url_state(id, &[key.to_owned()], state, outcome)
            .map(|()| true),
    }
}

/// A kept crawl and how far it got.
#[derive(Debug, Clone, Serialize)]
pub struct CrawlStatus {
    /// Its id.
    pub id: String,
    /// Its start URL.
    pub start_url: String,
    /// `running`, `done`, `cancelled`, `failed`, or `interrupted` (kept as running by a
    /// process that is gone).
    pub status: String,
    /// A stop was asked for.
    pub cancel_requested: bool,
    /// Created, Unix milliseconds.
    pub created_ms: u64,
    /// Last written, Unix milliseconds.
    pub updated_ms: u64,
    /// URLs per state (`queued`, `fetching`, `done`, `failed`, `skipped`).
    pub urls: std::collections::BTreeMap<String, u64>,
    /// The latest summary the crawl wrote.
    pub summary: serde_json::Value,
}

fn millis(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A crawl's standing as kept. One kept `running` whose owner process is gone from this
/// host (killed, crashed) is `interrupted`: `--resume` goes on. Not on a shared store,
/// where other workers may still run it.
fn status_of(record: CrawlRecord, counts: Vec<(UrlState, u64)>, shared: bool) -> CrawlStatus {
    let owner_gone = record.summary["owner"]
        .as_str()
        .is_some_and(crate::owner::is_gone);
    let status = if record.status == "running" && owner_gone && !shared {
        "interrupted".to_owned()
    } else {
        record.status
    };
    CrawlStatus {
        id: record.id,
        start_url: record.start_url,
        status,
        cancel_requested: record.cancel_requested,
        created_ms: millis(record.created_at),
        updated_ms: millis(record.updated_at),
        urls: counts
            .into_iter()
            .map(|(s, n)| (s.as_str().to_owned(), n))
            .collect(),
        summary: record.summary,
    }
}

fn unknown(id: &str) -> TrawlError {
    TrawlError::new(
        ErrorCode::NotFound,
        format!("no crawl with id {id:?} (see `trawl crawl list`)"),
    )
}

/// Every kept crawl, newest first, with its counts.
pub async fn list(store: &SharedStore) -> Result<Vec<CrawlStatus>, TrawlError> {
    store
        .run(|s| {
            let Some(c) = s.crawl_state() else {
                return Ok(None);
            };
            let mut out = Vec::new();
            for r in c.crawls()? {
                let counts = c.crawl_url_counts(&r.id)?;
                out.push(status_of(r, counts, c.shares_work()));
            }
            Ok(Some(out))
        })
        .await
        .map_err(store_error)?
        .ok_or_else(not_kept)
}

/// One kept crawl with its counts.
pub async fn status(store: &SharedStore, id: &str) -> Result<CrawlStatus, TrawlError> {
    let key = id.to_owned();
    store
        .run(move |s| {
            let Some(c) = s.crawl_state() else {
                return Ok(Err(not_kept()));
            };
            Ok(match c.get_crawl(&key)? {
                Some(r) => {
                    let counts = c.crawl_url_counts(&key)?;
                    Ok(status_of(r, counts, c.shares_work()))
                }
                None => Err(unknown(&key)),
            })
        })
        .await
        .map_err(store_error)?
}

/// A page of a crawl's URLs in `states` (all when empty), in the order they were seen.
pub async fn pages(
    store: &SharedStore,
    id: &str,
    states: &[UrlState],
    offset: usize,
    limit: usize,
) -> Result<Vec<CrawlUrl>, TrawlError> {
    let (key, states) = (id.to_owned(), states.to_vec());
    store
        .run(move |s| {
            let Some(c) = s.crawl_state() else {
                return Ok(Err(not_kept()));
            };
            if c.get_crawl(&key)?.is_none() {
                return Ok(Err(unknown(&key)));
            }
            Ok(Ok(c.crawl_urls(&key, &states, offset, limit)?))
        })
        .await
        .map_err(store_error)?
}

/// Asks a crawl to stop. The process running it sees the request within about a second
/// and stops after the pages in flight; a crawl no process runs is marked cancelled.
pub async fn cancel(store: &SharedStore, id: &str) -> Result<(), TrawlError> {
    let key = id.to_owned();
    store
        .run(move |s| {
            let Some(c) = s.crawl_state() else {
                return Ok(Err(not_kept()));
            };
            Ok(if c.request_cancel(&key)? {
                Ok(())
            } else {
                Err(unknown(&key))
            })
        })
        .await
        .map_err(store_error)?
}
