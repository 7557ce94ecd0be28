//! Which store a process uses, as plain data: [`StoreChoice`], built once from the
//! settings by the binary and opened by [`open`](crate::open()).

use std::fmt;

use crate::StoreConfig;

/// The Redis key prefix used when none is configured.
pub const DEFAULT_REDIS_PREFIX: &str = "trawl:";

/// The store to open.
#[derive(Clone)]
pub enum StoreChoice {
    /// The embedded SQLite file at `path` (created with its directory when missing).
    Sqlite {
        /// The file.
        path: String,
        /// TTLs, bounds and clock.
        config: StoreConfig,
    },
    /// A store private to this process that keeps nothing after it.
    Memory {
        /// TTLs, bounds and clock.
        config: StoreConfig,
    },
    /// A Redis shared by several replicas (needs the `redis` feature to open).
    Redis {
        /// `redis://[user:password@]host:port[/db]`; a secret (it may hold a password),
        /// masked in `Debug`.
        url: String,
        /// Every key starts with it, so stores can share one Redis.
        prefix: String,
        /// What to do when it does not answer at start.
        fallback: StoreFallback,
        /// TTLs, bounds and clock.
        config: StoreConfig,
    },
}

impl StoreChoice {
    /// Where the store is, for messages and `cache stats`: the path, `:memory:`, or the
    /// URL with its credentials masked.
    pub fn location(&self) -> String {
        match self {
            StoreChoice::Sqlite { path, .. } => path.clone(),
            StoreChoice::Memory { .. } => ":memory:".to_owned(),
            StoreChoice::Redis { url, .. } => redact_url(url),
        }
    }

    /// The store's TTLs, bounds and clock.
    pub fn config(&self) -> &StoreConfig {
        match self {
            StoreChoice::Sqlite { config, .. }
            | StoreChoice::Memory { config }
            | StoreChoice::Redis { config, .. } => config,
        }
    }
}

impl fmt::Debug for StoreChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreChoice::Sqlite { path, .. } => {
                f.debug_struct("Sqlite").field("path", path).finish()
            }
            StoreChoice::Memory { .. } => f.write_str("Memory"),
            StoreChoice::Redis {
                url,
                prefix,
                fallback,
                ..
            } => f
                .debug_struct("Redis")
                .field("url", &redact_url(url))
                .field("prefix", prefix)
                .field("fallback", fallback)
                .finish(),
        }
    }
}

/// What to do when the chosen Redis does not answer at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoreFallback {
    /// Fail with an error naming the URL.
    #[default]
    Fail,
    /// Keep a private in-memory store for this process (the opener says so, see
    /// [`StandIn::RedisDown`](crate::StandIn::RedisDown)).
    Memory,
}

impl std::str::FromStr for StoreFallback {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" | "fail" => Ok(StoreFallback::Fail),
            "memory" => Ok(StoreFallback::Memory),
            other => Err(format!(
                "unknown store fallback {other:?} (expected memory or none)"
            )),
        }
    }
}

/// `url` with any user name and password replaced, for messages and stats.
pub use trawl_core::redact_url;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_reach_the_location() {
        assert_eq!(
            redact_url("redis://user:s3cret@db.internal:6379/2"),
            "redis://****@db.internal:6379/2"
        );
        assert_eq!(
            redact_url("redis://127.0.0.1:6379"),
            "redis://127.0.0.1:6379"
        );
        assert_eq!(redact_url("rediss://:pw@h/0"), "rediss://****@h/0");
    }

    #[test]
    fn a_redis_choice_never_shows_its_password() {
        let choice = StoreChoice::Redis {
            url: "redis://u:hunter2@127.0.0.1:6379/0".into(),
            prefix: DEFAULT_REDIS_PREFIX.into(),
            fallback: StoreFallback::Fail,
            config: StoreConfig::default(),
        };
        let shown = format!("{choice:?} {}", choice.location());
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("redis://****@127.0.0.1:6379/0"), "{shown}");
    }

    #[test]
    fn fallback_names_parse_and_others_are_refused() {
        assert_eq!("memory".parse(), Ok(StoreFallback::Memory));
        assert_eq!("none".parse(), Ok(StoreFallback::Fail));
        assert_eq!("fail".parse(), Ok(StoreFallback::Fail));
        let err = "disk".parse::<StoreFallback>().unwrap_err();
        assert!(
            err.contains("\"disk\"") && err.contains("memory or none"),
            "{err}"
        );
    }
}
