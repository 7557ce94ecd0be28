//! The crawler: one coordinating loop that owns the frontier and the seen set, and tasks
//! that fetch, extract and store pages. Breadth-first by default, best-first with a query.
//! [`Crawler`] and its methods are here: how a crawl is set up, started, joined, resumed
//! and compared with an older one; the loop is in the child module `run`, the loop's state
//! in `run_state.rs`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio_util::sync::CancellationToken;
use trawl_core::{ErrorCode, SharedLimiter, TrawlError, canonical_url};
use trawl_extract::ExtractOptions;
use trawl_fetch::Fetcher;
use trawl_store::{CrawlRecord, CrawlUrl, SharedStore};

use crate::journal::Journal;
use crate::options::CrawlOptions;
use crate::pace::Pacer;
use crate::report::{CrawlSummary, Observer};

mod run;
pub(crate) use run::scoped;

/// How long a URL claimed from a shared crawl stays leased without a renewal; a live
/// worker renews its leases every second (`run::CHECK_EVERY`).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// What a crawl sends as its User-Agent by default: trawl by name, version and where to
/// read about it. Reads keep the browser-like default (`trawl_fetch::DEFAULT_USER_AGENT`).
pub const CRAWL_USER_AGENT: &str = concat!(
    "trawl/",
    env!("CARGO_PKG_VERSION"),
    " (+https://github.com/trawl-dev/trawl)"
);

/// Crawls sites into a store.
#[derive(Debug, Clone)]
pub struct Crawler {
    fetcher: Fetcher,
    store: SharedStore,
    extract: ExtractOptions,
    /// The per-host gates, shared by every crawl this crawler (and its clones) runs.
    pacer: Arc<Pacer>,
    /// How long a claimed URL stays leased (shared crawls).
    lease: Duration,
    /// Whether pages are extracted on the async worker ([`Crawler::extracting_in_place`]).
    in_place: bool,
}

/// A crawl running in the background ([`Crawler::start`]).
#[derive(Debug)]
pub struct RunningCrawl {
    /// Its id.
    pub id: String,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<Result<CrawlSummary, TrawlError>>,
}

impl RunningCrawl {
    /// Stops it after the pages in flight.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Stops it at once, as a killed process would: pages in flight are dropped and
    /// whatever was written stays (a resume takes it from there).
    pub fn abort(&self) {
        self.task.abort();
    }

    /// Waits for its end.
    pub async fn wait(self) -> Result<CrawlSummary, TrawlError> {
        match self.task.await {
            Ok(r) => r,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(TrawlError::internal(format!("the crawl task ended: {e}"))),
        }
    }
}

fn new_id() -> Result<String, TrawlError> {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes)
        .map_err(|e| TrawlError::internal(format!("no randomness for a crawl id: {e}")))?;
    Ok(format!(
        "c-{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

impl Crawler {
    /// A crawler that fetches with `fetcher` and keeps pages (and, when the backend can,
    /// the crawl's state) in `store`.
    /// A crawler that names itself to sites ([`CRAWL_USER_AGENT`]; see
    /// [`Self::with_user_agent`]), so they can tell it from a person and its robots.txt
    /// group (`trawl`) is the one that applies.
    pub fn new(fetcher: Fetcher, store: SharedStore) -> Self {
        let fetcher = fetcher
            .with_user_agent(CRAWL_USER_AGENT)
            .expect("the crawl User-Agent is a valid header");
        Crawler {
            fetcher,
            store,
            extract: ExtractOptions::default(),
            pacer: Arc::new(Pacer::default()),
            lease: DEFAULT_LEASE,
            in_place: false,
        }
    }

    /// Extracts a page on the async worker that fetched it, not on a blocking thread,
    /// unless it is large ([`crate::page::IN_PLACE_MOST`]). For a runtime of one async
    /// worker on a machine of two cores or fewer (the CLI's crawl there): its CPU work then
    /// runs on two threads, the worker and the store's writer, without two thread
    /// wake-ups a page to reach a third and come back. Not for a server, whose worker must
    /// stay free to answer.
    pub fn extracting_in_place(mut self, yes: bool) -> Self {
        self.in_place = yes;
        self
    }

    pub(crate) fn in_place(&self) -> bool {
        self.in_place
    }

    /// Politeness per host across processes: every request also takes the host's slot
    /// from `shared` (the Redis store's slots), so the host's concurrency and delay hold
    /// for every process on that Redis together.
    pub fn with_shared_limiter(mut self, shared: Arc<dyn SharedLimiter>) -> Self {
        self.pacer = Arc::new(Pacer::with_shared(shared));
        self
    }

    /// Crawls sending `user_agent` instead of [`CRAWL_USER_AGENT`] (refused when it is not
    /// a valid header value).
    pub fn with_user_agent(mut self, user_agent: &str) -> Result<Self, TrawlError> {
        self.fetcher = self.fetcher.with_user_agent(user_agent)?;
        Ok(self)
    }

    /// How long a URL claimed from a shared crawl stays leased to this process without a
    /// renewal (renewed every second while it is fetched): a process killed mid-crawl
    /// gives its URLs back after this.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    pub(crate) fn with_pacer(mut self, pacer: Arc<Pacer>) -> Self {
        self.pacer = pacer;
        self
    }

    pub(crate) fn pacer(&self) -> &Arc<Pacer> {
        &self.pacer
    }

    /// Extraction options for every page.
    pub fn with_extract_options(mut self, options: ExtractOptions) -> Self {
        self.extract = options;
        self
    }

    /// The store pages are kept in.
    pub fn store(&self) -> &SharedStore {
        &self.store
    }

    /// Starts a new crawl in the background; its id is known at once.
    pub async fn start(
        &self,
        options: CrawlOptions,
        observer: Option<Observer>,
    ) -> Result<RunningCrawl, TrawlError> {
        options.validate()?;
        let start = self.fetcher.guard().check_raw(&options.url, None)?;
        // The scope's regular expressions are checked before an id exists: a bad one is
        // the caller's `invalid_input`, never a crawl that cannot run.
        crate::scope::Scope::new(
            &start,
            options.subdomains,
            &options.include,
            &options.exclude,
        )?
        .with_ports(&options.allow_ports)
        .within(options.section.as_deref());
        let id = new_id()?;
        let journal = Journal::new(self.store.clone(), id.clone());
        let now = SystemTime::now();
        journal
            .put(CrawlRecord {
                id: id.clone(),
                start_url: start.to_string(),
                status: "running".into(),
                options: serde_json::to_value(&options).unwrap_or_default(),
                // Its owner from the start: a crawl killed before its first summary is
                // told from a running one (see `owner.rs`).
                summary: owned_summary(serde_json::Value::Null),
                created_at: now,
                updated_at: now,
                cancel_requested: false,
            })
            .await?;
        Ok(self.spawn(id, options, now, Begin::New, observer))
    }

    /// Joins a running shared crawl (one kept in a store several processes work on) with
    /// this process's own fetches: it claims URLs from the store until the crawl ends.
    pub async fn join(
        &self,
        id: &str,
        observer: Option<Observer>,
    ) -> Result<RunningCrawl, TrawlError> {
        let journal = Journal::new(self.store.clone(), id.to_owned());
        if !journal.shared() {
            return Err(TrawlError::invalid_input(
                "only a crawl in a shared store (Redis) can be joined",
            ));
        }
        let (options, created) = self.kept_options(&journal, id).await?;
        Ok(self.spawn(id.to_owned(), options, created, Begin::Join, observer))
    }

    async fn kept_options(
        &self,
        journal: &Journal,
        id: &str,
    ) -> Result<(CrawlOptions, SystemTime), TrawlError> {
        let record = journal.record().await?.ok_or_else(|| {
            TrawlError::new(
                trawl_core::ErrorCode::NotFound,
                format!("no crawl with id {id:?} (see `trawl crawl list`)"),
            )
        })?;
        let options: CrawlOptions = serde_json::from_value(record.options.clone())
            .map_err(|e| TrawlError::internal(format!("crawl {id}: stored options: {e}")))?;
        Ok((options, record.created_at))
    }

    /// Resumes a kept crawl in the background: nothing it stored is fetched again.
    pub async fn resume_in_background(
        &self,
        id: &str,
        observer: Option<Observer>,
    ) -> Result<RunningCrawl, TrawlError> {
        self.resume_extended(id, None, observer).await
    }

    /// [`Self::resume_in_background`], with the crawl's page limit raised to `limit` when
    /// that is more than it had: a crawl that stopped at its limit goes on from the URLs it
    /// left queued. A lower limit is refused (the pages are stored already).
    pub async fn resume_extended(
        &self,
        id: &str,
        limit: Option<usize>,
        observer: Option<Observer>,
    ) -> Result<RunningCrawl, TrawlError> {
        let journal = Journal::new(self.store.clone(), id.to_owned());
        if !journal.kept() {
            return Err(TrawlError::invalid_input(
                "this store does not keep crawls, so none can be resumed",
            ));
        }
        let record = journal.record().await?.ok_or_else(|| {
            TrawlError::new(
                trawl_core::ErrorCode::NotFound,
                format!("no crawl with id {id:?} (see `trawl crawl list`)"),
            )
        })?;
        let mut options: CrawlOptions = serde_json::from_value(record.options.clone())
            .map_err(|e| TrawlError::internal(format!("crawl {id}: stored options: {e}")))?;
        let mut record = record;
        if let Some(limit) = limit.filter(|l| *l != options.limit) {
            if limit < options.limit {
                return Err(TrawlError::invalid_input(format!(
                    "crawl {id} has a limit of {} pages; a resume can raise it, not lower it",
                    options.limit
                )));
            }
            options.limit = limit;
            record.options = serde_json::to_value(&options).unwrap_or(record.options);
        }
        // A shared crawl is resumed by joining it: the rows stay in the store, claimed from
        // there; URLs a killed process held come back when their leases run out.
        let begin = if journal.shared() {
            Begin::Join
        } else {
            Begin::Resume(journal.urls().await?)
        };
        record.status = "running".into();
        record.updated_at = SystemTime::now();
        record.summary = owned_summary(record.summary);
        let created = record.created_at;
        journal.put(record).await?;
        journal.clear_cancel().await?;
        Ok(self.spawn(id.to_owned(), options, created, begin, observer))
    }

    /// Runs a new crawl to its end.
    pub async fn run(
        &self,
        options: CrawlOptions,
        observer: Option<Observer>,
    ) -> Result<CrawlSummary, TrawlError> {
        self.start(options, observer).await?.wait().await
    }

    /// Resumes a kept crawl and runs it to its end.
    pub async fn resume(
        &self,
        id: &str,
        observer: Option<Observer>,
    ) -> Result<CrawlSummary, TrawlError> {
        self.resume_in_background(id, observer).await?.wait().await
    }

    fn spawn(
        &self,
        id: String,
        options: CrawlOptions,
        created: SystemTime,
        begin: Begin,
        observer: Option<Observer>,
    ) -> RunningCrawl {
        let cancel = CancellationToken::new();
        let this = self.clone();
        let token = cancel.clone();
        let crawl_id = id.clone();
        let task = tokio::spawn(async move {
            run::drive(this, crawl_id, options, created, begin, observer, token).await
        });
        RunningCrawl { id, cancel, task }
    }

    pub(crate) fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    pub(crate) fn extract_options(&self) -> &ExtractOptions {
        &self.extract
    }

    /// The options of a changes-crawl against crawl `old`: its own (start URL, scope,
    /// limit, depth, filters, query…) naming it as the crawl compared with. `url`, when
    /// given, must be where `old` started. Refuses a crawl unknown or not ended.
    pub async fn changes_options(
        &self,
        old: &str,
        url: Option<&str>,
    ) -> Result<CrawlOptions, TrawlError> {
        let journal = Journal::new(self.store.clone(), old.to_owned());
        if !journal.kept() {
            return Err(TrawlError::invalid_input(
                "this store does not keep crawls, so none can be compared",
            ));
        }
        let record = journal.record().await?.ok_or_else(|| {
            TrawlError::new(
                ErrorCode::NotFound,
                format!("changes: no crawl with id {old:?} (see `trawl crawl list`)"),
            )
        })?;
        if record.status == "running" {
            return Err(TrawlError::invalid_input(format!(
                "changes: crawl {old} has not ended (it is running, or was stopped mid-way: `trawl crawl --resume {old}` finishes it); compare with an ended crawl"
            )));
        }
        let mut options: CrawlOptions = serde_json::from_value(record.options)
            .map_err(|e| TrawlError::internal(format!("crawl {old}: stored options: {e}")))?;
        if let Some(url) = url {
            let given = self.fetcher.guard().check_raw(url, None)?;
            let start = self.fetcher.guard().check_raw(&options.url, None)?;
            if canonical_url(&given) != canonical_url(&start) {
                return Err(TrawlError::invalid_input(format!(
                    "changes: crawl {old} started at {start}, not {given}; give that URL, or none"
                )));
            }
        }
        options.changes_of = Some(old.to_owned());
        Ok(options)
    }
}

/// `summary` (an object, or nothing yet) naming this process as the crawl's owner.
fn owned_summary(summary: serde_json::Value) -> serde_json::Value {
    let mut summary = match summary {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    match crate::owner::this_process() {
        Some(me) => summary.insert("owner".into(), me.into()),
        None => summary.remove("owner"),
    };
    serde_json::Value::Object(summary)
}

/// How a run of a crawl begins.
pub(crate) enum Begin {
    /// A new crawl: seed it.
    New,
    /// A kept crawl (not shared): its rows, read back.
    Resume(Vec<CrawlUrl>),
    /// A shared crawl other processes work on: claim from the store.
    Join,
}
