//! Per-engine rate-limit slots: in this process, or shared by every replica through a
//! [`SharedLimiter`] (the Redis store's global slots; the seam is trawl-core's, re-exported
//! here so callers keep their paths).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use trawl_core::{SharedLimiter, SharedSlot};

/// Per-engine slots that skip rather than queue: a search should not wait behind another
/// search for a slow or politeness-limited engine, it should say the engine was skipped.
/// Hand-written because governor/backon would queue or compute wait times, and this is
/// all we need: an in-flight cap and a minimum spacing between starts.
#[derive(Debug, Default)]
pub(crate) struct Limiter {
    slots: Mutex<HashMap<String, Slot>>,
}

#[derive(Debug, Default)]
struct Slot {
    in_flight: u32,
    last_start: Option<Instant>,
}

/// (max calls in flight, minimum spacing between starts) per engine; `spacing` (from
/// `TRAWL_<ENGINE>_MIN_INTERVAL_MS`) replaces the built-in spacing.
pub(crate) fn policy_with(name: &str, spacing: Option<Duration>) -> (u32, Duration) {
    let (max, default_spacing) = policy(name);
    (max, spacing.unwrap_or(default_spacing))
}

fn policy(name: &str) -> (u32, Duration) {
    match name {
        // arXiv asks for at most one request every 3 s, over one connection.
        "arxiv" => (1, Duration::from_secs(3)),
        // GitHub search allows 10 requests a minute without a token.
        "github" => (2, Duration::from_secs(1)),
        "reddit" => (1, Duration::from_secs(2)),
        _ => (4, Duration::ZERO),
    }
}

pub(crate) struct SlotGuard {
    limiter: Arc<Limiter>,
    name: String,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        let mut slots = self.limiter.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = slots.get_mut(&self.name) {
            s.in_flight = s.in_flight.saturating_sub(1);
        }
    }
}

impl Limiter {
    pub(crate) fn try_acquire(
        self: &Arc<Self>,
        name: &str,
        spacing: Option<Duration>,
    ) -> Result<SlotGuard, String> {
        let (max, spacing) = policy_with(name, spacing);
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let s = slots.entry(name.to_owned()).or_default();
        if s.in_flight >= max {
            return Err(format!(
                "rate-limit slot busy ({max} call(s) already in flight)"
            ));
        }
        if let Some(last) = s.last_start
            && last.elapsed() < spacing
        {
            return Err(format!(
                "rate-limit slot busy (at most one call every {} ms)",
                spacing.as_millis()
            ));
        }
        s.in_flight += 1;
        s.last_start = Some(Instant::now());
        Ok(SlotGuard {
            limiter: self.clone(),
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiter_skips_when_busy() {
        let l = Arc::new(Limiter::default());
        let g = l.try_acquire("arxiv", None).unwrap();
        assert!(l.try_acquire("arxiv", None).is_err());
        drop(g);
        // Still within arXiv's 3 s spacing.
        assert!(l.try_acquire("arxiv", None).is_err());
        let a: Vec<_> = (0..4)
            .map(|_| l.try_acquire("mojeek", None).unwrap())
            .collect();
        assert!(l.try_acquire("mojeek", None).is_err());
        drop(a);
        assert!(l.try_acquire("mojeek", None).is_ok());
    }
}
