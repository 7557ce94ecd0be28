//! Upkeep of the Redis store: stats, clear, prune, and the eviction of the oldest
//! documents above the size bound.

use redis::{Commands, Connection};

use super::RedisStore;
use crate::{PruneReport, Result, Section, StoreStats, duration_millis};

/// One entry of `P docs` as stats and prune see it.
struct DocumentSummary {
    handle: String,
    /// `None`: Redis already expired the document; `Some(None)`: it never goes stale.
    expiry: Option<Option<i64>>,
    size: u64,
    passages: u64,
}

impl RedisStore {
    /// Counts and sizes ([`Store::stats`]).
    pub(super) fn count_everything(&self) -> Result<StoreStats> {
        let now = self.now();
        self.with_conn(|conn| {
            let mut stats = StoreStats {
                location: self.location.clone(),
                schema_version: conn
                    .get::<_, Option<u32>>(self.key("version"))?
                    .unwrap_or(0),
                documents: 0,
                stale_documents: 0,
                document_bytes: 0,
                passages: 0,
                search_entries: 0,
                expired_search_entries: 0,
                key_states: 0,
                sites: 0,
                size_bytes: None,
            };
            for doc in self.documents_with_expiry(conn)? {
                let Some(expires_at) = doc.expiry else {
                    continue;
                };
                stats.documents += 1;
                stats.stale_documents += u64::from(expires_at.is_some_and(|e| e <= now));
                stats.document_bytes += doc.size;
                stats.passages += doc.passages;
            }
            let searches = self.scan(conn, "s:*")?;
            stats.search_entries = searches.len() as u64;
            let mut pipe = redis::pipe();
            for k in &searches {
                pipe.hget(k, "expires_at");
            }
            let expiries: Vec<Option<String>> = if searches.is_empty() {
                Vec::new()
            } else {
                pipe.query(conn)?
            };
            stats.expired_search_entries = expiries
                .iter()
                .filter(|e| {
                    e.as_deref()
                        .and_then(|v| v.parse::<i64>().ok())
                        .is_some_and(|e| e <= now)
                })
                .count() as u64;
            let providers = self.scan(conn, "k:*")?;
            for k in &providers {
                stats.key_states += conn.hlen::<_, u64>(k)?;
            }
            stats.sites = self.scan(conn, "site:*")?.len() as u64;
            Ok(stats)
        })
    }

    /// Empties sections ([`Store::clear`]).
    pub(super) fn clear_sections(&self, sections: &[Section]) -> Result<u64> {
        self.with_conn(|conn| {
            let mut removed = 0u64;
            for section in sections {
                removed += match section {
                    Section::Documents => {
                        let docs = self.scan(conn, "doc:*")?.len() as u64;
                        for pattern in ["doc:*", "pass:*", "dpost:*", "t:*", "url:*", "ver:*"] {
                            for chunk in self.scan(conn, pattern)?.chunks(512) {
                                conn.del::<_, ()>(chunk)?;
                            }
                        }
                        conn.del::<_, ()>(&[
                            self.key("docs"),
                            self.key("docmeta"),
                            self.key("meta"),
                        ])?;
                        docs
                    }
                    Section::SearchCache => self.delete_matching(conn, "s:*")?,
                    Section::KeyState => {
                        let mut n = 0;
                        for k in self.scan(conn, "k:*")? {
                            n += conn.hlen::<_, u64>(&k)?;
                            conn.del::<_, ()>(&k)?;
                        }
                        n
                    }
                    Section::SiteMemory => {
                        conn.del::<_, ()>(self.key("pins"))?;
                        self.delete_matching(conn, "site-stats:*")?;
                        self.delete_matching(conn, "site:*")?
                    }
                    Section::Crawls => {
                        let crawls = conn.zcard::<_, u64>(self.key("crawls"))?;
                        self.delete_matching(conn, "crawl:*")?;
                        conn.del::<_, ()>(self.key("crawls"))?;
                        crawls
                    }
                };
            }
            Ok(removed)
        })
    }

    /// Drops what is past retention and evicts above the bound ([`Store::prune`]).
    pub(super) fn prune_now(&self) -> Result<PruneReport> {
        let now = self.now();
        self.with_conn(|conn| {
            let mut report = PruneReport::default();
            let retention = self.config.stale_retention;
            let cutoff = now.saturating_sub(duration_millis(retention));
            for doc in self.documents_with_expiry(conn)? {
                let gone = match doc.expiry {
                    // Redis expired it already: drop what it left behind.
                    None => true,
                    Some(Some(e)) => !retention.is_zero() && e < cutoff,
                    Some(None) => false,
                };
                if gone {
                    self.delete_with(conn, &doc.handle)?;
                    report.expired_documents += 1;
                }
            }
            let searches = self.scan(conn, "s:*")?;
            for k in searches {
                let e: Option<String> = conn.hget(&k, "expires_at")?;
                if e.and_then(|v| v.parse::<i64>().ok())
                    .is_some_and(|e| e <= now)
                {
                    report.expired_searches += conn.del::<_, u64>(&k)?;
                }
            }
            let ttl = self.config.site_memory_ttl;
            if !ttl.is_zero() {
                let cutoff = now.saturating_sub(duration_millis(ttl));
                for k in self.scan(conn, "site:*")? {
                    let (at, pinned): (Option<i64>, Option<String>) =
                        conn.hmget(&k, &["updated_at", "pinned"])?;
                    if at.is_some_and(|at| at < cutoff) && pinned.as_deref() != Some("1") {
                        report.forgotten_sites += conn.del::<_, u64>(&k)?;
                    }
                }
            }
            report.evicted_documents = self.evict_over_bound(conn, None)?;
            Ok(report)
        })
    }

    /// Evicts the oldest documents until the total is under 90 % of the bound (as the
    /// SQLite backend does); `keep` is never evicted.
    pub(super) fn evict_over_bound(
        &self,
        conn: &mut Connection,
        keep: Option<&str>,
    ) -> Result<u64> {
        let max = self.config.max_document_bytes;
        // Documents, and a charge per pinned site (pins are never evicted).
        let bytes = |conn: &mut Connection| -> Result<u64> {
            let (v, pins): (Option<i64>, u64) = redis::pipe()
                .hget(self.key("meta"), "bytes")
                .scard(self.key("pins"))
                .query(conn)?;
            Ok(v.unwrap_or(0).max(0).unsigned_abs() + pins * crate::PIN_CHARGE_BYTES)
        };
        if max == 0 || bytes(conn)? <= max {
            return Ok(0);
        }
        let target = max - max / 10;
        let oldest: Vec<String> = conn.zrange(self.key("docs"), 0, -1)?;
        let mut evicted = 0;
        for handle in oldest {
            if bytes(conn)? <= target {
                break;
            }
            if Some(handle.as_str()) != keep && self.delete_with(conn, &handle)? {
                evicted += 1;
            }
        }
        Ok(evicted)
    }

    /// Every key matching `P{pattern}` (the prefix's glob characters escaped).
    pub(super) fn scan(&self, conn: &mut Connection, pattern: &str) -> Result<Vec<String>> {
        let mut escaped = String::new();
        for c in self.prefix.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                escaped.push('\\');
            }
            escaped.push(c);
        }
        escaped.push_str(pattern);
        let keys: Vec<String> = conn
            .scan_match(&escaped)?
            .collect::<redis::RedisResult<_>>()?;
        Ok(keys)
    }

    /// Every handle in `P docs`, with what stats and prune need.
    fn documents_with_expiry(&self, conn: &mut Connection) -> Result<Vec<DocumentSummary>> {
        let handles: Vec<String> = conn.zrange(self.key("docs"), 0, -1)?;
        if handles.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for h in &handles {
            pipe.cmd("HMGET").arg(self.key(&format!("doc:{h}"))).arg(&[
                "gen",
                "expires_at",
                "size",
                "passages",
            ]);
        }
        let rows: Vec<Vec<Option<String>>> = pipe.query(conn)?;
        Ok(handles
            .into_iter()
            .zip(rows)
            .map(|(h, row)| {
                let present = row[0].is_some();
                let num = |i: usize| row[i].as_deref().and_then(|v| v.parse::<i64>().ok());
                let expiry = present.then(|| num(1));
                let size = num(2).unwrap_or(0).max(0).unsigned_abs();
                let passages = num(3).unwrap_or(0).max(0).unsigned_abs();
                DocumentSummary {
                    handle: h,
                    expiry,
                    size,
                    passages,
                }
            })
            .collect())
    }

    fn delete_matching(&self, conn: &mut Connection, pattern: &str) -> Result<u64> {
        let mut n = 0;
        for chunk in self.scan(conn, pattern)?.chunks(512) {
            n += conn.del::<_, u64>(chunk)?;
        }
        Ok(n)
    }
}
