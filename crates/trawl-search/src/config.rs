//! Search configuration: base URLs, keys, deadlines, spacings. Plain typed data: the
//! binary's settings build it (from flags, environment, config file); this crate reads no
//! environment.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

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
    /// Use Tavily's documented keyless mode when no key is set (`tavily_keyless`).
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

    /// Space `engine`'s calls at least `spacing` apart, replacing its built-in spacing
    /// (with a shared limiter, across every replica).
    pub fn set_min_interval(&mut self, engine: &str, spacing: Duration) -> &mut Self {
        self.engines
            .entry(engine.to_owned())
            .or_default()
            .min_interval = Some(spacing);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_settings_reach_the_lookups() {
        let mut cfg = SearchConfig::default();
        cfg.set_base("duckduckgo", Url::parse("http://127.0.0.1:9001").unwrap())
            .set_keys("brave_api", vec!["k1".into(), "k2".into()])
            .set_min_interval("arxiv", Duration::from_secs(1));
        assert_eq!(cfg.min_interval_for("arxiv"), Some(Duration::from_secs(1)));
        assert_eq!(cfg.min_interval_for("brave_api"), None);
        assert_eq!(cfg.keys_for("brave_api"), ["k1", "k2"]);
        let ddg = crate::engines::duckduckgo::DuckDuckGo::default();
        assert_eq!(
            cfg.base_for(&ddg).unwrap().as_str(),
            "http://127.0.0.1:9001/"
        );
        let sx = crate::engines::searxng::Searxng;
        assert!(SearchConfig::default().base_for(&sx).is_none());
        let dbg = format!("{cfg:?}");
        assert!(!dbg.contains("k1") && dbg.contains("2 key(s)"));
    }
}
