//! The gate every tool call passes: at most `max_concurrent` calls run at once, a call
//! over the limit waits up to `queue_timeout` for a slot and is then refused as busy, and
//! once the server starts shutting down no new call gets in while the running ones finish.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// Why a call was not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Every slot stayed taken for the whole queue timeout.
    Busy { max: usize, waited: Duration },
    /// The server is shutting down.
    ShuttingDown,
}

impl Refusal {
    /// The label used in metrics and the request log.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::Busy { .. } => "busy",
            Refusal::ShuttingDown => "shutting_down",
        }
    }
}

/// A count of things in progress (tool calls, HTTP responses still streaming) that a
/// shutdown can wait on.
#[derive(Debug, Default)]
pub struct Inflight {
    count: AtomicUsize,
    idle: Notify,
}

/// Counts as in progress until dropped.
#[derive(Debug)]
pub struct InflightGuard(Arc<Inflight>);

impl Drop for InflightGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Inflight {
    pub fn enter(self: &Arc<Self>) -> InflightGuard {
        self.count.fetch_add(1, Ordering::SeqCst);
        InflightGuard(self.clone())
    }

    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Resolves once nothing is in progress.
    pub async fn idle(&self) {
        loop {
            // Registered before the check, so an exit in between still wakes us.
            let notified = self.idle.notified();
            if self.count() == 0 {
                return;
            }
            notified.await;
        }
    }
}

#[derive(Debug)]
pub struct CallGate {
    slots: Arc<Semaphore>,
    max_concurrent: usize,
    /// `None`: wait as long as it takes.
    queue_timeout: Option<Duration>,
    calls: Arc<Inflight>,
    draining: AtomicBool,
}

/// Held while a call runs; letting it go frees the slot.
#[derive(Debug)]
pub struct CallPermit {
    _slot: OwnedSemaphorePermit,
    _running: InflightGuard,
}

impl CallGate {
    /// `max_concurrent` 0 means no limit; `queue_timeout` zero means wait without limit.
    pub fn new(max_concurrent: usize, queue_timeout: Duration) -> Arc<Self> {
        let slots = if max_concurrent == 0 {
            Semaphore::MAX_PERMITS
        } else {
            max_concurrent
        };
        Arc::new(CallGate {
            slots: Arc::new(Semaphore::new(slots)),
            max_concurrent,
            queue_timeout: (!queue_timeout.is_zero()).then_some(queue_timeout),
            calls: Arc::default(),
            draining: AtomicBool::new(false),
        })
    }

    pub fn max_concurrent(&self) -> usize {
        self.max_concurrent
    }

    /// Calls running now.
    pub fn inflight(&self) -> usize {
        self.calls.count()
    }

    /// Wait for a slot.
    pub async fn enter(self: &Arc<Self>) -> Result<CallPermit, Refusal> {
        if self.draining.load(Ordering::SeqCst) {
            return Err(Refusal::ShuttingDown);
        }
        let acquire = self.slots.clone().acquire_owned();
        let slot = match self.queue_timeout {
            None => acquire.await,
            Some(limit) => match tokio::time::timeout(limit, acquire).await {
                Ok(slot) => slot,
                Err(_) => {
                    return Err(Refusal::Busy {
                        max: self.max_concurrent,
                        waited: limit,
                    });
                }
            },
        }
        .map_err(|_| Refusal::ShuttingDown)?;
        // A call that queued while shutdown began must not start.
        if self.draining.load(Ordering::SeqCst) {
            return Err(Refusal::ShuttingDown);
        }
        Ok(CallPermit {
            _slot: slot,
            _running: self.calls.enter(),
        })
    }

    /// Refuse new calls from now on (queued ones included).
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
        self.slots.close();
    }

    /// Wait until no call runs, at most `grace`; true when every call finished.
    pub async fn drained(&self, grace: Duration) -> bool {
        tokio::time::timeout(grace, self.calls.idle()).await.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn over_the_limit_waits_then_is_refused() {
        let gate = CallGate::new(1, Duration::from_millis(20));
        let first = gate.enter().await.unwrap();
        assert_eq!(gate.inflight(), 1);
        let refused = gate.enter().await.unwrap_err();
        assert_eq!(refused.reason(), "busy");
        drop(first);
        assert_eq!(gate.inflight(), 0);
        let _again = gate.enter().await.unwrap();
    }

    #[tokio::test]
    async fn draining_refuses_new_calls_and_waits_for_running_ones() {
        let gate = CallGate::new(4, Duration::ZERO);
        let running = gate.enter().await.unwrap();
        gate.start_draining();
        assert_eq!(gate.enter().await.unwrap_err(), Refusal::ShuttingDown);
        let waiter = {
            let gate = gate.clone();
            tokio::spawn(async move { gate.drained(Duration::from_secs(30)).await })
        };
        drop(running);
        assert!(waiter.await.unwrap());
    }

    #[tokio::test]
    async fn drained_gives_up_after_the_grace_period() {
        let gate = CallGate::new(0, Duration::ZERO);
        let _stuck = gate.enter().await.unwrap();
        gate.start_draining();
        assert!(!gate.drained(Duration::from_millis(10)).await);
    }
}
