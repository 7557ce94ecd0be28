//! Effective settings: every setting is declared once in [`table`] and resolved by one
//! rule, flags > environment > config file > `.env` (API keys only) > defaults, into
//! typed values, from which [`produce`] builds the fetcher's, the search router's, the
//! store's and the agent's configuration (and the commands the MCP servers' options).
//!
//! The config file, the real environment and flags are the user's own and may set
//! anything. A `.env` may come with a cloned repository, so it never widens what trawl may
//! reach or where it sends keys: [`crate::dotenv`] keeps only its API keys (below the
//! config file's), and base-URL overrides (where a key goes) come from the environment or
//! the user's config file only. The environment arrives through [`Env`], so tests inject
//! it; nothing here reads process-wide state.

mod declare;
mod families;
mod file;
mod layers;
mod produce;
mod secrets;
mod show;
mod table;
mod value;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use trawl_core::TrawlError;
use trawl_core::vars;

use crate::dotenv::{DotEnv, IgnoredLine};

pub use file::FileConfig;
pub use layers::{Flags, Setting, Source};
pub use secrets::mask;
pub use table::Values;
pub use value::{
    BaseUrl, CrawlCount, Deadline, HostList, ProxyUrl, RedisUrl, Seconds, SettingValue,
    StoreLocation, Words,
};

/// clap's parser for a flag that sets a setting: the setting's own, so the flag's value
/// reaches the settings typed and is checked as the environment's and the file's are.
pub fn parse_flag<T: SettingValue>(text: &str) -> Result<T, String> {
    T::parse(text)
}

/// Read-only view of the process environment (injectable for tests).
pub trait Env {
    /// The variable's value as set (possibly empty).
    fn var(&self, name: &str) -> Option<String>;
    /// Every variable set.
    fn vars(&self) -> Vec<(String, String)>;
}

/// The real environment of this process (a `.env` never reaches it: see `dotenv`).
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn vars(&self) -> Vec<(String, String)> {
        std::env::vars().collect()
    }
}

/// The resolved settings: the declared ones (reached through `Deref`, e.g.
/// `settings.timeout`), and the maps resolved beside them.
#[derive(Debug, Clone)]
pub struct Settings {
    pub config_file: Option<PathBuf>,
    /// The `.env` read (API keys only), if any.
    pub dotenv_file: Option<PathBuf>,
    /// Every declared setting.
    pub values: Values,
    /// Secrets by variable name, already masked for display; values live in `secret_values`.
    pub keys: BTreeMap<String, Setting<String>>,
    /// Base-URL overrides (`TRAWL_<ENGINE>_URL`, `TRAWL_READER_<NAME>_URL`), from the
    /// environment only.
    pub url_overrides: BTreeMap<String, Setting<String>>,
    /// Least spacing of an engine's calls (`TRAWL_<ENGINE>_MIN_INTERVAL_MS`), by engine.
    pub min_intervals: BTreeMap<String, Setting<Duration>>,
    /// Routes from the config file, by name.
    pub routes: BTreeMap<String, Vec<String>>,
    /// Cookies files by site (`[cookies]` of the config file only: a `.env` cannot name
    /// one, so a cloned repository cannot send anything of the user's anywhere).
    pub cookie_files: BTreeMap<String, PathBuf>,
    /// The variables of `trawl_core::vars` set in the environment, with their trust class
    /// (names only: values are shown above, masked where secret).
    pub environment: BTreeMap<String, &'static str>,
    /// Lines of `.env` that were not used, with the reason.
    pub ignored: Vec<IgnoredLine>,
    /// Read by the engines and readers that need keys, through [`Settings::secret`].
    secret_values: BTreeMap<String, String>,
}

impl std::ops::Deref for Settings {
    type Target = Values;
    fn deref(&self) -> &Values {
        &self.values
    }
}

impl Settings {
    /// Resolve every setting. `flags` are the flags that set settings, by flag name (see
    /// `Cli::setting_flags`).
    pub fn resolve(
        file: FileConfig,
        dotenv: &DotEnv,
        env: &dyn Env,
        flags: &Flags,
    ) -> Result<Self, TrawlError> {
        let inputs = layers::Inputs {
            flags,
            env,
            file: &file,
        };
        let mut values = Values::resolve(&inputs)?;
        let secrets = secrets::resolve(env, &file, dotenv);
        if values.readers.source == Source::Default {
            values.readers.value = value::Readers(secrets::keyed_readers(&secrets));
        }
        Ok(Settings {
            config_file: file.path.clone(),
            dotenv_file: dotenv.path.clone(),
            values,
            keys: secrets
                .iter()
                .map(|(name, s)| (name.clone(), Setting::new(mask(&s.value), s.source)))
                .collect(),
            url_overrides: families::url_overrides(env)?,
            min_intervals: families::min_intervals(env)?,
            routes: file.routes.clone(),
            cookie_files: file
                .cookies
                .iter()
                .map(|(site, path)| (site.clone(), PathBuf::from(&path.value)))
                .collect(),
            environment: env
                .vars()
                .into_iter()
                .filter_map(|(name, _)| vars::lookup(&name).map(|v| (name, v.trust.as_str())))
                .collect(),
            ignored: dotenv.ignored.clone(),
            secret_values: secrets.into_iter().map(|(k, s)| (k, s.value)).collect(),
        })
    }

    /// The base-URL override in `var`, if the user set one.
    pub fn url_override(&self, var: &str) -> Option<&str> {
        if var == vars::SEARXNG_URL {
            return self.searxng_url.value.as_ref().map(|u| u.0.as_str());
        }
        self.url_overrides.get(var).map(|s| s.value.as_str())
    }

    /// The Redis URL to use (with its credentials), when one is configured.
    pub fn redis_url(&self) -> Option<&str> {
        self.redis.value.as_ref().map(value::RedisUrl::expose)
    }

    /// What to do when Redis does not answer at start (checked when it was read).
    pub fn store_fallback_mode(&self) -> Result<trawl_store::StoreFallback, TrawlError> {
        Ok(self.store_fallback.value)
    }

    /// A secret by variable name (from the environment, the config file or `.env`).
    pub fn secret(&self, name: &str) -> Option<&str> {
        if name == vars::REDIS_URL {
            return self.redis_url();
        }
        self.secret_values.get(name).map(String::as_str)
    }

    /// Where the store lives when it is no Redis: the setting, else a file in the user's
    /// cache directory.
    pub fn store_location(&self) -> Result<StoreLocation, TrawlError> {
        if let Some(location) = &self.store.value {
            return Ok(location.clone());
        }
        use etcetera::BaseStrategy;
        let base = etcetera::choose_base_strategy()
            .map_err(|e| TrawlError::internal(format!("no cache directory: {e}")))?;
        Ok(StoreLocation::File(
            base.cache_dir().join("trawl").join("trawl.db"),
        ))
    }
}

/// Load the config file (an explicit path must exist; the default path may be absent),
/// refusing top-level keys that are not declared settings the file may set.
pub fn load_file(explicit: Option<&Path>) -> Result<FileConfig, TrawlError> {
    file::load_file(explicit, table::DECLARED)
}

/// A URL with its credentials (userinfo, credential parameters) masked.
fn mask_url_password(raw: &str) -> String {
    trawl_core::redact_url(raw)
}

#[cfg(test)]
mod tests;
