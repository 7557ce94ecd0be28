//! Which store backs this process: the embedded SQLite file (default) or a Redis shared by
//! several replicas (`--redis URL`, `TRAWL_REDIS_URL`, config `redis`), and what happens
//! when that Redis does not answer at start (`--store-fallback memory`).
//!
//! `TRAWL_REDIS_URL` and `TRAWL_REDIS_PREFIX` are read from the real environment only
//! (settings): a `.env` in a cloned repository must not point trawl at someone else's
//! Redis (it would serve their documents and search results).

use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use trawl_core::{TrawlError, error_chain};
use trawl_search::{SharedLimiter, SharedSlot};
use trawl_store::{MeteredStore, RedisStore, SharedStore, SqliteStore, StoreConfig, redact_url};

/// What to do when the configured Redis does not answer at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallback {
    /// Fail with an error naming the URL.
    #[default]
    Fail,
    /// Warn and keep a private in-memory store for this process.
    Memory,
}

impl std::str::FromStr for Fallback {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" | "fail" => Ok(Fallback::Fail),
            "memory" => Ok(Fallback::Memory),
            other => Err(format!(
                "unknown store fallback {other:?} (expected memory or none)"
            )),
        }
    }
}

/// The opened store, and the Redis behind it when there is one (for global rate limits
/// and `doctor`).
pub struct OpenedStore {
    pub store: SharedStore,
    pub redis: Option<Arc<RedisStore>>,
}

/// Opens the Redis store at `url`, or with `fallback` memory a private in-memory store
/// (with a warning on stderr) when it does not answer. Every call is metered for
/// `/metrics`.
pub fn open_redis(
    url: &str,
    prefix: &str,
    fallback: Fallback,
    config: StoreConfig,
) -> Result<OpenedStore, TrawlError> {
    match RedisStore::open(url, prefix, config.clone()) {
        Ok(store) => {
            let store = Arc::new(store);
            Ok(OpenedStore {
                store: SharedStore::new(MeteredStore::new(store.clone(), "redis")),
                redis: Some(store),
            })
        }
        Err(e) if fallback == Fallback::Memory => {
            eprintln!(
                "warning: Redis at {} does not answer ({}); using a store private to this \
                 process (--store-fallback memory): nothing is shared with other replicas",
                redact_url(url),
                redis_error(url, &e)
            );
            let store = SqliteStore::open_in_memory(config)
                .map_err(|e| TrawlError::internal(format!("cannot open a memory store: {e}")))?;
            Ok(OpenedStore {
                store: SharedStore::new(MeteredStore::new(Arc::new(store), "memory")),
                redis: None,
            })
        }
        Err(e) => Err(TrawlError::internal(format!(
            "cannot use the Redis store at {}: {} (is redis-server running there? \
             --store-fallback memory starts with a private store instead)",
            redact_url(url),
            redis_error(url, &e)
        ))),
    }
}

/// A Redis error on one line, without the URL's credentials: a server (or something
/// posing as one) may repeat the `AUTH` it was sent in its error.
fn redis_error(url: &str, e: &dyn std::error::Error) -> String {
    trawl_core::scrub(&error_chain(e), trawl_core::redact::url_secrets(url))
}

/// The Redis store's global slots as the router's [`SharedLimiter`].
#[derive(Debug)]
pub struct RedisSlots {
    store: Arc<RedisStore>,
    /// How long a slot may be held before it frees itself (a replica killed mid-call).
    lease: Duration,
}

impl RedisSlots {
    pub fn new(store: Arc<RedisStore>, lease: Duration) -> Self {
        Self { store, lease }
    }
}

impl SharedLimiter for RedisSlots {
    fn try_acquire(
        &self,
        engine: &str,
        spacing: Duration,
        max_in_flight: u32,
    ) -> BoxFuture<'static, Result<Option<SharedSlot>, String>> {
        let store = Arc::clone(&self.store);
        let engine = engine.to_owned();
        let lease = self.lease;
        async move {
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
        }
        .boxed()
    }
}

/// `doctor`'s check of the shared Redis: it answers, the layout is one this build
/// understands, and how long a PING takes.
#[derive(Debug, serde::Serialize)]
pub struct RedisCheck {
    /// The URL, credentials masked.
    pub url: String,
    pub ok: bool,
    pub latency_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documents: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Checks the configured Redis, if any.
pub async fn check_redis(settings: &crate::settings::Settings) -> Option<RedisCheck> {
    let url = settings.redis_url()?.to_owned();
    let prefix = settings.redis_prefix.value.clone();
    let shown = redact_url(&url);
    let sent_url = url.clone();
    let checked = tokio::task::spawn_blocking(move || {
        let store = RedisStore::open(&url, &prefix, StoreConfig::default())?;
        let latency = store.ping()?;
        let stats = trawl_store::Store::stats(&store)?;
        Ok::<_, trawl_store::Error>((latency, stats.documents))
    })
    .await;
    Some(match checked {
        Ok(Ok((latency, documents))) => RedisCheck {
            url: shown,
            ok: true,
            latency_ms: latency.as_millis() as u64,
            documents: Some(documents),
            error: None,
        },
        Ok(Err(e)) => RedisCheck {
            url: shown,
            ok: false,
            latency_ms: 0,
            documents: None,
            error: Some(format!(
                "{} (is redis-server running and reachable?)",
                redis_error(&sent_url, &e)
            )),
        },
        Err(e) => RedisCheck {
            url: shown,
            ok: false,
            latency_ms: 0,
            documents: None,
            error: Some(e.to_string()),
        },
    })
}
