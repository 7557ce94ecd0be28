//! The connection layer of `trawl serve`: an accept loop that bounds what clients can hold.
//!
//! axum's own `serve` has no header-read timeout, no idle timeout and no connection cap, so
//! about a thousand idle sockets used to exhaust the descriptor limit and take `/healthz`
//! down with them. Here every connection is served by hyper's HTTP/1 connection with:
//! - a header-read timeout (hyper's): the request head must arrive within it, counted from
//!   the connection's start or the end of the previous response (idle keep-alive included);
//! - an idle timeout: no byte moving in either direction for that long closes the
//!   connection (a trickled body, a dead peer); answers stream Server-Sent Events with a
//!   keep-alive every 15 s, so a running call is never idle;
//! - a cap on open connections: at the cap a new connection takes the place of the one that
//!   has been idle longest (no request in flight), and is refused only when every open
//!   connection is busy. The cap never exceeds the descriptor limit minus a reserve for
//!   outgoing fetches, the store and the logs.
//!
//! Hand-written because no maintained crate offers this accept loop for axum; the pieces
//! (hyper's connection, hyper-util's timer and service adapter) are the crates'.

#![allow(
    unsafe_code,
    reason = "getrlimit/setrlimit raise the descriptor soft limit to the hard one; std has no wrapper"
)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

/// Descriptors kept free for everything that is not an inbound connection.
pub const DESCRIPTOR_RESERVE: u64 = 256;

/// The limits every connection is held to.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
}

/// Raise this process's open-file soft limit to its hard limit, and return the soft limit
/// now in force (`None` where it cannot be read).
pub fn raise_descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit/setrlimit only read and write the struct passed in.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return None;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    rlim_max: limit.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit.rlim_cur = limit.rlim_max;
                }
            }
        }
        Some(limit.rlim_cur)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The connection cap actually used: the operator's, but never more than the descriptor
/// limit allows after the reserve.
pub fn effective_cap(max_connections: usize, descriptor_limit: Option<u64>) -> usize {
    match descriptor_limit {
        Some(limit) => {
            let room = limit.saturating_sub(DESCRIPTOR_RESERVE).max(16);
            max_connections.min(usize::try_from(room).unwrap_or(usize::MAX))
        }
        None => max_connections,
    }
}

/// One open connection as the registry sees it.
#[derive(Debug)]
struct Entry {
    /// Requests whose response has not been fully sent.
    busy: Arc<AtomicUsize>,
    /// Milliseconds since the registry's epoch when a byte last moved.
    last_active: Arc<AtomicU64>,
    evict: CancellationToken,
}

/// The open connections, for the cap and the `trawl_open_connections` gauge.
#[derive(Debug, Default)]
pub struct Registry {
    entries: Mutex<HashMap<u64, Entry>>,
    next_id: AtomicU64,
    evicted: AtomicU64,
    refused: AtomicU64,
}

/// What the registry counted, for `/metrics`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConnCounts {
    pub open: usize,
    pub evicted: u64,
    pub refused: u64,
}

impl Registry {
    pub fn counts(&self) -> ConnCounts {
        ConnCounts {
            open: self.entries.lock().unwrap_or_else(|p| p.into_inner()).len(),
            evicted: self.evicted.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
        }
    }

    /// Make room for one more connection under `cap`: evict the longest-idle connection
    /// with nothing in flight. False when every connection is busy.
    fn make_room(&self, cap: usize) -> bool {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() < cap {
            return true;
        }
        let oldest = entries
            .iter()
            .filter(|(_, e)| e.busy.load(Ordering::SeqCst) == 0)
            .min_by_key(|(_, e)| e.last_active.load(Ordering::Relaxed))
            .map(|(id, _)| *id);
        match oldest.and_then(|id| entries.remove(&id)) {
            Some(entry) => {
                entry.evict.cancel();
                self.evicted.fetch_add(1, Ordering::Relaxed);
                true
            }
            None => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    fn add(&self, epoch: Instant) -> (u64, Arc<AtomicUsize>, Arc<AtomicU64>, CancellationToken) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let busy = Arc::new(AtomicUsize::new(0));
        let last_active = Arc::new(AtomicU64::new(millis_since(epoch)));
        let evict = CancellationToken::new();
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                id,
                Entry {
                    busy: busy.clone(),
                    last_active: last_active.clone(),
                    evict: evict.clone(),
                },
            );
        (id, busy, last_active, evict)
    }

    fn remove(&self, id: u64) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }
}

fn millis_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Accept and serve connections until `stop` is cancelled; then ask every connection to
/// finish its current response and close, and return once they have.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    registry: Arc<Registry>,
    stop: CancellationToken,
) {
    let epoch = Instant::now();
    let tracker = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors or memory: wait a little instead of spinning; other
                // errors belong to the one connection that failed.
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EMFILE | libc::ENFILE | libc::ENOMEM | libc::ENOBUFS)
                ) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                continue;
            }
        };
        if !registry.make_room(limits.max_connections) {
            drop(stream);
            continue;
        }
        // Replies go out as several small SSE writes; without TCP_NODELAY, Nagle plus
        // delayed ACKs add ~40 ms to every call (measured in BENCHMARKS.md, section 6).
        let _ = stream.set_nodelay(true);
        let (id, busy, last_active, evict) = registry.add(epoch);
        let registry = registry.clone();
        let app = app.clone();
        let stop = stop.clone();
        tracker.spawn(async move {
            serve_one(stream, app, limits, &busy, last_active, epoch, evict, stop).await;
            registry.remove(id);
        });
    }
    tracker.close();
    tracker.wait().await;
}

#[allow(
    clippy::too_many_arguments,
    reason = "one connection's whole context, passed once from the accept loop"
)]
async fn serve_one(
    stream: TcpStream,
    app: Router,
    limits: ConnLimits,
    busy: &Arc<AtomicUsize>,
    last_active: Arc<AtomicU64>,
    epoch: Instant,
    evict: CancellationToken,
    stop: CancellationToken,
) {
    let io = TokioIo::new(Tracked {
        inner: stream,
        last_active: last_active.clone(),
        epoch,
    });
    let service_busy = busy.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let guard = BusyGuard::enter(&service_busy);
        let app = app.clone();
        async move {
            let response = app
                .oneshot(request.map(Body::new))
                .await
                .unwrap_or_else(|never: Infallible| match never {});
            Ok::<_, Infallible>(response.map(|body| GuardedBody {
                inner: body,
                _guard: guard,
            }))
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(io, service)
        // The compatible API's crawl watchers upgrade to a WebSocket; the upgraded stream
        // then lives in its own task (see `compat::watch`).
        .with_upgrades();
    tokio::pin!(connection);
    let check_every = (limits.idle_timeout / 4).max(Duration::from_millis(250));
    let mut idle_check = tokio::time::interval(check_every);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = connection.as_mut() => return,
            () = evict.cancelled() => return,
            () = stop.cancelled(), if !stopping => {
                stopping = true;
                connection.as_mut().graceful_shutdown();
            }
            _ = idle_check.tick() => {
                let quiet = millis_since(epoch)
                    .saturating_sub(last_active.load(Ordering::Relaxed));
                if Duration::from_millis(quiet) >= limits.idle_timeout {
                    return;
                }
            }
        }
    }
}

/// Counts a request as in flight until its response body is dropped.
struct BusyGuard(Arc<AtomicUsize>);

impl BusyGuard {
    fn enter(count: &Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        BusyGuard(count.clone())
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A response body that keeps its connection counted as busy while it is being sent.
struct GuardedBody {
    inner: Body,
    _guard: BusyGuard,
}

impl http_body::Body for GuardedBody {
    type Data = <Body as http_body::Body>::Data;
    type Error = <Body as http_body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A socket that records when a byte last moved, for the idle timeout.
struct Tracked {
    inner: TcpStream,
    last_active: Arc<AtomicU64>,
    epoch: Instant,
}

impl Tracked {
    fn touch(&self) {
        self.last_active
            .store(millis_since(self.epoch), Ordering::Relaxed);
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_for_other_descriptors() {
        assert_eq!(effective_cap(1024, Some(1024)), 768);
        assert_eq!(effective_cap(1024, Some(1_048_576)), 1024);
        assert_eq!(effective_cap(1024, None), 1024);
        assert_eq!(effective_cap(1024, Some(100)), 16);
    }

    #[test]
    fn at_the_cap_the_longest_idle_connection_makes_room() {
        let registry = Registry::default();
        let epoch = Instant::now();
        let (_, busy_a, active_a, evict_a) = registry.add(epoch);
        let (_, _busy_b, active_b, evict_b) = registry.add(epoch);
        active_a.store(10, Ordering::Relaxed);
        active_b.store(20, Ordering::Relaxed);
        assert!(registry.make_room(3));
        assert!(registry.make_room(2));
        assert!(evict_a.is_cancelled() && !evict_b.is_cancelled());
        // Only busy connections left: the newcomer is refused.
        let _g = BusyGuard::enter(&busy_a);
        let (_, busy_c, _, _) = registry.add(epoch);
        let _g2 = BusyGuard::enter(&busy_c);
        let _g3 = BusyGuard::enter(&_busy_b);
        assert!(!registry.make_room(2));
        assert_eq!(registry.counts().refused, 1);
        assert_eq!(registry.counts().evicted, 1);
    }
}
