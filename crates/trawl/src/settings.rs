//! Effective settings, in layers: embedded defaults < config file < `.env` (API keys
//! only) < environment < flags. Each layer only fills what the one above left unset.
//!
//! The config file, the real environment and flags are the user's own and may set
//! anything. A `.env` may come with a cloned repository, so it never widens what trawl may
//! reach or where it sends keys: [`crate::dotenv`] keeps only its API keys, and base-URL
//! overrides (where a key goes) come from the environment only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use trawl_agent::tools::ReaderKind;
use trawl_core::TrawlError;
use trawl_core::vars::{self, Trust};
use trawl_fetch::{
    DEFAULT_MAX_BYTES, DEFAULT_USER_AGENT, FetchConfig, GuardPolicy, HostRule, RenderConfig,
    RenderMode, TlsRoots,
};

use crate::cli::NetArgs;
use crate::dotenv::{DotEnv, IgnoredLine};

/// The config file's shape (`~/.config/trawl/config.toml`); every field optional.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub timeout: Option<f64>,
    pub connect_timeout: Option<f64>,
    pub max_bytes: Option<u64>,
    pub proxy: Option<String>,
    pub allow_private_hosts: Option<bool>,
    pub allow_hosts: Option<Vec<String>>,
    pub user_agent: Option<String>,
    /// Trust the system's certificate store as well as the compiled-in Mozilla roots.
    pub tls_system_roots: Option<bool>,
    /// Store file; `:memory:` keeps nothing between runs.
    pub store: Option<String>,
    /// Hosted fallback readers, in order (`jina`, `tavily`, `firecrawl`, `exa`, or `none`);
    /// unset = the readers whose key is set in the environment or this file.
    pub readers: Option<Vec<String>>,
    /// Readers that may receive URLs carrying credentials-like query parameters.
    pub readers_query_secrets: Option<Vec<String>>,
    /// Reads shorter than this many characters try the fallback readers.
    pub min_chars: Option<usize>,
    /// Seconds a stored page stays fresh (then it is revalidated); 0 = forever.
    pub document_ttl: Option<f64>,
    /// Seconds a search answer is cached; 0 = forever.
    pub search_ttl: Option<f64>,
    /// Upper bound on stored documents' total size in bytes (oldest evicted); 0 = none.
    pub store_max_bytes: Option<u64>,
    /// A Redis shared by several replicas (`redis://host:port/db`), instead of the file.
    pub redis: Option<String>,
    /// Prefix of every key trawl writes in that Redis (default `trawl:`).
    pub redis_prefix: Option<String>,
    /// When the Redis does not answer at start: `memory` (a private store) or `none`.
    pub store_fallback: Option<String>,
    /// Render pages in a headless browser: `auto` (app shells only), `never`, `always`.
    pub render: Option<String>,
    /// The browser binary (default: `chromium` on the PATH).
    pub browser: Option<PathBuf>,
    /// Pages rendered at the same time.
    pub render_tabs: Option<usize>,
    /// Deadline for rendering one page, in seconds.
    pub render_timeout: Option<f64>,
    /// API keys and other secrets, by environment-variable name (e.g. `BRAVE_API_KEY`).
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
    /// Engines never asked, whatever the route or explicit list.
    pub disabled_engines: Option<Vec<String>>,
    /// Search routes by name: `[routes]` with `name = ["engine", …]` (may redefine a
    /// built-in route).
    #[serde(default)]
    pub routes: BTreeMap<String, Vec<String>>,
    /// A SearXNG instance (`trawl searxng up` writes it); `TRAWL_SEARXNG_URL` wins.
    pub searxng_url: Option<String>,
}

/// `TRAWL_BROWSER` as the real environment had it (a `.env` never sets it).
static REAL_BROWSER: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

/// Remember `TRAWL_BROWSER` from the real environment; call once at start.
pub fn capture_browser_from_real_env() {
    let _ = REAL_BROWSER.set(
        std::env::var_os(vars::BROWSER)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    );
}

/// Where a value came from, for `config show`.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Default,
    File,
    Dotenv,
    Env,
    Flag,
}

impl Source {
    /// Whether the layer is the user's own (not a `.env` that came with a directory).
    pub fn trusted(self) -> bool {
        self != Source::Dotenv
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Setting<T> {
    fn new(value: T, source: Source) -> Self {
        Setting { value, source }
    }
}

/// The resolved settings.
#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    pub config_file: Option<PathBuf>,
    /// The `.env` read (API keys only), if any.
    pub dotenv_file: Option<PathBuf>,
    pub timeout_secs: Setting<f64>,
    pub connect_timeout_secs: Setting<f64>,
    pub max_bytes: Setting<u64>,
    pub proxy: Setting<Option<String>>,
    pub allow_private_hosts: Setting<bool>,
    pub allow_hosts: Setting<Vec<String>>,
    pub user_agent: Setting<String>,
    pub tls_system_roots: Setting<bool>,
    pub store: Setting<Option<String>>,
    pub readers: Setting<Vec<String>>,
    pub readers_query_secrets: Setting<Vec<String>>,
    pub min_chars: Setting<usize>,
    pub document_ttl_secs: Setting<f64>,
    pub search_ttl_secs: Setting<f64>,
    pub store_max_bytes: Setting<u64>,
    /// Base-URL overrides (`TRAWL_<ENGINE>_URL`, `TRAWL_READER_<NAME>_URL`), from the
    /// environment only; SearXNG's also from the config file's `searxng_url`.
    pub url_overrides: BTreeMap<String, Setting<String>>,
    /// The shared Redis, credentials masked (the URL itself is a secret value).
    pub redis: Setting<Option<String>>,
    pub redis_prefix: Setting<String>,
    pub store_fallback: Setting<String>,
    /// Engines subtracted from every route and explicit list.
    pub disabled_engines: Setting<Vec<String>>,
    /// Routes from the config file, by name.
    pub routes: BTreeMap<String, Vec<String>>,
    /// When pages are rendered in a headless browser: `auto`, `never` or `always`.
    pub render: Setting<String>,
    /// The browser binary (default: `chromium` on the PATH).
    pub browser: Setting<Option<PathBuf>>,
    /// Pages rendered at the same time.
    pub render_tabs: Setting<usize>,
    /// Deadline for rendering one page, in seconds.
    pub render_timeout_secs: Setting<f64>,
    /// Secrets by variable name, already masked for display; values live in `secret_values`.
    pub keys: BTreeMap<String, Setting<String>>,
    /// The variables of `trawl_core::vars` set in the environment, with their trust class
    /// (names only: values are shown above, masked where secret).
    pub environment: BTreeMap<String, &'static str>,
    /// Lines of `.env` that were not used, with the reason.
    pub ignored: Vec<IgnoredLine>,
    /// Read by the engines and readers that need keys, through [`Settings::secret`].
    #[serde(skip)]
    secret_values: BTreeMap<String, String>,
    /// The environment's search variables, passed on to the search router as they are.
    #[serde(skip)]
    search_env: Vec<(String, String)>,
}

/// Read-only view of the process environment (injectable for tests).
pub trait Env {
    /// The variable's value as set (possibly empty).
    fn var(&self, name: &str) -> Option<String>;
    /// Every variable set.
    fn vars(&self) -> Vec<(String, String)>;
}

pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn vars(&self) -> Vec<(String, String)> {
        std::env::vars().collect()
    }
}

/// A variable's value when it is set to something: empty counts as unset.
fn set(env: &dyn Env, name: &str) -> Option<String> {
    env.var(name).filter(|v| !v.trim().is_empty())
}

/// Mask a secret: keep a hint of its length, never its characters.
pub fn mask(secret: &str) -> String {
    format!("****({} chars)", secret.chars().count())
}

fn default_config_path() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy()
        .ok()
        .map(|s| s.config_dir().join("trawl").join("config.toml"))
}

/// Load the config file: an explicit path must exist; the default path may be absent.
pub fn load_file(explicit: Option<&Path>) -> Result<(Option<PathBuf>, FileConfig), TrawlError> {
    let (path, required) = match explicit {
        Some(p) => (Some(p.to_path_buf()), true),
        None => (default_config_path(), false),
    };
    let Some(path) = path else {
        return Ok((None, FileConfig::default()));
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let cfg: FileConfig = toml::from_str(&text).map_err(|e| {
                TrawlError::invalid_input(format!("config file {}: {e}", path.display()))
            })?;
            Ok((Some(path), cfg))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {
            Ok((None, FileConfig::default()))
        }
        Err(e) => Err(TrawlError::invalid_input(format!(
            "config file {}: {e}",
            path.display()
        ))),
    }
}

fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn parse_env<T: std::str::FromStr>(env: &dyn Env, name: &str) -> Result<Option<T>, TrawlError> {
    match set(env, name) {
        None => Ok(None),
        Some(v) => v.trim().parse().map(Some).map_err(|_| {
            TrawlError::invalid_input(format!("environment variable {name}={v:?} is not valid"))
        }),
    }
}

fn parse_bool(env: &dyn Env, name: &str) -> Result<Option<bool>, TrawlError> {
    match set(env, name).map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(None),
        Some(v) if matches!(v.as_str(), "1" | "true" | "yes" | "on") => Ok(Some(true)),
        Some(v) if matches!(v.as_str(), "0" | "false" | "no" | "off") => Ok(Some(false)),
        Some(v) => Err(TrawlError::invalid_input(format!(
            "environment variable {name}={v:?} is not a boolean"
        ))),
    }
}

/// Pick the highest layer that has a value.
fn layer<T>(flag: Option<T>, env: Option<T>, file: Option<T>, default: T) -> Setting<T> {
    if let Some(v) = flag {
        Setting::new(v, Source::Flag)
    } else if let Some(v) = env {
        Setting::new(v, Source::Env)
    } else if let Some(v) = file {
        Setting::new(v, Source::File)
    } else {
        Setting::new(default, Source::Default)
    }
}

/// Secrets from the environment, the `.env` (API keys only) and the config file, in that
/// order. An empty API key counts as unset; an empty trawl secret (`TRAWL_TOKEN=`) is kept
/// so that what uses it refuses it, as it refuses an empty token file.
fn resolve_secrets(
    env: &dyn Env,
    dotenv: &DotEnv,
    file: &FileConfig,
) -> BTreeMap<String, Setting<String>> {
    let mut out = BTreeMap::new();
    for name in vars::secrets() {
        let keep_empty = vars::lookup(name).is_some_and(|v| v.trust == Trust::Secret);
        let usable = |v: &String| keep_empty || !v.trim().is_empty();
        let found = env
            .var(name)
            .filter(usable)
            .map(|v| (v, Source::Env))
            .or_else(|| dotenv.keys.get(name).map(|v| (v.clone(), Source::Dotenv)))
            .or_else(|| {
                file.keys
                    .get(name)
                    .filter(|v| usable(v))
                    .map(|v| (v.clone(), Source::File))
            });
        if let Some((value, source)) = found {
            out.insert(name.to_owned(), Setting::new(value, source));
        }
    }
    out
}

/// The hosted readers used when the user did not list any: those whose key the user set
/// (environment or config file). A key found only in a `.env` is used by a reader the
/// user enabled, but does not enable one: that would send the URLs read to a third party
/// on the word of a file the user may not have written.
fn keyed_readers(secrets: &BTreeMap<String, Setting<String>>) -> Vec<String> {
    ReaderKind::ALL
        .into_iter()
        .filter(|k| secrets.get(k.key_var()).is_some_and(|s| s.source.trusted()))
        .map(|k| k.name().to_owned())
        .collect()
}

impl Settings {
    pub fn resolve(
        config_file: Option<PathBuf>,
        file: FileConfig,
        dotenv: &DotEnv,
        env: &dyn Env,
        net: &NetArgs,
        store_flag: Option<&str>,
    ) -> Result<Self, TrawlError> {
        let env_hosts = set(env, vars::ALLOW_HOSTS).map(|v| split_list(&v));
        let flag_hosts = (!net.allow_hosts.is_empty()).then(|| net.allow_hosts.clone());
        let secrets = resolve_secrets(env, dotenv, &file);
        let keys = secrets
            .iter()
            .map(|(name, s)| (name.clone(), Setting::new(mask(&s.value), s.source)))
            .collect();
        let readers = layer(
            None,
            set(env, vars::READERS).map(|v| split_list(&v)),
            file.readers.clone(),
            keyed_readers(&secrets),
        );
        let mut url_overrides: BTreeMap<String, Setting<String>> = env
            .vars()
            .into_iter()
            .filter(|(name, value)| vars::is_url_override(name) && !value.trim().is_empty())
            .map(|(name, value)| (name, Setting::new(value.trim().to_owned(), Source::Env)))
            .collect();
        // The user's own config file may name their SearXNG (a `.env` never can).
        if let Some(url) = file.searxng_url.as_deref().filter(|u| !u.trim().is_empty()) {
            url_overrides
                .entry(vars::SEARXNG_URL.to_owned())
                .or_insert_with(|| Setting::new(url.trim().to_owned(), Source::File));
        }
        // Search reads its own variables; only the environment's reach it.
        let search_env = env
            .vars()
            .into_iter()
            .filter(|(name, _)| {
                [
                    vars::SEARCH_TIMEOUT_MS,
                    vars::TAVILY_KEYLESS,
                    vars::USER_AGENT,
                ]
                .contains(&name.as_str())
            })
            .collect();
        let settings = Settings {
            config_file,
            dotenv_file: dotenv.path.clone(),
            timeout_secs: layer(
                net.timeout,
                parse_env(env, vars::TIMEOUT)?,
                file.timeout,
                30.0,
            ),
            connect_timeout_secs: layer(
                None,
                parse_env(env, vars::CONNECT_TIMEOUT)?,
                file.connect_timeout,
                10.0,
            ),
            max_bytes: layer(
                net.max_bytes,
                parse_env(env, vars::MAX_BYTES)?,
                file.max_bytes,
                DEFAULT_MAX_BYTES,
            ),
            proxy: layer(
                net.proxy.clone().map(Some),
                set(env, vars::PROXY).map(Some),
                file.proxy.clone().map(Some),
                None,
            ),
            allow_private_hosts: layer(
                net.allow_private_hosts.then_some(true),
                parse_bool(env, vars::ALLOW_PRIVATE_HOSTS)?,
                file.allow_private_hosts,
                false,
            ),
            allow_hosts: layer(flag_hosts, env_hosts, file.allow_hosts.clone(), Vec::new()),
            user_agent: layer(
                None,
                set(env, vars::USER_AGENT),
                file.user_agent.clone(),
                DEFAULT_USER_AGENT.to_owned(),
            ),
            tls_system_roots: layer(
                None,
                parse_bool(env, vars::TLS_SYSTEM_ROOTS)?,
                file.tls_system_roots,
                false,
            ),
            store: layer(
                store_flag.map(|s| Some(s.to_owned())),
                set(env, vars::STORE).map(Some),
                file.store.clone().map(Some),
                None,
            ),
            readers,
            readers_query_secrets: layer(
                None,
                set(env, vars::READERS_QUERY_SECRETS).map(|v| split_list(&v)),
                file.readers_query_secrets.clone(),
                Vec::new(),
            ),
            min_chars: layer(None, parse_env(env, vars::MIN_CHARS)?, file.min_chars, 400),
            document_ttl_secs: layer(
                None,
                parse_env(env, vars::DOCUMENT_TTL)?,
                file.document_ttl,
                86_400.0,
            ),
            search_ttl_secs: layer(
                None,
                parse_env(env, vars::SEARCH_TTL)?,
                file.search_ttl,
                900.0,
            ),
            store_max_bytes: layer(
                None,
                parse_env(env, vars::STORE_MAX_BYTES)?,
                file.store_max_bytes,
                512 * 1024 * 1024,
            ),
            url_overrides,
            redis: Setting::new(None, Source::Default),
            redis_prefix: Setting::new(
                trawl_store::DEFAULT_REDIS_PREFIX.to_owned(),
                Source::Default,
            ),
            store_fallback: Setting::new("none".to_owned(), Source::Default),
            disabled_engines: layer(
                None,
                env.var(trawl_search::vars::DISABLED_ENGINES)
                    .map(|v| split_list(&v.to_ascii_lowercase())),
                file.disabled_engines.clone(),
                Vec::new(),
            ),
            routes: file.routes.clone(),
            render: layer(
                net.render.clone(),
                env.var(vars::RENDER),
                file.render.clone(),
                RenderMode::Auto.as_str().to_owned(),
            ),
            browser: layer(
                None,
                REAL_BROWSER.get().cloned().flatten().map(Some),
                file.browser.clone().map(Some),
                None,
            ),
            render_tabs: layer(
                None,
                parse_env(env, vars::RENDER_TABS)?,
                file.render_tabs,
                RenderConfig::default().tabs,
            ),
            render_timeout_secs: layer(
                None,
                parse_env(env, vars::RENDER_TIMEOUT)?,
                file.render_timeout,
                RenderConfig::default().page_timeout.as_secs_f64(),
            ),
            keys,
            environment: env
                .vars()
                .into_iter()
                .filter_map(|(name, _)| vars::lookup(&name).map(|v| (name, v.trust.as_str())))
                .collect(),
            ignored: dotenv.ignored.clone(),
            secret_values: secrets.into_iter().map(|(k, s)| (k, s.value)).collect(),
            search_env,
        };
        let mut settings = settings;
        settings.resolve_store_backend(&file)?;
        settings.validate()?;
        Ok(settings)
    }

    fn validate(&self) -> Result<(), TrawlError> {
        RenderMode::parse(&self.render.value)?;
        if !(1..=32).contains(&self.render_tabs.value) {
            return Err(TrawlError::invalid_input(format!(
                "render_tabs must be between 1 and 32, got {}",
                self.render_tabs.value
            )));
        }
        for (name, secs) in [
            ("timeout", self.timeout_secs.value),
            ("connect_timeout", self.connect_timeout_secs.value),
            ("render_timeout", self.render_timeout_secs.value),
        ] {
            if !(secs.is_finite() && secs > 0.0 && secs <= 3600.0) {
                return Err(TrawlError::invalid_input(format!(
                    "{name} must be between 0 and 3600 seconds, got {secs}"
                )));
            }
        }
        if let Some(proxy) = &self.proxy.value {
            trawl_fetch::normalize_proxy(proxy)?;
        }
        for host in &self.allow_hosts.value {
            HostRule::parse(host)?;
        }
        for (name, secs) in [
            ("document_ttl", self.document_ttl_secs.value),
            ("search_ttl", self.search_ttl_secs.value),
        ] {
            if !(secs.is_finite() && secs >= 0.0) {
                return Err(TrawlError::invalid_input(format!(
                    "{name} must be a number of seconds >= 0, got {secs}"
                )));
            }
        }
        for (what, list) in [
            ("readers", &self.readers.value),
            ("readers_query_secrets", &self.readers_query_secrets.value),
        ] {
            for reader in list {
                if ReaderKind::parse(reader).is_none() && reader != "none" {
                    return Err(TrawlError::invalid_input(format!(
                        "{what}: unknown reader {reader:?} (jina, tavily, firecrawl, exa, or none)"
                    )));
                }
            }
        }
        for (name, value) in &self.url_overrides {
            url::Url::parse(&value.value)
                .map_err(|e| TrawlError::invalid_input(format!("{name}={:?}: {e}", value.value)))?;
        }
        Ok(())
    }

    /// The base-URL override in `var`, if the environment set one.
    pub fn url_override(&self, var: &str) -> Option<&str> {
        self.url_overrides.get(var).map(|s| s.value.as_str())
    }

    /// What the search router reads: the environment's search variables and base-URL
    /// overrides, plus every key from whichever layer gave it.
    pub fn search_vars(&self) -> Vec<(String, String)> {
        let mut out = self.search_env.clone();
        out.extend(
            self.url_overrides
                .iter()
                .map(|(k, s)| (k.clone(), s.value.clone())),
        );
        out.extend(
            self.secret_values
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        out
    }

    /// The Redis settings: config file < real environment (never `.env`, see
    /// [`crate::backend`]); flags come later through [`Settings::apply_store_flags`].
    fn resolve_store_backend(&mut self, file: &FileConfig) -> Result<(), TrawlError> {
        let (env_url, env_prefix) = crate::backend::process_env();
        let url = layer(None, env_url, file.redis.clone(), String::new());
        self.set_redis(url.value, url.source);
        self.redis_prefix = layer(
            None,
            env_prefix,
            file.redis_prefix.clone(),
            trawl_store::DEFAULT_REDIS_PREFIX.to_owned(),
        );
        if let Some(fallback) = &file.store_fallback {
            self.store_fallback = Setting::new(fallback.clone(), Source::File);
        }
        Ok(())
    }

    fn set_redis(&mut self, url: String, source: Source) {
        if url.trim().is_empty() {
            return;
        }
        self.redis = Setting::new(Some(trawl_store::redact_url(&url)), source);
        self.secret_values.insert(vars::REDIS_URL.to_owned(), url);
    }

    /// `--redis` and `--store-fallback`, above every other layer.
    pub fn apply_store_flags(
        &mut self,
        redis: Option<&str>,
        fallback: Option<&str>,
    ) -> Result<(), TrawlError> {
        if let Some(url) = redis {
            self.set_redis(url.to_owned(), Source::Flag);
        }
        if let Some(f) = fallback {
            self.store_fallback = Setting::new(f.to_owned(), Source::Flag);
        }
        self.store_fallback_mode()?;
        Ok(())
    }

    /// The Redis URL to use (with its credentials), when one is configured.
    pub fn redis_url(&self) -> Option<&str> {
        self.redis.value.as_ref()?;
        self.secret(vars::REDIS_URL)
    }

    /// What to do when Redis does not answer at start.
    pub fn store_fallback_mode(&self) -> Result<trawl_store::StoreFallback, TrawlError> {
        self.store_fallback
            .value
            .parse()
            .map_err(|e: String| TrawlError::invalid_input(format!("store_fallback: {e}")))
    }

    /// A secret by variable name (from the environment, `.env` or the config file).
    pub fn secret(&self, name: &str) -> Option<&str> {
        self.secret_values.get(name).map(String::as_str)
    }

    /// The store path: the setting, else the user cache dir.
    pub fn store_path(&self) -> Result<String, TrawlError> {
        if let Some(p) = &self.store.value {
            return Ok(p.clone());
        }
        use etcetera::BaseStrategy;
        let base = etcetera::choose_base_strategy()
            .map_err(|e| TrawlError::internal(format!("no cache directory: {e}")))?;
        Ok(base
            .cache_dir()
            .join("trawl")
            .join("trawl.db")
            .to_string_lossy()
            .into_owned())
    }

    /// The fetcher's configuration.
    pub fn fetch_config(&self) -> Result<FetchConfig, TrawlError> {
        let allow_hosts = self
            .allow_hosts
            .value
            .iter()
            .map(|h| HostRule::parse(h))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FetchConfig {
            user_agent: self.user_agent.value.clone(),
            connect_timeout: Duration::from_secs_f64(self.connect_timeout_secs.value),
            timeout: Duration::from_secs_f64(self.timeout_secs.value),
            max_bytes: self.max_bytes.value,
            max_redirects: 10,
            proxy: self.proxy.value.clone(),
            policy: GuardPolicy {
                allow_private_hosts: self.allow_private_hosts.value,
                allow_hosts,
            },
            tls_roots: self.tls_roots(),
            render: RenderConfig {
                mode: RenderMode::parse(&self.render.value)?,
                browser: self.browser.value.clone(),
                tabs: self.render_tabs.value,
                page_timeout: Duration::from_secs_f64(self.render_timeout_secs.value),
                ..RenderConfig::default()
            },
        })
    }

    /// The certificate authorities HTTPS clients trust.
    pub fn tls_roots(&self) -> TlsRoots {
        if self.tls_system_roots.value {
            TlsRoots::WithSystem
        } else {
            TlsRoots::Bundled
        }
    }

    /// The settings as shown to people: proxy credentials and keys masked.
    pub fn redacted_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(proxy) = &self.proxy.value {
            v["proxy"]["value"] = serde_json::Value::String(mask_url_password(proxy));
        }
        for (name, s) in &self.url_overrides {
            v["url_overrides"][name]["value"] =
                serde_json::Value::String(mask_url_password(&s.value));
        }
        v
    }
}

/// A URL with its password (if any) masked.
fn mask_url_password(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("****"));
            url.to_string()
        }
        _ => raw.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct MapEnv(BTreeMap<&'static str, &'static str>);
    impl Env for MapEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).map(|v| (*v).to_owned())
        }
        fn vars(&self) -> Vec<(String, String)> {
            self.0
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        }
    }

    fn resolve(file: FileConfig, env: &MapEnv, net: &NetArgs) -> Result<Settings, TrawlError> {
        Settings::resolve(None, file, &DotEnv::default(), env, net, None)
    }

    #[test]
    fn layers_in_order() {
        let file: FileConfig =
            toml::from_str("timeout = 5.0\nmax_bytes = 100\nproxy = \"http://p:1\"").unwrap();
        let env = MapEnv([(vars::MAX_BYTES, "200")].into());
        let net = NetArgs {
            proxy: Some("socks5h://q:2".into()),
            ..NetArgs::default()
        };
        let s = resolve(file, &env, &net).unwrap();
        assert_eq!(s.timeout_secs.value, 5.0);
        assert_eq!(s.timeout_secs.source, Source::File);
        assert_eq!(s.max_bytes.value, 200);
        assert_eq!(s.max_bytes.source, Source::Env);
        assert_eq!(s.proxy.value.as_deref(), Some("socks5h://q:2"));
        assert_eq!(s.proxy.source, Source::Flag);
        assert_eq!(s.connect_timeout_secs.source, Source::Default);
    }

    #[test]
    fn render_mode_layers_and_is_checked() {
        let file: FileConfig = toml::from_str("render = \"never\"").unwrap();
        let env = MapEnv([(vars::RENDER, "always")].into());
        let s = resolve(file.clone(), &env, &NetArgs::default()).unwrap();
        assert_eq!(s.fetch_config().unwrap().render.mode, RenderMode::Always);
        let s = resolve(file, &MapEnv(BTreeMap::new()), &NetArgs::default()).unwrap();
        assert_eq!(s.fetch_config().unwrap().render.mode, RenderMode::Never);
        let net = NetArgs {
            render: Some("sometimes".into()),
            ..NetArgs::default()
        };
        let err = resolve(FileConfig::default(), &MapEnv(BTreeMap::new()), &net).unwrap_err();
        assert!(err.message.contains("sometimes"), "{}", err.message);
    }

    #[test]
    fn secrets_are_masked() {
        let env = MapEnv([("BRAVE_API_KEY", "sk-very-secret-123")].into());
        let s = resolve(FileConfig::default(), &env, &NetArgs::default()).unwrap();
        let shown = s.redacted_json().to_string();
        assert!(!shown.contains("sk-very-secret-123"), "{shown}");
        assert!(shown.contains("BRAVE_API_KEY"));
        assert_eq!(s.secret("BRAVE_API_KEY"), Some("sk-very-secret-123"));
    }

    #[test]
    fn bad_values_are_refused() {
        let env = MapEnv([(vars::TIMEOUT, "soon")].into());
        let err = resolve(FileConfig::default(), &env, &NetArgs::default()).unwrap_err();
        assert!(err.message.contains(vars::TIMEOUT));
        let net = NetArgs {
            allow_hosts: vec!["not a host!".into()],
            ..NetArgs::default()
        };
        assert!(resolve(FileConfig::default(), &MapEnv(BTreeMap::new()), &net).is_err());
        let net = NetArgs {
            proxy: Some("ftp://x".into()),
            ..NetArgs::default()
        };
        assert!(resolve(FileConfig::default(), &MapEnv(BTreeMap::new()), &net).is_err());
    }

    #[test]
    fn dotenv_gives_keys_only_and_never_enables_a_reader() {
        let dotenv = DotEnv {
            path: Some("/repo/.env".into()),
            keys: [("JINA_API_KEY".to_owned(), "jina-from-dotenv".to_owned())].into(),
            ignored: Vec::new(),
        };
        let env = MapEnv([("TAVILY_API_KEY", "tv"), (vars::TOKEN, "")].into());
        let s = Settings::resolve(
            None,
            FileConfig::default(),
            &dotenv,
            &env,
            &NetArgs::default(),
            None,
        )
        .unwrap();
        assert_eq!(s.secret("JINA_API_KEY"), Some("jina-from-dotenv"));
        assert_eq!(s.keys["JINA_API_KEY"].source, Source::Dotenv);
        assert_eq!(s.readers.value, ["tavily"], "keyed by the user only");
        // An empty token is kept, so serving refuses it.
        assert_eq!(s.secret(vars::TOKEN), Some(""));
    }

    #[test]
    fn no_reader_by_default() {
        let s = resolve(
            FileConfig::default(),
            &MapEnv(BTreeMap::new()),
            &NetArgs::default(),
        )
        .unwrap();
        assert!(s.readers.value.is_empty());
        assert!(s.readers_query_secrets.value.is_empty());
    }
}
