//! [`HostBackoffStore`] on SQLite: one table, `host_backoff`, made on first use like the
//! crawl tables, so a store no host ever asked to wait has none.

use std::time::SystemTime;

use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteStore;
use super::schema::once;
use crate::backoff::HostBackoffStore;
use crate::{Result, from_millis, to_millis};

const TABLE: &str = "
CREATE TABLE IF NOT EXISTS host_backoff (
    host     TEXT PRIMARY KEY,
    until_ms INTEGER NOT NULL
) WITHOUT ROWID;
";

impl SqliteStore {
    /// Whether the table can be read: it exists, or is made now (a read-only store that
    /// never kept one answers none).
    fn backoff_readable(&self, conn: &Connection) -> Result<bool> {
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Ok(conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'host_backoff')",
                [],
                |row| row.get(0),
            )?);
        }
        once(&self.made.backoff, conn, TABLE)?;
        Ok(true)
    }
}

impl HostBackoffStore for SqliteStore {
    fn put_host_backoff(&self, host: &str, until: SystemTime) -> Result<()> {
        let conn = self.pool.write()?;
        once(&self.made.backoff, &conn, TABLE)?;
        // Ends already past go as new ones come: the table stays a few rows.
        conn.execute(
            "DELETE FROM host_backoff WHERE until_ms <= ?1",
            [to_millis(SystemTime::now())],
        )?;
        conn.execute(
            "INSERT INTO host_backoff (host, until_ms) VALUES (?1, ?2)
             ON CONFLICT(host) DO UPDATE SET until_ms = max(until_ms, excluded.until_ms)",
            params![host, to_millis(until)],
        )?;
        Ok(())
    }

    fn host_backoff(&self, host: &str, now: SystemTime) -> Result<Option<SystemTime>> {
        let conn = self.pool.get()?;
        if !self.backoff_readable(&conn)? {
            return Ok(None);
        }
        let end: Option<i64> = conn
            .query_row(
                "SELECT until_ms FROM host_backoff WHERE host = ?1 AND until_ms > ?2",
                params![host, to_millis(now)],
                |row| row.get(0),
            )
            .optional()?;
        Ok(end.map(from_millis))
    }

    fn host_backoffs(&self, now: SystemTime) -> Result<Vec<(String, SystemTime)>> {
        let conn = self.pool.get()?;
        if !self.backoff_readable(&conn)? {
            return Ok(Vec::new());
        }
        let mut stmt = conn.prepare(
            "SELECT host, until_ms FROM host_backoff WHERE until_ms > ?1 ORDER BY until_ms, host",
        )?;
        let rows = stmt
            .query_map([to_millis(now)], |row| {
                Ok((row.get::<_, String>(0)?, from_millis(row.get(1)?)))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}
