//! The fetcher's configuration, shared by every tier (plain, impersonate, render) and by the
//! escalation policy that chooses between them.

use std::time::Duration;

use trawl_core::TrawlError;
use url::Url;

use crate::guard::GuardPolicy;

/// A current desktop browser's User-Agent: many sites serve bots a different page.
pub const DEFAULT_USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 \
     (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

/// Default body cap: 10 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// How the fetcher behaves. `Default` gives trawl's embedded defaults.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// User-Agent sent with every request.
    pub user_agent: String,
    /// Deadline for opening one connection.
    pub connect_timeout: Duration,
    /// Deadline for the whole fetch, redirects and body included.
    pub timeout: Duration,
    /// Body cap in bytes; 0 means no cap.
    pub max_bytes: u64,
    /// Redirects followed before giving up (each hop is checked by the guard).
    pub max_redirects: usize,
    /// Egress proxy: http, https, socks5 or socks5h URL.
    pub proxy: Option<String>,
    /// What the guard lets through.
    pub policy: GuardPolicy,
    /// Which certificate authorities HTTPS requests trust.
    pub tls_roots: crate::TlsRoots,
    /// Tier 2: when and how pages are rendered in a headless browser.
    pub render: RenderConfig,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_bytes: DEFAULT_MAX_BYTES,
            max_redirects: 10,
            proxy: None,
            policy: GuardPolicy::default(),
            tls_roots: crate::TlsRoots::default(),
            render: RenderConfig::default(),
        }
    }
}

/// Normalize and validate a proxy URL. `socks5://` becomes `socks5h://` so that names are
/// resolved by the proxy, never locally (no DNS leak).
pub fn normalize_proxy(raw: &str) -> Result<Url, TrawlError> {
    let mut url = Url::parse(raw.trim())
        .map_err(|e| TrawlError::invalid_input(format!("invalid proxy URL: {e}")))?;
    match url.scheme() {
        "http" | "https" | "socks5h" => {}
        "socks5" => {
            let rest = &url.as_str()["socks5".len()..];
            url = Url::parse(&format!("socks5h{rest}"))
                .map_err(|e| TrawlError::invalid_input(format!("invalid proxy URL: {e}")))?;
        }
        other => {
            return Err(TrawlError::invalid_input(format!(
                "unsupported proxy scheme {other:?}: use http, https, socks5 or socks5h"
            )));
        }
    }
    if url.host_str().is_none() {
        return Err(TrawlError::invalid_input("proxy URL has no host"));
    }
    Ok(url)
}

/// When a page is rendered in the browser (tier 2). The library defaults to `Never` (an
/// embedding program opts in to child processes); the `trawl` CLI defaults to `Auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenderMode {
    /// Only pages that look like an app shell or are too thin to be the page.
    Auto,
    /// Never: no browser is ever started.
    #[default]
    Never,
    /// Every HTML page.
    Always,
}

impl RenderMode {
    /// Parse `auto`, `never` or `always` (any case).
    pub fn parse(raw: &str) -> Result<Self, TrawlError> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(RenderMode::Auto),
            "never" => Ok(RenderMode::Never),
            "always" => Ok(RenderMode::Always),
            other => Err(TrawlError::invalid_input(format!(
                "render: {other:?} is not one of auto, never, always"
            ))),
        }
    }

    /// The mode's name as settings spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            RenderMode::Auto => "auto",
            RenderMode::Never => "never",
            RenderMode::Always => "always",
        }
    }
}

/// The browser tier's limits. The browser itself is started on first use only.
#[derive(Debug, Clone)]
pub struct RenderConfig {
    /// When pages are rendered.
    pub mode: RenderMode,
    /// The browser binary; `None` looks for Debian's `chromium` on the PATH.
    pub browser: Option<std::path::PathBuf>,
    /// Pages rendered at the same time (each in its own throwaway browser context).
    pub tabs: usize,
    /// Deadline for one page: load, scripts and DOM read.
    pub page_timeout: Duration,
    /// Restart the browser when its processes together use more than this (RSS, bytes).
    pub memory_cap: u64,
    /// Load images, media and fonts (off by default: text does not need them).
    pub load_media: bool,
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig {
            mode: RenderMode::Never,
            browser: None,
            tabs: 4,
            page_timeout: Duration::from_secs(20),
            memory_cap: 1024 * 1024 * 1024,
            load_media: false,
        }
    }
}
