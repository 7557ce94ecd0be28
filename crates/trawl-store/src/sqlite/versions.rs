//! [`VersionStore`] on SQLite: one table, `document_versions`, made on first use (`CREATE
//! TABLE IF NOT EXISTS`) rather than by a schema migration, as the crawl tables are, so
//! stores that never track changes stay at their schema version and older builds can
//! still open them.

use rusqlite::{Connection, OptionalExtension, params};

use super::batch::begin;

use super::{RawDocument, SqliteStore};
use crate::versions::{MAX_VERSIONS, VersionInfo, VersionStore};
use crate::{DocumentRecord, Error, Result, from_millis, to_millis};

const TABLE: &str = "
CREATE TABLE IF NOT EXISTS document_versions (
    handle        TEXT NOT NULL,
    version       INTEGER NOT NULL,
    content_hash  TEXT NOT NULL,
    fetched_at    INTEGER NOT NULL,
    etag          TEXT,
    last_modified TEXT,
    body          TEXT NOT NULL,
    PRIMARY KEY (handle, version)
) WITHOUT ROWID;
";

fn table_exists(conn: &Connection) -> Result<bool> {
    let found: Option<i64> = conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'document_versions'",
            [],
            |row| row.get(0),
        )
        .optional()?;
    Ok(found.is_some())
}

/// Removes the older copies of `handle` (all handles when `None`), if any were ever kept;
/// part of the caller's transaction. Returns how many went.
pub(super) fn forget(conn: &Connection, handle: Option<&str>) -> Result<u64> {
    if !table_exists(conn)? {
        return Ok(0);
    }
    let n = match handle {
        Some(h) => conn.execute("DELETE FROM document_versions WHERE handle = ?1", [h])?,
        None => conn.execute("DELETE FROM document_versions", [])?,
    };
    Ok(n as u64)
}

/// Removes the older copies of the documents that expired before `cutoff` (ms), which
/// prune is about to drop; part of the caller's transaction.
pub(super) fn forget_expired(conn: &Connection, cutoff: i64) -> Result<()> {
    if table_exists(conn)? {
        conn.execute(
            "DELETE FROM document_versions WHERE handle IN
                 (SELECT handle FROM documents WHERE expires_at < ?1)",
            [cutoff],
        )?;
    }
    Ok(())
}

impl VersionStore for SqliteStore {
    fn put_version(&self, record: &DocumentRecord) -> Result<u32> {
        let json = serde_json::to_string(&record.document).map_err(|e| Error::Backend(e.into()))?;
        let body = super::body::pack(&json);
        let mut conn = self.pool.write()?;
        conn.execute_batch(TABLE)?;
        let tx = begin(&mut conn)?;
        let handle = record.handle();
        let last: u32 = tx.query_row(
            "SELECT COALESCE(MAX(version), 0) FROM document_versions WHERE handle = ?1",
            [handle],
            |row| row.get(0),
        )?;
        let version = last + 1;
        tx.execute(
            "INSERT INTO document_versions
                 (handle, version, content_hash, fetched_at, etag, last_modified, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                handle,
                version,
                record.content_hash,
                to_millis(record.fetched_at),
                record.etag,
                record.last_modified,
                body,
            ],
        )?;
        tx.execute(
            "DELETE FROM document_versions WHERE handle = ?1 AND version <= ?2",
            params![handle, i64::from(version) - i64::from(MAX_VERSIONS)],
        )?;
        tx.commit()?;
        Ok(version)
    }

    fn get_version(&self, handle: &str, version: u32) -> Result<Option<DocumentRecord>> {
        let conn = self.pool.get()?;
        if !table_exists(&conn)? {
            return Ok(None);
        }
        let row = conn
            .query_row(
                "SELECT body, content_hash, fetched_at, etag, last_modified
                 FROM document_versions WHERE handle = ?1 AND version = ?2",
                params![handle, version],
                |row| {
                    Ok(RawDocument {
                        body: row.get(0)?,
                        content_hash: row.get(1)?,
                        fetched_at: row.get(2)?,
                        // An older copy is never fresh: it is history, not a cache.
                        expires_at: row.get(2)?,
                        etag: row.get(3)?,
                        last_modified: row.get(4)?,
                    })
                },
            )
            .optional()?;
        row.map(RawDocument::decode).transpose()
    }

    fn list_versions(&self, handle: &str) -> Result<Vec<VersionInfo>> {
        let conn = self.pool.get()?;
        if !table_exists(&conn)? {
            return Ok(Vec::new());
        }
        let mut stmt = conn.prepare_cached(
            "SELECT version, fetched_at, content_hash FROM document_versions
             WHERE handle = ?1 ORDER BY version",
        )?;
        let rows = stmt
            .query_map([handle], |row| {
                Ok(VersionInfo {
                    version: row.get(0)?,
                    fetched_at: from_millis(row.get(1)?),
                    content_hash: row.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}
