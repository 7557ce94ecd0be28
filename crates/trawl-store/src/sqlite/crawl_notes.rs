//! [`CrawlNotes`] on SQLite: one table, `crawl_page_notes`, made on first use like the
//! other crawl tables (see `crawl.rs`), so a store that never crawls has none.

use rusqlite::{Connection, OptionalExtension, params};

use super::batch::begin;

use super::SqliteStore;
use super::schema::once;
use crate::crawl_notes::{CrawlNotes, PageNotes};
use crate::{Error, Result};

/// A rowid table, not `WITHOUT ROWID`: a page's links note is 1 to 2 KB, more than an
/// index b-tree keeps in its page (about 1 KB at 4 KiB pages), and every row spilled into
/// an overflow page mostly empty (measured: 2.2 MB of pages for 0.65 MB of notes on a
/// 500-page crawl; 0.8 MB as a rowid table). Stores made before keep their table as it is.
pub(super) const NOTES_TABLE: &str = "
CREATE TABLE IF NOT EXISTS crawl_page_notes (
    crawl_id TEXT NOT NULL,
    key      TEXT NOT NULL,
    links    TEXT,
    change   TEXT,
    PRIMARY KEY (crawl_id, key)
);
";

impl SqliteStore {
    /// Whether the table can be read: it exists, or is made now (a read-only store that
    /// never kept notes has none, and answers no notes).
    fn notes_readable(&self, conn: &Connection) -> Result<bool> {
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Ok(conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'crawl_page_notes')",
                [],
                |row| row.get(0),
            )?);
        }
        once(&self.made.notes, conn, NOTES_TABLE)?;
        Ok(true)
    }
}

fn decode(text: Option<String>, what: &'static str) -> Result<Option<serde_json::Value>> {
    text.map(|t| serde_json::from_str(&t).map_err(|source| Error::Decode { what, source }))
        .transpose()
}

type Raw = (String, Option<String>, Option<String>);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Raw> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
}

fn notes_of((key, links, change): Raw) -> Result<PageNotes> {
    Ok(PageNotes {
        key,
        links: decode(links, "crawl page links")?,
        change: decode(change, "crawl page change")?,
    })
}

impl CrawlNotes for SqliteStore {
    fn put_page_notes(&self, id: &str, notes: &[PageNotes]) -> Result<()> {
        if notes.is_empty() {
            return Ok(());
        }
        let mut conn = self.pool.write()?;
        once(&self.made.notes, &conn, NOTES_TABLE)?;
        let tx = begin(&mut conn)?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO crawl_page_notes (crawl_id, key, links, change) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(crawl_id, key) DO UPDATE SET
                     links = COALESCE(excluded.links, links),
                     change = COALESCE(excluded.change, change)",
            )?;
            for n in notes {
                stmt.execute(params![
                    id,
                    n.key,
                    n.links.as_ref().map(|v| v.to_string()),
                    n.change.as_ref().map(|v| v.to_string()),
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn page_notes(&self, id: &str, keys: &[String]) -> Result<Vec<PageNotes>> {
        let conn = self.pool.get()?;
        if !self.notes_readable(&conn)? {
            return Ok(Vec::new());
        }
        if keys.is_empty() {
            let mut stmt = conn.prepare(
                "SELECT key, links, change FROM crawl_page_notes WHERE crawl_id = ?1 ORDER BY key",
            )?;
            let rows = stmt.query_map([id], row)?;
            return rows.map(|r| notes_of(r?)).collect();
        }
        let mut stmt = conn.prepare_cached(
            "SELECT key, links, change FROM crawl_page_notes WHERE crawl_id = ?1 AND key = ?2",
        )?;
        let mut out = Vec::new();
        for key in keys {
            if let Some(raw) = stmt.query_row(params![id, key], row).optional()? {
                out.push(notes_of(raw)?);
            }
        }
        Ok(out)
    }
}
