//! The Redis variables of the real environment. Which store a process uses is
//! `context::store_choice` (plain data, opened by `trawl_store::open`).
//!
//! `TRAWL_REDIS_URL` and `TRAWL_REDIS_PREFIX` are read from the real environment as it
//! was before `.env` was loaded: a `.env` in a cloned repository must not point trawl at
//! someone else's Redis (it would serve their documents and search results).

use std::sync::OnceLock;

use trawl_core::vars;

/// `TRAWL_REDIS_URL` and `TRAWL_REDIS_PREFIX` from the process environment, before `.env`.
static PROCESS_ENV: OnceLock<(Option<String>, Option<String>)> = OnceLock::new();

/// Records the Redis variables of the real environment. Call before `.env` is loaded.
pub fn capture_process_env() {
    let var = |name| {
        std::env::var(name)
            .ok()
            .filter(|v: &String| !v.trim().is_empty())
    };
    let _ = PROCESS_ENV.set((var(vars::REDIS_URL), var(vars::REDIS_PREFIX)));
}

/// The Redis URL and prefix set in the real environment (not `.env`).
pub fn process_env() -> (Option<String>, Option<String>) {
    PROCESS_ENV.get().cloned().unwrap_or((None, None))
}
