//! A few SQLite connections, reused across calls.
//!
//! A file store opens connections on demand (one per concurrent call) and keeps up to
//! [`MAX_IDLE`] for reuse; SQLite's own locking (WAL plus the busy timeout) orders the
//! writers, across threads and processes alike. An in-memory store is one database per
//! connection, so it has exactly one connection and calls take turns on it.
//!
//! Writers of one process also take turns on a mutex before they ask SQLite for its write
//! lock ([`Pool::write`]): SQLite's busy handler waits by sleeping (1 ms, then 2, 5, 10…),
//! and a crawl's store calls, several a page from several threads, spent more time asleep
//! in it than writing. The mutex hands the turn over at once; writers in other processes
//! still meet at SQLite's lock and its busy timeout.

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::batch::{Slot, run_cached};
use super::passages::{DeferredIndexRow, index_deferred};
use crate::{Error, Result};

/// `PRAGMA auto_vacuum`'s value for INCREMENTAL.
const AUTO_VACUUM_INCREMENTAL: i64 = 2;

/// WAL pages between SQLite's own checkpoints: a backstop (128 MiB); the checkpoints that
/// keep the WAL small are [`Pool`]'s, every [`CHECKPOINT_EVERY_WRITES`] writes.
const WAL_AUTOCHECKPOINT_PAGES: i64 = 32_768;

/// Writes between this process's checkpoints. SQLite's automatic checkpoint runs in the
/// writer that crossed the mark, inside its turn, so every other writer waited for it (a
/// tenth of a crawl's CPU, on its one serial path); this one runs after the turn is handed
/// on, `PASSIVE` (beside the next writer, never waiting for readers).
const CHECKPOINT_EVERY_WRITES: u32 = 128;

/// A batch's savepoints journal in memory (`temp_store` decides where a transaction's
/// sub-journal goes when it begins); [`SUBJOURNAL_DEFAULT`] puts it back.
const SUBJOURNAL_IN_MEMORY: &str = "PRAGMA temp_store = MEMORY";
const SUBJOURNAL_DEFAULT: &str = "PRAGMA temp_store = DEFAULT";

/// Prepared statements a connection keeps: a crawl's page runs a dozen or so, more than
/// rusqlite's default 16 leaves room for beside the others.
const PREPARED_STATEMENTS: usize = 64;

/// Connections kept open between calls.
const MAX_IDLE: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    File { path: PathBuf, access: Access },
    Memory,
}

/// How a store file is opened. The last two are for a store that cannot be written (the
/// file, or its directory), so that reads still answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    ReadWrite,
    /// Read-only; SQLite still needs the WAL's `-shm` file to exist or be creatable.
    ReadOnly,
    /// Read-only without a `-shm` (none exists and none can be made): SQLite then reads
    /// the file as one that nobody changes, which is as much as can be done.
    Immutable,
}

#[derive(Debug)]
pub(super) struct Pool {
    target: Target,
    busy_timeout: Duration,
    idle: Mutex<Vec<Connection>>,
    returned: Condvar,
    /// This process's writers' turn (see the module's note).
    writing: Mutex<()>,
    /// Writes so far, for the checkpoints (see [`CHECKPOINT_EVERY_WRITES`]).
    writes: std::sync::atomic::AtomicU32,
    /// The batch running now, if any (see `sqlite/batch.rs`).
    batch: Mutex<Slot>,
}

impl Pool {
    /// A pool whose first connection is `first` (already configured and migrated).
    pub(super) fn new(target: Target, busy_timeout: Duration, first: Connection) -> Self {
        Self {
            target,
            busy_timeout,
            idle: Mutex::new(vec![first]),
            returned: Condvar::new(),
            writing: Mutex::new(()),
            writes: std::sync::atomic::AtomicU32::new(0),
            batch: Mutex::new(Slot::default()),
        }
    }

    pub(super) fn is_read_only(&self) -> bool {
        matches!(
            self.target,
            Target::File {
                access: Access::ReadOnly | Access::Immutable,
                ..
            }
        )
    }

    pub(super) fn get(&self) -> Result<PooledConnection<'_>> {
        if let Some(conn) = self.slot().take_for_this_thread()? {
            return Ok(PooledConnection {
                pool: self,
                conn: Some(conn),
                turn: None,
                in_batch: true,
            });
        }
        let mut idle = self.lock();
        loop {
            if let Some(conn) = idle.pop() {
                return Ok(PooledConnection {
                    pool: self,
                    conn: Some(conn),
                    turn: None,
                    in_batch: false,
                });
            }
            match &self.target {
                Target::Memory => {
                    idle = self
                        .returned
                        .wait(idle)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                Target::File { .. } => {
                    drop(idle);
                    let conn = open_connection(&self.target, self.busy_timeout)?;
                    return Ok(PooledConnection {
                        pool: self,
                        conn: Some(conn),
                        turn: None,
                        in_batch: false,
                    });
                }
            }
        }
    }

    /// A connection for a call that writes: this process's writers' turn first, then a
    /// connection (so no connection is held while waiting for the turn).
    pub(super) fn write(&self) -> Result<PooledConnection<'_>> {
        // Inside a batch the turn is the batch's.
        if let Some(conn) = self.slot().take_for_this_thread()? {
            return Ok(PooledConnection {
                pool: self,
                conn: Some(conn),
                turn: None,
                in_batch: true,
            });
        }
        let turn = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let mut conn = self.get()?;
        conn.turn = Some(turn);
        Ok(conn)
    }

    /// After a write: whether this one checkpoints the WAL.
    fn checkpoint_due(&self) -> bool {
        let n = self
            .writes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        n % CHECKPOINT_EVERY_WRITES == CHECKPOINT_EVERY_WRITES - 1
            && matches!(
                self.target,
                Target::File {
                    access: Access::ReadWrite,
                    ..
                }
            )
    }

    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.batch.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `jobs` in one transaction, each in a savepoint of its own (see
    /// `sqlite/batch.rs`): each job's result, or every job's error when the commit fails.
    pub(super) fn run_batch<'j>(
        &self,
        jobs: Vec<Box<dyn FnOnce() -> Result<()> + 'j>>,
    ) -> Vec<Result<()>> {
        let n = jobs.len();
        let failed_all = |e: &Error| -> Vec<Result<()>> {
            (0..n)
                .map(|_| Err(Error::Backend(format!("batch not written: {e}").into())))
                .collect()
        };
        let mut conn = match self.write() {
            Ok(c) => c,
            Err(e) => return failed_all(&e),
        };
        if conn.in_batch {
            // A batch inside a batch: its jobs are the outer batch's.
            drop(conn);
            return jobs.into_iter().map(|job| job()).collect();
        }
        // Each job is a savepoint, and SQLite keeps the pages a savepoint changes in a
        // sub-journal that goes to a temporary file past 64 KiB: half of a crawl's writes
        // went there. In memory for the batch, it holds one job's pages at most (it is
        // emptied when the job's savepoint ends). Only for a batch: a large statement
        // elsewhere (a prune's delete) still spills to disk.
        if let Err(e) = conn.execute_batch(&format!("{SUBJOURNAL_IN_MEMORY}; BEGIN IMMEDIATE")) {
            let _ = conn.execute_batch(SUBJOURNAL_DEFAULT);
            return failed_all(&e.into());
        }
        let Some(inner) = conn.conn.take() else {
            return failed_all(&Error::Backend("no connection".into()));
        };
        self.slot().open(inner);
        // Whatever happens below (a panic in a job included), the connection leaves the
        // slot and goes back with `conn`; `open`'s drop rolls back what was not committed.
        let mut open = OpenBatch { pool: self, conn };
        let mut results = Vec::with_capacity(n);
        for job in jobs {
            let deferred_before = self.slot().deferred_len();
            let result = self
                .in_slot(|c| run_cached(c, "SAVEPOINT batch_job"))
                .and_then(|()| job());
            // Prepared once a connection, as the calls' savepoints are (`batch.rs`).
            let ended = if result.is_ok() {
                self.in_slot(|c| run_cached(c, "RELEASE batch_job"))
            } else {
                self.slot().drop_deferred_from(deferred_before);
                self.in_slot(|c| {
                    run_cached(c, "ROLLBACK TO batch_job")?;
                    run_cached(c, "RELEASE batch_job")
                })
            };
            results.push(result.and(ended));
        }
        // The passages' index rows, outside every savepoint (`passages.rs`); if they cannot
        // be written, nothing of the batch is committed.
        let deferred = self.slot().take_deferred();
        let committed = self
            .in_slot(|c| index_deferred(c, deferred))
            .and_then(|()| Ok(open.close().execute_batch("COMMIT")?));
        drop(open);
        match committed {
            Ok(()) => results,
            Err(e) => failed_all(&e),
        }
    }

    /// Keeps index rows a job of the running batch deferred (`passages.rs`).
    pub(super) fn defer_index(&self, rows: Vec<DeferredIndexRow>) {
        if !rows.is_empty() {
            self.slot().defer(rows);
        }
    }

    fn in_slot(&self, f: impl FnOnce(&Connection) -> Result<()>) -> Result<()> {
        let conn = self.get()?;
        f(&conn)
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Connection>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn put_back(&self, conn: Connection) {
        let mut idle = self.lock();
        if idle.len() < MAX_IDLE {
            idle.push(conn);
            self.returned.notify_one();
        }
    }
}

/// A batch's connection while its jobs run (see [`Pool::run_batch`]).
struct OpenBatch<'a> {
    pool: &'a Pool,
    /// Holds the writers' turn; its connection is in the pool's slot until [`close`].
    conn: PooledConnection<'a>,
}

impl<'a> OpenBatch<'a> {
    /// Takes the connection back from the slot.
    fn close(&mut self) -> &mut PooledConnection<'a> {
        if let Some(c) = self.pool.slot().close() {
            self.conn.conn = Some(c);
        }
        &mut self.conn
    }
}

impl Drop for OpenBatch<'_> {
    /// Ends the batch's hold on the connection: what was not committed is rolled back, and
    /// its sub-journal's place is the default again (which can change only outside a
    /// transaction).
    fn drop(&mut self) {
        if let Some(conn) = self.close().conn.as_ref() {
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            let _ = conn.execute_batch(SUBJOURNAL_DEFAULT);
        }
    }
}

/// A connection on loan from the pool; goes back when dropped.
pub(super) struct PooledConnection<'a> {
    pool: &'a Pool,
    conn: Option<Connection>,
    /// A writer's turn, held until the connection goes back.
    turn: Option<MutexGuard<'a, ()>>,
    /// The connection is a running batch's: it goes back to the batch.
    in_batch: bool,
}

impl Deref for PooledConnection<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn.as_ref().expect("connection present until drop")
    }
}

impl PooledConnection<'_> {
    /// The connection is a running batch's (its writes are inside the batch's transaction).
    pub(super) fn in_batch(&self) -> bool {
        self.in_batch
    }
}

impl DerefMut for PooledConnection<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        self.conn.as_mut().expect("connection present until drop")
    }
}

impl Drop for PooledConnection<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if self.in_batch {
                self.pool.slot().give_back(conn);
                return;
            }
            // A connection left inside a transaction (a panic mid-call) is rolled back
            // before reuse. If even that fails, a file connection is dropped; the only
            // connection of an in-memory store goes back regardless, since dropping it
            // would lose the database and leave every later call waiting.
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            // The turn goes to the next writer first; then, now and then, a checkpoint.
            let wrote = self.turn.take().map(drop).is_some();
            if wrote && conn.is_autocommit() && self.pool.checkpoint_due() {
                // Best effort: a checkpoint that cannot finish now is done by a later one.
                let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
            }
            if conn.is_autocommit() || self.pool.target == Target::Memory {
                self.pool.put_back(conn);
            }
        }
    }
}

/// Opens and configures one connection.
///
/// WAL lets readers run beside the one writer and makes a commit durable against a killed
/// process once it returns; `synchronous=NORMAL` skips the fsync per commit, so a power
/// loss (not a crash) may lose the last commits, never the file's consistency.
/// `auto_vacuum=INCREMENTAL` only takes effect on a new file, before the first table,
/// and lets `prune`/`clear` hand freed pages back to the file system. A connection that
/// only reads commits nothing and never syncs (the last one to close still folds the
/// WAL into the file, so a store at rest is one file, safe to copy).
pub(super) fn open_connection(target: &Target, busy_timeout: Duration) -> Result<Connection> {
    let conn = match target {
        Target::File {
            path,
            access: Access::ReadWrite,
        } => Connection::open(path)?,
        Target::File {
            path,
            access: Access::ReadOnly,
        } => Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?,
        Target::File {
            path,
            access: Access::Immutable,
        } => Connection::open_with_flags(
            immutable_uri(path),
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_URI,
        )?,
        Target::Memory => Connection::open_in_memory()?,
    };
    let writable = matches!(
        target,
        Target::Memory
            | Target::File {
                access: Access::ReadWrite,
                ..
            }
    );
    // 0 means "no limit" everywhere in trawl; SQLite's 0 means "fail at once".
    let timeout = if busy_timeout.is_zero() {
        Duration::from_millis(i32::MAX as u64)
    } else {
        busy_timeout
    };
    conn.busy_timeout(timeout)?;
    conn.set_prepared_statement_cache_capacity(PREPARED_STATEMENTS);
    // Connections that write index passages: they take the faster porter (same tokens).
    if writable {
        super::porter::register(&conn)?;
    }
    // Setting auto_vacuum on a store that already has it still writes page 1 (a write
    // transaction and, at close, a checkpoint with fsyncs), so a read-only command would
    // write. It is read first and set only when it differs, i.e. on a new file.
    let auto_vacuum: i64 = conn.pragma_query_value(None, "auto_vacuum", |row| row.get(0))?;
    if auto_vacuum != AUTO_VACUUM_INCREMENTAL && writable {
        conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
    }
    if *target != Target::Memory {
        let mode: String = conn.pragma_query_value(None, "journal_mode", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") && writable {
            let mode: String =
                conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
            debug_assert_eq!(mode.to_ascii_lowercase(), "wal");
        }
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // SQLite's own checkpoint only as a backstop: the pool checkpoints after writes, off
    // the writers' turn (see `CHECKPOINT_EVERY_WRITES`).
    conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
    Ok(conn)
}

/// `file:PATH?immutable=1`, with the characters a URI gives meaning to escaped.
fn immutable_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => uri.push_str(&format!("%{:02X}", c as u32)),
            c => uri.push(c),
        }
    }
    uri.push_str("?immutable=1");
    uri
}
