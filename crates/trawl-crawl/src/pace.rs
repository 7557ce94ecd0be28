//! Politeness per host: at most N requests at once, and with a delay (the user's, or
//! robots.txt's `Crawl-delay`, whichever is longer) one request at a time with at least
//! the delay between the end of one and the start of the next.
//!
//! One [`Pacer`] serves every crawl of a process (the crawl service shares it), so two
//! crawls of one host do not double its load. With a [`SharedLimiter`] (the Redis store's
//! slots) each request also takes a slot keyed by the host, shared by every process on that
//! Redis: at most the host's concurrency in flight and, with a delay, one at a time with
//! the delay between the end of one and the start of the next, whichever process sends it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use trawl_core::{SharedLimiter, SharedSlot};

#[derive(Debug)]
struct Gate {
    permits: Arc<Semaphore>,
    /// How many `permits` holds when none is taken.
    size: usize,
    /// When the next request may start; kept across a reconfiguration so that requests
    /// still in flight under the old settings push it on their end too.
    next: Arc<Mutex<Instant>>,
    delay: Duration,
}

impl Gate {
    fn new(concurrency: usize, delay: Duration, next: Arc<Mutex<Instant>>) -> Self {
        let size = if delay.is_zero() {
            concurrency.max(1)
        } else {
            1
        };
        Gate {
            permits: Arc::new(Semaphore::new(size)),
            size,
            next,
            delay,
        }
    }

    fn busy(&self) -> bool {
        self.permits.available_permits() < self.size
    }

    fn next(&self) -> Instant {
        *self.next.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The gates of every host the crawls of one process talk to.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    gates: Mutex<HashMap<String, Arc<Gate>>>,
    shared: Option<Arc<dyn SharedLimiter>>,
}

/// Leave to send one request to a host; dropping it ends the request.
pub(crate) struct Pass {
    gate: Arc<Gate>,
    _permit: OwnedSemaphorePermit,
    slot: Option<SharedSlot>,
}

impl Drop for Pass {
    fn drop(&mut self) {
        let delay = self.gate.delay;
        if delay.is_zero() {
            return;
        }
        *self
            .gate
            .next
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now() + delay;
        // The shared slot is held for the delay after the request ends, so another
        // process's next request to the host (its in-flight cap is 1 with a delay) starts
        // at least the delay after this one ended, as this process's own would.
        if let Some(slot) = self.slot.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                tokio::time::sleep(delay).await;
                drop(slot);
            });
        }
    }
}

/// The name a host's slots have in the shared limiter.
fn slot_name(host: &str) -> String {
    format!("crawl-host:{host}")
}

impl Pacer {
    /// A pacer whose gates also hold across processes through `shared`.
    pub(crate) fn with_shared(shared: Arc<dyn SharedLimiter>) -> Self {
        Pacer {
            gates: Mutex::default(),
            shared: Some(shared),
        }
    }

    /// Whether a crawl set this host's pace already.
    pub(crate) fn knows(&self, host: &str) -> bool {
        self.gates
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(host)
    }

    /// Sets a host's concurrency and delay; the next request waits the delay from now
    /// (robots.txt was just fetched). While requests to the host are in flight (another
    /// crawl's) the stricter of the two paces holds, so no crawl loosens another's.
    pub(crate) fn configure(&self, host: &str, concurrency: usize, delay: Duration) {
        let mut gates = self.gates.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut concurrency, mut delay) = (concurrency, delay);
        let next = match gates.get(host) {
            Some(old) => {
                if old.busy() {
                    concurrency = concurrency.min(old.size);
                    delay = delay.max(old.delay);
                }
                let at = old.next().max(Instant::now() + delay);
                *old.next.lock().unwrap_or_else(PoisonError::into_inner) = at;
                old.next.clone()
            }
            None => Arc::new(Mutex::new(Instant::now() + delay)),
        };
        gates.insert(
            host.to_owned(),
            Arc::new(Gate::new(concurrency, delay, next)),
        );
    }

    /// Waits until a request to `host` may start.
    pub(crate) async fn enter(&self, host: &str) -> Pass {
        self.enter_with(host, true).await
    }

    /// [`Pacer::enter`] without the slot shared with other processes: for robots.txt,
    /// read once per process before the host's pace is known (its slot, taken with a cap
    /// of one, would wait for a moment when no other process has a request in flight).
    pub(crate) async fn enter_here(&self, host: &str) -> Pass {
        self.enter_with(host, false).await
    }

    async fn enter_with(&self, host: &str, shared: bool) -> Pass {
        let gate = {
            let mut gates = self.gates.lock().unwrap_or_else(PoisonError::into_inner);
            gates
                .entry(host.to_owned())
                .or_insert_with(|| {
                    let now = Arc::new(Mutex::new(Instant::now()));
                    Arc::new(Gate::new(1, Duration::ZERO, now))
                })
                .clone()
        };
        let permit = gate
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("a gate's semaphore is never closed");
        tokio::time::sleep_until(gate.next()).await;
        let slot = match &self.shared {
            Some(limiter) if shared => shared_slot(limiter.as_ref(), host, &gate).await,
            _ => None,
        };
        Pass {
            gate,
            _permit: permit,
            slot,
        }
    }
}

/// Waits for the host's slot shared with the other processes; `None` when the shared
/// limiter cannot be reached (this process's gate still holds).
async fn shared_slot(shared: &dyn SharedLimiter, host: &str, gate: &Gate) -> Option<SharedSlot> {
    let name = slot_name(host);
    // The seam answers "busy" without saying for how long: look again soon, well within
    // the delay so the spacing is not stretched much.
    let poll = (gate.delay / 10).clamp(Duration::from_millis(10), Duration::from_millis(100));
    loop {
        match shared
            .try_acquire(&name, gate.delay, gate.size as u32)
            .await
        {
            Ok(Some(slot)) => return Some(slot),
            Ok(None) => tokio::time::sleep(poll).await,
            Err(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_second_crawl_does_not_loosen_a_busy_host() {
        let pacer = Pacer::default();
        pacer.configure("h", 1, Duration::from_millis(200));
        let pass = pacer.enter("h").await;
        // Another crawl of the same host, with no delay and concurrency 4, while busy.
        pacer.configure("h", 4, Duration::ZERO);
        drop(pass);
        let started = Instant::now();
        let a = pacer.enter("h").await;
        assert!(
            started.elapsed() >= Duration::from_millis(150),
            "the delay still holds"
        );
        drop(a);
        assert!(pacer.knows("h"));
        assert!(!pacer.knows("other"));
    }
}
