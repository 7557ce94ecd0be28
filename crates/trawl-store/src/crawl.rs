//! Crawl state: what a crawl keeps so that it survives its process — the crawl's record
//! (its options, status and summary), and every URL it has seen with where it stands
//! (queued, being fetched, done, failed, skipped). The rows of one crawl are its seen set;
//! the queued ones its frontier; the done ones its results.
//!
//! A backend offers it through [`Store::crawl_state`](crate::Store::crawl_state); one that
//! does not answers `None` and a crawl there cannot be kept or resumed.
//!
//! Several workers (processes sharing one Redis) work on one crawl through *leases*:
//! [`CrawlStore::claim_crawl_urls`] hands each queued URL to exactly one worker for a
//! while, [`CrawlStore::renew_crawl_leases`] keeps it, [`CrawlStore::settle_crawl_url`]
//! records the outcome only while the lease is still that worker's, and a lease that runs
//! out (its worker died) puts the URL back in the queue at the next claim.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::Result;

/// Where one URL of a crawl stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UrlState {
    /// Waiting in the frontier.
    Queued,
    /// Handed to a fetch that has not finished (a crawl killed now left it so).
    Fetching,
    /// Fetched and stored.
    Done,
    /// Fetched, but the fetch or extraction failed.
    Failed,
    /// Not fetched, on purpose (a trap guard, robots.txt, out of the include/exclude
    /// filters, a duplicate); `detail` says which.
    Skipped,
}

impl UrlState {
    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            UrlState::Queued => "queued",
            UrlState::Fetching => "fetching",
            UrlState::Done => "done",
            UrlState::Failed => "failed",
            UrlState::Skipped => "skipped",
        }
    }

    /// The state named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "queued" => UrlState::Queued,
            "fetching" => UrlState::Fetching,
            "done" => UrlState::Done,
            "failed" => UrlState::Failed,
            "skipped" => UrlState::Skipped,
            _ => return None,
        })
    }
}

/// One crawl as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrawlRecord {
    /// The crawl's id.
    pub id: String,
    /// The URL it started from.
    pub start_url: String,
    /// `running`, `done`, `cancelled`, `failed`, … (the crawler's words).
    pub status: String,
    /// The options it runs with (opaque to the store), so it can be resumed.
    pub options: serde_json::Value,
    /// Its latest summary (opaque to the store).
    pub summary: serde_json::Value,
    /// When it was created.
    pub created_at: SystemTime,
    /// When it was last written.
    pub updated_at: SystemTime,
    /// Someone asked it to stop (`trawl crawl cancel`); the running crawl sees this.
    pub cancel_requested: bool,
}

/// One URL a crawl has seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrawlUrl {
    /// The canonical form, which decides sameness (one row per key and crawl).
    pub key: String,
    /// The URL to fetch, as discovered.
    pub url: String,
    /// Links followed from the start (0 for the start URL).
    pub depth: u32,
    /// Higher is fetched first (breadth-first uses minus the depth).
    pub priority: f64,
    /// The crawler's trap counter (how many pages of the same URL shape led here).
    pub run: u32,
    /// Where it stands.
    pub state: UrlState,
    /// The stored document's handle, once done.
    pub handle: Option<String>,
    /// The page's title, once done.
    pub title: Option<String>,
    /// Words of its main content, once done.
    pub words: u64,
    /// HTTP status of the answer.
    pub status: Option<u16>,
    /// Why it failed or was skipped.
    pub detail: Option<String>,
}

/// A URL's new standing after a fetch (or a decision not to fetch).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrlOutcome {
    /// Handle of the stored document.
    pub handle: Option<String>,
    /// The page's title.
    pub title: Option<String>,
    /// Words of its main content.
    pub words: u64,
    /// HTTP status.
    pub status: Option<u16>,
    /// Why it failed or was skipped.
    pub detail: Option<String>,
}

/// A URL taken from the queue by [`CrawlStore::claim_crawl_urls`].
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedUrl {
    /// The URL, now `fetching` under the claimer's lease.
    pub url: CrawlUrl,
    /// It was leased before and that lease ran out: its worker may have stored the page
    /// before it died, so look for the document before fetching again.
    pub lapsed: bool,
}

/// The crawl-state calls of a store. Each is one short transaction. A page's links and
/// change are kept beside its row ([`CrawlNotes`](crate::CrawlNotes)).
pub trait CrawlStore: crate::CrawlNotes + Send + Sync {
    /// Whether several processes can work on one crawl in this store at once (a shared
    /// Redis): crawlers then take URLs by claims rather than from a frontier in memory.
    fn shares_work(&self) -> bool {
        false
    }

    /// Creates or replaces a crawl's record (not its URLs).
    fn put_crawl(&self, record: &CrawlRecord) -> Result<()>;

    /// The crawl with this id.
    fn get_crawl(&self, id: &str) -> Result<Option<CrawlRecord>>;

    /// Every kept crawl, newest first.
    fn crawls(&self) -> Result<Vec<CrawlRecord>>;

    /// Asks a crawl to stop; `false` when there is no such crawl.
    fn request_cancel(&self, id: &str) -> Result<bool>;

    /// Withdraws a stop request (a resumed crawl runs again).
    fn clear_cancel(&self, id: &str) -> Result<()>;

    /// Adds URLs to a crawl's seen set (and those marked queued to its frontier); a key
    /// already seen is left as it is. Returns how many were new.
    fn add_crawl_urls(&self, id: &str, urls: &[CrawlUrl]) -> Result<usize>;

    /// The keys among `keys` that a crawl has seen (in any state), in the order given: a
    /// crawler that keeps only part of its seen set in memory asks here about the rest.
    fn known_crawl_urls(&self, id: &str, keys: &[String]) -> Result<Vec<String>>;

    /// Moves URLs (by key) to `state`, with the same outcome for each.
    fn set_crawl_url_state(
        &self,
        id: &str,
        keys: &[String],
        state: UrlState,
        outcome: &UrlOutcome,
    ) -> Result<()>;

    /// URLs of a crawl in any of `states` (all when empty), in the order they were seen,
    /// from `offset`, at most `limit` (0 = all).
    fn crawl_urls(
        &self,
        id: &str,
        states: &[UrlState],
        offset: usize,
        limit: usize,
    ) -> Result<Vec<CrawlUrl>>;

    /// How many URLs of a crawl are in each state.
    fn crawl_url_counts(&self, id: &str) -> Result<Vec<(UrlState, u64)>>;

    /// Removes a crawl and its URLs (the documents it stored stay); `false` when absent.
    fn delete_crawl(&self, id: &str) -> Result<bool>;

    /// Takes up to `n` queued URLs of a crawl for `worker`, highest priority first, each
    /// leased to it for `lease` and moved to `fetching`. Leases that ran out go back to the
    /// queue first. With `limit` above 0, no more are taken than `limit` less the URLs
    /// done and being fetched (the crawl's page budget, across all its workers).
    fn claim_crawl_urls(
        &self,
        id: &str,
        worker: &str,
        n: usize,
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<ClaimedUrl>>;

    /// Extends `worker`'s leases on `keys` by `lease` from now; returns how many it still
    /// held.
    fn renew_crawl_leases(
        &self,
        id: &str,
        worker: &str,
        keys: &[String],
        lease: Duration,
    ) -> Result<usize>;

    /// Moves a URL `worker` holds to `state` with `outcome` (`queued` gives it back);
    /// `false`, and nothing written, when the URL is no longer leased to `worker` (its lease
    /// ran out and another worker took it, or it was settled already).
    fn settle_crawl_url(
        &self,
        id: &str,
        worker: &str,
        key: &str,
        state: UrlState,
        outcome: &UrlOutcome,
    ) -> Result<bool>;

    /// Ends a crawl still `running` with `status` and `summary`; `false` when it had ended
    /// already (another worker ended it) or does not exist. So a crawl ends once, however
    /// many workers see it finish.
    fn end_crawl(&self, id: &str, status: &str, summary: &serde_json::Value) -> Result<bool>;
}
