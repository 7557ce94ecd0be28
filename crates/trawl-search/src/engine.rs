//! The `Engine` trait: an engine knows its endpoint and its parser, nothing else.
//! Sending, deadlines, retries, rate limits and keys belong to the router.

use serde::Serialize;
use url::Url;

use crate::types::{Filters, Route, SearchRequest};

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

impl RawItem {
    /// A result with its link, title and snippet; nothing else known yet.
    pub fn new(
        url: impl Into<String>,
        title: impl Into<String>,
        snippet: impl Into<String>,
    ) -> Self {
        Self {
            url: url.into(),
            title: title.into(),
            snippet: snippet.into(),
            ..Self::default()
        }
    }

    /// With its publication date, when the engine gave one.
    pub fn dated(mut self, published: Option<String>) -> Self {
        self.published = published;
        self
    }

    /// With engine-specific fields, when there are any.
    pub fn with_extra(mut self, extra: Option<serde_json::Value>) -> Self {
        self.extra = extra;
        self
    }
}

/// The link and title most JSON search APIs give each result; an engine flattens it into
/// its own item type beside the fields that differ.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Listing {
    /// The result's URL (`link`, as the Google resellers say).
    #[serde(alias = "link")]
    pub url: String,
    /// Its title; absent or null is empty.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub title: String,
}

/// A string field where `null` means empty.
pub(crate) fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    use serde::Deserialize;
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// A field the answer must have, or a `Malformed` error naming it.
pub(crate) fn required<T>(field: Option<T>, name: &str) -> Result<T, ParseError> {
    field.ok_or_else(|| ParseError::Malformed(format!("no `{name}`")))
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

    /// Read an API's error message by the words it uses for each kind of failure
    /// (case-insensitive), so every keyed engine types its envelopes alike.
    pub fn from_message(msg: String, words: &ErrorWords) -> Self {
        let lower = msg.to_lowercase();
        let has = |list: &[&str]| list.iter().any(|w| lower.contains(w));
        if has(words.rate) {
            Self::RateLimited(msg)
        } else if has(words.quota) {
            Self::Quota(msg)
        } else if has(words.auth) {
            Self::Auth(msg)
        } else {
            Self::Malformed(msg)
        }
    }
}

/// The words an API's error messages use for each kind of failure (lower case).
#[derive(Debug, Clone, Copy)]
pub struct ErrorWords {
    /// Slow down.
    pub rate: &'static [&'static str],
    /// Quota or credits used up.
    pub quota: &'static [&'static str],
    /// Key refused.
    pub auth: &'static [&'static str],
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

/// One filter an engine may honour, for [`Capabilities::of`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// `--site`.
    Site,
    /// `--freshness`.
    Freshness,
    /// `--language`.
    Language,
    /// `--region`.
    Region,
    /// `--safesearch`.
    SafeSearch,
    /// `--page`.
    Paging,
}

impl Capabilities {
    /// Every filter.
    pub const ALL: Self = Self::of(&[
        Filter::Site,
        Filter::Freshness,
        Filter::Language,
        Filter::Region,
        Filter::SafeSearch,
        Filter::Paging,
    ]);

    /// The capabilities naming exactly `filters` (usable in a `const` engine description).
    pub const fn of(filters: &[Filter]) -> Self {
        let mut c = Self {
            site: false,
            freshness: false,
            language: false,
            region: false,
            safesearch: false,
            paging: false,
        };
        let mut i = 0;
        while i < filters.len() {
            match filters[i] {
                Filter::Site => c.site = true,
                Filter::Freshness => c.freshness = true,
                Filter::Language => c.language = true,
                Filter::Region => c.region = true,
                Filter::SafeSearch => c.safesearch = true,
                Filter::Paging => c.paging = true,
            }
            i += 1;
        }
        c
    }

    /// The capabilities named by a space-separated list of `site`, `freshness`,
    /// `language`, `region`, `safesearch`, `paging` (or `all`). Written for `const` engine
    /// descriptions: an unknown name stops the build.
    pub const fn named(names: &str) -> Self {
        // In the order of the fields below.
        const NAMES: [&str; 6] = [
            "site",
            "freshness",
            "language",
            "region",
            "safesearch",
            "paging",
        ];
        let b = names.as_bytes();
        let mut on = [false; 6];
        let mut at = 0;
        loop {
            let (s, e) = next_word(b, at);
            if s == e {
                break;
            }
            let all = spells(b, s, e, "all");
            let mut found = all;
            let mut i = 0;
            while i < NAMES.len() {
                if all || spells(b, s, e, NAMES[i]) {
                    on[i] = true;
                    found = true;
                }
                i += 1;
            }
            if !found {
                panic!("unknown filter name in an engine description");
            }
            at = e;
        }
        Self {
            site: on[0],
            freshness: on[1],
            language: on[2],
            region: on[3],
            safesearch: on[4],
            paging: on[5],
        }
    }

    /// The filters as six letters, `-` where absent: s=site f=freshness l=language
    /// r=region x=safesearch p=paging (`trawl engines`, the README table).
    pub fn letters(&self) -> String {
        [
            (self.site, 's'),
            (self.freshness, 'f'),
            (self.language, 'l'),
            (self.region, 'r'),
            (self.safesearch, 'x'),
            (self.paging, 'p'),
        ]
        .iter()
        .map(|(on, ch)| if *on { *ch } else { '-' })
        .collect()
    }

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

/// The built-in routes an engine belongs to, as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Routes(u8);

impl Routes {
    /// The routes named by a space-separated list (`"web all fast"`). Written for `const`
    /// engine descriptions: an unknown name stops the build.
    pub const fn named(names: &str) -> Self {
        let b = names.as_bytes();
        let mut set = 0u8;
        let mut at = 0;
        loop {
            let (s, e) = next_word(b, at);
            if s == e {
                return Self(set);
            }
            let mut i = 0;
            let mut found = false;
            while i < Route::BUILT_IN.len() {
                if spells(b, s, e, Route::BUILT_IN[i].name()) {
                    set |= 1 << i;
                    found = true;
                }
                i += 1;
            }
            if !found {
                panic!("unknown route name in an engine description");
            }
            at = e;
        }
    }

    /// Whether `route` is in the set.
    pub fn contains(self, route: Route) -> bool {
        Route::BUILT_IN
            .iter()
            .position(|r| *r == route)
            .is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// The routes in the set, in [`Route::BUILT_IN`] order.
    pub fn iter(self) -> impl Iterator<Item = Route> {
        Route::BUILT_IN
            .into_iter()
            .filter(move |r| self.contains(*r))
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl Serialize for Routes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(Route::name))
    }
}

/// The next space-separated word of `b` at or after `at`, as `(start, end)`; `start ==
/// end` when there is none.
const fn next_word(b: &[u8], mut at: usize) -> (usize, usize) {
    while at < b.len() && b[at] == b' ' {
        at += 1;
    }
    let start = at;
    while at < b.len() && b[at] != b' ' {
        at += 1;
    }
    (start, at)
}

/// Whether `b[start..end]` is `word` (a `const` string comparison).
const fn spells(b: &[u8], start: usize, end: usize, word: &str) -> bool {
    let w = word.as_bytes();
    if end - start != w.len() {
        return false;
    }
    let mut i = 0;
    while i < w.len() {
        if b[start + i] != w[i] {
            return false;
        }
        i += 1;
    }
    true
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

/// One engine described as data: what `trawl engines`, routing, docs and `doctor` read.
/// Each engine module holds one `const SPEC` and the engine returns it from
/// [`Engine::spec`]; the behaviour (request builder, parser) stays code.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EngineSpec {
    /// Stable lower-case name (`duckduckgo`, `brave_api`, …).
    pub name: &'static str,
    /// Correlation group: engines sharing an upstream index share one (DDG and Yahoo are `bing`).
    pub group: &'static str,
    /// Whether it needs a key.
    pub key: KeyNeed,
    /// The environment variable holding its key(s) or credentials (comma-separated keys
    /// rotate); empty when it takes none.
    pub key_env: &'static str,
    /// Its default base URL (empty: the user must give one); `TRAWL_<NAME>_URL` overrides it.
    pub base: &'static str,
    /// Which filters it honours.
    pub filters: Capabilities,
    /// The routes it belongs to (keyed engines and URL-only engines join only when configured).
    pub routes: Routes,
    /// Whether it scrapes a page meant for browsers (it then gets a browser User-Agent and
    /// Accept headers; APIs get trawl's own descriptive User-Agent, as Wikimedia asks).
    pub browser_like: bool,
    /// How far its parser can be trusted and why; `doctor` and `trawl engines` print this.
    pub confidence: &'static str,
    /// Where the saved responses its parser tests run on come from (or why there are none).
    pub fixtures: &'static str,
    /// Its request builder.
    #[serde(skip)]
    pub request: RequestFn,
    /// Its parser: bytes in, items out.
    #[serde(skip)]
    pub parse: ParseFn,
}

/// An engine's request builder: the query phrasing, the request, where and with which key.
pub type RequestFn = fn(&str, &SearchRequest, &RequestContext<'_>) -> EngineRequest;

/// An engine's pure parser.
pub type ParseFn = fn(&[u8]) -> Result<Vec<RawItem>, ParseError>;

impl EngineSpec {
    /// A keyless engine in its own correlation group, with no filters, routes or fixtures
    /// yet: the start of a `const` description, filled in with struct update syntax.
    pub const fn new(
        name: &'static str,
        base: &'static str,
        request: RequestFn,
        parse: ParseFn,
    ) -> Self {
        Self {
            name,
            group: name,
            request,
            parse,
            key: KeyNeed::None,
            key_env: "",
            base,
            filters: Capabilities::of(&[]),
            routes: Routes(0),
            browser_like: false,
            confidence: "",
            fixtures: "",
        }
    }

    /// Whether it belongs to `route` by description.
    pub fn in_route(&self, route: Route) -> bool {
        self.routes.contains(route)
    }
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
    /// Its description: name, group, key, base URL, filters, routes, confidence, fixtures.
    fn spec(&self) -> &'static EngineSpec;
    /// Stable lower-case name (`duckduckgo`, `brave_api`, …).
    fn name(&self) -> &'static str {
        self.spec().name
    }
    /// Correlation group.
    fn group(&self) -> &'static str {
        self.spec().group
    }
    /// Which filters it honours.
    fn capabilities(&self) -> Capabilities {
        self.spec().filters
    }
    /// Whether it needs a key.
    fn key_need(&self) -> KeyNeed {
        self.spec().key
    }
    /// The environment variable holding its key(s), comma-separated.
    fn key_env(&self) -> Option<&'static str> {
        Some(self.spec().key_env).filter(|k| !k.is_empty())
    }
    /// Its default base URL; `TRAWL_<NAME>_URL` overrides it.
    fn default_base(&self) -> &'static str {
        self.spec().base
    }
    /// How far its parser can be trusted and why (fixture age); `doctor` prints this.
    fn confidence(&self) -> &'static str {
        self.spec().confidence
    }
    /// The request for one query. `query` is the phrasing (main or an `--expand` one).
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        (self.spec().request)(query, req, ctx)
    }
    /// Turn a 200 body into ranked items. Pure: bytes in, items out.
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        (self.spec().parse)(body)
    }
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
    /// Whether it scrapes a page meant for browsers.
    fn browser_like(&self) -> bool {
        self.spec().browser_like
    }
    /// A non-default reading of a status, before the generic one (DDG's 202 is rate limiting).
    fn classify_status(&self, _status: u16) -> Option<ParseError> {
        None
    }
    /// A second transport the router asks, in the same search, when this one refuses
    /// (blocked or rate limited): DuckDuckGo's lite endpoint. The default has none.
    fn fallback(&self) -> Option<std::sync::Arc<dyn Engine>> {
        None
    }
    /// Whether a refusal is remembered, so the fallback is asked first for now.
    fn fallback_first(&self) -> bool {
        false
    }
    /// This transport refused: remember it for a while (see [`Engine::fallback_first`]).
    fn refused(&self) {}
    /// Which transport answers now, when the engine has more than one (`trawl engines`
    /// and `doctor` show it).
    fn transport(&self) -> Option<&'static str> {
        None
    }
}

/// An engine that is only its description: request builder and parser from the table,
/// no state and no special readings of statuses or headers.
#[derive(Debug, Clone, Copy)]
pub struct Described(pub &'static EngineSpec);

impl Engine for Described {
    fn spec(&self) -> &'static EngineSpec {
        self.0
    }
}

/// `query` restricted to `--site` when one is asked, for engines that take `site:` in the
/// query itself.
pub fn with_site(query: &str, f: &Filters) -> String {
    match &f.site {
        Some(site) => format!("{query} site:{site}"),
        None => query.to_owned(),
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
