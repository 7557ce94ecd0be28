//! The embedded store: one SQLite file (bundled SQLite, WAL, FTS5), or `:memory:`.
//!
//! Every call is one short transaction on a pooled connection; writes begin
//! `IMMEDIATE` so a writer waits for the lock up front (bounded by the busy timeout)
//! instead of failing when it upgrades a read. A process killed mid-call loses at most
//! that call's write: SQLite's WAL either has the whole commit or none of it.

mod backoff;
mod batch;
mod body;
mod bound;
mod crawl;
mod crawl_notes;
mod passages;
mod pool;
mod porter;
mod schema;
mod versions;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use trawl_core::Document;

use crate::error::Error;
use crate::{
    CachedSearch, DocumentRecord, FindScope, KeyState, Passage, PassageHit, PruneReport, Result,
    Revalidation, Section, SiteReader, Store, StoreConfig, StoreStats, TierStat, duration_millis,
    from_millis, to_millis,
};
use batch::begin;
use passages::{delete_passages, delete_run, insert_passages, passage_texts, run_of};
use pool::{Access, Pool, Target, open_connection};

/// The embedded SQLite [`Store`].
#[derive(Debug)]
pub struct SqliteStore {
    pool: Pool,
    location: String,
    path: Option<PathBuf>,
    config: StoreConfig,
    /// Why a store opened for reading only cannot be written (`read_only`, `disk_full`).
    unwritable: Option<&'static str>,
    /// The crawl tables this store has made (see `sqlite/crawl.rs`).
    made: crawl::Made,
    /// The size bound's last sum (see `sqlite/bound.rs`).
    bound: bound::BoundEstimate,
    /// The ids of the crawl's link names written (see `sqlite/crawl_notes.rs`).
    link_ids: crawl_notes::LinkIds,
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::{
            DatabaseBusy, DatabaseCorrupt, DatabaseLocked, DiskFull, NotADatabase, ReadOnly,
        };
        match e.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked) => Error::Busy,
            Some(DatabaseCorrupt | NotADatabase) => Error::Corrupt(Box::new(e)),
            Some(ReadOnly) => Error::ReadOnly(e.to_string()),
            Some(DiskFull) => Error::DiskFull(Box::new(e)),
            _ => Error::Backend(Box::new(e)),
        }
    }
}

impl SqliteStore {
    /// Opens (creating if needed, with its parent directories) the store at `path`, and
    /// migrates it to the current schema. `":memory:"` gives a private in-memory store.
    pub fn open(path: impl AsRef<Path>, config: StoreConfig) -> Result<Self> {
        let path = path.as_ref();
        if path == Path::new(":memory:") {
            return Self::open_target(Target::Memory, ":memory:".to_owned(), config);
        }
        let location = path.display().to_string();
        let open_error = |source: Error| Error::Open {
            location: location.clone(),
            source: Box::new(source),
        };
        if let Some(what) = not_a_file(path) {
            return Err(open_error(Error::NotAFile { what }));
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| open_error(io_fault(&e, parent)))?;
        }
        let target = |access| Target::File {
            path: path.to_owned(),
            access,
        };
        let error =
            match Self::open_target(target(Access::ReadWrite), location.clone(), config.clone()) {
                Ok(store) => return Ok(store),
                Err(e) => e,
            };
        let error = match error {
            // SQLite says only "unable to open database file"; the file system says why.
            Error::Open { source, .. } => match source.downcast::<Error>() {
                Ok(inner) if matches!(*inner, Error::Backend(_)) => {
                    open_error(cannot_open_reason(path).unwrap_or(*inner))
                }
                Ok(inner) => open_error(*inner),
                Err(other) => Error::Open {
                    location: location.clone(),
                    source: other,
                },
            },
            other => other,
        };
        // A store that exists but cannot be written (its file or directory read-only, or
        // its disk full, where even the WAL's `-shm` cannot be made) still answers reads;
        // its writes fail with `ReadOnly`, which readers turn into a `not_stored` note.
        if error.is_unwritable() && path.exists() {
            for access in [Access::ReadOnly, Access::Immutable] {
                if let Ok(mut store) =
                    Self::open_target(target(access), location.clone(), config.clone())
                {
                    store.unwritable = error.fault();
                    return Ok(store);
                }
            }
        }
        Err(error)
    }

    /// A private in-memory store (what `:memory:` opens).
    pub fn open_in_memory(config: StoreConfig) -> Result<Self> {
        Self::open(":memory:", config)
    }

    fn open_target(target: Target, location: String, config: StoreConfig) -> Result<Self> {
        let open_error = |e: Error| match e {
            Error::SchemaTooNew { .. } | Error::Busy => e,
            other => Error::Open {
                location: location.clone(),
                source: Box::new(other),
            },
        };
        let mut first = open_connection(&target, config.busy_timeout).map_err(open_error)?;
        schema::migrate(&mut first).map_err(open_error)?;
        let path = match &target {
            Target::File { path, .. } => Some(path.clone()),
            Target::Memory => None,
        };
        let unwritable = pool_is_read_only(&target).then_some("read_only");
        Ok(Self {
            pool: Pool::new(target, config.busy_timeout, first),
            location,
            path,
            config,
            unwritable,
            made: crawl::Made::default(),
            bound: bound::BoundEstimate::default(),
            link_ids: crawl_notes::LinkIds::default(),
        })
    }

    /// The file this store lives in (`None` in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether the store was opened for reading only, because its file (or directory)
    /// cannot be written: reads answer, writes fail with [`Error::ReadOnly`].
    pub fn is_read_only(&self) -> bool {
        self.pool.is_read_only()
    }

    /// Why a store opened for reading only cannot be written: `read_only` (its file or
    /// directory) or `disk_full`; `None` when it takes writes.
    pub fn unwritable_cause(&self) -> Option<&'static str> {
        self.unwritable
    }

    /// The configuration it was opened with.
    pub fn config(&self) -> &StoreConfig {
        &self.config
    }

    /// SQLite's `PRAGMA integrity_check` plus FTS5's own check of the passage index.
    /// Returns the problems found; empty means healthy.
    pub fn integrity_check(&self) -> Result<Vec<String>> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare("PRAGMA integrity_check")?;
        let mut problems: Vec<String> = stmt
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<_>>()?;
        problems.retain(|line| line != "ok");
        // FTS5's check is run as a write statement, which a read-only store refuses.
        if !self.is_read_only()
            && let Err(e) = conn.execute(
                "INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')",
                [],
            )
        {
            problems.push(format!("passage index: {e}"));
        }
        Ok(problems)
    }

    fn now(&self) -> i64 {
        to_millis(self.config.clock.now())
    }

    /// Evicts the oldest documents (by `fetched_at`) until the total is back under 90 % of
    /// the bound, so that a store at its bound does not evict on every write. `keep` (the
    /// document just written) is never evicted.
    /// `written` is what the call just wrote (0: sum now).
    fn evict_over_bound(
        &self,
        conn: &mut Connection,
        keep: Option<&str>,
        written: u64,
    ) -> Result<u64> {
        let max = self.config.max_document_bytes;
        if max == 0 || written > 0 && self.bound.add_within(written, max) {
            return Ok(0);
        }
        let summed = bounded_bytes(conn)?;
        if summed <= max {
            self.bound.summed(summed);
            return Ok(0);
        }
        let tx = begin(conn)?;
        let mut total = bounded_bytes(&tx)?;
        let target = max - max / 10;
        let mut victims = Vec::new();
        {
            let mut stmt =
                tx.prepare("SELECT handle, size_bytes FROM documents ORDER BY fetched_at ASC")?;
            let mut rows = stmt.query([])?;
            while total > target {
                let Some(row) = rows.next()? else { break };
                let handle: String = row.get(0)?;
                if Some(handle.as_str()) == keep {
                    continue;
                }
                total = total.saturating_sub(row.get::<_, i64>(1)?.unsigned_abs());
                victims.push(handle);
            }
        }
        for handle in &victims {
            delete_document_rows(&tx, handle)?;
        }
        tx.commit()?;
        self.bound.summed(total);
        Ok(victims.len() as u64)
    }

    /// Hands freed pages back to the file system and folds the WAL into the database
    /// when no reader is in the way. Best effort: a busy store skips it.
    fn reclaim_space(&self, conn: &Connection) {
        // The pragma frees one page a step: stepped once (`execute_batch`) it gave back
        // one page of the file's free ones, so every step is taken.
        let _ = conn
            .prepare("PRAGMA incremental_vacuum")
            .and_then(|mut stmt| stmt.query_map([], |_| Ok(()))?.collect::<Result<(), _>>());
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    }

    fn find_with(
        &self,
        conn: &Connection,
        fts_query: &str,
        scope: FindScope<'_>,
        limit: usize,
    ) -> Result<Vec<PassageHit>> {
        const SELECT: &str = "SELECT p.handle, p.page, p.heading, p.body, p.start, p.len,
                    bm25(passages_fts, 2.0, 1.0) AS rank
             FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid
             WHERE passages_fts MATCH ?1";
        let limit = if limit == 0 { -1 } else { limit as i64 };
        let map = |row: &rusqlite::Row<'_>| {
            let start: Option<i64> = row.get(4)?;
            let len: Option<i64> = row.get(5)?;
            let range = start.zip(len).and_then(|(s, l)| {
                let s = usize::try_from(s).ok()?;
                Some(s..s.checked_add(usize::try_from(l).ok()?)?)
            });
            Ok((
                PassageHit {
                    handle: row.get(0)?,
                    page: row.get(1)?,
                    heading: row.get(2)?,
                    text: row.get(3)?,
                    score: -row.get::<_, f64>(6)?,
                },
                range,
            ))
        };
        let hits = match scope {
            FindScope::Document(handle) => {
                // The document's passages were written together, so their ids are one run,
                // which its row names: FTS5 is given that rowid range with the match
                // (materialized first, or the planner matches the whole store once per
                // passage of the document: a find in one page of a 100,000-page store took
                // 330 ms, now 40 ms).
                let Some((low, high)) = run_of(conn, handle)? else {
                    return Ok(Vec::new());
                };
                let mut stmt = conn.prepare_cached(
                    "WITH f AS MATERIALIZED (
                         SELECT rowid AS id, bm25(passages_fts, 2.0, 1.0) AS rank
                         FROM passages_fts
                         WHERE passages_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3)
                     SELECT p.handle, p.page, p.heading, p.body, p.start, p.len, f.rank
                     FROM f JOIN passages p ON p.id = f.id
                     WHERE p.handle = ?4 ORDER BY f.rank, p.ord LIMIT ?5",
                )?;
                stmt.query_map(params![fts_query, low, high, handle, limit], map)?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            }
            FindScope::All => {
                let sql = format!("{SELECT} ORDER BY rank, p.handle, p.ord LIMIT ?2");
                let mut stmt = conn.prepare_cached(&sql)?;
                stmt.query_map(params![fts_query, limit], map)?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            }
        };
        passage_texts(conn, hits)
    }
}

impl Store for SqliteStore {
    fn crawl_state(&self) -> Option<&dyn crate::CrawlStore> {
        Some(self)
    }

    fn versions(&self) -> Option<&dyn crate::VersionStore> {
        Some(self)
    }

    fn backoffs(&self) -> Option<&dyn crate::HostBackoffStore> {
        Some(self)
    }

    fn batch(&self, jobs: Vec<crate::BatchJob<'_>>) -> Vec<Result<()>> {
        // Link ids remembered inside a batch are only as good as its commit: a job rolled
        // back, a commit failed or a panic forgets them all (the table still has them).
        let guard = self.link_ids.forget_unless_kept();
        let results = self.pool.run_batch(jobs);
        if results.iter().all(Result::is_ok) {
            guard.keep();
        }
        results
    }

    fn put_document(&self, record: &DocumentRecord, passages: &[Passage]) -> Result<()> {
        let json = body::document_json(&record.document).map_err(|e| Error::Backend(e.into()))?;
        let body = body::pack(&json);
        let fetched_at = to_millis(record.fetched_at);
        let expires_at = match record.expires_at {
            Some(t) => Some(to_millis(t)),
            None => crate::expiry(fetched_at, self.config.document_ttl),
        };
        let handle = record.handle();
        let mut conn = self.pool.write()?;
        let conn_in_batch = conn.in_batch();
        let tx = begin(&mut conn)?;
        // The earlier passages go while the document's row still names them.
        delete_passages(&tx, handle)?;
        let written = insert_passages(
            &tx,
            handle,
            &record.document.markdown,
            passages,
            conn_in_batch,
        )?;
        let (passages_from, passages_to) = written.ids.unzip();
        // Cached: a crawl puts a document a page.
        tx.prepare_cached(
            "INSERT OR REPLACE INTO documents
                 (handle, url, final_url, content_hash, fetched_at, expires_at, etag,
                  last_modified, size_bytes, body, passages_from, passages_to)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            handle,
            record.document.url,
            record.document.final_url,
            record.content_hash,
            fetched_at,
            expires_at,
            record.etag,
            record.last_modified,
            // The size bound counts the document as it is (its JSON), not as packed:
            // the same bound as on Redis, and the disk holds less than it.
            json.len() as i64,
            body,
            passages_from,
            passages_to,
        ])?;
        tx.commit()?;
        self.pool.defer_index(written.deferred);
        self.evict_over_bound(&mut conn, Some(handle), json.len() as u64)?;
        Ok(())
    }

    fn get_document(&self, handle: &str) -> Result<Option<DocumentRecord>> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare_cached(&format!("{SELECT_DOCUMENT} WHERE handle = ?1"))?;
        let row = stmt.query_row([handle], raw_document).optional()?;
        row.map(RawDocument::decode).transpose()
    }

    fn get_document_by_url(&self, url: &str) -> Result<Option<DocumentRecord>> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare_cached(&format!(
            "{SELECT_DOCUMENT} WHERE {BY_URL} ORDER BY fetched_at DESC LIMIT 1"
        ))?;
        let row = stmt.query_row([url], raw_document).optional()?;
        row.map(RawDocument::decode).transpose()
    }

    fn revalidate_document(&self, handle: &str, revalidation: &Revalidation) -> Result<bool> {
        let fetched_at = to_millis(revalidation.fetched_at);
        let expires_at = match revalidation.expires_at {
            Some(t) => Some(to_millis(t)),
            None => crate::expiry(fetched_at, self.config.document_ttl),
        };
        let conn = self.pool.write()?;
        let changed = conn.execute(
            "UPDATE documents SET fetched_at = ?2, expires_at = ?3,
                 etag = COALESCE(?4, etag), last_modified = COALESCE(?5, last_modified)
             WHERE handle = ?1",
            params![
                handle,
                fetched_at,
                expires_at,
                revalidation.etag,
                revalidation.last_modified
            ],
        )?;
        Ok(changed > 0)
    }

    fn delete_document(&self, handle: &str) -> Result<bool> {
        let mut conn = self.pool.write()?;
        let tx = begin(&mut conn)?;
        let deleted = delete_document_rows(&tx, handle)?;
        tx.commit()?;
        Ok(deleted)
    }

    fn find(&self, query: &str, scope: FindScope<'_>, limit: usize) -> Result<Vec<PassageHit>> {
        let terms = fts_terms(query);
        if terms.is_empty() {
            return Err(Error::EmptyQuery);
        }
        let conn = self.pool.get()?;
        let hits = self.find_with(&conn, &terms.join(" AND "), scope, limit)?;
        if hits.is_empty() && terms.len() > 1 {
            return self.find_with(&conn, &terms.join(" OR "), scope, limit);
        }
        Ok(hits)
    }

    fn get_search(&self, key: &str) -> Result<Option<CachedSearch>> {
        let conn = self.pool.get()?;
        let row = conn
            .query_row(
                "SELECT value, stored_at FROM search_cache
                 WHERE key = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
                params![key, self.now()],
                |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?)),
            )
            .optional()?;
        row.map(|(value, stored_at)| {
            Ok(CachedSearch {
                value: decode_json(&value, "search result")?,
                stored_at: from_millis(stored_at),
            })
        })
        .transpose()
    }

    fn put_search(
        &self,
        key: &str,
        value: &serde_json::Value,
        ttl: Option<Duration>,
    ) -> Result<()> {
        let now = self.now();
        let expires_at = crate::expiry(now, ttl.unwrap_or(self.config.search_ttl));
        let conn = self.pool.write()?;
        conn.execute(
            "INSERT OR REPLACE INTO search_cache (key, value, stored_at, expires_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![key, value.to_string(), now, expires_at],
        )?;
        Ok(())
    }

    fn get_key_state(&self, provider: &str, fingerprint: &str) -> Result<Option<KeyState>> {
        let conn = self.pool.get()?;
        let row = conn
            .query_row(
                "SELECT fingerprint, state, updated_at FROM key_state
                 WHERE provider = ?1 AND fingerprint = ?2",
                [provider, fingerprint],
                raw_key_state,
            )
            .optional()?;
        row.map(decode_key_state).transpose()
    }

    fn put_key_state(
        &self,
        provider: &str,
        fingerprint: &str,
        state: &serde_json::Value,
    ) -> Result<()> {
        let conn = self.pool.write()?;
        conn.execute(
            "INSERT OR REPLACE INTO key_state (provider, fingerprint, state, updated_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![provider, fingerprint, state.to_string(), self.now()],
        )?;
        Ok(())
    }

    fn key_states(&self, provider: &str) -> Result<Vec<KeyState>> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare_cached(
            "SELECT fingerprint, state, updated_at FROM key_state
             WHERE provider = ?1 ORDER BY fingerprint",
        )?;
        let rows = stmt
            .query_map([provider], raw_key_state)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter().map(decode_key_state).collect()
    }

    fn get_site_reader(&self, site: &str) -> Result<Option<SiteReader>> {
        let conn = self.pool.get()?;
        let row = conn
            .query_row(
                "SELECT reader, updated_at, pinned FROM site_memory
                 WHERE site = ?1 AND (pinned = 1 OR updated_at >= ?2)",
                params![site, self.oldest_site_memory()],
                site_reader_row,
            )
            .optional()?;
        Ok(row)
    }

    fn put_site_reader(&self, site: &str, reader: &str) -> Result<()> {
        let conn = self.pool.write()?;
        conn.execute(
            "INSERT INTO site_memory (site, reader, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(site) DO UPDATE SET reader = excluded.reader,
                 updated_at = excluded.updated_at WHERE pinned = 0",
            params![site, reader, self.now()],
        )?;
        Ok(())
    }

    fn pin_site_reader(&self, site: &str, reader: &str) -> Result<()> {
        self.bound.forget();
        let conn = self.pool.write()?;
        conn.execute(
            "INSERT OR REPLACE INTO site_memory (site, reader, updated_at, pinned)
             VALUES (?1, ?2, ?3, 1)",
            params![site, reader, self.now()],
        )?;
        Ok(())
    }

    fn site_readers(&self) -> Result<Vec<(String, SiteReader)>> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare(
            "SELECT reader, updated_at, pinned, site FROM site_memory
             WHERE pinned = 1 OR updated_at >= ?1 ORDER BY site",
        )?;
        let rows = stmt
            .query_map([self.oldest_site_memory()], |row| {
                Ok((row.get::<_, String>(3)?, site_reader_row(row)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn forget_site(&self, site: &str) -> Result<bool> {
        let mut conn = self.pool.write()?;
        let tx = conn.transaction()?;
        let n = tx.execute("DELETE FROM site_memory WHERE site = ?1", [site])?
            + tx.execute("DELETE FROM site_stats WHERE site = ?1", [site])?;
        tx.commit()?;
        Ok(n > 0)
    }

    fn count_site_attempts(&self, site: &str, attempts: &[(String, bool)]) -> Result<()> {
        let mut conn = self.pool.write()?;
        let tx = conn.transaction()?;
        let now = self.now();
        for (reader, worked) in attempts {
            let (ok, failed) = if *worked { (1, 0) } else { (0, 1) };
            tx.execute(
                "INSERT INTO site_stats (site, reader, ok, failed, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(site, reader) DO UPDATE SET ok = ok + excluded.ok,
                     failed = failed + excluded.failed, updated_at = excluded.updated_at",
                params![site, reader, ok, failed, now],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    fn site_tier_stats(&self, site: &str) -> Result<Vec<TierStat>> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare(
            "SELECT reader, ok, failed FROM site_stats
             WHERE site = ?1 AND updated_at >= ?2 ORDER BY ok + failed DESC, reader",
        )?;
        let rows = stmt
            .query_map(params![site, self.oldest_site_memory()], |row| {
                Ok(TierStat {
                    reader: row.get(0)?,
                    ok: row.get::<_, i64>(1)? as u64,
                    failed: row.get::<_, i64>(2)? as u64,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn stats(&self) -> Result<StoreStats> {
        let now = self.now();
        let mut conn = self.pool.get()?;
        // One read transaction: every count comes from the same snapshot.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
        let count = |sql: &str| -> Result<u64> {
            Ok(tx
                .query_row(sql, [], |row| row.get::<_, i64>(0))?
                .unsigned_abs())
        };
        let count_until_now = |sql: &str| -> Result<u64> {
            Ok(tx
                .query_row(sql, [now], |row| row.get::<_, i64>(0))?
                .unsigned_abs())
        };
        let stats = StoreStats {
            location: self.location.clone(),
            schema_version: schema::user_version(&tx)?,
            documents: count("SELECT count(*) FROM documents")?,
            stale_documents: count_until_now(
                "SELECT count(*) FROM documents WHERE expires_at <= ?1",
            )?,
            document_bytes: total_document_bytes(&tx)?,
            passages: count("SELECT count(*) FROM passages")?,
            search_entries: count("SELECT count(*) FROM search_cache")?,
            expired_search_entries: count_until_now(
                "SELECT count(*) FROM search_cache WHERE expires_at <= ?1",
            )?,
            key_states: count("SELECT count(*) FROM key_state")?,
            sites: count("SELECT count(*) FROM site_memory")?,
            size_bytes: Some(
                count(
                    "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                )? + self.wal_size(),
            ),
        };
        tx.finish()?;
        Ok(stats)
    }

    fn clear(&self, sections: &[Section]) -> Result<u64> {
        let mut conn = self.pool.write()?;
        let tx = begin(&mut conn)?;
        let mut removed = 0u64;
        for section in sections {
            removed += match section {
                Section::Documents => {
                    versions::forget(&tx, None)?;
                    tx.execute("DELETE FROM passages", [])?;
                    tx.execute("DELETE FROM documents", [])?
                }
                Section::SearchCache => tx.execute("DELETE FROM search_cache", [])?,
                Section::KeyState => tx.execute("DELETE FROM key_state", [])?,
                Section::SiteMemory => {
                    tx.execute("DELETE FROM site_stats", [])?;
                    tx.execute("DELETE FROM site_memory", [])?
                }
                Section::Crawls => clear_crawls(&tx)?,
            } as u64;
        }
        tx.commit()?;
        if sections.contains(&Section::Crawls) {
            self.link_ids.forget();
        }
        if sections.len() == Section::ALL.len() {
            // Everything went: give the file's pages back to the disk, and empty the WAL
            // (incremental vacuum only frees what a store made with it can free).
            let _ = conn.execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);");
        } else {
            self.reclaim_space(&conn);
        }
        Ok(removed)
    }

    fn prune(&self) -> Result<PruneReport> {
        let now = self.now();
        let mut report = PruneReport::default();
        let mut conn = self.pool.write()?;
        let tx = begin(&mut conn)?;
        if !self.config.stale_retention.is_zero() {
            let cutoff = now.saturating_sub(duration_millis(self.config.stale_retention));
            versions::forget_expired(&tx, cutoff)?;
            // Each document's passages by their run of ids, read with the handles (SQLite
            // plans a join on the run as a scan of every passage).
            let expired: Vec<(String, i64, i64)> = tx
                .prepare(
                    "SELECT handle, passages_from, passages_to FROM documents
                     WHERE expires_at < ?1 AND passages_from IS NOT NULL
                         AND passages_to IS NOT NULL",
                )?
                .query_map([cutoff], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            for (handle, from, to) in &expired {
                delete_run(&tx, handle, (*from, *to))?;
            }
            report.expired_documents =
                tx.execute("DELETE FROM documents WHERE expires_at < ?1", [cutoff])? as u64;
        }
        report.expired_searches =
            tx.execute("DELETE FROM search_cache WHERE expires_at <= ?1", [now])? as u64;
        if !self.config.site_memory_ttl.is_zero() {
            let cutoff = now.saturating_sub(duration_millis(self.config.site_memory_ttl));
            report.forgotten_sites = tx.execute(
                "DELETE FROM site_memory WHERE updated_at < ?1 AND pinned = 0",
                [cutoff],
            )? as u64;
            tx.execute("DELETE FROM site_stats WHERE updated_at < ?1", [cutoff])?;
        }
        tx.commit()?;
        report.evicted_documents = self.evict_over_bound(&mut conn, None, 0)?;
        self.reclaim_space(&conn);
        Ok(report)
    }
}

/// A `site_memory` row's reader, time and pin (the first three columns).
fn site_reader_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SiteReader> {
    Ok(SiteReader {
        reader: row.get(0)?,
        updated_at: from_millis(row.get(1)?),
        pinned: row.get::<_, i64>(2)? != 0,
    })
}

impl SqliteStore {
    /// Site memories older than this (in store milliseconds) have expired; pins never do.
    fn oldest_site_memory(&self) -> i64 {
        match self.config.site_memory_ttl {
            ttl if ttl.is_zero() => i64::MIN,
            ttl => self.now().saturating_sub(duration_millis(ttl)),
        }
    }

    fn wal_size(&self) -> u64 {
        let Some(path) = &self.path else { return 0 };
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0)
    }
}

/// What sits at `path` when it is not a regular file (or a symlink to one).
fn not_a_file(path: &Path) -> Option<&'static str> {
    let meta = std::fs::metadata(path).ok()?;
    let kind = meta.file_type();
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else {
        Some("not a regular file")
    }
}

/// A file-system error named as a store fault where it is one.
fn io_fault(e: &std::io::Error, path: &Path) -> Error {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            Error::ReadOnly(format!("{} cannot be written: {e}", path.display()))
        }
        std::io::ErrorKind::StorageFull => {
            Error::DiskFull(Box::new(std::io::Error::new(e.kind(), e.to_string())))
        }
        _ => Error::Backend(Box::new(std::io::Error::new(e.kind(), e.to_string()))),
    }
}

/// Why SQLite could not open `path`, asked of the file system: the file (or, for a new
/// store, its directory) cannot be written, or the disk is full.
fn cannot_open_reason(path: &Path) -> Option<Error> {
    let probe = if path.exists() {
        // A file that opens for writing may still sit on a full disk, where SQLite fails
        // with a bare I/O error (it cannot make the WAL's `-shm`): ask the directory too.
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .err()
            .or_else(|| {
                let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
                room_probe(dir.unwrap_or(Path::new("."))).err()
            })
    } else {
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        tempfile_probe(dir).err()
    };
    probe
        .map(|e| io_fault(&e, path))
        .filter(|e| !matches!(e, Error::Backend(_)))
}

/// Writes and removes 32 KiB (the size of a WAL index) in `dir`, to learn whether the
/// disk has room for SQLite's side files.
fn room_probe(dir: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let probe = dir.join(format!(".trawl-room-{}", std::process::id()));
    let written = std::fs::File::create(&probe).and_then(|mut f| {
        f.write_all(&[0u8; 32 * 1024])?;
        f.sync_all()
    });
    let _ = std::fs::remove_file(&probe);
    written
}

fn pool_is_read_only(target: &Target) -> bool {
    matches!(
        target,
        Target::File {
            access: Access::ReadOnly | Access::Immutable,
            ..
        }
    )
}

/// Creates and removes a file in `dir`, to learn whether a store could be created there.
fn tempfile_probe(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".trawl-probe-{}", std::process::id()));
    std::fs::File::create(&probe)?;
    std::fs::remove_file(&probe)
}

/// A document asked for as `?1` or redirected there. The second term says `final_url <>
/// url` so that SQLite uses the partial index by final URL (schema 7), which holds only
/// those; a document whose final URL is `?1` and its URL too is found by the first.
const BY_URL: &str = "url = ?1 OR (final_url = ?1 AND final_url <> url)";

const SELECT_DOCUMENT: &str = "SELECT body, content_hash, fetched_at, expires_at, etag,
        last_modified FROM documents";

/// A document row before its JSON body is decoded (decoding happens outside rusqlite's
/// row closure so its error keeps its own type).
struct RawDocument {
    body: body::StoredBody,
    content_hash: String,
    fetched_at: i64,
    expires_at: Option<i64>,
    etag: Option<String>,
    last_modified: Option<String>,
}

fn raw_document(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawDocument> {
    Ok(RawDocument {
        body: row.get(0)?,
        content_hash: row.get(1)?,
        fetched_at: row.get(2)?,
        expires_at: row.get(3)?,
        etag: row.get(4)?,
        last_modified: row.get(5)?,
    })
}

impl RawDocument {
    fn decode(self) -> Result<DocumentRecord> {
        let document: Document =
            serde_json::from_str(&self.body.0).map_err(|source| Error::Decode {
                what: "document",
                source,
            })?;
        Ok(DocumentRecord {
            document,
            content_hash: self.content_hash,
            fetched_at: from_millis(self.fetched_at),
            expires_at: self.expires_at.map(from_millis),
            etag: self.etag,
            last_modified: self.last_modified,
        })
    }
}

fn raw_key_state(row: &rusqlite::Row<'_>) -> rusqlite::Result<(String, String, i64)> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
}

fn decode_key_state((fingerprint, state, updated_at): (String, String, i64)) -> Result<KeyState> {
    Ok(KeyState {
        fingerprint,
        state: decode_json(&state, "key state")?,
        updated_at: from_millis(updated_at),
    })
}

fn decode_json(text: &str, what: &'static str) -> Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|source| Error::Decode { what, source })
}

/// What counts against the size bound: the documents, and a charge per pinned site (pins
/// are never evicted, so documents make room for them).
fn bounded_bytes(conn: &Connection) -> Result<u64> {
    let pins: i64 = conn.query_row(
        "SELECT COUNT(*) FROM site_memory WHERE pinned = 1",
        [],
        |row| row.get(0),
    )?;
    Ok(total_document_bytes(conn)? + pins.unsigned_abs() * crate::PIN_CHARGE_BYTES)
}

fn total_document_bytes(conn: &Connection) -> Result<u64> {
    let total: i64 = conn.query_row(
        "SELECT COALESCE(SUM(size_bytes), 0) FROM documents",
        [],
        |row| row.get(0),
    )?;
    Ok(total.unsigned_abs())
}

fn delete_document_rows(conn: &Connection, handle: &str) -> Result<bool> {
    versions::forget(conn, Some(handle))?;
    delete_passages(conn, handle)?;
    Ok(conn.execute("DELETE FROM documents WHERE handle = ?1", [handle])? > 0)
}

/// Turns plain words and `"quoted phrases"` into FTS5 terms, each quoted so that no
/// input is read as FTS5 syntax (`AND`, `NEAR`, `col:`, `*`, `^`, stray quotes).
///
/// Words are split where unicode61 splits them (any character that is not a letter or
/// digit), so what is searched is what was indexed.
fn fts_terms(query: &str) -> Vec<String> {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let mut terms = Vec::new();
    for (i, part) in query.split('"').enumerate() {
        let part_words = words(part);
        // Odd parts were inside quotes: one phrase.
        if i % 2 == 1 && !part_words.is_empty() {
            terms.push(format!("\"{}\"", part_words.join(" ")));
        } else {
            terms.extend(part_words.into_iter().map(|w| format!("\"{w}\"")));
        }
    }
    terms
}

/// Deletes every kept crawl (records, URL rows, leases, page notes); their tables are made
/// on first use, so a store that never crawled has none. Answers the crawls removed.
fn clear_crawls(tx: &rusqlite::Connection) -> rusqlite::Result<usize> {
    let exists = |table: &str| -> rusqlite::Result<bool> {
        tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
            [table],
            |row| row.get(0),
        )
    };
    for table in [
        "crawl_page_notes",
        "crawl_link_names",
        "crawl_leases",
        "crawl_urls",
    ] {
        if exists(table)? {
            tx.execute(&format!("DELETE FROM {table}"), [])?;
        }
    }
    if exists("crawls")? {
        tx.execute("DELETE FROM crawls", [])
    } else {
        Ok(0)
    }
}

/// How SQLite plans `sql` with `params`: each step's text (`SEARCH …`, `SCAN …`).
#[cfg(test)]
fn query_plan(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Vec<String> {
    conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap()
        .query_map(params, |r| r.get(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lookup by URL reads the two indexes, the partial one by final URL included (a
    /// term SQLite cannot match to it scans every document instead).
    #[test]
    fn a_lookup_by_url_reads_both_indexes_and_scans_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        schema::migrate(&mut conn).unwrap();
        let plan = query_plan(
            &conn,
            &format!("{SELECT_DOCUMENT} WHERE {BY_URL} ORDER BY fetched_at DESC LIMIT 1"),
            ["https://example.com/"],
        );
        for index in [
            "documents_by_url (url=?)",
            "documents_by_final_url (final_url=?)",
        ] {
            assert!(plan.iter().any(|step| step.ends_with(index)), "{plan:?}");
        }
        assert!(
            !plan.iter().any(|step| step.starts_with("SCAN")),
            "{plan:?}"
        );
    }

    #[test]
    fn fts_terms_quote_everything_and_keep_phrases() {
        assert_eq!(fts_terms("rust async"), ["\"rust\"", "\"async\""]);
        assert_eq!(
            fts_terms("say \"full text search\" NEAR(x) title:y*"),
            [
                "\"say\"",
                "\"full text search\"",
                "\"NEAR\"",
                "\"x\"",
                "\"title\"",
                "\"y\""
            ]
        );
        assert_eq!(fts_terms("c++ \"unclosed"), ["\"c\"", "\"unclosed\""]);
        assert!(fts_terms("  -- ** \"\" ").is_empty());
    }

    fn record(text: &str) -> DocumentRecord {
        let document = Document {
            url: "https://example.com/a".into(),
            final_url: "https://example.com/a".into(),
            handle: "example.com~0123456789ab".into(),
            markdown: text.to_owned(),
            ..Document::default()
        };
        DocumentRecord::new(document, std::time::SystemTime::now())
    }

    /// Each store fault gives its own error and message; a full store still reads.
    #[test]
    fn faults_are_named() {
        let dir = tempfile::tempdir().unwrap();

        let err = SqliteStore::open(dir.path(), StoreConfig::default()).unwrap_err();
        assert_eq!(err.fault(), Some("not_a_file"), "{err}");
        assert!(
            err.to_string().contains("not a file (a directory)"),
            "{err}"
        );

        let garbage = dir.path().join("garbage.db");
        std::fs::write(&garbage, b"plain text, not SQLite ".repeat(300)).unwrap();
        let err = SqliteStore::open(&garbage, StoreConfig::default()).unwrap_err();
        assert_eq!(err.fault(), Some("corrupt"), "{err}");
        assert!(err.to_string().contains("it is corrupt"), "{err}");

        // SQLite's own "database or disk is full", reached by capping the file's pages.
        let path = dir.path().join("full.db");
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        store.put_document(&record("small"), &[]).unwrap();
        {
            let conn = store.pool.get().unwrap();
            let pages: i64 = conn
                .query_row("PRAGMA page_count", [], |r| r.get(0))
                .unwrap();
            conn.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
                .unwrap();
        }
        // Words that do not repeat: the body is compressed, and a repeated phrase would
        // pack into a page or two.
        let big: String = (0..40_000u64)
            .map(|i| format!("r{} ", i.wrapping_mul(2_654_435_761) % 1_000_003))
            .collect();
        let err = store.put_document(&record(&big), &[]).unwrap_err();
        assert_eq!(err.fault(), Some("disk_full"), "{err}");
        assert!(err.is_unwritable());
        assert!(err.to_string().contains("disk is full"), "{err}");
        assert!(
            store
                .get_document("example.com~0123456789ab")
                .unwrap()
                .is_some()
        );
        drop(store);

        // Opened read-only (what a store that cannot be written falls back to): reads
        // answer, writes name the fault.
        let store = SqliteStore::open_target(
            Target::File {
                path: path.clone(),
                access: Access::ReadOnly,
            },
            path.display().to_string(),
            StoreConfig::default(),
        )
        .unwrap();
        assert!(store.is_read_only());
        assert!(
            store
                .get_document("example.com~0123456789ab")
                .unwrap()
                .is_some()
        );
        let err = store.put_document(&record("more"), &[]).unwrap_err();
        assert_eq!(err.fault(), Some("read_only"), "{err}");
        assert!(err.is_unwritable());
        assert!(err.to_string().contains("read-only"), "{err}");
        assert!(store.integrity_check().unwrap().is_empty());
    }

    #[test]
    fn expiry_zero_means_never() {
        assert_eq!(crate::expiry(1000, Duration::ZERO), None);
        assert_eq!(crate::expiry(1000, Duration::from_secs(1)), Some(2000));
    }
}
