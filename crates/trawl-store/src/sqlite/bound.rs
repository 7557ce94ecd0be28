//! What the size bound last saw, so that a write need not sum every document's size to
//! know it is still under the bound: that sum scans an index of every document, and a
//! crawl writing thousands of pages spent more on it than on writing them.
//!
//! The estimate is the total last summed plus every byte this store has written since, an
//! upper bound on what this process alone has added (a replaced or deleted document only
//! makes it high, so the real sum is taken earlier). Other processes' writes are not in
//! it, so it is summed again at least every [`RESUM_EVERY`]: a store shared by several
//! processes may overshoot its bound by what the others wrote in that time, until the
//! next sum evicts.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a sum stands for other processes' writes.
pub(super) const RESUM_EVERY: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
pub(super) struct BoundEstimate {
    last: Mutex<Option<(u64, Instant)>>,
}

impl BoundEstimate {
    /// Adds `written` bytes; `true` when the estimate stands and stays at or under `max`
    /// (no sum needed), `false` when the real total must be summed.
    pub(super) fn add_within(&self, written: u64, max: u64) -> bool {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        match *last {
            Some((total, at)) if at.elapsed() < RESUM_EVERY => {
                let total = total.saturating_add(written);
                *last = Some((total, at));
                total <= max
            }
            _ => false,
        }
    }

    /// The real total, just summed (after any eviction).
    pub(super) fn summed(&self, total: u64) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some((total, Instant::now()));
    }

    /// Something besides document bytes changed what counts (a pin): sum next time.
    pub(super) fn forget(&self) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_grows_with_writes_until_it_would_pass_the_bound() {
        let b = BoundEstimate::default();
        assert!(!b.add_within(10, 100), "nothing summed yet");
        b.summed(50);
        assert!(b.add_within(30, 100));
        assert!(b.add_within(20, 100));
        assert!(!b.add_within(1, 100), "50 + 30 + 20 + 1 is over 100");
        b.forget();
        assert!(!b.add_within(0, 100));
    }
}
