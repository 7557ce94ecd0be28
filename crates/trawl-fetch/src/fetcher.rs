//! The Fetcher: tier 0 plain HTTP with the guard on every hop, redirects followed by hand,
//! a streamed body cap, and anti-bot detection.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use reqwest::header::{self, HeaderMap, HeaderValue};
use trawl_core::{Attempt, ErrorCode, TrawlError};
use url::Url;

use crate::backoff::{HostBackoff, requested_wait};
use crate::block::{self, Block};
use crate::config::{FetchConfig, RenderMode, normalize_proxy};
use crate::escalate;
use crate::guard::{Guard, Lookup, SystemLookup};
use crate::page::{Conditional, FetchedPage};
use crate::plain::PlainTransport;
use crate::transport::{Answer, Transport};

/// A page read in the browser after a [`BrowseTask`](crate::browse::BrowseTask), with its
/// screenshots and scrapes.
#[derive(Debug)]
pub struct Browsed {
    /// The page as it stood after the last action.
    pub page: FetchedPage,
    /// Screenshots, scrapes and the actions done.
    pub extras: crate::browse::BrowseExtras,
}

/// The safe fetcher.
#[derive(Clone)]
pub struct Fetcher {
    tier0: Arc<dyn Transport>,
    /// Browser TLS impersonation, tried only after a detected anti-bot challenge.
    tier1: Option<Arc<dyn Transport>>,
    /// The headless browser, tried when tier 0/1 brought back an app shell. Its browser
    /// process starts on first use.
    #[cfg(feature = "render")]
    tier2: Option<Arc<crate::render::RenderTransport>>,
    guard: Guard,
    config: Arc<FetchConfig>,
    /// Checked on every redirect hop after the guard (a crawl keeps to its site).
    redirect_scope: Option<RedirectScope>,
    /// An error status with a body (404, 403, 500 …) is a page, not a failure (the
    /// compatible API answers such pages as documents with their status).
    error_pages: bool,
    /// Where an error status's page is kept when it is refused (see
    /// [`Fetcher::keeping_error_pages`]).
    kept_error_page: Option<KeptErrorPage>,
    /// The user's cookies, asked for on every hop trawl follows itself.
    cookies: Option<CookieSource>,
    /// Hosts that asked to be left alone for a while; shared by every clone.
    backoff: HostBackoff,
    /// Tells a sign-in page apart, so a 401 or 403 answering with one is a login wall.
    login_wall: Option<LoginWallCheck>,
    /// The user's proxy, normalized: every request trawl sends goes through it.
    proxy: Option<Url>,
    /// Sent instead of the configured User-Agent (a crawl names itself).
    user_agent: Option<HeaderValue>,
}

/// Decides whether a redirect from the first URL to the second may be followed; an `Err`
/// ends the fetch with that error before anything is sent to the new location.
pub type RedirectScope = Arc<dyn Fn(&Url, &Url) -> Result<(), TrawlError> + Send + Sync>;

/// The `Cookie` header value for one hop's URL, or `None` for none: asked again on every
/// redirect hop, so a cookie for one host never follows a redirect to another.
pub type CookieSource = Arc<dyn Fn(&Url) -> Option<String> + Send + Sync>;

/// The wall's name when `body` (fetched from the URL) is a sign-in or consent page. It
/// lives with the site readers (`trawl_sites::login_wall`), above this crate.
pub type LoginWallCheck = fn(&Url, &[u8]) -> Option<&'static str>;

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("guard", &self.guard)
            .field("tier1", &self.tier1.is_some())
            .field("render", &self.config.render.mode)
            .finish_non_exhaustive()
    }
}

/// Which client a fetch starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tier {
    /// Tier 0: the plain HTTP client.
    #[default]
    Plain,
    /// Tier 1: browser TLS impersonation (falls back to tier 0 when not compiled in).
    Impersonate,
    /// Tier 2: a headless browser (a site remembered to need it; falls back to tier 0 when
    /// rendering is off, not compiled in, or fails).
    Render,
}

/// Whether browser TLS impersonation (tier 1) is compiled into this build.
pub const IMPERSONATION_AVAILABLE: bool = cfg!(feature = "impersonate");

/// Whether rendering in a headless browser (tier 2) is compiled into this build.
pub const RENDER_AVAILABLE: bool = cfg!(feature = "render");

impl Fetcher {
    /// A fetcher with the system resolver. Fails on a bad proxy URL or client set-up.
    pub fn new(config: FetchConfig) -> Result<Self, TrawlError> {
        Self::with_lookup(config, Arc::new(SystemLookup))
    }

    /// A fetcher whose name lookups go through `lookup` (tests map names to addresses).
    pub fn with_lookup(config: FetchConfig, lookup: Arc<dyn Lookup>) -> Result<Self, TrawlError> {
        let guard = Guard::with_lookup(config.policy.clone(), lookup);
        let proxy = config.proxy.as_deref().map(normalize_proxy).transpose()?;
        let tier0: Arc<dyn Transport> =
            Arc::new(PlainTransport::new(&config, &guard, proxy.as_ref())?);
        #[cfg(feature = "impersonate")]
        let tier1: Option<Arc<dyn Transport>> = Some(Arc::new(
            crate::impersonate::ImpersonatingTransport::new(&config, &guard, proxy.as_ref())?,
        ));
        #[cfg(not(feature = "impersonate"))]
        let tier1: Option<Arc<dyn Transport>> = None;
        #[cfg(feature = "render")]
        let tier2 = (config.render.mode != RenderMode::Never).then(|| {
            Arc::new(crate::render::RenderTransport::new(
                &config,
                &guard,
                proxy.clone(),
            ))
        });
        Ok(Fetcher {
            tier0,
            tier1,
            #[cfg(feature = "render")]
            tier2,
            guard,
            config: Arc::new(config),
            redirect_scope: None,
            error_pages: false,
            kept_error_page: None,
            cookies: None,
            backoff: HostBackoff::default(),
            login_wall: None,
            proxy,
            user_agent: None,
        })
    }

    /// A connection that failed through the proxy is the proxy's failure: every request
    /// goes to it first, so it is named (by host and port only: its URL may hold
    /// credentials), not the site, which looks down otherwise.
    fn through_proxy(&self, e: TrawlError) -> TrawlError {
        match &self.proxy {
            Some(proxy)
                if e.code == ErrorCode::Upstream && e.message.starts_with("could not connect") =>
            {
                let at = format!(
                    "{}://{}:{}",
                    proxy.scheme(),
                    proxy.host_str().unwrap_or("?"),
                    proxy.port_or_known_default().unwrap_or(0)
                );
                TrawlError::new(
                    ErrorCode::Upstream,
                    format!(
                        "could not connect through the proxy {at} (is it running? --proxy, TRAWL_PROXY): {}",
                        e.message.trim_start_matches("could not connect: ")
                    ),
                )
            }
            _ => e,
        }
    }

    /// The configured proxy, normalized (`TRAWL_PROXY`): requests sent outside the fetcher
    /// (webhooks) go through it too.
    pub fn proxy(&self) -> Option<&Url> {
        self.proxy.as_ref()
    }

    /// This fetcher (sharing its clients) with a check on every redirect hop besides the
    /// guard's: a crawl refuses a hop off its site before the request is sent. Only the
    /// hops trawl follows itself are checked; the browser tier follows its own.
    pub fn with_redirect_scope(&self, scope: RedirectScope) -> Self {
        Fetcher {
            redirect_scope: Some(scope),
            ..self.clone()
        }
    }

    /// This fetcher (sharing its clients) answering an HTTP error status (4xx or 5xx, but a
    /// rate limit or an anti-bot answer) as a page with that status, as Firecrawl answers a
    /// 404 page: a document whose `statusCode` says so.
    pub fn with_error_pages(&self) -> Self {
        Fetcher {
            error_pages: true,
            ..self.clone()
        }
    }

    /// This fetcher (sharing its clients) refusing an HTTP error status as usual, and
    /// keeping in `keep` the page that [`with_error_pages`](Self::with_error_pages) would
    /// have answered instead: a caller that answers such pages (the compatible API) has it
    /// without asking the origin again. A page the browser tier would go on to render is
    /// not kept.
    pub fn keeping_error_pages(&self, keep: KeptErrorPage) -> Self {
        Fetcher {
            kept_error_page: Some(keep),
            ..self.clone()
        }
    }

    /// This fetcher (sharing its clients) sending the user's cookies that `source` gives
    /// for each hop's URL. Only the plain and impersonating tiers send them (the browser
    /// tier follows its own redirects, so it gets none).
    pub fn with_cookies(&self, source: CookieSource) -> Self {
        Fetcher {
            cookies: Some(source),
            ..self.clone()
        }
    }

    /// This fetcher (sharing its clients) telling a 401 or 403 whose page is a sign-in
    /// form (`check` names it) as a `blocked` login wall instead of a bare HTTP error.
    pub fn with_login_wall(&self, check: LoginWallCheck) -> Self {
        Fetcher {
            login_wall: Some(check),
            ..self.clone()
        }
    }

    /// This fetcher (sharing its clients) sending `user_agent` on every request trawl
    /// sends itself (the browser tier keeps its own). Refuses a value that is not a valid
    /// header.
    pub fn with_user_agent(&self, user_agent: &str) -> Result<Self, TrawlError> {
        let value = HeaderValue::from_str(user_agent).map_err(|_| {
            TrawlError::invalid_input(format!(
                "user agent: {user_agent:?} is not a valid header value"
            ))
        })?;
        Ok(Fetcher {
            user_agent: Some(value),
            ..self.clone()
        })
    }

    /// This fetcher (sharing its clients) noting and asking hosts' back-off in `shared`
    /// too (the store), so it holds for other processes and the search engines.
    pub fn with_shared_backoff(&self, shared: Arc<dyn trawl_core::SharedBackoff>) -> Self {
        Fetcher {
            backoff: self.backoff.clone().with_shared(shared),
            ..self.clone()
        }
    }

    /// The hosts backing off (from `Retry-After`, `x-ratelimit-reset`, or what a reader
    /// noted), shared by every clone of this fetcher.
    pub fn backoff(&self) -> &HostBackoff {
        &self.backoff
    }

    /// Before a request to `url`: wait out its host's back-off when that takes at most half
    /// the timeout, else refuse with a retryable `rate_limited` that says until when. The
    /// wait runs inside the fetch's deadline, so a longer one would leave the request too
    /// little of it: a back-off just under the timeout was waited out, then timed out.
    async fn respect_backoff(&self, url: &Url) -> Result<(), TrawlError> {
        let Some(host) = url.host_str() else {
            return Ok(());
        };
        let now = SystemTime::now();
        let Some(until) = self.backoff.until(host, now).await else {
            return Ok(());
        };
        let wait = until.duration_since(now).unwrap_or_default();
        if wait <= self.config.timeout / 2 {
            tokio::time::sleep(wait).await;
            return Ok(());
        }
        Err(TrawlError::new(
            ErrorCode::RateLimited,
            format!(
                "{host} asked to be left alone until {} ({} from now, more than half the {} timeout); not sent",
                crate::backoff::http_date(until),
                trawl_core::spoken_duration(wait),
                trawl_core::spoken_duration(self.config.timeout)
            ),
        )
        .with_retryable(true))
    }

    /// The guard every hop passes.
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// Fetch `raw_url` (as typed), within the configured total deadline.
    pub async fn fetch(&self, raw_url: &str) -> Result<FetchedPage, TrawlError> {
        self.fetch_conditional(raw_url, &Conditional::default())
            .await
    }

    /// Fetch with validators: a 304 answer comes back as a page with status 304.
    ///
    /// Tier 0 first; only a detected anti-bot challenge escalates to tier 1 (never a 404,
    /// a rate limit, an auth failure or a legal block).
    pub async fn fetch_conditional(
        &self,
        raw_url: &str,
        conditional: &Conditional,
    ) -> Result<FetchedPage, TrawlError> {
        self.fetch_from(raw_url, conditional, Tier::Plain).await
    }

    /// Like [`fetch_conditional`](Self::fetch_conditional), starting at `start`: a site
    /// known to challenge plain clients goes straight to impersonation (when compiled in),
    /// and one known to need a browser straight to rendering, saving a doomed request.
    ///
    /// The escalation policy, in one place: tier 0 (or 1) first; a detected anti-bot
    /// challenge goes to tier 1; an HTML page that is an app shell (see
    /// [`escalate::render_reason`]) goes to tier 2 under `--render auto`, every HTML page
    /// under `always`, none under `never`. A failed render keeps the tier-0 page in `auto`.
    pub async fn fetch_from(
        &self,
        raw_url: &str,
        conditional: &Conditional,
        start: Tier,
    ) -> Result<FetchedPage, TrawlError> {
        let requested = self.guard.check_raw(raw_url, None)?;
        let mode = self.config.render.mode;
        let mut early = Vec::new();
        // A render that failed first is kept as a cause if the HTTP tiers fail too.
        let mut render_failed = None;
        let unconditional = conditional.etag.is_none() && conditional.last_modified.is_none();
        if start == Tier::Render
            && mode != RenderMode::Never
            && unconditional
            && self.render_unavailable().is_none()
        {
            match self.render(&requested).await {
                Some(Ok(mut page)) => {
                    for a in &mut page.attempts {
                        a.detail
                            .get_or_insert_with(|| "remembered for this site".into());
                    }
                    return Ok(page);
                }
                Some(Err(e)) => {
                    early.push(attempt("render", &e));
                    render_failed = Some(e);
                }
                None => {}
            }
        }
        let http_start = if start == Tier::Impersonate {
            Tier::Impersonate
        } else {
            Tier::Plain
        };
        let mut page = self
            .fetch_http(raw_url, &requested, conditional, http_start)
            .await
            .map_err(|e| match render_failed {
                Some(earlier) => e.after("tier `render`", earlier),
                None => e,
            })?;
        if !early.is_empty() {
            early.append(&mut page.attempts);
            page.attempts = early;
        }
        let Some(reason) = escalate::render_reason(mode, &page) else {
            return Ok(page);
        };
        if let Some(last) = page.attempts.last_mut() {
            last.outcome = "app_shell".into();
            last.detail = Some(reason);
        }
        if let Some(why) = self.render_unavailable() {
            if mode == RenderMode::Always {
                return Err(why);
            }
            // A hint in the attempts, never a failure: the page as fetched is kept.
            page.attempts.push(Attempt {
                reader: "render".into(),
                outcome: "unavailable".into(),
                detail: Some(why.message),
            });
            return Ok(page);
        }
        match self.render(&requested).await {
            Some(Ok(mut rendered)) => {
                page.attempts.append(&mut rendered.attempts);
                rendered.attempts = page.attempts;
                Ok(rendered)
            }
            Some(Err(e)) if mode == RenderMode::Always => Err(e),
            Some(Err(e)) => {
                // The thin page is still the best there is; the attempt says why.
                page.attempts.push(attempt("render", &e));
                Ok(page)
            }
            None => Ok(page),
        }
    }

    /// Load `raw_url` in the browser and carry out `task` (viewport, actions, screenshots)
    /// within its budget: the page as it stands at the end, and what the task collected.
    ///
    /// The caller asked for a browser, so there is no falling back to HTTP: with rendering
    /// off, not compiled in, or no browser found, the error says which (not retryable).
    /// Every request the page makes, clicks and navigations included, passes the guard.
    pub async fn browse(
        &self,
        raw_url: &str,
        task: &crate::browse::BrowseTask,
    ) -> Result<Browsed, TrawlError> {
        task.validate()?;
        let requested = self.guard.check_raw(raw_url, None)?;
        if let Some(why) = self.render_unavailable() {
            return Err(TrawlError::new(
                why.code,
                format!(
                    "this needs a browser, and none can be used: {}",
                    why.message
                ),
            )
            .with_retryable(false));
        }
        #[cfg(feature = "render")]
        if let Some(tier2) = &self.tier2 {
            self.respect_backoff(&requested).await?;
            let mut rendered = tier2.browse(&requested, task).await?;
            let extras = std::mem::take(&mut rendered.extras);
            let landed = rendered.final_url.clone();
            let page = self
                .finish(
                    tier2.as_ref(),
                    requested,
                    landed,
                    Vec::new(),
                    rendered.into_answer(),
                )
                .await
                .map_err(Failure::into_error)?;
            return Ok(Browsed { page, extras });
        }
        let _ = requested;
        Err(TrawlError::internal("browse: no browser tier"))
    }

    /// Render `url` in the browser tier; `None` when that tier is off or not compiled in.
    async fn render(&self, url: &Url) -> Option<Result<FetchedPage, TrawlError>> {
        #[cfg(feature = "render")]
        if let Some(tier2) = &self.tier2 {
            return Some(
                self.fetch_with(tier2.as_ref(), url, &Conditional::default(), None)
                    .await
                    .map_err(Failure::into_error),
            );
        }
        let _ = url;
        None
    }

    /// Why no browser can be used here right now (rendering not compiled in, turned off,
    /// no browser found, or its start failed), or `None` when one can.
    pub fn browser_unavailable(&self) -> Option<TrawlError> {
        self.render_unavailable()
    }

    /// Why the browser tier cannot run (not compiled in, turned off, no browser found).
    fn render_unavailable(&self) -> Option<TrawlError> {
        #[cfg(feature = "render")]
        {
            match &self.tier2 {
                Some(tier2) => tier2.unavailable(),
                None => Some(TrawlError::new(ErrorCode::Upstream, "rendering is off")),
            }
        }
        #[cfg(not(feature = "render"))]
        Some(TrawlError::new(
            ErrorCode::Upstream,
            "rendering is not compiled into this build (rebuild with --features render)",
        ))
    }

    /// Stop the browser (if one was started) and everything it runs. Call before exit.
    pub async fn shutdown(&self) {
        #[cfg(feature = "render")]
        if let Some(tier2) = &self.tier2 {
            tier2.shutdown().await;
        }
    }

    /// The browser tier, for `doctor` and for tests that count its processes.
    #[cfg(feature = "render")]
    pub fn renderer(&self) -> Option<&crate::render::RenderTransport> {
        self.tier2.as_deref()
    }

    /// Tiers 0 and 1 within the configured total deadline.
    async fn fetch_http(
        &self,
        raw_url: &str,
        requested: &Url,
        conditional: &Conditional,
        start: Tier,
    ) -> Result<FetchedPage, TrawlError> {
        let deadline = self.config.timeout;
        let work = async {
            let requested = requested.clone();
            let mut impersonate_failed: Option<TrawlError> = None;
            if start == Tier::Impersonate
                && let Some(tier1) = &self.tier1
            {
                // On failure the plain tier gets its usual turn below, and the failure
                // is kept as a cause should that fail too.
                match self
                    .fetch_with(tier1.as_ref(), &requested, conditional, None)
                    .await
                {
                    Ok(page) => return Ok(page),
                    Err(f) => impersonate_failed = Some(f.into_error()),
                }
            }
            let first = self
                .fetch_with(self.tier0.as_ref(), &requested, conditional, None)
                .await;
            let challenge = match &first {
                Err(Failure::Challenge(e)) => e.clone(),
                _ => {
                    return first.map_err(|f| match impersonate_failed {
                        Some(earlier) => f.into_error().after("tier `impersonate`", earlier),
                        None => f.into_error(),
                    });
                }
            };
            let mut attempts = vec![attempt(self.tier0.name(), &challenge)];
            let Some(tier1) = &self.tier1 else {
                return Err(TrawlError::new(
                    challenge.code,
                    format!(
                        "{} (browser impersonation is not compiled into this build; rebuild with --features impersonate)",
                        challenge.message
                    ),
                ));
            };
            match self
                .fetch_with(tier1.as_ref(), &requested, conditional, None)
                .await
            {
                Ok(mut page) => {
                    attempts.append(&mut page.attempts);
                    page.attempts = attempts;
                    Ok(page)
                }
                Err(f) => {
                    let e = f.into_error();
                    Err(TrawlError::new(
                        e.code,
                        format!(
                            "{}; with browser impersonation: {}",
                            challenge.message, e.message
                        ),
                    ))
                }
            }
        };
        match tokio::time::timeout(deadline, work).await {
            Ok(result) => result,
            Err(_) => Err(TrawlError::new(
                ErrorCode::Timeout,
                format!(
                    "fetch of {raw_url} exceeded {}",
                    trawl_core::spoken_duration(deadline)
                ),
            )),
        }
    }

    /// One GET of a site's API with `headers` (an `Accept`, a token, a cookie), on the
    /// plain tier within the total deadline: the guard checks every hop as for any fetch,
    /// and `headers` go only to hops on `url`'s own origin, so a redirect elsewhere never
    /// carries a token or cookie. No escalation: an API that challenges is simply blocked.
    pub async fn fetch_api(
        &self,
        url: &Url,
        headers: HeaderMap,
    ) -> Result<FetchedPage, TrawlError> {
        self.guard.check_url(url)?;
        let scoped = (url.origin(), headers);
        let unconditional = Conditional::default();
        let work = self.fetch_with(self.tier0.as_ref(), url, &unconditional, Some(&scoped));
        match tokio::time::timeout(self.config.timeout, work).await {
            Ok(result) => result.map_err(Failure::into_error),
            Err(_) => Err(TrawlError::new(
                ErrorCode::Timeout,
                format!(
                    "fetch of {url} exceeded {}",
                    trawl_core::spoken_duration(self.config.timeout)
                ),
            )),
        }
    }

    /// One tier: follow redirects by hand, each hop checked, then read the body capped.
    /// `scoped` headers are sent on hops whose origin is the one they were given for.
    async fn fetch_with(
        &self,
        transport: &dyn Transport,
        requested: &Url,
        conditional: &Conditional,
        scoped: Option<&(url::Origin, HeaderMap)>,
    ) -> Result<FetchedPage, Failure> {
        let mut current = requested.clone();
        let mut redirects = Vec::new();
        loop {
            let mut extra = HeaderMap::new();
            if let Some((origin, headers)) = scoped
                && current.origin() == *origin
            {
                for (name, value) in headers {
                    extra.insert(name.clone(), value.clone());
                }
            }
            if let Some(agent) = &self.user_agent {
                extra.insert(header::USER_AGENT, agent.clone());
            }
            if let Some(cookies) = &self.cookies
                && !extra.contains_key(header::COOKIE)
                && let Some(v) = cookies(&current).and_then(|c| HeaderValue::from_str(&c).ok())
            {
                let mut v = v;
                v.set_sensitive(true);
                extra.insert(header::COOKIE, v);
            }
            for (name, value) in [
                (header::IF_NONE_MATCH, &conditional.etag),
                (header::IF_MODIFIED_SINCE, &conditional.last_modified),
            ] {
                if let Some(v) = value.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
                    extra.insert(name, v);
                }
            }
            self.respect_backoff(&current).await?;
            let answer = transport
                .get(&current, extra)
                .await
                .map_err(|e| self.through_proxy(e))?;
            if let Some(landed) = answer.final_url.clone() {
                // The transport followed redirects itself (each hop through the guard).
                return self
                    .finish(transport, requested.clone(), landed, redirects, answer)
                    .await;
            }
            let status = answer.status;
            if (300..400).contains(&status) && status != 304 {
                let location = answer
                    .headers
                    .get(header::LOCATION)
                    // Raw UTF-8 (an IDN host, a non-ASCII path) is read as browsers do;
                    // the guard then checks what it decodes to.
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                    .ok_or_else(|| {
                        TrawlError::new(
                            ErrorCode::HttpError,
                            format!("HTTP {status} without a Location header"),
                        )
                    })?;
                if redirects.len() >= self.config.max_redirects {
                    return Err(TrawlError::new(
                        ErrorCode::HttpError,
                        format!(
                            "more than {} redirects (last: {current})",
                            self.config.max_redirects
                        ),
                    )
                    .into());
                }
                // The same checks as the first hop, on the Location as written.
                let next = self
                    .guard
                    .check_raw(&location, Some(&current))
                    .map_err(|e| {
                        TrawlError::new(e.code, format!("redirect from {current}: {}", e.message))
                    })?;
                if let Some(scope) = &self.redirect_scope {
                    scope(&current, &next)?;
                }
                redirects.push(current);
                current = next;
                continue;
            }
            return self
                .finish(transport, requested.clone(), current, redirects, answer)
                .await;
        }
    }

    async fn finish(
        &self,
        transport: &dyn Transport,
        requested: Url,
        final_url: Url,
        redirects: Vec<Url>,
        answer: Answer,
    ) -> Result<FetchedPage, Failure> {
        let Answer {
            status,
            headers,
            content_length,
            body: mut stream,
            notes,
            ..
        } = answer;
        let text_header = |name: header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let cap = self.config.max_bytes;
        if cap > 0
            && let Some(len) = content_length
            && len > cap
        {
            return Err(too_large(cap, &final_url).into());
        }
        let mut body = BytesMut::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            if cap > 0 && (body.len() + chunk.len()) as u64 > cap {
                // Stop reading: dropping the stream closes the connection.
                return Err(too_large(cap, &final_url).into());
            }
            body.extend_from_slice(&chunk);
        }
        let codings = crate::encoding::codings(&headers);
        let body: Bytes = if codings.is_empty() {
            body.freeze()
        } else {
            crate::encoding::decode(&body, &codings, cap)
                .map_err(|r| crate::encoding::error(r, || too_large(cap, &final_url)))?
                .into()
        };
        let now = SystemTime::now();
        let throttled = if status >= 400 {
            throttle_violation(&body)
        } else {
            None
        };
        if let Some(wait) = requested_wait(status, &headers, now).or(throttled)
            && !wait.is_zero()
            && let Some(host) = final_url.host_str()
        {
            self.backoff.note(host, wait, now).await;
        }
        let block = block::detect(status, &headers, &body);
        if block.is_none()
            && matches!(status, 401 | 403)
            && let Some(wall) = self.login_wall.and_then(|check| check(&final_url, &body))
        {
            // Worded as a login wall on a 200 is, so callers see one kind of wall.
            return Err(Failure::Final(TrawlError::new(
                ErrorCode::Blocked,
                format!(
                    "blocked: login wall ({wall}) at {} (HTTP {status})",
                    trawl_core::redact_url(final_url.as_str())
                ),
            )));
        }
        // An error status that is a page of its own (not a rate limit nor an anti-bot
        // answer): answered as one with `error_pages`, else refused (and kept, when asked).
        let page_of_its_own = block.is_none() && status >= 400 && status != 429;
        let limited = throttled.is_some() || rate_limit_refusal(status, &headers);
        let failure = if self.error_pages && page_of_its_own {
            None
        } else {
            status_failure(status, &headers, block, limited, &final_url).map(|failure| {
                match (failure, api_error_message(&body)) {
                    // An API's own words on a refusal (Stack Exchange's throttle, GitHub's
                    // rate limit) say more than the status.
                    (Failure::Final(e), Some(said)) => {
                        let retryable = e.retryable;
                        Failure::Final(
                            TrawlError::new(e.code, format!("{}: {said}", e.message))
                                .with_retryable(retryable),
                        )
                    }
                    (failure, _) => failure,
                }
            })
        };
        let page = FetchedPage {
            requested_url: requested,
            final_url,
            status,
            content_type: text_header(header::CONTENT_TYPE),
            etag: text_header(header::ETAG),
            last_modified: text_header(header::LAST_MODIFIED),
            body,
            via: transport.via(),
            redirects,
            attempts: vec![Attempt {
                reader: transport.name().to_owned(),
                outcome: "ok".to_owned(),
                detail: (!notes.is_empty()).then(|| notes.join("; ")),
            }],
        };
        let Some(failure) = failure else {
            return Ok(page);
        };
        if page_of_its_own
            && let Some(keep) = &self.kept_error_page
            && escalate::render_reason(self.config.render.mode, &page).is_none()
        {
            keep.put(page);
        }
        Err(failure)
    }
}

/// The page of an HTTP error status that a fetcher refused, kept for its caller (see
/// [`Fetcher::keeping_error_pages`]). Clones share it; it holds the last page kept.
#[derive(Debug, Clone, Default)]
pub struct KeptErrorPage(Arc<Mutex<Option<FetchedPage>>>);

impl KeptErrorPage {
    fn put(&self, page: FetchedPage) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(page);
    }

    /// The page kept, taken out; `None` when no fetch refused one.
    pub fn take(&self) -> Option<FetchedPage> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// Why one tier failed: a challenge may be passed by the next tier; anything else is final.
enum Failure {
    Challenge(TrawlError),
    Final(TrawlError),
}

impl Failure {
    fn into_error(self) -> TrawlError {
        match self {
            Failure::Challenge(e) | Failure::Final(e) => e,
        }
    }
}

impl From<TrawlError> for Failure {
    fn from(e: TrawlError) -> Self {
        Failure::Final(e)
    }
}

fn attempt(reader: &str, e: &TrawlError) -> Attempt {
    Attempt {
        reader: reader.to_owned(),
        outcome: e.code.as_str().to_owned(),
        detail: Some(e.message.clone()),
    }
}

fn too_large(cap: u64, url: &Url) -> TrawlError {
    TrawlError::new(
        ErrorCode::TooLarge,
        format!("body of {url} exceeds the {cap}-byte cap (raise it with --max-bytes; 0 = no cap)"),
    )
}

/// The message a JSON API put in its error answer (`error_message` from Stack Exchange,
/// `message` from GitHub), on one line and at most 200 characters.
fn api_error_message(body: &[u8]) -> Option<String> {
    let first = body.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let said = ["error_message", "message"]
        .iter()
        .find_map(|k| value.get(*k).and_then(serde_json::Value::as_str))?;
    let said: String = said.split_whitespace().collect::<Vec<_>>().join(" ");
    if said.is_empty() {
        return None;
    }
    Some(if said.chars().count() > 200 {
        format!("{}…", said.chars().take(200).collect::<String>())
    } else {
        said
    })
}

/// Stack Exchange's throttle refusal (HTTP 400, `error_name: throttle_violation`,
/// `error_message` "… more requests available in N seconds"): the wait its words name,
/// zero when they name none; `None` for any other answer.
fn throttle_violation(body: &[u8]) -> Option<Duration> {
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    if value.get("error_name").and_then(serde_json::Value::as_str) != Some("throttle_violation") {
        return None;
    }
    let said = value
        .get("error_message")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let secs = said
        .split_once("available in ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    Some(Duration::from_secs(secs))
}

/// A 403 that is a rate limit, not a refusal of the resource: GitHub's exhausted primary
/// limit (`x-ratelimit-remaining: 0`) or its secondary limit (`Retry-After`).
fn rate_limit_refusal(status: u16, headers: &HeaderMap) -> bool {
    status == 403
        && (headers.contains_key(header::RETRY_AFTER)
            || headers
                .get("x-ratelimit-remaining")
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
                == Some("0"))
}

/// Turn a non-success status (or a detected block) into a failure; `None` means success.
/// `limited` says the answer is a rate limit whatever its status (see
/// [`rate_limit_refusal`], [`throttle_violation`]).
fn status_failure(
    status: u16,
    headers: &HeaderMap,
    block: Option<Block>,
    limited: bool,
    url: &Url,
) -> Option<Failure> {
    if let Some(block) = block {
        let kind = if block.challenge {
            "an anti-bot challenge"
        } else {
            "an anti-bot block"
        };
        let err = TrawlError::new(
            ErrorCode::Blocked,
            format!(
                "{url} answered HTTP {status} with {kind} from {}",
                block.vendor.name()
            ),
        );
        // A rate limit is terminal even when a vendor sends it: retrying faster won't help.
        return Some(if block.challenge && status != 429 {
            Failure::Challenge(err)
        } else {
            Failure::Final(err)
        });
    }
    let retry_after = headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(|v| format!(" (Retry-After: {v})"))
        .unwrap_or_default();
    let err = match status {
        200..=299 | 304 => return None,
        400..=499 if limited && status != 429 => TrawlError::new(
            ErrorCode::RateLimited,
            format!("HTTP {status} from {url}, a rate limit{retry_after}"),
        ),
        404 | 410 => TrawlError::new(ErrorCode::NotFound, format!("HTTP {status} for {url}")),
        429 => TrawlError::new(
            ErrorCode::RateLimited,
            format!("HTTP 429 Too Many Requests from {url}{retry_after}"),
        ),
        500..=599 => TrawlError::new(ErrorCode::HttpError, format!("HTTP {status} from {url}"))
            .with_retryable(true),
        _ => TrawlError::new(ErrorCode::HttpError, format!("HTTP {status} from {url}")),
    };
    Some(Failure::Final(err))
}
