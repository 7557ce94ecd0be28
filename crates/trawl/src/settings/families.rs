//! The per-provider variable families, from the real environment only: base-URL overrides
//! (`TRAWL_<ENGINE>_URL`, `TRAWL_READER_<NAME>_URL`: where a provider's requests and its
//! key go) and least spacings (`TRAWL_<ENGINE>_MIN_INTERVAL_MS`).

use std::collections::BTreeMap;
use std::time::Duration;

use trawl_core::TrawlError;
use trawl_core::vars;

use super::Env;
use super::layers::{Setting, Source, set_var};
use super::value::{Millis, SettingValue};

/// Base-URL overrides set in the environment, checked to be URLs. SearXNG's is the
/// declared `searxng_url` setting instead (the config file may set it too).
pub fn url_overrides(env: &dyn Env) -> Result<BTreeMap<String, Setting<String>>, TrawlError> {
    let mut out = BTreeMap::new();
    for (name, value) in env.vars() {
        if !vars::is_url_override(&name) || name == vars::SEARXNG_URL || value.trim().is_empty() {
            continue;
        }
        let value = value.trim().to_owned();
        url::Url::parse(&value).map_err(|e| {
            let shown = trawl_core::redact_url(&value);
            TrawlError::invalid_input(format!(
                "environment variable {name}={shown:?} is not valid: {e}"
            ))
        })?;
        out.insert(name, Setting::new(value, Source::Env));
    }
    Ok(out)
}

/// Each search engine's least spacing between calls, where the environment sets one.
pub fn min_intervals(env: &dyn Env) -> Result<BTreeMap<String, Setting<Duration>>, TrawlError> {
    let mut out = BTreeMap::new();
    for engine in trawl_search::engines::all() {
        let var = vars::engine_min_interval(engine.name());
        let Some(raw) = set_var(env, &var) else {
            continue;
        };
        let Millis(spacing) = Millis::parse(&raw).map_err(|e| {
            TrawlError::invalid_input(format!(
                "environment variable {var}={raw:?} is not valid: {e}"
            ))
        })?;
        out.insert(engine.name().to_owned(), Setting::new(spacing, Source::Env));
    }
    Ok(out)
}
