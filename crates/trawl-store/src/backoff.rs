//! Hosts' back-off kept in the store, so that every process on it (a second `trawl read`,
//! `trawl sites`, the search engines, replicas of `trawl serve`) holds to a host's
//! `Retry-After` as the process that was told does. One small record a host: its end,
//! dropped once past. [`StoredBackoff`] puts it behind trawl-core's [`SharedBackoff`].

use std::time::SystemTime;

use trawl_core::{BackoffFuture, SharedBackoff};

use crate::{Result, SharedStore};

/// The back-off calls of a store; each is one short call.
pub trait HostBackoffStore: Send + Sync {
    /// Records that `host` asked for no requests before `until`; a later end kept stays.
    fn put_host_backoff(&self, host: &str, until: SystemTime) -> Result<()>;

    /// When `host`'s back-off ends, if after `now`.
    fn host_backoff(&self, host: &str, now: SystemTime) -> Result<Option<SystemTime>>;

    /// Every host backing off at `now`, soonest end first.
    fn host_backoffs(&self, now: SystemTime) -> Result<Vec<(String, SystemTime)>>;
}

/// A store's back-off records as a [`SharedBackoff`] (a store without them records
/// nothing and answers none).
#[derive(Debug, Clone)]
pub struct StoredBackoff(pub SharedStore);

impl StoredBackoff {
    fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn HostBackoffStore) -> Result<T> + Send + 'static,
        none: T,
    ) -> BackoffFuture<T> {
        let store = self.0.clone();
        Box::pin(async move {
            store
                .run(move |s| match s.backoffs() {
                    Some(b) => f(b),
                    None => Ok(none),
                })
                .await
                .map_err(|e| e.to_string())
        })
    }
}

impl SharedBackoff for StoredBackoff {
    fn note(&self, host: &str, until: SystemTime) -> BackoffFuture<()> {
        let host = host.to_ascii_lowercase();
        self.call(move |b| b.put_host_backoff(&host, until), ())
    }

    fn until(&self, host: &str, now: SystemTime) -> BackoffFuture<Option<SystemTime>> {
        let host = host.to_ascii_lowercase();
        self.call(move |b| b.host_backoff(&host, now), None)
    }

    fn active(&self, now: SystemTime) -> BackoffFuture<Vec<(String, SystemTime)>> {
        self.call(move |b| b.host_backoffs(now), Vec::new())
    }
}
