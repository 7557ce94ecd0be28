//! Connections to Redis: a pool whose calls give up fast, and a memory of an outage, so a
//! Redis that went away costs a read at most one connect timeout instead of one per call.
//!
//! While Redis answers, every call takes a pooled connection. The first call that finds
//! it gone (a connect refused or timed out, a connection dropped mid-call) marks the store
//! *down since T*. From then on a call does not wait on the pool: it tries one direct
//! connection (a connect and a PING, each bounded by the connect timeout) and either uses
//! it (Redis is back: the outage is over) or fails at once with
//! [`Error::Unavailable`](crate::Error::Unavailable). A refused connection answers at
//! once, so it is tried again by the next call and a restarted Redis is used again without
//! delay; a silent one (a connect or PING that timed out) is not tried again for
//! [`SILENT_RETRY`], and calls fail fast meanwhile. Only one direct try runs at a time;
//! the calls that arrive during it wait for its answer (at most [`PROBE_WAIT`]) and take
//! it: after a restart every pooled connection breaks at once, and the calls that find
//! theirs broken while the first one reconnects must not fail for a Redis that is back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use redis::{Connection, ConnectionLike};

use crate::Result;
use crate::error::Error;

/// How long a connect may take before Redis counts as silent.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// How long a call waits for a pooled connection: a connect timeout and a little more, so
/// a connect that timed out is seen as the cause of the wait.
const POOL_TIMEOUT: Duration = Duration::from_millis(600);
/// After a direct try timed out, how long calls fail fast before the next one.
pub(super) const SILENT_RETRY: Duration = Duration::from_secs(5);
/// How long a call waits for the answer of a direct try already running: the try's own
/// bound (a connect and a PING, each [`CONNECT_TIMEOUT`]) and a little more.
const PROBE_WAIT: Duration = CONNECT_TIMEOUT
    .saturating_mul(2)
    .saturating_add(Duration::from_millis(100));

/// The pool, the outage memory and the counters one [`RedisStore`](super::RedisStore)
/// connects through.
pub(super) struct Connections {
    pool: r2d2::Pool<Connector>,
    /// Opens the direct connections tried while Redis is down (same client and timeouts
    /// as the pool's).
    direct: Connector,
    health: Arc<Health>,
    location: String,
}

/// How a store's connections have fared, for tests and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConnectionStats {
    /// Connections tried so far, pooled and direct.
    pub connects: u64,
    /// Direct connections tried while Redis was down.
    pub direct_tries: u64,
    /// Calls that waited for a pooled connection until the pool gave up.
    pub pool_timeouts: u64,
    /// Since when Redis has not answered, if it does not.
    pub down_since: Option<Instant>,
}

/// What is known about Redis's reachability, shared by the pool's connector and callers.
#[derive(Debug, Default)]
struct Health {
    outage: Mutex<Option<Outage>>,
    /// Wakes the calls waiting on a direct try when it ends.
    probe_ended: Condvar,
    /// Connection failures seen so far (see [`Tracked`]).
    failures: AtomicU64,
    /// Connections tried so far, pooled and direct.
    attempts: AtomicU64,
    direct_tries: AtomicU64,
    pool_timeouts: AtomicU64,
}

/// Redis stopped answering at `since`.
#[derive(Debug, Clone)]
struct Outage {
    since: Instant,
    /// The last failure, in the driver's words (no credentials: the URL is not in them).
    cause: String,
    /// A direct try is running now.
    probing: bool,
    /// When a try last timed out (Redis silent rather than refusing).
    silent_at: Option<Instant>,
}

impl Health {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Outage>> {
        self.outage.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a failure to reach Redis; `silent` when it timed out.
    fn mark_down(&self, cause: String, silent: bool) {
        self.failures.fetch_add(1, Ordering::SeqCst);
        let now = Instant::now();
        let mut outage = self.lock();
        let outage = outage.get_or_insert_with(|| Outage {
            since: now,
            cause: String::new(),
            probing: false,
            silent_at: None,
        });
        outage.cause = cause;
        if silent {
            outage.silent_at = Some(now);
        }
    }

    fn mark_up(&self) {
        *self.lock() = None;
    }

    fn is_down(&self) -> bool {
        self.lock().is_some()
    }
}

/// Opens connections with a timeout on connect, read and write, so a Redis that went
/// away fails a call in bounded time instead of hanging a blocking thread. (redis's own
/// r2d2 support connects without a timeout.)
#[derive(Debug, Clone)]
struct Connector {
    client: redis::Client,
    command_timeout: Duration,
    health: Arc<Health>,
}

/// A connection and the failure count when it was last known good. After a failure
/// (Redis restarted), connections older than it are checked with a PING before use, so
/// the stale ones are dropped instead of each failing one call; while Redis is healthy no
/// call pays for a PING.
struct Tracked {
    conn: Connection,
    checked_at: u64,
}

impl Connector {
    /// One connection, counted; a failure marks Redis down.
    fn open(&self, ping_timeout: Option<Duration>) -> redis::RedisResult<Tracked> {
        self.health.attempts.fetch_add(1, Ordering::SeqCst);
        let opened = (|| -> redis::RedisResult<Connection> {
            let mut conn = self.client.get_connection_with_timeout(CONNECT_TIMEOUT)?;
            if let Some(timeout) = ping_timeout {
                conn.set_read_timeout(Some(timeout))?;
                redis::cmd("PING").query::<String>(&mut conn)?;
            }
            conn.set_read_timeout(Some(self.command_timeout))?;
            conn.set_write_timeout(Some(self.command_timeout))?;
            Ok(conn)
        })();
        match opened {
            Ok(conn) => Ok(Tracked {
                conn,
                checked_at: self.health.failures.load(Ordering::SeqCst),
            }),
            Err(e) => {
                self.health.mark_down(e.to_string(), e.is_timeout());
                Err(e)
            }
        }
    }
}

impl r2d2::ManageConnection for Connector {
    type Connection = Tracked;
    type Error = redis::RedisError;

    fn connect(&self) -> redis::RedisResult<Tracked> {
        self.open(None)
    }

    fn is_valid(&self, tracked: &mut Tracked) -> redis::RedisResult<()> {
        redis::cmd("PING").query(&mut tracked.conn)
    }

    fn has_broken(&self, tracked: &mut Tracked) -> bool {
        !tracked.conn.is_open()
    }
}

/// A connection for one call: from the pool, or opened directly while Redis was down
/// (and closed after the call).
enum Checkout {
    Pooled(r2d2::PooledConnection<Connector>),
    Direct(Tracked),
}

impl Checkout {
    fn tracked(&mut self) -> &mut Tracked {
        match self {
            Checkout::Pooled(c) => c,
            Checkout::Direct(c) => c,
        }
    }
}

/// What a call should do about an outage.
enum Gate {
    /// Redis is not known to be down: use the pool.
    Pool,
    /// Down: this call tries one direct connection.
    Probe,
    /// Down, and a try is running or a silent one was recent: fail now.
    FailFast(Error),
}

impl Connections {
    /// A pool on `client` whose calls wait at most [`POOL_TIMEOUT`].
    pub(super) fn new(client: redis::Client, command_timeout: Duration, location: String) -> Self {
        let health = Arc::new(Health::default());
        let connector = Connector {
            client,
            command_timeout,
            health: Arc::clone(&health),
        };
        let pool = r2d2::Pool::builder()
            .max_size(32)
            .min_idle(Some(1))
            .connection_timeout(POOL_TIMEOUT)
            .test_on_check_out(false)
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build_unchecked(connector.clone());
        Self {
            pool,
            direct: connector,
            health,
            location,
        }
    }

    pub(super) fn stats(&self) -> ConnectionStats {
        ConnectionStats {
            connects: self.health.attempts.load(Ordering::SeqCst),
            direct_tries: self.health.direct_tries.load(Ordering::SeqCst),
            pool_timeouts: self.health.pool_timeouts.load(Ordering::SeqCst),
            down_since: self.health.lock().as_ref().map(|o| o.since),
        }
    }

    /// Runs `f` on a connection. A connection that broke since it was last used (Redis
    /// restarted) fails once and is dropped; the call is then tried once more on a fresh
    /// connection, so a Redis that came back is used again without a failed call. A
    /// connection failure that remains marks Redis down and fails with
    /// [`Error::Unavailable`].
    pub(super) fn with_conn<T>(&self, f: impl Fn(&mut Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.checkout()?;
        match f(&mut conn.tracked().conn) {
            // Sent and not answered within the command timeout: Redis is silent, and a
            // second try would only wait as long again.
            Err(Error::Backend(e)) if is_timeout(&*e) => {
                self.health.mark_down(e.to_string(), true);
                Err(self.unavailable())
            }
            Err(Error::Backend(e)) if is_connection_error(&*e) => {
                // Down until shown otherwise: the retry tries one direct connection
                // (instant when refused) rather than waiting on a pool that cannot connect.
                self.health.mark_down(e.to_string(), false);
                drop(conn);
                let mut conn = self.checkout()?;
                match f(&mut conn.tracked().conn) {
                    Err(Error::Backend(e)) if is_connection_error(&*e) => {
                        self.health.mark_down(e.to_string(), is_timeout(&*e));
                        Err(self.unavailable())
                    }
                    other => other,
                }
            }
            other => other,
        }
    }

    /// A connection known to work since the last failure (see [`Tracked`]), or
    /// [`Error::Unavailable`] when Redis is down (see the module doc).
    fn checkout(&self) -> Result<Checkout> {
        match self.gate() {
            Gate::FailFast(e) => return Err(e),
            Gate::Probe => return self.probe().map(Checkout::Direct),
            Gate::Pool => {}
        }
        let max = self.pool.max_size().max(1);
        for _ in 0..=max {
            let mut conn = self.pooled()?;
            let failures = self.health.failures.load(Ordering::SeqCst);
            if conn.checked_at >= failures {
                return Ok(Checkout::Pooled(conn));
            }
            // Broken ones are closed by the failed PING and dropped by the pool. One that
            // times out means Redis is silent, not restarted: the others would time out too.
            match redis::cmd("PING").query::<String>(&mut conn.conn) {
                Ok(_) => {
                    conn.checked_at = failures;
                    return Ok(Checkout::Pooled(conn));
                }
                Err(e) if e.is_timeout() => {
                    self.health.mark_down(e.to_string(), true);
                    return Err(self.unavailable());
                }
                Err(_) => {}
            }
        }
        self.pooled().map(Checkout::Pooled)
    }

    /// A pooled connection; a wait that ended because Redis could not be reached marks it
    /// down and fails with [`Error::Unavailable`].
    fn pooled(&self) -> Result<r2d2::PooledConnection<Connector>> {
        match self.pool.get() {
            Ok(conn) => Ok(conn),
            Err(_) => {
                self.health.pool_timeouts.fetch_add(1, Ordering::SeqCst);
                // A connect that failed during the wait has marked Redis down (the
                // connector records it before the pool does).
                if self.health.is_down() {
                    Err(self.unavailable())
                } else {
                    // Every connection in use for the whole wait: the pool is busy, Redis
                    // is not down.
                    Err(Error::Busy)
                }
            }
        }
    }

    fn gate(&self) -> Gate {
        let mut outage = self.health.lock();
        let deadline = Instant::now() + PROBE_WAIT;
        let mut waited = false;
        while outage.as_ref().is_some_and(|o| o.probing) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            waited = true;
            outage = self
                .health
                .probe_ended
                .wait_timeout(outage, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let Some(o) = outage.as_mut() else {
            // Not down, or the try this call waited on found Redis back.
            return Gate::Pool;
        };
        // A try this call waited on that failed (or outlasted its bound) answers for this
        // call too, rather than a second try at once.
        let silent_recently = o.silent_at.is_some_and(|at| at.elapsed() < SILENT_RETRY);
        if waited || o.probing || silent_recently {
            let o = o.clone();
            drop(outage);
            return Gate::FailFast(self.unavailable_from(&o));
        }
        o.probing = true;
        Gate::Probe
    }

    /// One direct connection while Redis is down: it ends the outage, or fails the call.
    fn probe(&self) -> Result<Tracked> {
        self.health.direct_tries.fetch_add(1, Ordering::SeqCst);
        match self.direct.open(Some(CONNECT_TIMEOUT)) {
            Ok(conn) => {
                self.health.mark_up();
                self.health.probe_ended.notify_all();
                Ok(conn)
            }
            Err(_) => {
                // The connector has recorded the failure (and whether it was silent).
                if let Some(o) = self.health.lock().as_mut() {
                    o.probing = false;
                }
                self.health.probe_ended.notify_all();
                Err(self.unavailable())
            }
        }
    }

    fn unavailable(&self) -> Error {
        match self.health.lock().clone() {
            Some(o) => self.unavailable_from(&o),
            None => Error::Unavailable {
                location: self.location.clone(),
                down_for: Duration::ZERO,
                cause: "the connection was lost".to_owned(),
            },
        }
    }

    fn unavailable_from(&self, o: &Outage) -> Error {
        Error::Unavailable {
            location: self.location.clone(),
            down_for: o.since.elapsed(),
            cause: o.cause.clone(),
        }
    }
}

/// Whether a failure came from the connection rather than from the command.
pub(super) fn is_connection_error(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<redis::RedisError>().is_some_and(|e| {
        e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() || e.is_timeout()
    })
}

fn is_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<redis::RedisError>()
        .is_some_and(redis::RedisError::is_timeout)
}
