//! The `Engine` trait: an engine knows its endpoint and its parser, nothing else.
//! Sending, deadlines, retries, rate limits and keys belong to the router.

use serde::Serialize;
use url::Url;

use crate::types::{Filters, SearchRequest};

/// One result as an engine reported it, before fusion.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RawItem {
    /// Target URL, with the engine's redirect wrapper already removed.
    pub url: String,
    /// Title as plain text.
    pub title: String,
    /// Snippet as plain text.
    pub snippet: String,
    /// Publication or update date, as the engine gave it.
    pub published: Option<String>,
    /// For meta-engines (SearXNG): the upstream engines that returned this item and their
    /// ranks there, so fusion can vote per upstream correlation group.
    pub upstream: Vec<(String, u32)>,
    /// Typed engine-specific fields (stars, authors, …).
    pub extra: Option<serde_json::Value>,
}

/// Why a body could not be turned into results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A captcha, anomaly or "are you a robot" page.
    #[error("blocked: {0}")]
    Blocked(String),
    /// The engine said to slow down inside a 200 body.
    #[error("rate limited: {0}")]
    RateLimited(String),
    /// The key's quota or credits are used up (said inside the body).
    #[error("quota exhausted: {0}")]
    Quota(String),
    /// The key was refused (said inside the body).
    #[error("auth failed: {0}")]
    Auth(String),
    /// The body is not what this parser knows.
    #[error("{0}")]
    Malformed(String),
}

impl ParseError {
    /// A `Malformed` error from anything printable.
    pub fn malformed(e: impl std::fmt::Display) -> Self {
        Self::Malformed(e.to_string())
    }
}

/// Which filters an engine can honour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// `--site`.
    pub site: bool,
    /// `--freshness`.
    pub freshness: bool,
    /// `--language`.
    pub language: bool,
    /// `--region`.
    pub region: bool,
    /// `--safesearch`.
    pub safesearch: bool,
    /// `--page`.
    pub paging: bool,
}

impl Capabilities {
    /// The names of the requested filters this engine cannot honour.
    pub fn unsupported(&self, f: &Filters) -> Vec<&'static str> {
        let mut out = Vec::new();
        if f.site.is_some() && !self.site {
            out.push("site");
        }
        if f.freshness.is_some() && !self.freshness {
            out.push("freshness");
        }
        if f.language.is_some() && !self.language {
            out.push("language");
        }
        if f.region.is_some() && !self.region {
            out.push("region");
        }
        if f.safesearch.is_some() && !self.safesearch {
            out.push("safesearch");
        }
        if f.page() > 1 && !self.paging {
            out.push("page");
        }
        out
    }
}

/// Whether an engine needs an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyNeed {
    /// Keyless.
    None,
    /// Works without, better with (GitHub, StackExchange).
    Optional,
    /// Does not run without one.
    Required,
}

/// The HTTP method of an engine request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Method {
    /// GET.
    Get,
    /// POST.
    Post,
}

/// The body of an engine request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Body {
    /// `application/x-www-form-urlencoded`.
    Form(Vec<(String, String)>),
    /// `application/json`.
    Json(serde_json::Value),
}

/// An HTTP request an engine wants sent. Plain data, so it can be recorded and tested.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineRequest {
    /// GET or POST.
    pub method: Method,
    /// Full URL including the query string.
    pub url: Url,
    /// Extra headers (the router adds a User-Agent unless one is given).
    pub headers: Vec<(String, String)>,
    /// Request body, for POST.
    pub body: Option<Body>,
}

impl EngineRequest {
    /// A GET of `url`.
    pub fn get(url: Url) -> Self {
        Self {
            method: Method::Get,
            url,
            headers: Vec::new(),
            body: None,
        }
    }

    /// A POST of `body` to `url`.
    pub fn post(url: Url, body: Body) -> Self {
        Self {
            method: Method::Post,
            url,
            headers: Vec::new(),
            body: Some(body),
        }
    }

    /// Add a header.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }
}

/// What an engine gets to build its request: where to send it and which key to use.
#[derive(Debug, Clone)]
pub struct RequestContext<'a> {
    /// The base URL (the default endpoint or the `TRAWL_<ENGINE>_URL` override).
    pub base: &'a Url,
    /// The API key to use for this attempt, if any.
    pub key: Option<&'a str>,
}

/// A search engine or search API: its endpoint, its request, its parser.
pub trait Engine: Send + Sync + std::fmt::Debug {
    /// Stable lower-case name (`duckduckgo`, `brave_api`, …).
    fn name(&self) -> &'static str;
    /// Correlation group: engines sharing an upstream index share one (DDG and Yahoo are `bing`).
    fn group(&self) -> &'static str;
    /// Which filters it honours.
    fn capabilities(&self) -> Capabilities;
    /// Whether it needs a key.
    fn key_need(&self) -> KeyNeed {
        KeyNeed::None
    }
    /// The environment variable holding its key(s), comma-separated.
    fn key_env(&self) -> Option<&'static str> {
        None
    }
    /// Its default base URL; `TRAWL_<NAME>_URL` overrides it.
    fn default_base(&self) -> &'static str;
    /// How far its parser can be trusted and why (fixture age); `doctor` prints this.
    fn confidence(&self) -> &'static str;
    /// The request for one query. `query` is the phrasing (main or an `--expand` one).
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest;
    /// Turn a 200 body into ranked items. Pure: bytes in, items out.
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError>;
    /// `parse`, for engines whose items depend on the request (Wikipedia builds URLs for
    /// the asked language).
    fn parse_for(&self, body: &[u8], _req: &SearchRequest) -> Result<Vec<RawItem>, ParseError> {
        self.parse(body)
    }
    /// Keep what a successful page carries for the next request (DuckDuckGo's `vqd`
    /// paging token). Called after `parse` succeeded; the default keeps nothing.
    fn remember(&self, _query: &str, _req: &SearchRequest, _body: &[u8]) {}
    /// A note drawn from a successful body (SearXNG's unresponsive upstream engines).
    fn note_from_body(&self, _body: &[u8]) -> Option<String> {
        None
    }
    /// A note drawn from response headers (GitHub's rate-limit budget), for the outcome.
    fn note_from_headers(&self, _headers: &[(String, String)]) -> Option<String> {
        None
    }
    /// Whether it scrapes a page meant for browsers (it then gets a browser User-Agent and
    /// Accept headers; APIs get trawl's own descriptive User-Agent, as Wikimedia asks).
    fn browser_like(&self) -> bool {
        false
    }
    /// A non-default reading of a status, before the generic one (DDG's 202 is rate limiting).
    fn classify_status(&self, _status: u16) -> Option<ParseError> {
        None
    }
}

/// Join `base` and a relative path, keeping the base's own path (so an override such as
/// `http://127.0.0.1:9000/prefix` works).
pub fn endpoint(base: &Url, path: &str) -> Url {
    let mut u = base.clone();
    let joined = format!(
        "{}/{}",
        u.path().trim_end_matches('/'),
        path.trim_start_matches('/')
    );
    u.set_path(&joined);
    u
}

/// `endpoint` plus query pairs.
pub fn endpoint_with(base: &Url, path: &str, pairs: &[(&str, String)]) -> Url {
    let mut u = endpoint(base, path);
    if !pairs.is_empty() {
        let mut q = u.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
    }
    u
}

/// Parse a JSON body, mapping errors to `Malformed`.
pub fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ParseError> {
    serde_json::from_slice(body).map_err(|e| ParseError::Malformed(format!("invalid JSON: {e}")))
}
