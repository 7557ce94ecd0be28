//! [`CrawlStore`] on SQLite: three tables, `crawls`, `crawl_urls` and `crawl_leases`, made
//! on first use (`CREATE TABLE IF NOT EXISTS`) rather than by a schema migration, so stores
//! that never crawl stay at their schema version and older builds can still open them.
//! Leases have their own table (not columns of `crawl_urls`) for the same reason: a store
//! made by an older build gets them without an `ALTER TABLE`.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::batch::begin;
use super::schema::once;

use super::SqliteStore;
use crate::crawl::{ClaimedUrl, CrawlRecord, CrawlStore, CrawlUrl, UrlOutcome, UrlState};
use crate::{Error, Result, duration_millis, from_millis, to_millis};

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS crawls (
    id               TEXT PRIMARY KEY NOT NULL,
    start_url        TEXT NOT NULL,
    status           TEXT NOT NULL,
    options          TEXT NOT NULL,
    summary          TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    cancel_requested INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS crawl_urls (
    crawl_id TEXT NOT NULL,
    key      TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    url      TEXT NOT NULL,
    depth    INTEGER NOT NULL,
    priority REAL NOT NULL,
    run      INTEGER NOT NULL,
    state    TEXT NOT NULL,
    handle   TEXT,
    title    TEXT,
    words    INTEGER NOT NULL DEFAULT 0,
    status   INTEGER,
    detail   TEXT,
    PRIMARY KEY (crawl_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS crawl_urls_by_seq ON crawl_urls(crawl_id, seq);
";

/// Made only by the lease calls, so the calls a crawl on one machine makes (it never
/// claims) run the same statements as before leases existed.
const LEASE_TABLE: &str = "
CREATE TABLE IF NOT EXISTS crawl_leases (
    crawl_id TEXT NOT NULL,
    key      TEXT NOT NULL,
    worker   TEXT,
    until    INTEGER,
    lapsed   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (crawl_id, key)
) WITHOUT ROWID;
";

/// Sets a URL's state and merges an outcome into its row (the fields given win, words
/// only grow).
const SET_STATE: &str = "UPDATE crawl_urls SET state = ?3,
    handle = COALESCE(?4, handle), title = COALESCE(?5, title),
    words = MAX(words, ?6), status = COALESCE(?7, status),
    detail = COALESCE(?8, detail)
 WHERE crawl_id = ?1 AND key = ?2";

fn terminal(state: UrlState) -> bool {
    !matches!(state, UrlState::Queued | UrlState::Fetching)
}

/// Which of the crawl tables a store has made: each `CREATE ... IF NOT EXISTS` is parsed
/// and checked against the schema on every call otherwise, several times a page.
#[derive(Debug, Default)]
pub(super) struct Made {
    crawl: AtomicBool,
    leases: AtomicBool,
    pub(super) notes: AtomicBool,
    /// The hosts' back-off table (see `sqlite/backoff.rs`).
    pub(super) backoff: AtomicBool,
}

impl SqliteStore {
    fn tables(&self, conn: &Connection) -> Result<()> {
        once(&self.made.crawl, conn, TABLES)
    }

    /// Whether the crawl tables can be read: they exist, or are made now. A store opened
    /// for reading only (a read-only file, a full disk) that never crawled has none and
    /// cannot make them: it has no crawls, and the calls that only look answer so.
    fn readable(&self, conn: &Connection) -> Result<bool> {
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            let present: bool = conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'crawls')",
                [],
                |row| row.get(0),
            )?;
            return Ok(present);
        }
        self.tables(conn)?;
        Ok(true)
    }

    fn lease_tables(&self, conn: &Connection) -> Result<()> {
        self.tables(conn)?;
        once(&self.made.leases, conn, LEASE_TABLE)
    }
}

fn json(value: &serde_json::Value) -> String {
    value.to_string()
}

fn decode(text: &str, what: &'static str) -> Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|source| Error::Decode { what, source })
}

fn record_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(CrawlRecord, String, String)> {
    Ok((
        CrawlRecord {
            id: row.get(0)?,
            start_url: row.get(1)?,
            status: row.get(2)?,
            options: serde_json::Value::Null,
            summary: serde_json::Value::Null,
            created_at: from_millis(row.get(5)?),
            updated_at: from_millis(row.get(6)?),
            cancel_requested: row.get::<_, i64>(7)? != 0,
        },
        row.get(3)?,
        row.get(4)?,
    ))
}

fn finish_record((mut r, options, summary): (CrawlRecord, String, String)) -> Result<CrawlRecord> {
    r.options = decode(&options, "crawl options")?;
    r.summary = decode(&summary, "crawl summary")?;
    Ok(r)
}

const RECORD_COLUMNS: &str =
    "id, start_url, status, options, summary, created_at, updated_at, cancel_requested";

fn url_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(CrawlUrl, String)> {
    Ok((
        CrawlUrl {
            key: row.get(0)?,
            url: row.get(1)?,
            depth: row.get(2)?,
            priority: row.get(3)?,
            run: row.get(4)?,
            state: UrlState::Queued,
            handle: row.get(6)?,
            title: row.get(7)?,
            words: row.get::<_, i64>(8)?.max(0) as u64,
            status: row.get(9)?,
            detail: row.get(10)?,
        },
        row.get(5)?,
    ))
}

fn state_of(name: &str) -> Result<UrlState> {
    UrlState::parse(name).ok_or_else(|| {
        Error::Backend(format!("unknown crawl URL state {name:?} in the store").into())
    })
}

impl CrawlStore for SqliteStore {
    fn put_crawl(&self, r: &CrawlRecord) -> Result<()> {
        let conn = self.pool.write()?;
        self.tables(&conn)?;
        conn.execute(
            "INSERT INTO crawls (id, start_url, status, options, summary, created_at, updated_at, cancel_requested)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT(id) DO UPDATE SET start_url = ?2, status = ?3, options = ?4,
                 summary = ?5, updated_at = ?7,
                 cancel_requested = MAX(cancel_requested, ?8)",
            params![
                r.id,
                r.start_url,
                r.status,
                json(&r.options),
                json(&r.summary),
                to_millis(r.created_at),
                to_millis(r.updated_at),
                i64::from(r.cancel_requested),
            ],
        )?;
        // A crawl's record written as it ends (any status but running): the pages the
        // index's last merges freed go back to the file system. The index merges many
        // segments at once (schema 5), and a crawl's last merges left a tenth of the file
        // free, which no later write of the crawl would fill.
        if r.status != "running" {
            self.reclaim_space(&conn);
        }
        Ok(())
    }

    fn get_crawl(&self, id: &str) -> Result<Option<CrawlRecord>> {
        let conn = self.pool.get()?;
        if !self.readable(&conn)? {
            return Ok(None);
        }
        conn.query_row(
            &format!("SELECT {RECORD_COLUMNS} FROM crawls WHERE id = ?1"),
            [id],
            record_row,
        )
        .optional()?
        .map(finish_record)
        .transpose()
    }

    fn crawls(&self) -> Result<Vec<CrawlRecord>> {
        let conn = self.pool.get()?;
        if !self.readable(&conn)? {
            return Ok(Vec::new());
        }
        let mut stmt = conn.prepare(&format!(
            "SELECT {RECORD_COLUMNS} FROM crawls ORDER BY created_at DESC, id"
        ))?;
        let rows = stmt.query_map([], record_row)?;
        rows.map(|r| finish_record(r?)).collect()
    }

    fn request_cancel(&self, id: &str) -> Result<bool> {
        let conn = self.pool.write()?;
        self.tables(&conn)?;
        Ok(conn.execute("UPDATE crawls SET cancel_requested = 1 WHERE id = ?1", [id])? > 0)
    }

    fn clear_cancel(&self, id: &str) -> Result<()> {
        let conn = self.pool.write()?;
        self.tables(&conn)?;
        conn.execute("UPDATE crawls SET cancel_requested = 0 WHERE id = ?1", [id])?;
        Ok(())
    }

    fn known_crawl_urls(&self, id: &str, keys: &[String]) -> Result<Vec<String>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let conn = self.pool.get()?;
        if !self.readable(&conn)? {
            return Ok(Vec::new());
        }
        // One statement a chunk, each key a lookup on the primary key. Chunks of a fixed
        // size (the last padded with its first key) keep one cached statement for all.
        const CHUNK: usize = 128;
        let sql = format!(
            "SELECT key FROM crawl_urls WHERE crawl_id = ?1 AND key IN ({})",
            (2..CHUNK + 2)
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut present = std::collections::HashSet::new();
        for chunk in keys.chunks(CHUNK) {
            let padded = (0..CHUNK).map(|i| chunk.get(i).unwrap_or(&chunk[0]).as_str());
            let args = std::iter::once(id).chain(padded);
            let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
            while let Some(row) = rows.next()? {
                present.insert(row.get::<_, String>(0)?);
            }
        }
        let known: Vec<String> = keys
            .iter()
            .filter(|k| present.contains(*k))
            .cloned()
            .collect();
        Ok(known)
    }

    fn add_crawl_urls(&self, id: &str, urls: &[CrawlUrl]) -> Result<usize> {
        if urls.is_empty() {
            return Ok(0);
        }
        let mut conn = self.pool.write()?;
        self.tables(&conn)?;
        let tx = begin(&mut conn)?;
        let mut added = 0;
        {
            let next: i64 = tx.query_row(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM crawl_urls WHERE crawl_id = ?1",
                [id],
                |row| row.get(0),
            )?;
            let mut stmt = tx.prepare_cached(
                "INSERT OR IGNORE INTO crawl_urls
                    (crawl_id, key, seq, url, depth, priority, run, state, handle, title, words, status, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?;
            for (i, u) in urls.iter().enumerate() {
                added += stmt.execute(params![
                    id,
                    u.key,
                    next + i as i64,
                    u.url,
                    u.depth,
                    u.priority,
                    u.run,
                    u.state.as_str(),
                    u.handle,
                    u.title,
                    u.words as i64,
                    u.status,
                    u.detail,
                ])?;
            }
        }
        tx.commit()?;
        Ok(added)
    }

    fn set_crawl_url_state(
        &self,
        id: &str,
        keys: &[String],
        state: UrlState,
        o: &UrlOutcome,
    ) -> Result<()> {
        if keys.is_empty() {
            // No write transaction for nothing (a crawled page with no aliases asks).
            return Ok(());
        }
        let mut conn = self.pool.write()?;
        self.tables(&conn)?;
        let tx = begin(&mut conn)?;
        {
            let mut stmt = tx.prepare_cached(SET_STATE)?;
            for key in keys {
                stmt.execute(params![
                    id,
                    key,
                    state.as_str(),
                    o.handle,
                    o.title,
                    o.words as i64,
                    o.status,
                    o.detail,
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn crawl_urls(
        &self,
        id: &str,
        states: &[UrlState],
        offset: usize,
        limit: usize,
    ) -> Result<Vec<CrawlUrl>> {
        let conn = self.pool.get()?;
        if !self.readable(&conn)? {
            return Ok(Vec::new());
        }
        let wanted: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
        let filter = if wanted.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = wanted.iter().map(|s| format!("'{s}'")).collect();
            format!("AND state IN ({})", quoted.join(","))
        };
        let limit = if limit == 0 { -1 } else { limit as i64 };
        let mut stmt = conn.prepare(&format!(
            "SELECT key, url, depth, priority, run, state, handle, title, words, status, detail
             FROM crawl_urls WHERE crawl_id = ?1 {filter} ORDER BY seq LIMIT ?2 OFFSET ?3"
        ))?;
        let rows = stmt.query_map(params![id, limit, offset as i64], url_row)?;
        rows.map(|r| {
            let (mut u, state) = r?;
            u.state = state_of(&state)?;
            Ok(u)
        })
        .collect()
    }

    fn crawl_url_counts(&self, id: &str) -> Result<Vec<(UrlState, u64)>> {
        let conn = self.pool.get()?;
        if !self.readable(&conn)? {
            return Ok(Vec::new());
        }
        let mut stmt = conn.prepare(
            "SELECT state, COUNT(*) FROM crawl_urls WHERE crawl_id = ?1 GROUP BY state ORDER BY state",
        )?;
        let rows = stmt.query_map([id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
        })?;
        rows.map(|r| {
            let (s, n) = r?;
            Ok((state_of(&s)?, n.max(0) as u64))
        })
        .collect()
    }

    fn claim_crawl_urls(
        &self,
        id: &str,
        worker: &str,
        n: usize,
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<ClaimedUrl>> {
        let now = to_millis(self.config.clock.now());
        let until = now.saturating_add(duration_millis(lease));
        let mut conn = self.pool.write()?;
        self.lease_tables(&conn)?;
        let tx = begin(&mut conn)?;
        // Leases that ran out: their URLs go back to the queue, remembered as lapsed.
        tx.execute(
            "UPDATE crawl_urls SET state = 'queued'
             WHERE crawl_id = ?1 AND state = 'fetching' AND key IN (
                SELECT key FROM crawl_leases
                WHERE crawl_id = ?1 AND worker IS NOT NULL AND until <= ?2)",
            params![id, now],
        )?;
        tx.execute(
            "UPDATE crawl_leases SET worker = NULL, until = NULL, lapsed = 1
             WHERE crawl_id = ?1 AND worker IS NOT NULL AND until <= ?2",
            params![id, now],
        )?;
        let mut take = n as i64;
        if limit > 0 {
            let busy: i64 = tx.query_row(
                "SELECT COUNT(*) FROM crawl_urls
                 WHERE crawl_id = ?1 AND state IN ('done', 'fetching')",
                [id],
                |row| row.get(0),
            )?;
            take = take.min(limit as i64 - busy);
        }
        let mut claimed = Vec::new();
        if take > 0 {
            let rows: Vec<(CrawlUrl, String)> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT key, url, depth, priority, run, state, handle, title, words, status, detail
                     FROM crawl_urls WHERE crawl_id = ?1 AND state = 'queued'
                     ORDER BY priority DESC, seq LIMIT ?2",
                )?;
                stmt.query_map(params![id, take], url_row)?
                    .collect::<rusqlite::Result<_>>()?
            };
            for (mut url, _) in rows {
                tx.execute(
                    "UPDATE crawl_urls SET state = 'fetching' WHERE crawl_id = ?1 AND key = ?2",
                    params![id, url.key],
                )?;
                let lapsed: bool = tx
                    .query_row(
                        "SELECT lapsed FROM crawl_leases WHERE crawl_id = ?1 AND key = ?2",
                        params![id, url.key],
                        |row| row.get::<_, i64>(0),
                    )
                    .optional()?
                    .is_some_and(|l| l != 0);
                tx.execute(
                    "INSERT INTO crawl_leases (crawl_id, key, worker, until, lapsed)
                     VALUES (?1, ?2, ?3, ?4, 0)
                     ON CONFLICT(crawl_id, key) DO UPDATE SET worker = ?3, until = ?4",
                    params![id, url.key, worker, until],
                )?;
                url.state = UrlState::Fetching;
                claimed.push(ClaimedUrl { url, lapsed });
            }
        }
        tx.commit()?;
        Ok(claimed)
    }

    fn renew_crawl_leases(
        &self,
        id: &str,
        worker: &str,
        keys: &[String],
        lease: Duration,
    ) -> Result<usize> {
        let until = to_millis(self.config.clock.now()).saturating_add(duration_millis(lease));
        let mut conn = self.pool.write()?;
        self.lease_tables(&conn)?;
        let tx = begin(&mut conn)?;
        let mut held = 0;
        {
            let mut stmt = tx.prepare_cached(
                "UPDATE crawl_leases SET until = ?4
                 WHERE crawl_id = ?1 AND key = ?2 AND worker = ?3",
            )?;
            for key in keys {
                held += stmt.execute(params![id, key, worker, until])?;
            }
        }
        tx.commit()?;
        Ok(held)
    }

    fn settle_crawl_url(
        &self,
        id: &str,
        worker: &str,
        key: &str,
        state: UrlState,
        o: &UrlOutcome,
    ) -> Result<bool> {
        let mut conn = self.pool.write()?;
        self.lease_tables(&conn)?;
        let tx = begin(&mut conn)?;
        let holder: Option<Option<String>> = tx
            .query_row(
                "SELECT l.worker FROM crawl_leases l JOIN crawl_urls u
                   ON u.crawl_id = l.crawl_id AND u.key = l.key
                 WHERE l.crawl_id = ?1 AND l.key = ?2 AND u.state = 'fetching'",
                params![id, key],
                |row| row.get(0),
            )
            .optional()?;
        if holder.flatten().as_deref() != Some(worker) {
            return Ok(false);
        }
        tx.execute(
            SET_STATE,
            params![
                id,
                key,
                state.as_str(),
                o.handle,
                o.title,
                o.words as i64,
                o.status,
                o.detail,
            ],
        )?;
        if terminal(state) {
            tx.execute(
                "DELETE FROM crawl_leases WHERE crawl_id = ?1 AND key = ?2",
                params![id, key],
            )?;
        } else {
            tx.execute(
                "UPDATE crawl_leases SET worker = NULL, until = NULL
                 WHERE crawl_id = ?1 AND key = ?2",
                params![id, key],
            )?;
        }
        tx.commit()?;
        Ok(true)
    }

    fn end_crawl(&self, id: &str, status: &str, summary: &serde_json::Value) -> Result<bool> {
        let conn = self.pool.write()?;
        self.tables(&conn)?;
        let now = to_millis(self.config.clock.now());
        let ended = conn.execute(
            "UPDATE crawls SET status = ?2, summary = ?3, updated_at = ?4
             WHERE id = ?1 AND status = 'running'",
            params![id, status, json(summary), now],
        )? > 0;
        // As `put_crawl` of an ended record does; also when another worker ended it first.
        self.reclaim_space(&conn);
        Ok(ended)
    }

    fn delete_crawl(&self, id: &str) -> Result<bool> {
        let mut conn = self.pool.write()?;
        self.lease_tables(&conn)?;
        let tx = begin(&mut conn)?;
        tx.execute("DELETE FROM crawl_urls WHERE crawl_id = ?1", [id])?;
        tx.execute("DELETE FROM crawl_leases WHERE crawl_id = ?1", [id])?;
        once(&self.made.notes, &tx, super::crawl_notes::NOTES_TABLE)?;
        tx.execute("DELETE FROM crawl_page_notes WHERE crawl_id = ?1", [id])?;
        tx.execute("DELETE FROM crawl_link_names WHERE crawl_id = ?1", [id])?;
        let gone = tx.execute("DELETE FROM crawls WHERE id = ?1", [id])? > 0;
        tx.commit()?;
        self.link_ids.forget();
        Ok(gone)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::{Store, StoreConfig};

    fn url(key: &str, state: UrlState) -> CrawlUrl {
        CrawlUrl {
            key: key.into(),
            url: format!("https://example.com/{key}"),
            depth: 1,
            priority: -1.0,
            run: 0,
            state,
            handle: None,
            title: None,
            words: 0,
            status: None,
            detail: None,
        }
    }

    #[test]
    fn crawl_record_urls_states_and_counts_round_trip() {
        let store = SqliteStore::open(":memory:", StoreConfig::default()).unwrap();
        let crawls = store.crawl_state().expect("sqlite keeps crawl state");
        assert!(crawls.crawls().unwrap().is_empty());
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let record = CrawlRecord {
            id: "c1".into(),
            start_url: "https://example.com/".into(),
            status: "running".into(),
            options: serde_json::json!({"limit": 5}),
            summary: serde_json::json!({}),
            created_at: t,
            updated_at: t,
            cancel_requested: false,
        };
        crawls.put_crawl(&record).unwrap();
        assert_eq!(crawls.get_crawl("c1").unwrap().unwrap(), record);
        let added = crawls
            .add_crawl_urls(
                "c1",
                &[url("a", UrlState::Queued), url("b", UrlState::Queued)],
            )
            .unwrap();
        assert_eq!(added, 2);
        // A key already seen is not added again, nor reset.
        crawls
            .set_crawl_url_state(
                "c1",
                &["a".into()],
                UrlState::Done,
                &UrlOutcome {
                    handle: Some("example.com~0123456789ab".into()),
                    words: 12,
                    status: Some(200),
                    ..UrlOutcome::default()
                },
            )
            .unwrap();
        let added = crawls
            .add_crawl_urls(
                "c1",
                &[url("a", UrlState::Queued), url("c", UrlState::Skipped)],
            )
            .unwrap();
        assert_eq!(added, 1);
        let done = crawls.crawl_urls("c1", &[UrlState::Done], 0, 0).unwrap();
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].handle.as_deref(), Some("example.com~0123456789ab"));
        assert_eq!(done[0].words, 12);
        let all = crawls.crawl_urls("c1", &[], 0, 0).unwrap();
        let keys: Vec<&str> = all.iter().map(|u| u.key.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        assert_eq!(crawls.crawl_urls("c1", &[], 1, 1).unwrap()[0].key, "b");
        let mut counts = crawls.crawl_url_counts("c1").unwrap();
        counts.sort_by_key(|(s, _)| s.as_str());
        assert_eq!(
            counts,
            [
                (UrlState::Done, 1),
                (UrlState::Queued, 1),
                (UrlState::Skipped, 1)
            ]
        );
        assert!(crawls.request_cancel("c1").unwrap());
        assert!(!crawls.request_cancel("nope").unwrap());
        // Writing the record again (a progress update) keeps the cancel request.
        crawls.put_crawl(&record).unwrap();
        assert!(crawls.get_crawl("c1").unwrap().unwrap().cancel_requested);
        crawls.clear_cancel("c1").unwrap();
        assert!(!crawls.get_crawl("c1").unwrap().unwrap().cancel_requested);
        assert!(crawls.delete_crawl("c1").unwrap());
        assert!(crawls.crawl_urls("c1", &[], 0, 0).unwrap().is_empty());
        // Crawling does not change the store's schema version.
        assert_eq!(
            store.stats().unwrap().schema_version,
            super::super::schema::SCHEMA_VERSION
        );
    }

    /// A crawl's end gives the pages freed inside the file back (`put_crawl` of an ended
    /// record, `end_crawl`).
    #[test]
    fn a_crawls_end_leaves_no_free_pages_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("s.db"), StoreConfig::default()).unwrap();
        let words = "kiln draught stone fire ".repeat(400);
        for n in 0..40 {
            let url = format!("https://example.com/{n}");
            let document = trawl_core::Document {
                handle: format!("example.com~{n:012}"),
                url: url.clone(),
                final_url: url,
                markdown: format!("{n} {words}"),
                ..trawl_core::Document::default()
            };
            let record = crate::DocumentRecord::new(document, SystemTime::now());
            let passages = [crate::Passage {
                page: 1,
                heading: String::new(),
                text: record.document.markdown.clone(),
                range: None,
            }];
            store.put_document(&record, &passages).unwrap();
        }
        let free = |store: &SqliteStore| -> i64 {
            let conn = store.pool.get().unwrap();
            conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))
                .unwrap()
        };
        let crawls = store.crawl_state().unwrap();
        let t = SystemTime::now();
        let record = |id: &str, status: &str| CrawlRecord {
            id: id.into(),
            start_url: "https://example.com/".into(),
            status: status.into(),
            options: serde_json::json!({}),
            summary: serde_json::json!({}),
            created_at: t,
            updated_at: t,
            cancel_requested: false,
        };
        let delete = |range: std::ops::Range<u32>| {
            for n in range {
                assert!(
                    store
                        .delete_document(&format!("example.com~{n:012}"))
                        .unwrap()
                );
            }
        };
        // A crawl on one machine ends by writing its record.
        delete(0..15);
        crawls.put_crawl(&record("c1", "running")).unwrap();
        assert!(
            free(&store) > 0,
            "a crawl's progress leaves the file as it is"
        );
        crawls.put_crawl(&record("c1", "done")).unwrap();
        assert_eq!(free(&store), 0);
        // A shared crawl, by ending it.
        delete(15..30);
        crawls.put_crawl(&record("c2", "running")).unwrap();
        assert!(free(&store) > 0);
        assert!(
            crawls
                .end_crawl("c2", "done", &serde_json::json!({}))
                .unwrap()
        );
        assert_eq!(free(&store), 0);
    }
}
