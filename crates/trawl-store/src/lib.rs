//! trawl-store: what trawl has read, kept and searchable.
//!
//! The [`Store`] trait holds five things: documents by handle (the serialized
//! [`trawl_core::Document`] plus its HTTP validators and freshness), the document's
//! passages for full-text find (BM25 ranked, within one document or across all), a
//! short-lived search-result cache keyed by a normalized request string, opaque
//! provider key state (never the key itself, see [`key_fingerprint`]), and per-site
//! memory of which read tier or reader worked last. Backends may also keep crawl state
//! ([`CrawlStore`]) and older copies of documents for change tracking ([`VersionStore`]).
//!
//! [`SqliteStore`] is the embedded default (bundled SQLite, WAL, FTS5). `RedisStore` is
//! the shared backend for several `trawl serve` replicas (one Redis, every key under a
//! prefix, writes made atomic by Lua scripts, passages found through an inverted index
//! kept in Redis and ranked with BM25 in trawl: see `RedisStore` for why), with
//! `RedisSlots`, its global rate-limit slots behind trawl-core's
//! [`SharedLimiter`](trawl_core::SharedLimiter). Both pass the same behaviour suite
//! (`tests/store`), run once per backend. While a Redis is down its calls fail at once
//! with [`Error::Unavailable`] (retryable) instead of each waiting for a connection.
//!
//! A process says which store it wants as plain data, a [`StoreChoice`] (a SQLite file,
//! memory, or a Redis with its [`StoreFallback`]), and opens it with the one opener,
//! [`open()`], which also decides what stands in when the chosen store cannot serve.
//!
//! # Features
//!
//! - `redis` (default): the Redis backend (`RedisStore`, `RedisSlots`), through the
//!   `redis` and `r2d2` crates. Without it a [`StoreChoice::Redis`] fails to open (or
//!   falls back to memory, as its fallback says).
//!
//! # Sync trait, async callers
//!
//! [`Store`] is a plain synchronous, object-safe trait. Every call is one short
//! transaction (well under a millisecond for the common calls), rusqlite is synchronous,
//! and a sync trait is the easiest thing to implement twice and to test. Async code goes
//! through [`SharedStore::run`], which moves a closure onto tokio's blocking pool, so
//! several calls can share one hop and no executor thread ever waits on a lock:
//!
//! ```
//! # async fn demo() -> Result<(), trawl_store::Error> {
//! use trawl_store::{SharedStore, SqliteStore, StoreConfig};
//! let store = SharedStore::new(SqliteStore::open(":memory:", StoreConfig::default())?);
//! let hit = store.run(|s| s.get_document("example.com~0123456789ab")).await?;
//! assert!(hit.is_none());
//! # Ok(()) }
//! ```

#![deny(unsafe_code)] // allowed only in sqlite::porter (FTS5's tokenizer C API)

mod backoff;
mod choice;
mod crawl;
mod crawl_notes;
mod error;
mod link_lines;
mod metered;
mod open;
#[cfg(feature = "redis")]
mod redis_store;
mod sqlite;
mod types;
mod versions;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

pub use backoff::{HostBackoffStore, StoredBackoff};
pub use choice::{DEFAULT_REDIS_PREFIX, StoreChoice, StoreFallback, redact_url};
pub use crawl::{ClaimedUrl, CrawlRecord, CrawlStore, CrawlUrl, UrlOutcome, UrlState};
pub use crawl_notes::{CrawlNotes, KeptLink, KeptLinks, PageNotes};
pub use error::Error;
pub use metered::{MeteredStore, render_metrics};
pub use open::{OpenedStore, StandIn, WhenUnwritable, open};
#[cfg(feature = "redis")]
pub use redis_store::{ConnectionStats, RedisSlots, RedisStore, SlotLease};
pub use sqlite::SqliteStore;
/// At most this many sites may be pinned: pins are never evicted, so their number is bounded.
pub const MAX_PINNED_SITES: usize = 1_000;

/// What one pin is charged against the store's size bound: more than a pin's row takes
/// (a site name of at most 253 characters, a reader's name, two numbers).
pub const PIN_CHARGE_BYTES: u64 = 512;

pub use types::{
    CachedSearch, Clock, DocumentRecord, FindScope, KeyState, Passage, PassageHit, PruneReport,
    Revalidation, Section, SiteReader, StoreConfig, StoreStats, TierStat, content_hash,
    key_fingerprint,
};
pub use versions::{MAX_VERSIONS, VersionInfo, VersionStore};

/// Result of every store call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where trawl keeps what it read. Implementations must be safe to share between threads
/// and between processes pointing at the same location.
///
/// Times come from the store's [`Clock`] (see [`StoreConfig::clock`]), so TTLs can be
/// tested without waiting.
pub trait Store: Send + Sync + fmt::Debug {
    /// Stores (or replaces) a document and its passages in one atomic write.
    ///
    /// When `record.expires_at` is `None`, the store sets it to `fetched_at` plus
    /// [`StoreConfig::document_ttl`] (or leaves it `None`, never stale, when that TTL is 0).
    fn put_document(&self, record: &DocumentRecord, passages: &[Passage]) -> Result<()>;

    /// The document with this handle, fresh or stale (check [`DocumentRecord::is_fresh`]):
    /// a stale copy still answers `--offline` and carries the validators for a conditional
    /// request.
    fn get_document(&self, handle: &str) -> Result<Option<DocumentRecord>>;

    /// The most recently fetched document whose requested or final URL is exactly `url`.
    fn get_document_by_url(&self, url: &str) -> Result<Option<DocumentRecord>>;

    /// Marks a stored document as revalidated (a 304 answered a conditional request):
    /// new `fetched_at`, expiry and validators, same content. `false` if the handle is
    /// not stored.
    fn revalidate_document(&self, handle: &str, revalidation: &Revalidation) -> Result<bool>;

    /// Removes a document and its passages. `false` if it was not stored.
    fn delete_document(&self, handle: &str) -> Result<bool>;

    /// Passages matching `query`, best first, at most `limit` (0 = all).
    ///
    /// `query` is plain words (and `"quoted phrases"`), not a backend query language:
    /// passages holding all the words come first; when none do, passages holding any.
    fn find(&self, query: &str, scope: FindScope<'_>, limit: usize) -> Result<Vec<PassageHit>>;

    /// A cached search answer, unless it has expired.
    fn get_search(&self, key: &str) -> Result<Option<CachedSearch>>;

    /// Caches a search answer under `key` (a normalized request string) for `ttl`, or for
    /// [`StoreConfig::search_ttl`] when `ttl` is `None`. A zero TTL never expires.
    fn put_search(&self, key: &str, value: &serde_json::Value, ttl: Option<Duration>)
    -> Result<()>;

    /// The stored state of one provider key, by [`key_fingerprint`].
    fn get_key_state(&self, provider: &str, fingerprint: &str) -> Result<Option<KeyState>>;

    /// Replaces the state of one provider key. `state` is opaque to the store.
    fn put_key_state(
        &self,
        provider: &str,
        fingerprint: &str,
        state: &serde_json::Value,
    ) -> Result<()>;

    /// Every stored key state of one provider.
    fn key_states(&self, provider: &str) -> Result<Vec<KeyState>>;

    /// Which reader or tier last worked for `site` (a host or registrable domain; the
    /// caller decides which, and must use the same form when asking).
    fn get_site_reader(&self, site: &str) -> Result<Option<SiteReader>>;

    /// Records that `reader` (e.g. `http`, `impersonate`, `jina`) worked for `site`. A
    /// pinned site keeps its pin.
    fn put_site_reader(&self, site: &str, reader: &str) -> Result<()>;

    /// Pins `reader` for `site`: reads start there whatever worked last, and it does not
    /// expire until the site is forgotten.
    fn pin_site_reader(&self, site: &str, reader: &str) -> Result<()>;

    /// Every remembered site (expired ones left out), by site name.
    fn site_readers(&self) -> Result<Vec<(String, SiteReader)>>;

    /// Forgets what is remembered (or pinned) for `site`, its tier counts included;
    /// whether there was anything.
    fn forget_site(&self, site: &str) -> Result<bool>;

    /// Counts one read's attempts for `site`: each `(reader, worked)` adds one to that
    /// tier's or reader's `ok` or `failed`.
    fn count_site_attempts(&self, site: &str, attempts: &[(String, bool)]) -> Result<()>;

    /// The tier counts of `site` (expired ones left out), by reader name.
    fn site_tier_stats(&self, site: &str) -> Result<Vec<TierStat>>;

    /// Counts and sizes, for `trawl cache stats` and `doctor`.
    fn stats(&self) -> Result<StoreStats>;

    /// Empties the given sections; returns how many entries were removed.
    fn clear(&self, sections: &[Section]) -> Result<u64>;

    /// Drops what is past its retention (long-stale documents, expired searches, old site
    /// memory) and evicts the oldest documents above the size bound.
    fn prune(&self) -> Result<PruneReport>;

    /// The crawl-state calls (see [`CrawlStore`]), when this backend keeps crawls; `None`
    /// otherwise (a crawl then runs but cannot be kept or resumed).
    fn crawl_state(&self) -> Option<&dyn CrawlStore> {
        None
    }

    /// The hosts' back-off calls (see [`HostBackoffStore`]), when this backend keeps them;
    /// `None` otherwise (back-off then holds in each process only).
    fn backoffs(&self) -> Option<&dyn HostBackoffStore> {
        None
    }

    /// The older-copy calls (see [`VersionStore`]), when this backend keeps versions;
    /// `None` otherwise (a change-tracking read then keeps no older copy).
    fn versions(&self) -> Option<&dyn VersionStore> {
        None
    }

    /// Runs `jobs` in order on this thread (each makes its own calls on this store) and
    /// answers each one's result. A backend that can commits them together (SQLite: one
    /// transaction, each job in a savepoint, so a failed job leaves none of its writes and
    /// the others are kept; when the commit itself fails, every job fails); the default
    /// runs them one by one.
    fn batch(&self, jobs: Vec<BatchJob<'_>>) -> Vec<Result<()>> {
        jobs.into_iter().map(|job| job()).collect()
    }
}

/// One job of a [`Store::batch`].
pub type BatchJob<'a> = Box<dyn FnOnce() -> Result<()> + 'a>;

/// A [`Store`] shared by many tasks, with an async door onto the blocking pool.
#[derive(Clone, Debug)]
pub struct SharedStore(Arc<dyn Store>);

impl SharedStore {
    /// Wraps a store for sharing.
    pub fn new(store: impl Store + 'static) -> Self {
        Self(Arc::new(store))
    }

    /// Wraps an already shared store.
    pub fn from_arc(store: Arc<dyn Store>) -> Self {
        Self(store)
    }

    /// The store itself, for synchronous callers (or code already on a blocking thread).
    pub fn store(&self) -> &dyn Store {
        &*self.0
    }

    /// Runs `f` against the store on tokio's blocking pool. Put several calls in one
    /// closure to pay for one hop. A panic inside `f` is resumed in the caller.
    pub async fn run<T, F>(&self, f: F) -> Result<T>
    where
        F: FnOnce(&dyn Store) -> Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let store = Arc::clone(&self.0);
        match tokio::task::spawn_blocking(move || f(&*store)).await {
            Ok(result) => result,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(Error::Backend(Box::new(e))),
        }
    }
}

/// Milliseconds since the Unix epoch (negative before it), the stores' time unit.
pub(crate) fn to_millis(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// When something stored at `from` (ms) expires: `ttl` later, or never when `ttl` is 0.
pub(crate) fn expiry(from: i64, ttl: Duration) -> Option<i64> {
    (!ttl.is_zero()).then(|| from.saturating_add(duration_millis(ttl)))
}

pub(crate) fn from_millis(ms: i64) -> SystemTime {
    if ms >= 0 {
        SystemTime::UNIX_EPOCH + Duration::from_millis(ms.unsigned_abs())
    } else {
        SystemTime::UNIX_EPOCH - Duration::from_millis(ms.unsigned_abs())
    }
}

/// `ms` as a signed millisecond count, saturating.
pub(crate) fn duration_millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}
