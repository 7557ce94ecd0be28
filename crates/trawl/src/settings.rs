//! Effective settings: embedded defaults < config file < `.env` < environment (`TRAWL_*`)
//! < flags. Each layer only fills what the one above left unset.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use trawl_core::TrawlError;
use trawl_fetch::{
    DEFAULT_MAX_BYTES, DEFAULT_USER_AGENT, FetchConfig, GuardPolicy, HostRule, RenderConfig,
    RenderMode,
};

use crate::cli::NetArgs;

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
    /// Store file; `:memory:` keeps nothing between runs.
    pub store: Option<String>,
    /// Fallback readers, in order (`jina`, `tavily`, `firecrawl`, `exa`); empty = none.
    pub readers: Option<Vec<String>>,
    /// Reads shorter than this many characters try the fallback readers.
    pub min_chars: Option<usize>,
    /// Seconds a stored page stays fresh (then it is revalidated); 0 = forever.
    pub document_ttl: Option<f64>,
    /// Seconds a search answer is cached; 0 = forever.
    pub search_ttl: Option<f64>,
    /// Upper bound on stored documents' total size in bytes (oldest evicted); 0 = none.
    pub store_max_bytes: Option<u64>,
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
}

/// `TRAWL_BROWSER` as the real environment had it, before `.env` was loaded.
static REAL_BROWSER: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

/// Remember `TRAWL_BROWSER` from the real environment; call before loading `.env`.
pub fn capture_browser_from_real_env() {
    let _ = REAL_BROWSER.set(
        std::env::var_os("TRAWL_BROWSER")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    );
}

/// Environment variables that hold secrets: masked wherever they are shown.
pub const SECRET_VARS: &[&str] = &[
    "BRAVE_API_KEY",
    "TAVILY_API_KEY",
    "EXA_API_KEY",
    "SERPER_API_KEY",
    "SERPAPI_API_KEY",
    "JINA_API_KEY",
    "FIRECRAWL_API_KEY",
    "GITHUB_TOKEN",
    "MARGINALIA_API_KEY",
    "STACKEXCHANGE_KEY",
    "TRAWL_TOKEN",
];

/// Where a value came from, for `config show`.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Default,
    File,
    Env,
    Flag,
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
    pub timeout_secs: Setting<f64>,
    pub connect_timeout_secs: Setting<f64>,
    pub max_bytes: Setting<u64>,
    pub proxy: Setting<Option<String>>,
    pub allow_private_hosts: Setting<bool>,
    pub allow_hosts: Setting<Vec<String>>,
    pub user_agent: Setting<String>,
    pub store: Setting<Option<String>>,
    pub readers: Setting<Vec<String>>,
    pub min_chars: Setting<usize>,
    pub document_ttl_secs: Setting<f64>,
    pub search_ttl_secs: Setting<f64>,
    pub store_max_bytes: Setting<u64>,
    pub render: Setting<String>,
    pub browser: Setting<Option<PathBuf>>,
    pub render_tabs: Setting<usize>,
    pub render_timeout_secs: Setting<f64>,
    /// Secrets by variable name, already masked for display; values live in `secret_values`.
    pub keys: BTreeMap<String, Setting<String>>,
    /// Read by the engines and readers that need keys, through [`Settings::secret`].
    #[serde(skip)]
    secret_values: BTreeMap<String, String>,
}

/// Read-only view of the process environment (injectable for tests).
pub trait Env {
    fn var(&self, name: &str) -> Option<String>;
}

pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
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
    match env.var(name) {
        None => Ok(None),
        Some(v) => v.trim().parse().map(Some).map_err(|_| {
            TrawlError::invalid_input(format!("environment variable {name}={v:?} is not valid"))
        }),
    }
}

fn parse_bool(env: &dyn Env, name: &str) -> Result<Option<bool>, TrawlError> {
    match env.var(name).map(|v| v.trim().to_ascii_lowercase()) {
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

impl Settings {
    pub fn resolve(
        config_file: Option<PathBuf>,
        file: FileConfig,
        env: &dyn Env,
        net: &NetArgs,
        store_flag: Option<&str>,
    ) -> Result<Self, TrawlError> {
        let env_hosts = env.var("TRAWL_ALLOW_HOSTS").map(|v| split_list(&v));
        let flag_hosts = (!net.allow_hosts.is_empty()).then(|| net.allow_hosts.clone());
        let mut keys = BTreeMap::new();
        let mut secret_values = BTreeMap::new();
        for name in SECRET_VARS {
            let (value, source) = match (env.var(name), file.keys.get(*name)) {
                (Some(v), _) => (v, Source::Env),
                (None, Some(v)) if !v.is_empty() => (v.clone(), Source::File),
                _ => continue,
            };
            keys.insert((*name).to_owned(), Setting::new(mask(&value), source));
            secret_values.insert((*name).to_owned(), value);
        }
        let settings = Settings {
            config_file,
            timeout_secs: layer(
                net.timeout,
                parse_env(env, "TRAWL_TIMEOUT")?,
                file.timeout,
                30.0,
            ),
            connect_timeout_secs: layer(
                None,
                parse_env(env, "TRAWL_CONNECT_TIMEOUT")?,
                file.connect_timeout,
                10.0,
            ),
            max_bytes: layer(
                net.max_bytes,
                parse_env(env, "TRAWL_MAX_BYTES")?,
                file.max_bytes,
                DEFAULT_MAX_BYTES,
            ),
            proxy: layer(
                net.proxy.clone().map(Some),
                env.var("TRAWL_PROXY").map(Some),
                file.proxy.clone().map(Some),
                None,
            ),
            allow_private_hosts: layer(
                net.allow_private_hosts.then_some(true),
                parse_bool(env, "TRAWL_ALLOW_PRIVATE_HOSTS")?,
                file.allow_private_hosts,
                false,
            ),
            allow_hosts: layer(flag_hosts, env_hosts, file.allow_hosts.clone(), Vec::new()),
            user_agent: layer(
                None,
                env.var("TRAWL_USER_AGENT"),
                file.user_agent.clone(),
                DEFAULT_USER_AGENT.to_owned(),
            ),
            store: layer(
                store_flag.map(|s| Some(s.to_owned())),
                env.var("TRAWL_STORE").map(Some),
                file.store.clone().map(Some),
                None,
            ),
            readers: layer(
                None,
                env.var("TRAWL_READERS").map(|v| split_list(&v)),
                file.readers.clone(),
                ["jina", "tavily", "firecrawl", "exa"]
                    .map(str::to_owned)
                    .to_vec(),
            ),
            min_chars: layer(
                None,
                parse_env(env, "TRAWL_MIN_CHARS")?,
                file.min_chars,
                400,
            ),
            document_ttl_secs: layer(
                None,
                parse_env(env, "TRAWL_DOCUMENT_TTL")?,
                file.document_ttl,
                86_400.0,
            ),
            search_ttl_secs: layer(
                None,
                parse_env(env, "TRAWL_SEARCH_TTL")?,
                file.search_ttl,
                900.0,
            ),
            store_max_bytes: layer(
                None,
                parse_env(env, "TRAWL_STORE_MAX_BYTES")?,
                file.store_max_bytes,
                512 * 1024 * 1024,
            ),
            render: layer(
                net.render.clone(),
                env.var("TRAWL_RENDER"),
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
                parse_env(env, "TRAWL_RENDER_TABS")?,
                file.render_tabs,
                RenderConfig::default().tabs,
            ),
            render_timeout_secs: layer(
                None,
                parse_env(env, "TRAWL_RENDER_TIMEOUT")?,
                file.render_timeout,
                RenderConfig::default().page_timeout.as_secs_f64(),
            ),
            keys,
            secret_values,
        };
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
        for reader in &self.readers.value {
            if !matches!(
                reader.as_str(),
                "jina" | "tavily" | "firecrawl" | "exa" | "none"
            ) {
                return Err(TrawlError::invalid_input(format!(
                    "readers: unknown reader {reader:?} (jina, tavily, firecrawl, exa, or none)"
                )));
            }
        }
        Ok(())
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
            render: RenderConfig {
                mode: RenderMode::parse(&self.render.value)?,
                browser: self.browser.value.clone(),
                tabs: self.render_tabs.value,
                page_timeout: Duration::from_secs_f64(self.render_timeout_secs.value),
                ..RenderConfig::default()
            },
        })
    }

    /// The settings as shown to people: proxy credentials and keys masked.
    pub fn redacted_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(proxy) = &self.proxy.value
            && let Ok(mut url) = url::Url::parse(proxy)
            && url.password().is_some()
        {
            let _ = url.set_password(Some("****"));
            v["proxy"]["value"] = serde_json::Value::String(url.to_string());
        }
        v
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
    }

    #[test]
    fn layers_in_order() {
        let file: FileConfig =
            toml::from_str("timeout = 5.0\nmax_bytes = 100\nproxy = \"http://p:1\"").unwrap();
        let env = MapEnv([("TRAWL_MAX_BYTES", "200")].into());
        let net = NetArgs {
            proxy: Some("socks5h://q:2".into()),
            ..NetArgs::default()
        };
        let s = Settings::resolve(None, file, &env, &net, None).unwrap();
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
        let env = MapEnv([("TRAWL_RENDER", "always")].into());
        let s = Settings::resolve(None, file.clone(), &env, &NetArgs::default(), None).unwrap();
        assert_eq!(s.fetch_config().unwrap().render.mode, RenderMode::Always);
        let s = Settings::resolve(
            None,
            file,
            &MapEnv(BTreeMap::new()),
            &NetArgs::default(),
            None,
        )
        .unwrap();
        assert_eq!(s.fetch_config().unwrap().render.mode, RenderMode::Never);
        let net = NetArgs {
            render: Some("sometimes".into()),
            ..NetArgs::default()
        };
        let err = Settings::resolve(
            None,
            FileConfig::default(),
            &MapEnv(BTreeMap::new()),
            &net,
            None,
        )
        .unwrap_err();
        assert!(err.message.contains("sometimes"), "{}", err.message);
    }

    #[test]
    fn secrets_are_masked() {
        let env = MapEnv([("BRAVE_API_KEY", "sk-very-secret-123")].into());
        let s = Settings::resolve(None, FileConfig::default(), &env, &NetArgs::default(), None)
            .unwrap();
        let shown = s.redacted_json().to_string();
        assert!(!shown.contains("sk-very-secret-123"), "{shown}");
        assert!(shown.contains("BRAVE_API_KEY"));
        assert_eq!(s.secret("BRAVE_API_KEY"), Some("sk-very-secret-123"));
    }

    #[test]
    fn bad_values_are_refused() {
        let env = MapEnv([("TRAWL_TIMEOUT", "soon")].into());
        let err = Settings::resolve(None, FileConfig::default(), &env, &NetArgs::default(), None)
            .unwrap_err();
        assert!(err.message.contains("TRAWL_TIMEOUT"));
        let net = NetArgs {
            allow_hosts: vec!["not a host!".into()],
            ..NetArgs::default()
        };
        assert!(
            Settings::resolve(
                None,
                FileConfig::default(),
                &MapEnv(BTreeMap::new()),
                &net,
                None
            )
            .is_err()
        );
        let net = NetArgs {
            proxy: Some("ftp://x".into()),
            ..NetArgs::default()
        };
        assert!(
            Settings::resolve(
                None,
                FileConfig::default(),
                &MapEnv(BTreeMap::new()),
                &net,
                None
            )
            .is_err()
        );
    }
}
