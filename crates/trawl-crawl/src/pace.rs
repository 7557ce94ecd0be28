//! Politeness per host: at most N requests at once, and with a delay (the user's, or
//! robots.txt's `Crawl-delay`, whichever is longer) one request at a time with at least
//! the delay between the end of one and the start of the next.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

#[derive(Debug)]
struct Gate {
    permits: Arc<Semaphore>,
    next: Mutex<Instant>,
    delay: Duration,
}

/// The gates of every host one crawl talks to.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    gates: Mutex<HashMap<String, Arc<Gate>>>,
}

/// Leave to send one request to a host; dropping it ends the request.
pub(crate) struct Pass {
    gate: Arc<Gate>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Pass {
    fn drop(&mut self) {
        if !self.gate.delay.is_zero() {
            *self
                .gate
                .next
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Instant::now() + self.gate.delay;
        }
    }
}

impl Pacer {
    /// Sets a host's concurrency and delay; the next request waits the delay from now
    /// (robots.txt was just fetched).
    pub(crate) fn configure(&self, host: &str, concurrency: usize, delay: Duration) {
        let permits = if delay.is_zero() {
            concurrency.max(1)
        } else {
            1
        };
        self.gates
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                host.to_owned(),
                Arc::new(Gate {
                    permits: Arc::new(Semaphore::new(permits)),
                    next: Mutex::new(Instant::now() + delay),
                    delay,
                }),
            );
    }

    /// Waits until a request to `host` may start.
    pub(crate) async fn enter(&self, host: &str) -> Pass {
        let gate = {
            let mut gates = self.gates.lock().unwrap_or_else(PoisonError::into_inner);
            gates
                .entry(host.to_owned())
                .or_insert_with(|| {
                    Arc::new(Gate {
                        permits: Arc::new(Semaphore::new(1)),
                        next: Mutex::new(Instant::now()),
                        delay: Duration::ZERO,
                    })
                })
                .clone()
        };
        let permit = gate
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("a gate's semaphore is never closed");
        let at = *gate.next.lock().unwrap_or_else(PoisonError::into_inner);
        tokio::time::sleep_until(at).await;
        Pass {
            gate,
            _permit: permit,
        }
    }
}
