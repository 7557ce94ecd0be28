//! Search configuration: base URLs, keys, deadlines. Plain data; built from the
//! environment by [`SearchConfig::from_env`] or by hand in tests.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use trawl_core::vars;
use url::Url;

use crate::engine::Engine;

/// Per-engine settings.
#[derive(Clone, Default)]
pub struct EngineSettings {
    /// Overrides the engine's default base URL (`TRAWL_<ENGINE>_URL`).
    pub base: Option<Url>,
    /// API keys, tried in order (comma-separated in the environment).
    pub keys: Vec<String>,
    /// Minimum time between two calls' starts, replacing the built-in politeness spacing
    /// (`TRAWL_<ENGINE>_MIN_INTERVAL_MS`). With a shared store it holds across replicas.
    pub min_interval: Option<Duration>,
}

impl std::fmt::Debug for EngineSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys never appear in logs: only how many there are.
        f.debug_struct("EngineSettings")
            .field("base", &self.base.as_ref().map(Url::as_str))
            .field("keys", &format_args!("{} key(s)", self.keys.len()))
            .field("min_interval", &self.min_interval)
            .finish()
    }
}

/// Everything the router needs besides the HTTP client.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    /// Per-engine deadline (default 8 s; zero means none).
    pub timeout: Duration,
    /// Sent to API engines.
    pub user_agent: String,
    /// Sent to engines that scrape browser pages; one per process, because DuckDuckGo
    /// ties its `vqd` token to the User-Agent.
    pub browser_user_agent: String,
    /// Settings by engine name.
    pub engines: BTreeMap<String, EngineSettings>,
    /// Largest body read from an engine; the rest is not downloaded (default 5 MiB; zero
    /// means no cap).
    pub body_cap: usize,
    /// Whether per-engine rate limits apply (tests turn them off).
    pub rate_limits: bool,
    /// Pause before the single retry on a 5xx or transport error.
    pub retry_backoff: Duration,
    /// Use Tavily's documented keyless mode when no key is set (`TRAWL_TAVILY_KEYLESS=1`).
    pub tavily_keyless: bool,
    /// Save every engine's raw response here (`--record DIR`).
    pub record_dir: Option<PathBuf>,
    /// Answer from saved responses instead of the network (`--replay DIR`).
    pub replay_dir: Option<PathBuf>,
    /// Engines never asked, whatever the route or explicit list (`disabled_engines`).
    pub disabled: Vec<String>,
    /// Routes defined in the configuration, by name (they may redefine a built-in one).
    pub routes: BTreeMap<String, Vec<String>>,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(8),
            user_agent: concat!(
                "trawl/",
                env!("CARGO_PKG_VERSION"),
                " (+https://github.com/trawl-dev/trawl)"
            )
            .to_owned(),
            browser_user_agent:
                "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0".to_owned(),
            engines: BTreeMap::new(),
            body_cap: 5 * 1024 * 1024,
            rate_limits: true,
            retry_backoff: Duration::from_millis(300),
            tavily_keyless: false,
            record_dir: None,
            replay_dir: None,
            disabled: Vec::new(),
            routes: BTreeMap::new(),
        }
    }
}

impl SearchConfig {
    /// Read `TRAWL_<ENGINE>_URL`, the key variables (`BRAVE_API_KEY`, …),
    /// `TRAWL_SEARXNG_URL`, `TRAWL_SEARCH_TIMEOUT_MS`, `TRAWL_USER_AGENT`,
    /// `TRAWL_TAVILY_KEYLESS` from the process environment.
    pub fn from_env() -> Self {
        Self::from_vars(std::env::vars())
    }

    /// Like [`from_env`](Self::from_env) over any set of variables (for tests).
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Self {
        let vars: BTreeMap<String, String> = vars.into_iter().collect();
        let mut cfg = Self::default();
        if let Some(ms) = vars
            .get(vars::SEARCH_TIMEOUT_MS)
            .and_then(|v| v.parse::<u64>().ok())
        {
            cfg.timeout = Duration::from_millis(ms);
        }
        if let Some(ua) = vars.get(vars::USER_AGENT).filter(|v| !v.is_empty()) {
            cfg.user_agent = ua.clone();
        }
        cfg.tavily_keyless = vars
            .get(vars::TAVILY_KEYLESS)
            .is_some_and(|v| matches!(v.as_str(), "1" | "true" | "yes"));
        if let Some(v) = vars.get(vars::DISABLED_ENGINES) {
            cfg.disabled = split_keys(&v.to_ascii_lowercase());
        }
        for engine in crate::engines::all() {
            let name = engine.name();
            let mut s = EngineSettings::default();
            let var = vars::engine_url(name);
            if let Some(u) = vars.get(&var).and_then(|v| Url::parse(v.trim()).ok()) {
                s.base = Some(u);
            }
            if let Some(kv) = engine.key_env().and_then(|k| vars.get(k)) {
                s.keys = split_keys(kv);
                // X's keys are sessions, read from the cookies files the variable names.
                if name == "x" {
                    s.keys = s
                        .keys
                        .iter()
                        .filter_map(|path| std::fs::read_to_string(path).ok())
                        .filter_map(|text| crate::engines::x::cookie_key(&text))
                        .collect();
                }
            }
            let var = trawl_core::vars::engine_min_interval(name);
            if let Some(ms) = vars.get(&var).and_then(|v| v.trim().parse::<u64>().ok()) {
                s.min_interval = Some(Duration::from_millis(ms));
            }
            if s.base.is_some() || !s.keys.is_empty() || s.min_interval.is_some() {
                cfg.engines.insert(name.to_owned(), s);
            }
        }
        cfg
    }

    /// Point `engine` at `base` (tests, `--replay`, self-hosted instances).
    pub fn set_base(&mut self, engine: &str, base: Url) -> &mut Self {
        self.engines.entry(engine.to_owned()).or_default().base = Some(base);
        self
    }

    /// Give `engine` these keys.
    pub fn set_keys(&mut self, engine: &str, keys: Vec<String>) -> &mut Self {
        self.engines.entry(engine.to_owned()).or_default().keys = keys;
        self
    }

    /// The base URL to use for `engine`: the override, else its default (SearXNG has none).
    pub fn base_for(&self, engine: &dyn Engine) -> Option<Url> {
        self.engines
            .get(engine.name())
            .and_then(|s| s.base.clone())
            .or_else(|| Url::parse(engine.default_base()).ok())
    }

    /// The configured minimum spacing of `engine`'s calls, if any.
    pub fn min_interval_for(&self, engine: &str) -> Option<Duration> {
        self.engines.get(engine).and_then(|s| s.min_interval)
    }

    /// The keys configured for `engine`.
    pub fn keys_for(&self, engine: &str) -> &[String] {
        self.engines
            .get(engine)
            .map(|s| s.keys.as_slice())
            .unwrap_or(&[])
    }
}

/// An HTTP client for engine traffic, built the way trawl-fetch builds its own: no
/// system proxy, and when `proxy` (http, https, socks5, socks5h) is given it is the only
/// way out. Engine hosts are fixed or configured, so no SSRF guard applies here.
pub fn http_client(
    proxy: Option<&str>,
    connect_timeout: Duration,
) -> Result<reqwest::Client, reqwest::Error> {
    let mut b = reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .redirect(reqwest::redirect::Policy::limited(5))
        .no_proxy();
    if let Some(p) = proxy.filter(|p| !p.trim().is_empty()) {
        b = b.proxy(reqwest::Proxy::all(p.trim())?);
    }
    b.build()
}

/// Split a comma-separated key list, dropping blanks.
fn split_keys(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_vars_reads_bases_and_keys() {
        let cfg = SearchConfig::from_vars([
            (
                "TRAWL_DUCKDUCKGO_URL".into(),
                "http://127.0.0.1:9001".into(),
            ),
            ("TRAWL_SEARXNG_URL".into(), "http://sx.local:8888/".into()),
            ("BRAVE_API_KEY".into(), " k1, ,k2 ".into()),
            ("TRAWL_SEARCH_TIMEOUT_MS".into(), "1500".into()),
            ("TRAWL_ARXIV_MIN_INTERVAL_MS".into(), "1000".into()),
        ]);
        assert_eq!(cfg.min_interval_for("arxiv"), Some(Duration::from_secs(1)));
        assert_eq!(cfg.min_interval_for("brave_api"), None);
        assert_eq!(cfg.timeout, Duration::from_millis(1500));
        assert_eq!(cfg.keys_for("brave_api"), ["k1", "k2"]);
        let ddg = crate::engines::duckduckgo::DuckDuckGo::default();
        assert_eq!(
            cfg.base_for(&ddg).unwrap().as_str(),
            "http://127.0.0.1:9001/"
        );
        let sx = crate::engines::searxng::Searxng;
        assert!(cfg.base_for(&sx).is_some());
        assert!(SearchConfig::default().base_for(&sx).is_none());
        let dbg = format!("{cfg:?}");
        assert!(!dbg.contains("k1") && dbg.contains("2 key(s)"));
    }
}
