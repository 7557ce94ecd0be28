//! The crawler's types, shared by `crawler.rs` (how a crawl is set up, started and its
//! state kept) and `run.rs` (the coordinating loop): the crawler itself, what a crawl
//! reports, and the loop's state. Their methods live in `crawler.rs`; this file imports
//! neither, so the two do not import each other.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use trawl_extract::ExtractOptions;
use trawl_fetch::Fetcher;
use trawl_store::SharedStore;

use crate::change_summary::ChangeSummary;
use crate::changes::{Baseline, PageChange};
use crate::dedup::Folder;
use crate::frontier::{Frontier, Seen};
use crate::journal::Journal;
use crate::options::CrawlOptions;
use crate::pace::Pacer;
use crate::rank::Query;
use crate::robots::Robots;
use crate::scope::Scope;

/// How often a running crawl writes its summary and looks for a cancel request.
pub(crate) const CHECK_EVERY: Duration = Duration::from_secs(1);

/// One page's outcome, as it is stored (or not).
#[derive(Debug, Clone, Serialize)]
pub struct CrawlPage {
    /// The URL fetched.
    pub url: String,
    /// Where it landed after redirects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// The stored document's handle (for `open`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Its title (page text: show it fenced).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Words of its main content.
    pub words: u64,
    /// Links followed from the start.
    pub depth: u32,
    /// HTTP status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// `done`, `failed` or `skipped`.
    pub status: &'static str,
    /// Why it failed or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// A changes-crawl: how it changed since the crawl compared with (`change_status`
    /// and, when changed, the lines and the version the old copy was kept as).
    #[serde(flatten)]
    pub change: Option<PageChange>,
    /// A changed page: the unified diff of its Markdown against the old copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// Counts while a crawl runs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CrawlProgress {
    /// Pages stored.
    pub done: u64,
    /// Pages whose fetch or extraction failed.
    pub failed: u64,
    /// Pages fetched but not kept (duplicates and near-duplicates of stored pages).
    pub duplicates: u64,
    /// URLs waiting.
    pub queued: u64,
    /// Pages being fetched or stored.
    pub in_flight: u64,
    /// The crawl's page limit.
    pub limit: u64,
    /// Since the crawl (or this resumption) started.
    pub elapsed_ms: u64,
}

/// What a crawl did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CrawlSummary {
    /// The crawl's id (`trawl crawl status ID`, `--resume ID`).
    pub id: String,
    /// Where it started.
    pub start_url: String,
    /// `done`, `cancelled` or `failed`.
    pub status: String,
    /// `breadth_first` or `best_first`.
    pub order: &'static str,
    /// Whether its state is kept in the store (and it can be resumed).
    pub kept: bool,
    /// How robots.txt was used: `obeyed`, or `ignored (--ignore-robots)`.
    pub robots: String,
    /// Per host: how its robots.txt came out.
    pub robots_hosts: Vec<String>,
    /// The pause kept between requests to the start host, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// The counts.
    pub progress: CrawlProgress,
    /// The page limit was reached with URLs still waiting.
    pub limit_reached: bool,
    /// Links not followed because they were deeper than `max_depth`.
    pub beyond_depth: u64,
    /// Links to other sites, not followed.
    pub off_site: u64,
    /// Links left out by include/exclude.
    pub filtered: u64,
    /// URLs robots.txt disallows, never requested.
    pub disallowed: u64,
    /// URLs stopped by a trap guard.
    pub traps: u64,
    /// A few of the trap reports.
    pub trap_examples: Vec<String>,
    /// Other things worth knowing (unreadable sitemaps, a store that keeps no crawls).
    pub notes: Vec<String>,
    /// A changes-crawl: what changed since the crawl it compares with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeSummary>,
}

/// What a crawl reports as it goes.
#[derive(Debug)]
pub enum CrawlEvent<'a> {
    /// A page was stored, failed, or was found to be a duplicate.
    Page(&'a CrawlPage, &'a CrawlProgress),
    /// The counts changed (sent at the start and after seeding).
    Progress(&'a CrawlProgress),
}

/// Receives a crawl's events (a progress bar, JSON lines, MCP progress notifications).
pub type Observer = Arc<dyn Fn(CrawlEvent<'_>) + Send + Sync>;

/// How long a URL claimed from a shared crawl stays leased without a renewal; a live
/// worker renews its leases every [`CHECK_EVERY`].
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// Crawls sites into a store.
#[derive(Debug, Clone)]
pub struct Crawler {
    pub(crate) fetcher: Fetcher,
    pub(crate) store: SharedStore,
    pub(crate) extract: ExtractOptions,
    /// The per-host gates, shared by every crawl this crawler (and its clones) runs.
    pub(crate) pacer: Arc<Pacer>,
    /// How long a claimed URL stays leased (shared crawls).
    pub(crate) lease: Duration,
}

/// The coordinating loop's view of the crawl; see `run.rs`.
pub(crate) struct State {
    pub(crate) id: String,
    pub(crate) options: CrawlOptions,
    pub(crate) scope: Scope,
    pub(crate) query: Option<Query>,
    pub(crate) frontier: Frontier,
    pub(crate) seen: Seen,
    /// Queued URLs whose rows are (or are about to be) in the store, to leave the seen set
    /// once those rows are written (see [`State::forget_written`]).
    pub(crate) to_forget: Vec<String>,
    /// Some URL this crawl has seen is in the store only: a URL not in `seen` may still be
    /// known, and the store is asked (see [`State::ask_store`]).
    pub(crate) forgets: bool,
    /// The keys the store knew of, among those of the page being taken.
    pub(crate) stored_only: HashSet<String>,
    /// URLs that left the seen set whose rows the committer holds, not yet committed: known
    /// without asking the store, until their batch is written.
    pub(crate) unwritten: Arc<std::sync::Mutex<HashSet<String>>>,
    pub(crate) folder: Folder,
    pub(crate) robots: HashMap<String, Arc<Robots>>,
    pub(crate) pacer: Arc<Pacer>,
    pub(crate) journal: Journal,
    pub(crate) summary: CrawlSummary,
    pub(crate) started: Instant,
    /// Its URLs are claimed from the store rather than popped from `frontier` (several
    /// processes work on it; see `Journal::shared`).
    pub(crate) shared: bool,
    /// Queued URLs in the store, as last counted (shared crawls).
    pub(crate) store_queued: u64,
    /// A changes-crawl: the pages of the crawl it compares with.
    pub(crate) baseline: Option<Arc<Baseline>>,
}
