//! The values that go in and out of a [`Store`](crate::Store), and its configuration.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::Serialize;
use sha2::{Digest, Sha256};
use trawl_core::Document;

/// A stored document: the read result plus what is needed to decide whether to read again.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentRecord {
    /// The read result itself (its `handle` is the key).
    pub document: Document,
    /// [`content_hash`] of the document's Markdown: tells a changed page from a re-fetch.
    pub content_hash: String,
    /// When the origin last answered for this copy (a fetch or a 304).
    pub fetched_at: SystemTime,
    /// After this the copy is stale (still served `--offline`, revalidated otherwise).
    /// `None` never goes stale.
    pub expires_at: Option<SystemTime>,
    /// The `ETag` response header, for `If-None-Match`.
    pub etag: Option<String>,
    /// The `Last-Modified` response header, for `If-Modified-Since`.
    pub last_modified: Option<String>,
}

impl DocumentRecord {
    /// A record for a document just read at `fetched_at`, with its hash computed and no
    /// validators; the store's default TTL applies unless `expires_at` is set.
    pub fn new(document: Document, fetched_at: SystemTime) -> Self {
        let content_hash = content_hash(&document.markdown);
        Self {
            document,
            content_hash,
            fetched_at,
            expires_at: None,
            etag: None,
            last_modified: None,
        }
    }

    /// The handle it is stored under.
    pub fn handle(&self) -> &str {
        &self.document.handle
    }

    /// Whether the copy can be served without asking the origin again.
    pub fn is_fresh(&self, now: SystemTime) -> bool {
        self.expires_at.is_none_or(|expires| now < expires)
    }
}

/// What a 304 Not Modified changes on a stored document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revalidation {
    /// When the 304 arrived.
    pub fetched_at: SystemTime,
    /// `None` applies the store's default TTL from `fetched_at`.
    pub expires_at: Option<SystemTime>,
    /// New validators; `None` keeps the stored one.
    pub etag: Option<String>,
    /// New `Last-Modified`; `None` keeps the stored one.
    pub last_modified: Option<String>,
}

/// A passage of a document as stored for find: the pager's page it sits on, the heading
/// it sits under, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// 1-based page number under the default page size.
    pub page: u32,
    /// Heading path above the passage (may be empty).
    pub heading: String,
    /// The passage's text (Markdown).
    pub text: String,
    /// Where `text` sits in the document's Markdown, in bytes, when it is exactly that
    /// slice: the SQLite store then keeps the range and reads the text from the document,
    /// not a second copy of it.
    pub range: Option<std::ops::Range<usize>>,
}

/// Where [`Store::find`](crate::Store::find) looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindScope<'a> {
    /// Only the document with this handle.
    Document(&'a str),
    /// Every stored document.
    All,
}

/// A passage that matched a find query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassageHit {
    /// The document it belongs to.
    pub handle: String,
    /// 1-based page under the default page size.
    pub page: u32,
    /// Heading path above it.
    pub heading: String,
    /// The whole passage.
    pub text: String,
    /// Relevance (BM25); higher is better. Comparable only within one answer.
    pub score: f64,
}

/// A cached search answer.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedSearch {
    /// The answer as it was cached.
    pub value: serde_json::Value,
    /// When it was cached.
    pub stored_at: SystemTime,
}

/// The stored state of one provider key.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyState {
    /// [`key_fingerprint`] of the key.
    pub fingerprint: String,
    /// Whatever the key rotation keeps (health, cooldown, recovery times).
    pub state: serde_json::Value,
    /// When the state was last written.
    pub updated_at: SystemTime,
}

/// The reader or tier that last worked for a site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteReader {
    /// The reader or tier name, as the caller recorded it.
    pub reader: String,
    /// When it last worked, or when it was pinned.
    pub updated_at: SystemTime,
    /// Set by the user (`trawl sites pin`): reads start there, what works elsewhere does
    /// not replace it, and it does not expire.
    pub pinned: bool,
}

/// How often one tier or reader worked, and failed, for a site.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TierStat {
    /// The tier or reader name (`http`, `render`, `jina`, …).
    pub reader: String,
    /// Reads it answered.
    pub ok: u64,
    /// Reads it failed (blocked, timed out, too thin, …).
    pub failed: u64,
}

/// The parts of a store that [`Store::clear`](crate::Store::clear) can empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// Documents and their passages.
    Documents,
    /// Cached search answers.
    SearchCache,
    /// Provider key health. Clearing it forgets invalid and exhausted keys.
    KeyState,
    /// Which reader worked for which site.
    SiteMemory,
    /// Kept crawls: their records, URL rows, leases and page notes (the pages they stored
    /// are documents).
    Crawls,
}

impl Section {
    /// Every section, for "clear everything".
    pub const ALL: [Section; 5] = [
        Section::Documents,
        Section::SearchCache,
        Section::KeyState,
        Section::SiteMemory,
        Section::Crawls,
    ];

    /// The name the CLI uses: `documents`, `search`, `keys`, `sites`, `crawls`.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Documents => "documents",
            Section::SearchCache => "search",
            Section::KeyState => "keys",
            Section::SiteMemory => "sites",
            Section::Crawls => "crawls",
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Section {
    type Err = String;

    /// Parses [`Section::as_str`] names.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Section::ALL
            .into_iter()
            .find(|section| section.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown store section `{s}` (expected documents, search, keys, sites or crawls)"
                )
            })
    }
}

/// Counts and sizes, as `trawl cache stats` shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoreStats {
    /// Where the store lives (a path, `:memory:`, a Redis URL without credentials).
    pub location: String,
    /// Schema version of the stored data.
    pub schema_version: u32,
    /// Stored documents, fresh or stale.
    pub documents: u64,
    /// Documents past their `expires_at`.
    pub stale_documents: u64,
    /// Sum of the stored documents' serialized sizes.
    pub document_bytes: u64,
    /// Indexed passages.
    pub passages: u64,
    /// Cached searches, expired or not.
    pub search_entries: u64,
    /// Cached searches past their TTL (removed by `prune`).
    pub expired_search_entries: u64,
    /// Stored provider key states.
    pub key_states: u64,
    /// Sites with a remembered reader.
    pub sites: u64,
    /// Space the store takes on its medium, when it can tell.
    pub size_bytes: Option<u64>,
}

/// What [`Store::prune`](crate::Store::prune) removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PruneReport {
    /// Documents stale for longer than [`StoreConfig::stale_retention`].
    pub expired_documents: u64,
    /// Oldest documents evicted to get under [`StoreConfig::max_document_bytes`].
    pub evicted_documents: u64,
    /// Cached searches past their TTL.
    pub expired_searches: u64,
    /// Site memories older than [`StoreConfig::site_memory_ttl`].
    pub forgotten_sites: u64,
}

/// Where "now" comes from. The system clock in real use; tests move a hand-set clock.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> SystemTime + Send + Sync>);

impl Clock {
    /// `SystemTime::now`.
    pub fn system() -> Self {
        Self(Arc::new(SystemTime::now))
    }

    /// Any function as the clock (tests: an `AtomicI64` of milliseconds behind a closure).
    pub fn from_fn(now: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        Self(Arc::new(now))
    }

    /// The current time by this clock.
    pub fn now(&self) -> SystemTime {
        (self.0)()
    }
}

impl Default for Clock {
    fn default() -> Self {
        Self::system()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Clock")
    }
}

/// Bounds, TTLs and timeouts. For every duration and size, 0 means "no limit".
#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// How long a read stays fresh when the caller sets no expiry. Default 24 h.
    pub document_ttl: Duration,
    /// How long a stale document is kept (for `--offline` and revalidation) before
    /// `prune` drops it. Default 30 days.
    pub stale_retention: Duration,
    /// How long a cached search answers. Default 15 min.
    pub search_ttl: Duration,
    /// Upper bound on the stored documents' total serialized size; above it the oldest
    /// reads are evicted (on write and on prune). Default 512 MiB. The SQLite file takes
    /// about three times this: each document's JSON holds both Markdown and plain text,
    /// and its passages are stored again with their full-text index.
    pub max_document_bytes: u64,
    /// How long a site's last working reader is remembered. Default 30 days.
    pub site_memory_ttl: Duration,
    /// How long a call waits for another writer before failing with
    /// [`Error::Busy`](crate::Error::Busy). Default 5 s.
    pub busy_timeout: Duration,
    /// Where "now" comes from (TTLs, `stored_at`, `updated_at`).
    pub clock: Clock,
}

impl Default for StoreConfig {
    fn default() -> Self {
        const DAY: u64 = 24 * 60 * 60;
        Self {
            document_ttl: Duration::from_secs(DAY),
            stale_retention: Duration::from_secs(30 * DAY),
            search_ttl: Duration::from_secs(15 * 60),
            max_document_bytes: 512 * 1024 * 1024,
            site_memory_ttl: Duration::from_secs(30 * DAY),
            busy_timeout: Duration::from_secs(5),
            clock: Clock::system(),
        }
    }
}

/// 32 hex digits of SHA-256 over the Markdown: equal hashes, same content.
pub fn content_hash(markdown: &str) -> String {
    hex(&Sha256::digest(markdown.as_bytes())[..16])
}

/// The name a provider key is stored under: 16 hex digits of a SHA-256 over the
/// provider and the key. Enough to tell a user's keys apart, useless for recovering
/// a (high-entropy) key; the key itself is never stored.
pub fn key_fingerprint(provider: &str, key: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"trawl key fingerprint\0");
    hasher.update(provider.as_bytes());
    hasher.update(b"\0");
    hasher.update(key.as_bytes());
    hex(&hasher.finalize()[..8])
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_the_first_half_of_sha256_in_lower_hex() {
        // SHA-256 of "" and of "abc" (FIPS 180-2's example), first 16 bytes.
        assert_eq!(content_hash(""), "e3b0c44298fc1c149afbf4c8996fb924");
        assert_eq!(content_hash("abc"), "ba7816bf8f01cfea414140de5dae2223");
        assert_eq!(key_fingerprint("p", "k").len(), 16);
    }
}
