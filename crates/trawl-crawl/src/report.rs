//! What a crawl reports: each page's outcome, the counts as it runs, its summary at the
//! end, and the events an observer (a progress bar, JSON lines, MCP progress) receives.

use std::sync::Arc;

use serde::Serialize;

use crate::change_summary::ChangeSummary;
use crate::changes::PageChange;

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

fn is_zero(n: &u64) -> bool {
    *n == 0
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
    /// URLs met after the crawl held its most (see `trawl_crawl::url_budget`), not kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub over_budget: u64,
    /// Other things worth knowing (unreadable sitemaps, a store that keeps no crawls).
    pub notes: Vec<String>,
    /// A changes-crawl: what changed since the crawl it compares with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeSummary>,
    /// The process running it (see `owner.rs`), so a killed crawl is told from a running
    /// one at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
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

/// Hands `event` to the observer, if there is one.
pub(crate) fn emit(observer: &Option<Observer>, event: CrawlEvent<'_>) {
    if let Some(o) = observer {
        o(event);
    }
}
