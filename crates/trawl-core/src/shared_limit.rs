//! The seam for rate limits that hold across processes: a [`SharedLimiter`] hands out
//! [`SharedSlot`]s. The search router (trawl-search) takes one; the Redis store
//! (trawl-store) gives one. It lives here so neither of those crates depends on the other.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// What [`SharedLimiter::try_acquire`] returns: a boxed future (the same type as
/// `futures_util::future::BoxFuture`), so the trait stays object-safe without a runtime.
pub type SlotFuture = Pin<Box<dyn Future<Output = Result<Option<SharedSlot>, String>> + Send>>;

/// Call slots shared by several processes (replicas of `trawl serve` on one Redis), so a
/// provider's rate limit and in-flight cap hold for all of them together.
pub trait SharedLimiter: Send + Sync + fmt::Debug {
    /// Takes a slot for `engine`: at most `max_in_flight` calls in flight and starts at
    /// least `spacing` apart, across every process. `Ok(None)`: busy, skip the engine.
    /// `Err`: the shared limiter is unreachable (the router then limits locally).
    fn try_acquire(&self, engine: &str, spacing: Duration, max_in_flight: u32) -> SlotFuture;
}

/// A slot taken from a [`SharedLimiter`]; dropping it gives the slot back.
pub struct SharedSlot(Option<Box<dyn FnOnce() + Send>>);

impl SharedSlot {
    /// A slot whose release runs `release`.
    pub fn new(release: impl FnOnce() + Send + 'static) -> Self {
        Self(Some(Box::new(release)))
    }
}

impl Drop for SharedSlot {
    fn drop(&mut self) {
        if let Some(release) = self.0.take() {
            release();
        }
    }
}

impl fmt::Debug for SharedSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedSlot")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[test]
    fn dropping_a_slot_releases_it_once() {
        let released = Arc::new(AtomicU32::new(0));
        let slot = SharedSlot::new({
            let released = Arc::clone(&released);
            move || {
                released.fetch_add(1, Ordering::SeqCst);
            }
        });
        assert_eq!(released.load(Ordering::SeqCst), 0);
        drop(slot);
        assert_eq!(released.load(Ordering::SeqCst), 1);
    }
}
