//! The Fetcher: tier 0 plain HTTP with the guard on every hop, redirects followed by hand,
//! a streamed body cap, and anti-bot detection.

use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Client, StatusCode, redirect};
use trawl_core::{Attempt, ErrorCode, FetchedVia, TrawlError};
use url::Url;

use crate::block::{self, Block};
use crate::guard::{Guard, GuardPolicy, Lookup, SystemLookup};
use crate::resolver::{GuardRefusal, GuardedResolver};

/// A current desktop browser's User-Agent: many sites serve bots a different page.
pub const DEFAULT_USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 \
     (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

/// Default body cap: 10 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// How the fetcher behaves. `Default` gives trawl's embedded defaults.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    pub user_agent: String,
    pub connect_timeout: Duration,
    /// Deadline for the whole fetch, redirects and body included.
    pub timeout: Duration,
    /// Body cap in bytes; 0 means no cap.
    pub max_bytes: u64,
    pub max_redirects: usize,
    /// Egress proxy: http, https, socks5 or socks5h URL.
    pub proxy: Option<String>,
    pub policy: GuardPolicy,
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
        }
    }
}

/// Validators for a conditional request.
#[derive(Debug, Clone, Default)]
pub struct Conditional {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// A successful fetch.
#[derive(Debug, Clone)]
pub struct FetchedPage {
    pub requested_url: Url,
    pub final_url: Url,
    pub status: u16,
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Empty for a 304 Not Modified.
    pub body: Bytes,
    pub via: FetchedVia,
    /// Every URL that answered with a redirect, in order.
    pub redirects: Vec<Url>,
    pub attempts: Vec<Attempt>,
}

impl FetchedPage {
    pub fn not_modified(&self) -> bool {
        self.status == 304
    }
}

/// The safe fetcher.
#[derive(Clone)]
pub struct Fetcher {
    client: Client,
    guard: Guard,
    config: Arc<FetchConfig>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("guard", &self.guard)
            .finish_non_exhaustive()
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

impl Fetcher {
    pub fn new(config: FetchConfig) -> Result<Self, TrawlError> {
        Self::with_lookup(config, Arc::new(SystemLookup))
    }

    /// A fetcher whose name lookups go through `lookup` (tests map names to addresses).
    pub fn with_lookup(config: FetchConfig, lookup: Arc<dyn Lookup>) -> Result<Self, TrawlError> {
        let guard = Guard::with_lookup(config.policy.clone(), lookup);
        let proxy = config.proxy.as_deref().map(normalize_proxy).transpose()?;
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static(
                "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.8,text/plain;q=0.7,*/*;q=0.5",
            ),
        );
        headers.insert(
            header::ACCEPT_LANGUAGE,
            HeaderValue::from_static("en-US,en;q=0.9"),
        );
        let mut builder = Client::builder()
            .user_agent(config.user_agent.clone())
            .default_headers(headers)
            .redirect(redirect::Policy::none())
            .connect_timeout(config.connect_timeout)
            .dns_resolver(Arc::new(GuardedResolver {
                guard: guard.clone(),
                proxy_host: proxy.as_ref().and_then(|p| p.host_str().map(str::to_owned)),
            }));
        // No system proxy: a proxy is used only when configured, and then it is the only
        // way out (a dead proxy fails closed; there is no direct fallback).
        builder = builder.no_proxy();
        if let Some(proxy) = &proxy {
            let p = reqwest::Proxy::all(proxy.as_str())
                .map_err(|e| TrawlError::invalid_input(format!("invalid proxy: {e}")))?;
            builder = builder.proxy(p);
        }
        let client = builder
            .build()
            .map_err(|e| TrawlError::internal(format!("could not build HTTP client: {e}")))?;
        Ok(Fetcher {
            client,
            guard,
            config: Arc::new(config),
        })
    }

    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// Fetch `raw_url` (as typed), within the configured total deadline.
    pub async fn fetch(&self, raw_url: &str) -> Result<FetchedPage, TrawlError> {
        self.fetch_conditional(raw_url, &Conditional::default())
            .await
    }

    /// Fetch with validators: a 304 answer comes back as a page with status 304.
    pub async fn fetch_conditional(
        &self,
        raw_url: &str,
        conditional: &Conditional,
    ) -> Result<FetchedPage, TrawlError> {
        let deadline = self.config.timeout;
        match tokio::time::timeout(deadline, self.fetch_inner(raw_url, conditional)).await {
            Ok(result) => result,
            Err(_) => Err(TrawlError::new(
                ErrorCode::Timeout,
                format!("fetch of {raw_url} exceeded {} ms", deadline.as_millis()),
            )),
        }
    }

    async fn fetch_inner(
        &self,
        raw_url: &str,
        conditional: &Conditional,
    ) -> Result<FetchedPage, TrawlError> {
        let requested = self.guard.check_raw(raw_url, None)?;
        let mut current = requested.clone();
        let mut redirects = Vec::new();
        loop {
            let mut request = self.client.get(current.clone());
            if let Some(etag) = &conditional.etag {
                request = request.header(header::IF_NONE_MATCH, etag);
            }
            if let Some(lm) = &conditional.last_modified {
                request = request.header(header::IF_MODIFIED_SINCE, lm);
            }
            let response = request.send().await.map_err(|e| transport_error(&e))?;
            let status = response.status();
            if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
                let location = response
                    .headers()
                    .get(header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| {
                        TrawlError::new(
                            ErrorCode::HttpError,
                            format!("HTTP {} without a Location header", status.as_u16()),
                        )
                    })?
                    .to_owned();
                if redirects.len() >= self.config.max_redirects {
                    return Err(TrawlError::new(
                        ErrorCode::HttpError,
                        format!(
                            "more than {} redirects (last: {current})",
                            self.config.max_redirects
                        ),
                    ));
                }
                // The same checks as the first hop, on the Location as written.
                let next = self
                    .guard
                    .check_raw(&location, Some(&current))
                    .map_err(|e| {
                        TrawlError::new(e.code, format!("redirect from {current}: {}", e.message))
                    })?;
                redirects.push(current);
                current = next;
                continue;
            }
            return self.finish(requested, current, redirects, response).await;
        }
    }

    async fn finish(
        &self,
        requested: Url,
        final_url: Url,
        redirects: Vec<Url>,
        mut response: reqwest::Response,
    ) -> Result<FetchedPage, TrawlError> {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text_header = |name: header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let cap = self.config.max_bytes;
        if cap > 0
            && let Some(len) = response.content_length()
            && len > cap
        {
            return Err(too_large(cap, &final_url));
        }
        let mut body = BytesMut::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| transport_error(&e))? {
            if cap > 0 && (body.len() + chunk.len()) as u64 > cap {
                // Stop reading: dropping the response closes the connection.
                return Err(too_large(cap, &final_url));
            }
            body.extend_from_slice(&chunk);
        }
        let body = body.freeze();
        let block = block::detect(status, &headers, &body);
        if let Some(err) = status_error(status, &headers, block, &final_url) {
            return Err(err);
        }
        Ok(FetchedPage {
            requested_url: requested,
            final_url,
            status,
            content_type: text_header(header::CONTENT_TYPE),
            etag: text_header(header::ETAG),
            last_modified: text_header(header::LAST_MODIFIED),
            body,
            via: FetchedVia::Http,
            redirects,
            attempts: vec![Attempt {
                reader: "http".to_owned(),
                outcome: "ok".to_owned(),
                detail: None,
            }],
        })
    }
}

fn too_large(cap: u64, url: &Url) -> TrawlError {
    TrawlError::new(
        ErrorCode::TooLarge,
        format!("body of {url} exceeds the {cap}-byte cap (raise it with --max-bytes; 0 = no cap)"),
    )
}

/// Turn a non-success status (or a detected block) into an error; `None` means success.
fn status_error(
    status: u16,
    headers: &HeaderMap,
    block: Option<Block>,
    url: &Url,
) -> Option<TrawlError> {
    if let Some(block) = block {
        let kind = if block.challenge {
            "an anti-bot challenge"
        } else {
            "an anti-bot block"
        };
        return Some(TrawlError::new(
            ErrorCode::Blocked,
            format!(
                "{url} answered HTTP {status} with {kind} from {}",
                block.vendor.name()
            ),
        ));
    }
    let err = match status {
        200..=299 | 304 => return None,
        404 | 410 => TrawlError::new(ErrorCode::NotFound, format!("HTTP {status} for {url}")),
        429 => {
            let retry_after = headers
                .get(header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .map(|v| format!(" (Retry-After: {v})"))
                .unwrap_or_default();
            TrawlError::new(
                ErrorCode::RateLimited,
                format!("HTTP 429 Too Many Requests from {url}{retry_after}"),
            )
        }
        500..=599 => TrawlError::new(ErrorCode::HttpError, format!("HTTP {status} from {url}"))
            .with_retryable(true),
        _ => TrawlError::new(ErrorCode::HttpError, format!("HTTP {status} from {url}")),
    };
    Some(err)
}

/// Map a reqwest error, recovering a guard refusal raised inside the connector.
fn transport_error(e: &reqwest::Error) -> TrawlError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(refusal) = err.downcast_ref::<GuardRefusal>() {
            return refusal.0.clone();
        }
        source = err.source();
    }
    if e.is_timeout() {
        return TrawlError::new(ErrorCode::Timeout, format!("timed out: {}", error_chain(e)));
    }
    if e.is_connect() {
        return TrawlError::new(
            ErrorCode::Upstream,
            format!("could not connect: {}", error_chain(e)),
        );
    }
    TrawlError::new(ErrorCode::Upstream, error_chain(e))
}

/// The whole cause chain, since reqwest's top-level messages are terse.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let msg = s.to_string();
        if !out.contains(&msg) {
            out.push_str(": ");
            out.push_str(&msg);
        }
        source = s.source();
    }
    out
}
