//! How a reader reaches its API: the base URL (the default, or an override the user set
//! in the real environment), the GitHub token, the thread bounds, and GETs through the
//! guarded fetcher.

use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use trawl_core::{ErrorCode, TrawlError};
use trawl_fetch::Fetcher;
use url::Url;

use crate::spec::SiteSpec;
use crate::thread::Bounds;

/// What the site readers are configured with.
#[derive(Clone, Default)]
pub struct SiteConfig {
    /// Base-URL overrides by reader name (`TRAWL_SITE_<NAME>_URL`: tests, mirrors). The
    /// settings take them from the real environment only, never from a `.env`.
    pub bases: BTreeMap<String, Url>,
    /// GitHub's token (`GITHUB_TOKEN`, else `gh auth token`); sent only to GitHub's API
    /// host or a loopback stand-in for it (see [`crate::github::may_send_token_to`]).
    pub github_token: Option<String>,
    /// How much of a comment thread is read.
    pub bounds: Bounds,
    /// X's logged-in session (`auth_token=…; ct0=…` from `TRAWL_X_COOKIES_FILE`); sent
    /// only to the X reader's base. Without it the X reader is skipped.
    pub x_session: Option<String>,
    /// The user's cookie files (`--cookies`, `[cookies]`), sent by the generic tiers only
    /// to the hosts each cookie's domain (and its file's site) matches.
    pub cookies: Vec<crate::CookieJar>,
}

impl std::fmt::Debug for SiteConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bases: Vec<(&str, &str)> = self
            .bases
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        f.debug_struct("SiteConfig")
            .field("bases", &bases)
            .field("github_token", &self.github_token.as_ref().map(|_| "****"))
            .field("bounds", &self.bounds)
            .field("x_session", &self.x_session.as_ref().map(|_| "****"))
            .field("cookies", &self.cookies)
            .finish()
    }
}

/// One read's view of the site readers: the fetcher, the configuration, and whether
/// comments were asked for (`--comments`).
#[derive(Debug, Clone, Copy)]
pub struct SiteClient<'a> {
    /// Every request goes through its guard.
    pub fetcher: &'a Fetcher,
    /// Bases, token, bounds.
    pub config: &'a SiteConfig,
    /// Whether optional comments (Stack Exchange's) are read too.
    pub comments: bool,
}

impl SiteClient<'_> {
    /// The base URL for `spec` (override or default), with a trailing slash so paths join
    /// under it.
    pub fn base(&self, spec: &SiteSpec) -> Url {
        let mut base = self
            .config
            .bases
            .get(spec.name)
            .cloned()
            .unwrap_or_else(|| Url::parse(spec.base).expect("a reader's default base is a URL"));
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        base
    }

    /// Whether `spec`'s base was moved (a test server, a mirror).
    pub fn overridden(&self, spec: &SiteSpec) -> bool {
        self.config.bases.contains_key(spec.name)
    }

    /// GET `url` with `headers`, as bytes.
    pub async fn get(
        &self,
        url: &Url,
        headers: &[(&'static str, String)],
    ) -> Result<Vec<u8>, TrawlError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let value = HeaderValue::from_str(value).map_err(|_| {
                TrawlError::internal(format!("header {name} has a value that cannot be sent"))
            })?;
            map.insert(HeaderName::from_static(name), value);
        }
        let page = self.fetcher.fetch_api(url, map).await?;
        Ok(page.body.to_vec())
    }

    /// GET `url` with `headers` and parse the answer as JSON.
    pub async fn get_json(
        &self,
        url: &Url,
        headers: &[(&'static str, String)],
    ) -> Result<serde_json::Value, TrawlError> {
        let body = self.get(url, headers).await?;
        // A login or consent page instead of the API's answer: a wall, not a format change.
        if let Some(wall) = crate::walls::login_wall(url, &body)
            && serde_json::from_slice::<serde_json::Value>(&body).is_err()
        {
            return Err(TrawlError::new(
                ErrorCode::Blocked,
                format!(
                    "blocked: login wall ({wall}) at {} instead of the API's answer",
                    trawl_core::redact_url(url.as_str())
                ),
            ));
        }
        let value = parse_json(&body, url)?;
        // Stack Exchange's `backoff`: seconds before the same method may be asked again.
        if let (Some(secs), Some(host)) = (
            value.get("backoff").and_then(serde_json::Value::as_u64),
            url.host_str(),
        ) {
            let wait = std::time::Duration::from_secs(secs);
            self.fetcher
                .backoff()
                .note(host, wait, std::time::SystemTime::now())
                .await;
        }
        Ok(value)
    }
}

/// `body` as JSON, or an `upstream` error naming the URL.
pub(crate) fn parse_json(body: &[u8], url: &Url) -> Result<serde_json::Value, TrawlError> {
    serde_json::from_slice(body).map_err(|e| {
        TrawlError::new(
            ErrorCode::Upstream,
            format!(
                "{} answered something that is not JSON ({e})",
                trawl_core::redact_url(url.as_str())
            ),
        )
    })
}

/// `base` joined with `path` (no leading slash), the path's characters kept as given.
pub(crate) fn endpoint(base: &Url, path: &str) -> Result<Url, TrawlError> {
    base.join(path.trim_start_matches('/'))
        .map_err(|e| TrawlError::internal(format!("cannot build an API URL from {path:?}: {e}")))
}
