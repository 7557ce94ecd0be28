//! The SQLite schema and its migrations, versioned by `PRAGMA user_version`.
//!
//! Migration `i` (0-based) takes a store from version `i` to `i + 1`. Migrations are only
//! ever appended: a released one is never edited, because stores in the wild already ran it.

use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::{Connection, TransactionBehavior};

use crate::{Error, Result};

/// Runs `sql` (statements that make tables if absent, outside the migrations: the crawl
/// tables a store only needs once it crawls) once per store, `flag` remembering it.
pub(super) fn once(flag: &AtomicBool, conn: &Connection, sql: &str) -> Result<()> {
    if !flag.load(Ordering::Acquire) {
        conn.execute_batch(sql)?;
        flag.store(true, Ordering::Release);
    }
    Ok(())
}

pub(super) const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7];

/// The schema version this build writes.
pub(super) const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Version 1: documents, passages with an external-content FTS5 index kept in step by
/// triggers, search cache, key state, site memory.
///
/// Passages live in a plain table (indexed by handle, so replacing one document's
/// passages is cheap) and FTS5 indexes its text: a `DELETE ... WHERE handle = ?` on an
/// FTS5 table itself would scan every row.
const V1: &str = "
CREATE TABLE documents (
    handle        TEXT PRIMARY KEY NOT NULL,
    url           TEXT NOT NULL,
    final_url     TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    fetched_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    etag          TEXT,
    last_modified TEXT,
    size_bytes    INTEGER NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX documents_by_url ON documents(url);
CREATE INDEX documents_by_final_url ON documents(final_url);
CREATE INDEX documents_by_age ON documents(fetched_at, size_bytes);
CREATE INDEX documents_by_expiry ON documents(expires_at);

CREATE TABLE passages (
    id      INTEGER PRIMARY KEY,
    handle  TEXT NOT NULL,
    page    INTEGER NOT NULL,
    ord     INTEGER NOT NULL,
    heading TEXT NOT NULL,
    body    TEXT NOT NULL
);
CREATE INDEX passages_by_handle ON passages(handle);
CREATE VIRTUAL TABLE passages_fts USING fts5(
    heading, body, content='passages', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER passages_after_insert AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, heading, body) VALUES (new.id, new.heading, new.body);
END;
CREATE TRIGGER passages_after_delete AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, heading, body)
        VALUES ('delete', old.id, old.heading, old.body);
END;

CREATE TABLE search_cache (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    stored_at  INTEGER NOT NULL,
    expires_at INTEGER
);
CREATE INDEX search_cache_by_expiry ON search_cache(expires_at);

CREATE TABLE key_state (
    provider    TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state       TEXT NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (provider, fingerprint)
) WITHOUT ROWID;

CREATE TABLE site_memory (
    site       TEXT PRIMARY KEY NOT NULL,
    reader     TEXT NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
";

/// Version 2: a site's reader can be pinned by the user (`trawl sites pin`); a pinned one
/// is not replaced by what worked last and does not expire.
const V2: &str = "ALTER TABLE site_memory ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;";

/// Version 3: per site, how often each tier or reader worked and failed (`trawl sites`).
/// A migration of its own rather than part of version 2, because builds of this branch
/// already wrote version-2 stores without this table.
const V3: &str = "
CREATE TABLE site_stats (
    site       TEXT NOT NULL,
    reader     TEXT NOT NULL,
    ok         INTEGER NOT NULL DEFAULT 0,
    failed     INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (site, reader)
) WITHOUT ROWID;
";

/// Version 4: passages by reference. A passage that is exactly a slice of its document's
/// Markdown keeps that slice's byte range (`start`, `len`) and an empty `body`; the text is
/// read from the document when a find returns it. The index becomes contentless (FTS5
/// `content=''` with `contentless_delete=1`): it holds the terms, not the text, and its
/// rows are written by the store (a trigger cannot read a range's text) and deleted by
/// rowid when their passage row goes. Passages written before keep their text in `body`
/// (`start` NULL) and are indexed again from it here.
const V4: &str = "
ALTER TABLE passages ADD COLUMN start INTEGER;
ALTER TABLE passages ADD COLUMN len INTEGER;
DROP TRIGGER passages_after_insert;
DROP TRIGGER passages_after_delete;
DROP TABLE passages_fts;
CREATE VIRTUAL TABLE passages_fts USING fts5(
    heading, body, content='', contentless_delete=1, tokenize='porter unicode61'
);
INSERT INTO passages_fts(rowid, heading, body) SELECT id, heading, body FROM passages;
CREATE TRIGGER passages_after_delete AFTER DELETE ON passages BEGIN
    DELETE FROM passages_fts WHERE rowid = old.id;
END;
";

/// Version 5: the full-text index merges its segments 16 at a time, not FTS5's default 4.
/// A crawl commits a few pages at a time, each commit a new segment; merged four at a
/// time, each passage's terms were written again at every level (seven on a 100,000-page
/// crawl), a tenth of the crawl's CPU. Sixteen at a time halves the levels; finds on a
/// 100,000-page store took the same time (BENCHMARKS.md §13.4).
const V5: &str = "
INSERT INTO passages_fts(passages_fts, rank) VALUES ('automerge', 16);
";

/// Version 6: segments merged 64 at a time (the most FTS5 allows), and a level merged at
/// once (a crisis merge) only at 64 segments. At 16 (V5, with FTS5's crisis default of 16
/// beside it) a crawl still spent about a tenth of its instructions merging: callgrind of
/// a 10,000-page crawl, 9.80 G of 112.6 G in merges at 16 and 6.46 G of 109.5 G at 64
/// (BENCHMARKS.md §13.12, with what finds on a 100,000-page store took at each).
const V6: &str = "
INSERT INTO passages_fts(passages_fts, rank) VALUES ('automerge', 64);
INSERT INTO passages_fts(passages_fts, rank) VALUES ('crisismerge', 64);
";

/// Version 7: two indexes that put a crawl's every page in random leaves, gone or made
/// small. Each such leaf a commit touches is written again to the WAL and, once out of
/// the writer's cache, read back (BENCHMARKS.md §13.12, §13.13).
///
/// - A document's row names its passages' run of ids (`passages_from`, `passages_to`; a
///   document's passages are written together, so their ids are one run), and the index
///   of passages by handle (a hash: each passage a random leaf) goes. A document's
///   passages are found by their ids, each checked against the handle.
/// - The index by final URL holds only the documents whose final URL is not the one
///   asked for (those that redirected): a lookup by URL finds the others by `url`.
const V7: &str = "
ALTER TABLE documents ADD COLUMN passages_from INTEGER;
ALTER TABLE documents ADD COLUMN passages_to INTEGER;
UPDATE documents SET
    passages_from = (SELECT min(id) FROM passages WHERE passages.handle = documents.handle),
    passages_to = (SELECT max(id) FROM passages WHERE passages.handle = documents.handle);
DROP INDEX passages_by_handle;
DROP INDEX documents_by_final_url;
CREATE INDEX documents_by_final_url ON documents(final_url) WHERE final_url <> url;
";

/// Brings the store up to [`SCHEMA_VERSION`]. Safe when several processes open a new
/// file at once: the version is read again inside the write transaction, so only the
/// first one migrates.
pub(super) fn migrate(conn: &mut Connection) -> Result<u32> {
    let found = user_version(conn)?;
    check_not_newer(found)?;
    if found == SCHEMA_VERSION {
        return Ok(found);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = user_version(&tx)?;
    check_not_newer(found)?;
    for migration in &MIGRATIONS[found as usize..] {
        tx.execute_batch(migration)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(SCHEMA_VERSION)
}

pub(super) fn user_version(conn: &Connection) -> Result<u32> {
    Ok(conn.pragma_query_value(None, "user_version", |row| row.get(0))?)
}

fn check_not_newer(found: u32) -> Result<()> {
    if found > SCHEMA_VERSION {
        return Err(Error::SchemaTooNew {
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store left at `version` by an older build, with one remembered site in it.
    fn store_at(version: usize) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        for migration in &MIGRATIONS[..version] {
            conn.execute_batch(migration).unwrap();
        }
        conn.pragma_update(None, "user_version", version as u32)
            .unwrap();
        conn.execute(
            "INSERT INTO site_memory (site, reader, updated_at) VALUES ('docs.rs', 'render', 7)",
            [],
        )
        .unwrap();
        conn
    }

    /// One of the index's merge settings (V5, V6), as FTS5 keeps it.
    fn fts_setting(conn: &Connection, key: &str) -> i64 {
        conn.query_row(
            "SELECT v FROM passages_fts_config WHERE k = ?1",
            [key],
            |row| row.get(0),
        )
        .unwrap()
    }

    #[test]
    fn a_new_store_merges_its_index_sixty_four_segments_at_a_time() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn).unwrap(), SCHEMA_VERSION);
        assert_eq!(fts_setting(&conn, "automerge"), 64);
        assert_eq!(fts_setting(&conn, "crisismerge"), 64);
    }

    /// FTS5 takes the settings (it refuses an automerge above 64, so the migration would
    /// fail, not pass unnoticed), and its index still answers once many segments wait to be
    /// merged: 100 transactions of one row each.
    #[test]
    fn the_index_finds_across_many_unmerged_segments() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        for n in 0..100 {
            conn.execute_batch(&format!(
                "BEGIN; INSERT INTO passages_fts(rowid, heading, body)
                 VALUES ({n}, 'h', 'word{} common'); COMMIT;",
                n % 7
            ))
            .unwrap();
        }
        let segments: i64 = conn
            .query_row(
                "SELECT count(*) FROM passages_fts_data WHERE id > 10",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert!(
            segments > 16,
            "{segments} data rows: fewer segments than expected"
        );
        let found: i64 = conn
            .query_row(
                "SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'word3 AND common'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(found, (0..100).filter(|n| n % 7 == 3).count() as i64);
    }

    #[test]
    fn older_stores_migrate_to_the_current_version_and_keep_their_sites() {
        for version in 1..SCHEMA_VERSION as usize {
            let mut conn = store_at(version);
            assert_eq!(migrate(&mut conn).unwrap(), SCHEMA_VERSION);
            assert_eq!(user_version(&conn).unwrap(), SCHEMA_VERSION);
            let (reader, pinned): (String, i64) = conn
                .query_row(
                    "SELECT reader, pinned FROM site_memory WHERE site = 'docs.rs'",
                    [],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .unwrap();
            assert_eq!((reader.as_str(), pinned), ("render", 0), "from {version}");
            let counted: i64 = conn
                .query_row("SELECT count(*) FROM site_stats", [], |row| row.get(0))
                .unwrap();
            assert_eq!(counted, 0, "from {version}");
            assert_eq!(fts_setting(&conn, "automerge"), 64, "from {version}");
            assert_eq!(fts_setting(&conn, "crisismerge"), 64, "from {version}");
            // Opening it again migrates nothing.
            assert_eq!(migrate(&mut conn).unwrap(), SCHEMA_VERSION);
        }
    }
}
