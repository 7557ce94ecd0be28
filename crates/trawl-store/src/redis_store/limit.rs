//! Global per-provider rate limits, shared by every replica on the same Redis.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::{RedisStore, scripts};
use crate::{Result, duration_millis};

/// A slot taken with [`RedisStore::try_acquire_slot`]; give it back with
/// [`RedisStore::release_slot`] (or let its lease run out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotLease {
    key: String,
    id: String,
}

impl RedisStore {
    /// Takes one call slot for `provider` for every replica at once: at most
    /// `max_in_flight` calls in flight (0 = no cap) and starts at least `spacing` apart
    /// (0 = none). `Ok(None)` means busy: skip the provider, as the local limiter does.
    /// A slot not released within `lease` frees itself (a replica killed mid-call).
    pub fn try_acquire_slot(
        &self,
        provider: &str,
        spacing: Duration,
        max_in_flight: u32,
        lease: Duration,
    ) -> Result<Option<SlotLease>> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let leases = self.key(&format!("rl:{provider}:leases"));
        let cell = self.key(&format!("rl:{provider}:gcra"));
        // Unique across replicas on different hosts: process id, start time, counter.
        static STARTED: std::sync::LazyLock<u128> = std::sync::LazyLock::new(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        });
        let id = format!(
            "{}:{}:{}",
            std::process::id(),
            *STARTED,
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let (taken, _wait): (i64, i64) = self.with_conn(|conn| {
            Ok(scripts::ACQUIRE_SLOT
                .key(&leases)
                .key(&cell)
                .arg(duration_millis(spacing))
                .arg(max_in_flight)
                .arg(duration_millis(lease).max(1))
                .arg(&id)
                .invoke(conn)?)
        })?;
        Ok((taken == 1).then_some(SlotLease { key: leases, id }))
    }

    /// Gives a slot back (best effort: a lost one frees itself when its lease ends).
    pub fn release_slot(&self, lease: &SlotLease) -> Result<()> {
        self.with_conn(|conn| {
            Ok(redis::cmd("ZREM")
                .arg(&lease.key)
                .arg(&lease.id)
                .query::<()>(conn)?)
        })
    }
}
