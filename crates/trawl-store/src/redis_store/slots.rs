//! The Redis store's global slots as the search router's [`SharedLimiter`], so an engine's
//! rate limit and in-flight cap hold across every replica on one Redis.

use std::sync::Arc;
use std::time::Duration;

use trawl_core::{SharedLimiter, SharedSlot, SlotFuture};

use super::RedisStore;

/// [`RedisStore::try_acquire_slot`] behind trawl-core's [`SharedLimiter`] seam.
#[derive(Debug)]
pub struct RedisSlots {
    store: Arc<RedisStore>,
    /// How long a slot may be held before it frees itself (a replica killed mid-call).
    lease: Duration,
}

impl RedisSlots {
    /// Slots in `store`, each freeing itself after `lease` if never given back.
    pub fn new(store: Arc<RedisStore>, lease: Duration) -> Self {
        Self { store, lease }
    }
}

impl SharedLimiter for RedisSlots {
    fn try_acquire(&self, engine: &str, spacing: Duration, max_in_flight: u32) -> SlotFuture {
        let store = Arc::clone(&self.store);
        let engine = engine.to_owned();
        let lease = self.lease;
        Box::pin(async move {
            let taken = tokio::task::spawn_blocking({
                let store = Arc::clone(&store);
                move || store.try_acquire_slot(&engine, spacing, max_in_flight, lease)
            })
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
            Ok(taken.map(|lease| {
                SharedSlot::new(move || {
                    // Give the slot back off the executor; a lost release expires.
                    if let Ok(handle) = tokio::runtime::Handle::try_current() {
                        handle.spawn_blocking(move || store.release_slot(&lease));
                    } else {
                        let _ = store.release_slot(&lease);
                    }
                })
            }))
        })
    }
}
