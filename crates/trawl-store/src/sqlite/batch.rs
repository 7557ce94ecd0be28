//! Several calls in one SQLite transaction ([`Store::batch`](crate::Store::batch)): a
//! crawl stores pages faster than one transaction each can commit (every commit flushes
//! FTS5's pending terms into a new segment and writes again the pages it shares with the
//! last one), so its writes are gathered and committed together.
//!
//! While a batch runs, the calls its thread makes on the store take the batch's connection
//! (already inside `BEGIN IMMEDIATE`, holding this process's writers' turn) instead of one
//! of their own, and their own transactions become savepoints in it ([`begin`]). Each job
//! runs inside a savepoint of its own, so a job that fails leaves no half of its writes
//! behind and the others still commit.

use std::ops::Deref;
use std::thread::{self, ThreadId};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::passages::DeferredIndexRow;
use crate::{Error, Result};

/// A call's transaction: its own, or a savepoint inside a batch's.
pub(super) enum Tx<'c> {
    Own(Transaction<'c>),
    InBatch(CallSavepoint<'c>),
}

/// A call's savepoint inside a batch, rolled back when dropped uncommitted. Its three
/// statements are prepared once a connection: rusqlite's `Savepoint` formats and parses
/// its SQL at every call, and a crawl makes several calls a page (with the jobs' own
/// savepoints, SQLite parsed about fifteen statements a page).
pub(super) struct CallSavepoint<'c> {
    conn: &'c Connection,
    released: bool,
}

impl<'c> CallSavepoint<'c> {
    fn begin(conn: &'c Connection) -> Result<Self> {
        run_cached(conn, "SAVEPOINT batch_call")?;
        Ok(CallSavepoint {
            conn,
            released: false,
        })
    }

    fn release(mut self) -> Result<()> {
        run_cached(self.conn, "RELEASE batch_call")?;
        self.released = true;
        Ok(())
    }
}

impl Drop for CallSavepoint<'_> {
    fn drop(&mut self) {
        if !self.released {
            // Best effort, as rusqlite's: the batch's own savepoint and transaction still
            // roll back what a failed rollback here leaves.
            let _ = run_cached(self.conn, "ROLLBACK TO batch_call");
            let _ = run_cached(self.conn, "RELEASE batch_call");
        }
    }
}

/// Runs one statement without results through the connection's statement cache.
pub(super) fn run_cached(conn: &Connection, sql: &str) -> Result<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

impl Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        match self {
            Tx::Own(t) => t,
            Tx::InBatch(s) => s.conn,
        }
    }
}

impl Tx<'_> {
    pub(super) fn commit(self) -> Result<()> {
        match self {
            Tx::Own(t) => t.commit()?,
            Tx::InBatch(s) => s.release()?,
        }
        Ok(())
    }
}

/// Begins a write: `BEGIN IMMEDIATE`, or a savepoint when the connection is a batch's.
pub(super) fn begin(conn: &mut Connection) -> Result<Tx<'_>> {
    Ok(if conn.is_autocommit() {
        Tx::Own(conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
    } else {
        Tx::InBatch(CallSavepoint::begin(conn)?)
    })
}

/// The connection of the batch running now, and its thread.
#[derive(Debug, Default)]
pub(super) struct Slot {
    running: Option<(ThreadId, Option<Connection>)>,
    /// Passage index rows the batch's jobs deferred to its end (`passages.rs`).
    deferred: Vec<DeferredIndexRow>,
}

impl Slot {
    /// The batch's connection, when this thread runs one; `Err` when a call of the batch
    /// already has it (a call inside a call: never done by the store's own calls).
    pub(super) fn take_for_this_thread(&mut self) -> Result<Option<Connection>> {
        match &mut self.running {
            Some((owner, conn)) if *owner == thread::current().id() => conn
                .take()
                .map(Some)
                .ok_or_else(|| Error::Backend("a store call inside a call of a batch".into())),
            _ => Ok(None),
        }
    }

    /// Gives the batch's connection back after a call.
    pub(super) fn give_back(&mut self, conn: Connection) {
        if let Some((_, slot)) = &mut self.running {
            *slot = Some(conn);
        }
    }

    pub(super) fn open(&mut self, conn: Connection) {
        self.running = Some((thread::current().id(), Some(conn)));
        self.deferred.clear();
    }

    pub(super) fn close(&mut self) -> Option<Connection> {
        self.deferred.clear();
        self.running.take().and_then(|(_, conn)| conn)
    }

    /// Keeps a job's deferred index rows until the batch ends.
    pub(super) fn defer(&mut self, rows: Vec<DeferredIndexRow>) {
        self.deferred.extend(rows);
    }

    /// How many rows are deferred: where a job's own begin.
    pub(super) fn deferred_len(&self) -> usize {
        self.deferred.len()
    }

    /// Drops the rows of a job that failed (its savepoint rolled their passages back).
    pub(super) fn drop_deferred_from(&mut self, start: usize) {
        self.deferred.truncate(start);
    }

    /// The deferred rows, to index at the batch's end.
    pub(super) fn take_deferred(&mut self) -> Vec<DeferredIndexRow> {
        std::mem::take(&mut self.deferred)
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use trawl_core::Document;

    use crate::{BatchJob, DocumentRecord, SqliteStore, Store, StoreConfig};

    fn record(n: usize) -> DocumentRecord {
        let url = format!("https://example.com/{n}");
        let document = Document {
            handle: format!("example.com~{n:012}"),
            url: url.clone(),
            final_url: url,
            markdown: format!("page {n} about batches"),
            ..Document::default()
        };
        DocumentRecord::new(document, SystemTime::now())
    }

    /// One transaction for all jobs: each later job sees the earlier ones' writes; a job
    /// that fails leaves none of its own (a write before its error included) and the others
    /// are kept; another thread's write waits for the batch and then goes through.
    #[test]
    fn jobs_share_a_transaction_and_a_failed_job_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("s.db"), StoreConfig::default()).unwrap();
        let (a, b, c, d) = (record(1), record(2), record(3), record(4));
        let (s, a2) = (&store, a.clone());
        let jobs: Vec<BatchJob<'_>> = vec![
            Box::new(|| s.put_document(&a, &[])),
            Box::new(move || {
                // Inside the batch, the first job's document is there.
                assert!(s.get_document(a2.handle())?.is_some());
                s.put_document(&b, &[])?;
                Err(crate::Error::Backend("this job fails".into()))
            }),
            Box::new(|| s.put_document(&c, &[])),
        ];
        let results = std::thread::scope(|scope| {
            let results = store.batch(jobs);
            // Started after the batch, on another thread: it takes the turn after it.
            scope
                .spawn(|| store.put_document(&d, &[]))
                .join()
                .unwrap()
                .unwrap();
            results
        });
        assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
        assert!(results[1].is_err());
        for (r, kept) in [
            (record(1), true),
            (record(2), false),
            (record(3), true),
            (record(4), true),
        ] {
            assert_eq!(
                store.get_document(r.handle()).unwrap().is_some(),
                kept,
                "{}",
                r.document.url
            );
        }
        // The batch's connection went back: plain calls work as before.
        let e = record(5);
        store.put_document(&e, &[]).unwrap();
        assert!(store.get_document(e.handle()).unwrap().is_some());
    }

    /// A call's savepoint inside a transaction keeps its writes when released and drops
    /// them (only them) when dropped unreleased, twice on one connection, so the prepared
    /// statements are reused; the transaction goes on either way.
    #[test]
    fn a_call_savepoint_keeps_or_drops_its_own_writes_only() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (v INTEGER); BEGIN; INSERT INTO t VALUES (0);")
            .unwrap();
        let values = |c: &rusqlite::Connection| -> Vec<i64> {
            let mut stmt = c.prepare("SELECT v FROM t ORDER BY v").unwrap();
            stmt.query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        for round in 0..2 {
            {
                let super::Tx::InBatch(kept) = super::begin(&mut conn).unwrap() else {
                    panic!("a connection inside a transaction takes a savepoint");
                };
                kept.conn
                    .execute("INSERT INTO t VALUES (?1)", [10 + round])
                    .unwrap();
                kept.release().unwrap();
            }
            {
                let super::Tx::InBatch(dropped) = super::begin(&mut conn).unwrap() else {
                    panic!("a connection inside a transaction takes a savepoint");
                };
                dropped
                    .conn
                    .execute("INSERT INTO t VALUES (?1)", [20 + round])
                    .unwrap();
            }
        }
        assert_eq!(values(&conn), [0, 10, 11]);
        assert!(!conn.is_autocommit(), "the transaction is still open");
        conn.execute_batch("COMMIT").unwrap();
        assert_eq!(values(&conn), [0, 10, 11]);
    }

    /// A batch's savepoints journal in memory (`pool.rs`: spilled to a temporary file, they
    /// were half of a crawl's writes), and only the batch's: the connection goes back with
    /// the default, whether the batch's jobs held or failed.
    #[test]
    fn a_batch_journals_its_savepoints_in_memory_and_only_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("s.db"), StoreConfig::default()).unwrap();
        let temp_store = |s: &SqliteStore| -> i64 {
            let conn = s.pool.get().unwrap();
            conn.query_row("PRAGMA temp_store", [], |r| r.get(0))
                .unwrap()
        };
        let (a, b) = (record(1), record(2));
        let s = &store;
        let seen = std::sync::Mutex::new(Vec::new());
        let jobs: Vec<BatchJob<'_>> = vec![
            Box::new(|| {
                seen.lock().unwrap().push(temp_store(s));
                s.put_document(&a, &[])
            }),
            Box::new(|| {
                s.put_document(&b, &[])?;
                Err(crate::Error::Backend("this job fails".into()))
            }),
        ];
        let results = store.batch(jobs);
        assert!(results[0].is_ok() && results[1].is_err(), "{results:?}");
        // 2 is MEMORY, 0 the default.
        assert_eq!(*seen.lock().unwrap(), [2]);
        assert_eq!(temp_store(&store), 0);
        store.put_document(&record(3), &[]).unwrap();
        assert_eq!(temp_store(&store), 0);
    }
}
