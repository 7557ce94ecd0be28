//! The one opener: a [`StoreChoice`] in, an [`OpenedStore`] out, with every call metered
//! for `/metrics`. What stands in when the chosen store cannot serve is decided here, once:
//! a Redis that does not answer at start (when its fallback is memory), and for reads, a
//! SQLite store that cannot be written.

use std::sync::Arc;
use std::time::Duration;

use trawl_core::SharedLimiter;

#[cfg(feature = "redis")]
use crate::RedisStore;
use crate::{Error, MeteredStore, Result, SharedStore, SqliteStore, Store, StoreChoice};
use crate::{StoreConfig, StoreFallback, redact_url};

/// What to do when the chosen SQLite store opens but cannot take writes (a read-only file
/// or directory, a full disk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenUnwritable {
    /// Fail: the command is about the store itself (`cache stats`, `clear`, `prune`).
    Fail,
    /// A private memory store stands in, so reads still answer (they say they were not
    /// kept: see [`StandIn::Unwritable`]).
    UseMemory,
}

/// Why a private memory store stands in for the chosen one.
#[derive(Debug)]
pub enum StandIn {
    /// The SQLite store cannot take writes: reads answer, but nothing is kept.
    Unwritable(Error),
    /// The Redis did not answer at start and its fallback is memory: nothing is shared
    /// with other replicas.
    RedisDown {
        /// The URL, credentials masked.
        location: String,
        /// Why it could not be used.
        error: Error,
    },
}

/// The opened store, what stands in for the chosen one (if anything does), and the Redis
/// behind it when there is one (for global rate limits).
#[derive(Debug)]
pub struct OpenedStore {
    /// The store every call goes through (metered).
    pub store: SharedStore,
    /// Set when a memory store stands in for the chosen one.
    pub stand_in: Option<StandIn>,
    #[cfg(feature = "redis")]
    redis: Option<Arc<RedisStore>>,
}

impl OpenedStore {
    fn metered(store: Arc<dyn Store>, backend: &'static str) -> Self {
        Self {
            store: SharedStore::new(MeteredStore::new(store, backend)),
            stand_in: None,
            #[cfg(feature = "redis")]
            redis: None,
        }
    }

    fn memory(config: &StoreConfig, stand_in: Option<StandIn>) -> Result<Self> {
        let store = SqliteStore::open_in_memory(config.clone())?;
        Ok(Self {
            stand_in,
            ..Self::metered(Arc::new(store), "memory")
        })
    }

    /// The shared Redis's rate-limit slots (each freeing itself after `lease`), when the
    /// store is a Redis; `None` otherwise (limits then hold in this process only).
    pub fn shared_limiter(&self, lease: Duration) -> Option<Arc<dyn SharedLimiter>> {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.redis {
            return Some(Arc::new(crate::RedisSlots::new(Arc::clone(redis), lease)));
        }
        let _ = lease;
        None
    }
}

/// Opens the chosen store. A Redis that does not answer fails with its error, or with
/// [`StoreFallback::Memory`] gives a memory store and [`StandIn::RedisDown`]; a SQLite
/// store that cannot be written (read-only, a full disk) or is corrupt fails, or with
/// [`WhenUnwritable::UseMemory`] gives a memory store and [`StandIn::Unwritable`]. Every
/// other fault fails.
pub fn open(choice: &StoreChoice, unwritable: WhenUnwritable) -> Result<OpenedStore> {
    match choice {
        StoreChoice::Memory { config } => OpenedStore::memory(config, None),
        StoreChoice::Sqlite { path, config } => match SqliteStore::open(path, config.clone()) {
            Ok(store) => Ok(OpenedStore::metered(Arc::new(store), "sqlite")),
            Err(e) if unwritable == WhenUnwritable::UseMemory && e.is_unusable_for_writes() => {
                OpenedStore::memory(config, Some(StandIn::Unwritable(e)))
            }
            Err(e) => Err(e),
        },
        StoreChoice::Redis {
            url,
            prefix,
            fallback,
            config,
        } => match open_redis(url, prefix, config) {
            Ok(opened) => Ok(opened),
            Err(error) if *fallback == StoreFallback::Memory => OpenedStore::memory(
                config,
                Some(StandIn::RedisDown {
                    location: redact_url(url),
                    error,
                }),
            ),
            Err(e) => Err(e),
        },
    }
}

#[cfg(feature = "redis")]
fn open_redis(url: &str, prefix: &str, config: &StoreConfig) -> Result<OpenedStore> {
    let store = Arc::new(RedisStore::open(url, prefix, config.clone())?);
    Ok(OpenedStore {
        redis: Some(Arc::clone(&store)),
        ..OpenedStore::metered(store, "redis")
    })
}

#[cfg(not(feature = "redis"))]
fn open_redis(url: &str, _prefix: &str, _config: &StoreConfig) -> Result<OpenedStore> {
    Err(Error::Open {
        location: redact_url(url),
        source: "this build has no Redis support (trawl-store's `redis` feature is off)".into(),
    })
}

#[cfg(test)]
mod tests {
    use trawl_testkit::free_port;

    use super::*;

    #[test]
    fn a_memory_choice_opens_without_a_stand_in() {
        let opened = open(
            &StoreChoice::Memory {
                config: StoreConfig::default(),
            },
            WhenUnwritable::Fail,
        )
        .unwrap();
        assert!(opened.stand_in.is_none());
        assert!(opened.shared_limiter(Duration::from_secs(1)).is_none());
        assert_eq!(opened.store.store().stats().unwrap().documents, 0);
    }

    #[test]
    fn a_fault_other_than_unwritable_fails_reads_too() {
        // A directory where the file should be: not a store, and no memory stands in for
        // it (only a store that cannot be written gives way; `trawl`'s store_faults tests
        // show that case, which needs an unprivileged user).
        let dir = tempfile::tempdir().unwrap();
        let choice = StoreChoice::Sqlite {
            path: dir.path().to_string_lossy().into_owned(),
            config: StoreConfig::default(),
        };
        for unwritable in [WhenUnwritable::Fail, WhenUnwritable::UseMemory] {
            let err = open(&choice, unwritable).unwrap_err();
            assert_eq!(err.fault(), Some("not_a_file"), "{err}");
        }
    }

    #[test]
    fn a_redis_that_does_not_answer_fails_or_gives_way_to_memory() {
        let url = format!("redis://u:pw-77@127.0.0.1:{}/0", free_port());
        let choice = |fallback| StoreChoice::Redis {
            url: url.clone(),
            prefix: "t:".into(),
            fallback,
            config: StoreConfig::default(),
        };
        let err = open(&choice(StoreFallback::Fail), WhenUnwritable::UseMemory).unwrap_err();
        assert!(!err.to_string().contains("pw-77"), "{err}");
        let opened = open(&choice(StoreFallback::Memory), WhenUnwritable::Fail).unwrap();
        let Some(StandIn::RedisDown { location, .. }) = &opened.stand_in else {
            panic!("{:?}", opened.stand_in)
        };
        assert!(
            location.starts_with("redis://****@127.0.0.1:"),
            "{location}"
        );
        assert!(opened.shared_limiter(Duration::from_secs(1)).is_none());
    }
}
