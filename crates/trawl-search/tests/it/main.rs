//! trawl-search's integration tests: fake engines on 127.0.0.1 serve the real saved
//! responses from ../shared/fixtures/serp. Nothing here reaches the internet.

// Fake engines: a tiny loopback HTTP responder and fixture helpers.
mod support;

// A search over several engines, fused; scores checked against the formula.
mod fusion;

// Hung, failing, rate-limited, blocked, garbage and oversized engines.
mod faults;

// The rest of issue 7's fault modes, byte for byte from trawl-testkit's server.
mod hardening;

// API-key rotation and key state.
mod keys;

// --record / --replay.
mod replay;

// DuckDuckGo's lite fallback and waiting for a spaced engine asked alone.
mod answering;

// Properties of fusion and parsers over generated inputs.
mod props;

use std::sync::Arc;

use trawl_search::{Router, SearchConfig};

/// A router for tests: no proxy, rate limits off unless asked, a short retry pause.
pub(crate) fn router(mut cfg: SearchConfig) -> Router {
    cfg.retry_backoff = std::time::Duration::from_millis(20);
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    Router::builder(cfg)
        .client(client)
        .key_store(Arc::new(trawl_search::InMemoryKeyStore::default()))
        .build()
}

/// A config with rate limits off (each test makes its own router).
pub(crate) fn config() -> SearchConfig {
    SearchConfig {
        rate_limits: false,
        ..SearchConfig::default()
    }
}

/// `keys`, comma-separated as a user writes them, as the key list they set.
pub(crate) fn keys(keys: &str) -> Vec<String> {
    keys.split(',').map(str::to_owned).collect()
}
