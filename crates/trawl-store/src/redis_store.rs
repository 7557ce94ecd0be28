//! The shared store: one Redis (7, as Debian ships it; Valkey and managed Redis speak the
//! same protocol) behind every `trawl serve` replica.
//!
//! # Key layout (every key under the configured prefix `P`, default `trawl:`)
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P doc:{handle}` | hash | document JSON, URLs, hash, times, validators, generation |
//! | `P pass:{handle}` | hash | passage ordinal → passage JSON (page, heading, text, length) |
//! | `P dpost:{handle}` | set | the document's postings (`stem \t member`), to remove them |
//! | `P t:{stem}` | sorted set | postings: `handle#generation#ordinal` scored by term frequency |
//! | `P url:{url}` | string | handle of the latest document read from (or ending at) `url` |
//! | `P docs` | sorted set | handles by `fetched_at` (oldest first: eviction order) |
//! | `P docmeta`, `P meta` | hash | per-document and total passage counts, lengths, bytes |
//! | `P s:{key}` | hash | a cached search answer |
//! | `P k:{provider}` | hash | key fingerprint → key state JSON |
//! | `P site:{site}` | hash | site memory |
//! | `P pins` | set | the pinned sites (each charged against the size bound) |
//! | `P rl:{provider}:*` | zset, string | global rate-limit leases and GCRA cell |
//! | `P ver:{handle}` | hash | older copies kept by change tracking (`last`, `N` → JSON) |
//! | `P crawls`, `P crawl:{id}:*` | zset, hashes, zsets | crawl state: records, URLs, queue, leases (see `crawl`) |
//!
//! TTLs are Redis expirations: a document's keys expire `document_ttl + stale_retention`
//! after its read, a cached search after its TTL, a site memory after `site_memory_ttl`.
//! Freshness is still decided against the store's [`Clock`](crate::Clock) from the stored
//! times, so both backends answer alike; the expirations only reclaim space.
//!
//! # Why find ranks in trawl
//!
//! Debian's Redis has no RediSearch. trawl keeps an inverted index in plain Redis (a
//! sorted set of postings per stem, written in the same Lua script as the document) and
//! ranks the candidate passages it names with BM25 computed in the replica. Every
//! replica sees every write at once (no per-replica cache to warm or invalidate), the
//! index needs nothing but core Redis commands, and the cost of a find is the length of
//! the query terms' posting lists, not the size of the store. A per-replica cache warmed
//! from Redis was rejected: it answers stale until it is warmed, and a replica's memory
//! would grow with the whole store.

mod backoff;
mod connection;
mod crawl;
mod crawl_notes;
mod crawl_scripts;
mod find;
mod index;
mod limit;
mod scripts;
mod slots;
mod upkeep;
mod versions;

use std::collections::HashMap;
use std::time::Duration;

use redis::{Commands, Connection, FromRedisValue};
use rust_stemmers::Stemmer;
use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::Document;

use crate::error::Error;
use crate::redact_url;
use crate::{
    CachedSearch, DocumentRecord, FindScope, KeyState, Passage, PassageHit, PruneReport, Result,
    Revalidation, Section, SiteReader, Store, StoreConfig, StoreStats, TierStat, duration_millis,
    from_millis, to_millis,
};
pub use connection::ConnectionStats;
use connection::Connections;
pub use limit::SlotLease;
pub use slots::RedisSlots;

/// The schema version of the Redis layout, kept at `P version`.
const SCHEMA_VERSION: u32 = 1;

/// The Redis [`Store`], shared by every replica pointing at the same Redis and prefix.
///
/// Documents and their passages are written by one Lua script (atomic); TTLs are Redis
/// expirations; every key starts with the prefix. `find` ranks with BM25 computed in
/// trawl over candidate passages named by an inverted index kept in Redis (one sorted set
/// of postings per stem), because Debian's Redis has no RediSearch: every replica sees
/// every write at once, only core commands are needed, and a find costs the length of its
/// terms' posting lists. A per-replica index warmed from Redis was rejected: it answers
/// stale until warmed and grows each replica's memory with the whole store.
///
/// [`RedisStore::try_acquire_slot`] gives per-provider rate-limit slots that hold across
/// replicas (GCRA spacing plus an in-flight cap, one Lua script, Redis's clock).
pub struct RedisStore {
    conns: Connections,
    prefix: String,
    location: String,
    config: StoreConfig,
    stemmer: Stemmer,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("location", &self.location)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl From<redis::RedisError> for Error {
    fn from(e: redis::RedisError) -> Self {
        Error::Backend(Box::new(e))
    }
}

/// A passage as kept in `P pass:{handle}`.
#[derive(Serialize, Deserialize)]
struct StoredPassage {
    page: u32,
    heading: String,
    text: String,
    len: u32,
}

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`), checks
    /// it answers and that its data under `prefix` is a layout this build understands.
    /// Fails with [`Error::Open`] naming the URL (credentials masked) when Redis does not
    /// answer.
    pub fn open(url: &str, prefix: &str, config: StoreConfig) -> Result<Self> {
        let location = redact_url(url);
        let open_error = |e: Error| Error::Open {
            location: location.clone(),
            source: Box::new(e),
        };
        let client = redis::Client::open(url).map_err(|e| open_error(e.into()))?;
        // A lost Redis must cost a read little (the read then goes to the network): connecting
        // and waiting for a pooled connection give up fast, and an outage is remembered (see
        // `connection`); a command already sent may take up to the busy timeout (a large
        // SCAN for stats).
        let command_timeout = config.busy_timeout.max(Duration::from_secs(1));
        let store = Self {
            conns: Connections::new(client, command_timeout, location.clone()),
            prefix: prefix.to_owned(),
            location: location.clone(),
            config,
            stemmer: index::stemmer(),
        };
        store.check_version().map_err(|e| match e {
            Error::SchemaTooNew { .. } => e,
            other => open_error(other),
        })?;
        Ok(store)
    }

    fn check_version(&self) -> Result<()> {
        self.with_conn(|conn| {
            let key = self.key("version");
            let _: bool = conn.set_nx(&key, SCHEMA_VERSION)?;
            let found: u32 = conn.get(&key)?;
            Ok(found)
        })
        .and_then(|found| {
            if found > SCHEMA_VERSION {
                Err(Error::SchemaTooNew {
                    found,
                    supported: SCHEMA_VERSION,
                })
            } else {
                Ok(())
            }
        })
    }

    /// The URL it was opened with, credentials masked.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Round trip time of one PING, for `doctor`.
    pub fn ping(&self) -> Result<Duration> {
        let start = std::time::Instant::now();
        self.with_conn(|conn| Ok(redis::cmd("PING").query::<String>(conn)?))?;
        Ok(start.elapsed())
    }

    /// How its connections have fared: connects, pool timeouts, and since when Redis has
    /// not answered, if it does not.
    pub fn connection_stats(&self) -> ConnectionStats {
        self.conns.stats()
    }

    /// Runs `f` on a connection (see [`Connections::with_conn`]).
    fn with_conn<T>(&self, f: impl Fn(&mut Connection) -> Result<T>) -> Result<T> {
        self.conns.with_conn(f)
    }

    fn key(&self, rest: &str) -> String {
        format!("{}{rest}", self.prefix)
    }

    fn now(&self) -> i64 {
        to_millis(self.config.clock.now())
    }

    /// How long Redis should keep a document's keys: until its expiry plus the stale
    /// retention; `None` = for ever.
    fn document_ttl_ms(&self, expires_at: Option<i64>) -> Option<i64> {
        let retention = self.config.stale_retention;
        let expires_at = expires_at?;
        if retention.is_zero() {
            return None;
        }
        let ms = expires_at
            .saturating_sub(self.now())
            .saturating_add(duration_millis(retention));
        Some(ms.max(1))
    }

    fn decode_document(fields: HashMap<String, String>) -> Result<Option<DocumentRecord>> {
        let Some(body) = fields.get("body") else {
            return Ok(None);
        };
        let document: Document = serde_json::from_str(body).map_err(|source| Error::Decode {
            what: "document",
            source,
        })?;
        let number = |name: &str| fields.get(name).and_then(|v| v.parse::<i64>().ok());
        Ok(Some(DocumentRecord {
            document,
            content_hash: fields.get("content_hash").cloned().unwrap_or_default(),
            fetched_at: from_millis(number("fetched_at").unwrap_or(0)),
            expires_at: number("expires_at").map(from_millis),
            etag: fields.get("etag").cloned(),
            last_modified: fields.get("last_modified").cloned(),
        }))
    }

    fn delete_with(&self, conn: &mut Connection, handle: &str) -> Result<bool> {
        let existed: i64 = scripts::DELETE_DOCUMENT
            .arg(&self.prefix)
            .arg(handle)
            .invoke(conn)?;
        Ok(existed == 1)
    }
}

/// A Redis reply as `T`.
fn parse<T: FromRedisValue>(value: redis::Value) -> Result<T> {
    T::from_redis_value(value).map_err(|e| Error::Backend(Box::new(e)))
}

impl Store for RedisStore {
    fn versions(&self) -> Option<&dyn crate::VersionStore> {
        Some(self)
    }

    fn backoffs(&self) -> Option<&dyn crate::HostBackoffStore> {
        Some(self)
    }

    fn crawl_state(&self) -> Option<&dyn crate::CrawlStore> {
        Some(self)
    }

    fn put_document(&self, record: &DocumentRecord, passages: &[Passage]) -> Result<()> {
        let body = serde_json::to_string(&record.document).map_err(|e| Error::Backend(e.into()))?;
        let fetched_at = to_millis(record.fetched_at);
        let expires_at = match record.expires_at {
            Some(t) => Some(to_millis(t)),
            None => crate::expiry(fetched_at, self.config.document_ttl),
        };
        let doc = &record.document;
        let mut fields = vec![
            "body".to_owned(),
            body.clone(),
            "url".to_owned(),
            doc.url.clone(),
            "final_url".to_owned(),
            doc.final_url.clone(),
            "content_hash".to_owned(),
            record.content_hash.clone(),
            "fetched_at".to_owned(),
            fetched_at.to_string(),
            "expires_at".to_owned(),
            expires_at.map(|e| e.to_string()).unwrap_or_default(),
            "size".to_owned(),
            body.len().to_string(),
            "passages".to_owned(),
            passages.len().to_string(),
        ];
        for (name, value) in [
            ("etag", &record.etag),
            ("last_modified", &record.last_modified),
        ] {
            if let Some(v) = value {
                fields.push(name.to_owned());
                fields.push(v.clone());
            }
        }
        let mut stored = Vec::with_capacity(passages.len());
        let mut postings = Vec::new();
        let mut total_len = 0u64;
        for (ord, p) in passages.iter().enumerate() {
            let (tf, len) = index::passage_terms(&self.stemmer, &p.heading, &p.text);
            total_len += u64::from(len);
            for (stem, n) in tf {
                postings.push(json!([stem, ord, n]));
            }
            let passage = StoredPassage {
                page: p.page,
                heading: p.heading.clone(),
                text: p.text.clone(),
                len,
            };
            stored.push(serde_json::to_string(&passage).map_err(|e| Error::Backend(e.into()))?);
        }
        let payload = json!({
            "handle": record.handle(),
            "fields": fields,
            "passages": stored,
            "postings": postings,
            "plen": total_len,
            "size": body.len(),
            "fetched_at": fetched_at.to_string(),
            "url": doc.url,
            "final_url": doc.final_url,
            "ttl": self.document_ttl_ms(expires_at).map(|t| t.to_string()).unwrap_or_default(),
        })
        .to_string();
        self.with_conn(|conn| {
            let _: i64 = scripts::PUT_DOCUMENT
                .arg(&self.prefix)
                .arg(&payload)
                .invoke(conn)?;
            self.evict_over_bound(conn, Some(record.handle()))?;
            Ok(())
        })
    }

    fn get_document(&self, handle: &str) -> Result<Option<DocumentRecord>> {
        let fields: HashMap<String, String> =
            self.with_conn(|conn| Ok(conn.hgetall(self.key(&format!("doc:{handle}")))?))?;
        Self::decode_document(fields)
    }

    fn get_document_by_url(&self, url: &str) -> Result<Option<DocumentRecord>> {
        let Some(handle) = self.with_conn(|conn| {
            Ok(conn.get::<_, Option<String>>(self.key(&format!("url:{url}")))?)
        })?
        else {
            return Ok(None);
        };
        Ok(self
            .get_document(&handle)?
            .filter(|r| r.document.url == url || r.document.final_url == url))
    }

    fn revalidate_document(&self, handle: &str, revalidation: &Revalidation) -> Result<bool> {
        let fetched_at = to_millis(revalidation.fetched_at);
        let expires_at = match revalidation.expires_at {
            Some(t) => Some(to_millis(t)),
            None => crate::expiry(fetched_at, self.config.document_ttl),
        };
        let payload = json!({
            "handle": handle,
            "fetched_at": fetched_at.to_string(),
            "expires_at": expires_at.map(|e| e.to_string()).unwrap_or_default(),
            "etag": revalidation.etag,
            "last_modified": revalidation.last_modified,
            "ttl": self.document_ttl_ms(expires_at).map(|t| t.to_string()).unwrap_or_default(),
        })
        .to_string();
        let changed: i64 = self.with_conn(|conn| {
            Ok(scripts::REVALIDATE
                .arg(&self.prefix)
                .arg(&payload)
                .invoke(conn)?)
        })?;
        Ok(changed == 1)
    }

    fn delete_document(&self, handle: &str) -> Result<bool> {
        self.with_conn(|conn| self.delete_with(conn, handle))
    }

    fn find(&self, query: &str, scope: FindScope<'_>, limit: usize) -> Result<Vec<PassageHit>> {
        self.with_conn(|conn| self.find_candidates(conn, query, scope, limit))
    }

    fn get_search(&self, key: &str) -> Result<Option<CachedSearch>> {
        let fields: HashMap<String, String> =
            self.with_conn(|conn| Ok(conn.hgetall(self.key(&format!("s:{key}")))?))?;
        let (Some(value), Some(stored_at)) = (fields.get("value"), fields.get("stored_at")) else {
            return Ok(None);
        };
        let expires_at = fields.get("expires_at").and_then(|v| v.parse::<i64>().ok());
        if expires_at.is_some_and(|e| e <= self.now()) {
            return Ok(None);
        }
        Ok(Some(CachedSearch {
            value: serde_json::from_str(value).map_err(|source| Error::Decode {
                what: "search result",
                source,
            })?,
            stored_at: from_millis(stored_at.parse().unwrap_or(0)),
        }))
    }

    fn put_search(
        &self,
        key: &str,
        value: &serde_json::Value,
        ttl: Option<Duration>,
    ) -> Result<()> {
        let now = self.now();
        let ttl = ttl.unwrap_or(self.config.search_ttl);
        let expires_at = crate::expiry(now, ttl);
        let k = self.key(&format!("s:{key}"));
        let value = value.to_string();
        self.with_conn(|conn| {
            let mut pipe = redis::pipe();
            pipe.atomic()
                .del(&k)
                .ignore()
                .hset_multiple(
                    &k,
                    &[
                        ("value", value.as_str()),
                        ("stored_at", &now.to_string()),
                        (
                            "expires_at",
                            &expires_at.map(|e| e.to_string()).unwrap_or_default(),
                        ),
                    ],
                )
                .ignore();
            if !ttl.is_zero() {
                pipe.pexpire(&k, duration_millis(ttl)).ignore();
            }
            Ok(pipe.query::<()>(conn)?)
        })
    }

    fn get_key_state(&self, provider: &str, fingerprint: &str) -> Result<Option<KeyState>> {
        let raw: Option<String> =
            self.with_conn(|conn| Ok(conn.hget(self.key(&format!("k:{provider}")), fingerprint)?))?;
        raw.map(|raw| decode_key_state(fingerprint.to_owned(), &raw))
            .transpose()
    }

    fn put_key_state(
        &self,
        provider: &str,
        fingerprint: &str,
        state: &serde_json::Value,
    ) -> Result<()> {
        let raw = json!({"state": state, "updated_at": self.now()}).to_string();
        self.with_conn(|conn| {
            Ok(conn.hset::<_, _, _, ()>(self.key(&format!("k:{provider}")), fingerprint, &raw)?)
        })
    }

    fn key_states(&self, provider: &str) -> Result<Vec<KeyState>> {
        let all: HashMap<String, String> =
            self.with_conn(|conn| Ok(conn.hgetall(self.key(&format!("k:{provider}")))?))?;
        let mut states = all
            .into_iter()
            .map(|(fp, raw)| decode_key_state(fp, &raw))
            .collect::<Result<Vec<_>>>()?;
        states.sort_by(|a, b| a.fingerprint.cmp(&b.fingerprint));
        Ok(states)
    }

    fn get_site_reader(&self, site: &str) -> Result<Option<SiteReader>> {
        let fields: HashMap<String, String> =
            self.with_conn(|conn| Ok(conn.hgetall(self.key(&format!("site:{site}")))?))?;
        Ok(self.site_reader(&fields))
    }

    fn put_site_reader(&self, site: &str, reader: &str) -> Result<()> {
        let k = self.key(&format!("site:{site}"));
        let ttl = self.config.site_memory_ttl;
        let now = self.now().to_string();
        self.with_conn(|conn| {
            // A pin outlives what worked last. (A pin landing between this read and the
            // write below is overwritten; the user pins again.)
            let pinned: Option<String> = conn.hget(&k, "pinned")?;
            if pinned.as_deref() == Some("1") {
                return Ok(());
            }
            let mut pipe = redis::pipe();
            pipe.atomic()
                .hset_multiple(&k, &[("reader", reader), ("updated_at", &now)])
                .ignore();
            if ttl.is_zero() {
                pipe.persist(&k).ignore();
            } else {
                pipe.pexpire(&k, duration_millis(ttl)).ignore();
            }
            Ok(pipe.query::<()>(conn)?)
        })
    }

    fn pin_site_reader(&self, site: &str, reader: &str) -> Result<()> {
        let k = self.key(&format!("site:{site}"));
        let now = self.now().to_string();
        self.with_conn(|conn| {
            let mut pipe = redis::pipe();
            pipe.atomic()
                .hset_multiple(
                    &k,
                    &[("reader", reader), ("updated_at", &now), ("pinned", "1")],
                )
                .ignore()
                .persist(&k)
                .ignore()
                .sadd(self.key("pins"), site)
                .ignore();
            Ok(pipe.query::<()>(conn)?)
        })
    }

    fn site_readers(&self) -> Result<Vec<(String, SiteReader)>> {
        let strip = self.key("site:");
        let mut sites = self.with_conn(|conn| {
            let mut out = Vec::new();
            for k in self.scan(conn, "site:*")? {
                let fields: HashMap<String, String> = conn.hgetall(&k)?;
                if let (Some(site), Some(r)) = (k.strip_prefix(&strip), self.site_reader(&fields)) {
                    out.push((site.to_owned(), r));
                }
            }
            Ok(out)
        })?;
        sites.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(sites)
    }

    fn forget_site(&self, site: &str) -> Result<bool> {
        let keys = [
            self.key(&format!("site:{site}")),
            self.key(&format!("site-stats:{site}")),
        ];
        self.with_conn(|conn| {
            let (removed, _): (u64, u64) = redis::pipe()
                .atomic()
                .del(&keys)
                .srem(self.key("pins"), site)
                .query(conn)?;
            Ok(removed > 0)
        })
    }

    fn count_site_attempts(&self, site: &str, attempts: &[(String, bool)]) -> Result<()> {
        let k = self.key(&format!("site-stats:{site}"));
        let ttl = self.config.site_memory_ttl;
        self.with_conn(|conn| {
            let mut pipe = redis::pipe();
            pipe.atomic();
            for (reader, worked) in attempts {
                let field = format!("{reader}:{}", if *worked { "ok" } else { "failed" });
                pipe.hincr(&k, field, 1).ignore();
            }
            if ttl.is_zero() {
                pipe.persist(&k).ignore();
            } else {
                pipe.pexpire(&k, duration_millis(ttl)).ignore();
            }
            Ok(pipe.query::<()>(conn)?)
        })
    }

    fn site_tier_stats(&self, site: &str) -> Result<Vec<TierStat>> {
        let k = self.key(&format!("site-stats:{site}"));
        let fields: HashMap<String, u64> = self.with_conn(|conn| Ok(conn.hgetall(&k)?))?;
        let mut by_reader: std::collections::BTreeMap<String, TierStat> = Default::default();
        for (field, n) in fields {
            let Some((reader, what)) = field.rsplit_once(':') else {
                continue;
            };
            let s = by_reader
                .entry(reader.to_owned())
                .or_insert_with(|| TierStat {
                    reader: reader.to_owned(),
                    ok: 0,
                    failed: 0,
                });
            match what {
                "ok" => s.ok = n,
                "failed" => s.failed = n,
                _ => {}
            }
        }
        let mut out: Vec<TierStat> = by_reader.into_values().collect();
        // Most used first; the map's order keeps ties by name, as SQLite's ORDER BY does.
        out.sort_by_key(|t| std::cmp::Reverse(t.ok + t.failed));
        Ok(out)
    }

    fn stats(&self) -> Result<StoreStats> {
        self.count_everything()
    }

    fn clear(&self, sections: &[Section]) -> Result<u64> {
        self.clear_sections(sections)
    }

    fn prune(&self) -> Result<PruneReport> {
        self.prune_now()
    }
}

impl RedisStore {
    /// A site memory hash as a [`SiteReader`], unless it is incomplete or has expired
    /// (pins never expire).
    fn site_reader(&self, fields: &HashMap<String, String>) -> Option<SiteReader> {
        let reader = fields.get("reader")?;
        let updated_at = fields.get("updated_at")?.parse::<i64>().ok()?;
        let pinned = fields.get("pinned").is_some_and(|p| p == "1");
        let ttl = self.config.site_memory_ttl;
        if !pinned && !ttl.is_zero() && updated_at < self.now().saturating_sub(duration_millis(ttl))
        {
            return None;
        }
        Some(SiteReader {
            reader: reader.clone(),
            updated_at: from_millis(updated_at),
            pinned,
        })
    }
}

fn decode_key_state(fingerprint: String, raw: &str) -> Result<KeyState> {
    #[derive(Deserialize)]
    struct Raw {
        state: serde_json::Value,
        updated_at: i64,
    }
    let r: Raw = serde_json::from_str(raw).map_err(|source| Error::Decode {
        what: "key state",
        source,
    })?;
    Ok(KeyState {
        fingerprint,
        state: r.state,
        updated_at: from_millis(r.updated_at),
    })
}
