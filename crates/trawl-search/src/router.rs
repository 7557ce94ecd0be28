//! The router: picks engines, sends their requests concurrently, and turns every answer
//! (or silence) into a typed [`EngineOutcome`]. It alone sends, times out, rate-limits,
//! retries and rotates keys; engines only build requests and parse bytes.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::join_all;
use serde::Serialize;

use crate::classify::{Attempt, KeyEvent, Response, classify, error_chain};
use crate::config::SearchConfig;
use crate::engine::{
    Body, Capabilities, Engine, EngineRequest, KeyNeed, Method, RawItem, RequestContext,
};
use crate::engines;
use crate::fuse::{self, EngineList};
use crate::keys::{InMemoryKeyStore, KeyStateStore, KeyStatus, key_id};
use crate::limiter::{Limiter, SharedLimiter, SharedSlot, SlotGuard, policy_with};
use crate::record::{self, Recording};
use crate::types::{
    EngineOutcome, Freshness, OutcomeKind, Route, SearchData, SearchRequest, Selection,
};

/// How often an `--expand` phrasing asks again for its engine's slot.
const SLOT_POLL: Duration = Duration::from_millis(25);

/// Builds a [`Router`].
#[derive(Debug)]
pub struct RouterBuilder {
    config: SearchConfig,
    client: Option<reqwest::Client>,
    keys: Option<Arc<dyn KeyStateStore>>,
    engines: Option<Vec<Arc<dyn Engine>>>,
    shared_limiter: Option<Arc<dyn SharedLimiter>>,
    backoff: Option<Arc<dyn trawl_core::SharedBackoff>>,
    hidden: Vec<String>,
}

impl RouterBuilder {
    /// Also remove these values (the proxy's credentials, which an engine may echo back
    /// with the request) from every outcome and recording, beside the engines' keys.
    pub fn hide(mut self, values: impl IntoIterator<Item = String>) -> Self {
        self.hidden.extend(values);
        self
    }

    /// Take rate-limit slots from `limiter`, shared with other processes, instead of only
    /// this process's (when it is unreachable the router falls back to its own).
    pub fn shared_limiter(mut self, limiter: Arc<dyn SharedLimiter>) -> Self {
        self.shared_limiter = Some(limiter);
        self
    }

    /// Hold to hosts' back-off kept in `backoff` (the store, shared with the fetcher and
    /// other processes), and note there what engines ask for (see `backoff.rs`).
    pub fn shared_backoff(mut self, backoff: Arc<dyn trawl_core::SharedBackoff>) -> Self {
        self.backoff = Some(backoff);
        self
    }

    /// Use this HTTP client (the CLI passes one with its proxy settings).
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Keep key state here (default: in memory).
    pub fn key_store(mut self, store: Arc<dyn KeyStateStore>) -> Self {
        self.keys = Some(store);
        self
    }

    /// Use these engines instead of [`engines::all`].
    pub fn engines(mut self, engines: Vec<Arc<dyn Engine>>) -> Self {
        self.engines = Some(engines);
        self
    }

    /// Build the router.
    pub fn build(self) -> Router {
        Router {
            client: self.client.unwrap_or_default(),
            config: Arc::new(self.config),
            engines: self.engines.unwrap_or_else(engines::all),
            keys: self
                .keys
                .unwrap_or_else(|| Arc::new(InMemoryKeyStore::default())),
            limiter: Arc::new(Limiter::default()),
            shared_limiter: self.shared_limiter,
            backoff: self.backoff,
            hidden: Arc::new(self.hidden),
        }
    }
}

/// What `trawl engines` shows for one engine.
#[derive(Debug, Clone, Serialize)]
pub struct EngineInfo {
    /// Engine name.
    pub name: &'static str,
    /// Correlation group.
    pub group: &'static str,
    /// Whether it needs a key.
    pub key: KeyNeed,
    /// The environment variable for its key(s).
    pub key_env: Option<&'static str>,
    /// Whether it can run now (key or URL set when needed).
    pub configured: bool,
    /// How many keys are configured.
    pub keys: usize,
    /// The base URL in use.
    pub base: Option<String>,
    /// Which filters it honours.
    pub capabilities: Capabilities,
    /// Parser confidence and fixture age.
    pub confidence: &'static str,
    /// Where its parser's test fixtures come from (or why there are none).
    pub fixtures: &'static str,
    /// Routes it belongs to right now.
    pub routes: Vec<&'static str>,
    /// Which transport answers now, for engines with two (DuckDuckGo: html or lite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<&'static str>,
}

/// Sends searches to engines and fuses the answers.
#[derive(Debug, Clone)]
pub struct Router {
    client: reqwest::Client,
    config: Arc<SearchConfig>,
    engines: Vec<Arc<dyn Engine>>,
    keys: Arc<dyn KeyStateStore>,
    limiter: Arc<Limiter>,
    shared_limiter: Option<Arc<dyn SharedLimiter>>,
    backoff: Option<Arc<dyn trawl_core::SharedBackoff>>,
    /// Values never shown besides the keys (see [`RouterBuilder::hide`]).
    hidden: Arc<Vec<String>>,
}

/// A rate-limit slot held for one engine call (given back when dropped).
#[allow(dead_code, reason = "held only for its Drop")]
enum Slot {
    Local(SlotGuard),
    Shared(SharedSlot),
}

impl Router {
    /// Start building a router from `config`.
    pub fn builder(config: SearchConfig) -> RouterBuilder {
        RouterBuilder {
            config,
            client: None,
            keys: None,
            engines: None,
            shared_limiter: None,
            backoff: None,
            hidden: Vec::new(),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The engine called `name`.
    pub fn engine(&self, name: &str) -> Option<Arc<dyn Engine>> {
        self.engines.iter().find(|e| e.name() == name).cloned()
    }

    /// Whether `engine` can run: SearXNG needs a URL, keyed engines a key (Tavily also
    /// runs keyless when that is switched on).
    pub fn is_configured(&self, engine: &dyn Engine) -> bool {
        // Replaying needs no URL and no key, only a recording of this engine.
        if let Some(dir) = &self.config.replay_dir {
            return record::has_any(dir, engine.name());
        }
        if self.config.base_for(engine).is_none() {
            return false;
        }
        match engine.key_need() {
            KeyNeed::Required => {
                !self.config.keys_for(engine.name()).is_empty()
                    || (engine.name() == "tavily" && self.config.tavily_keyless)
            }
            _ => true,
        }
    }

    /// Engines a route runs, by name: the route's members by description, the keyed and
    /// URL-only ones (SearXNG) only when configured.
    pub fn route_engines(&self, route: Route) -> Vec<&'static str> {
        self.engines
            .iter()
            .filter(|e| e.spec().in_route(route))
            .filter(|e| {
                let needs_setup = e.key_need() == KeyNeed::Required || e.default_base().is_empty();
                !needs_setup || self.is_configured(e.as_ref())
            })
            .map(|e| e.name())
            .collect()
    }

    /// Engines a search could ask now: configured and not in `disabled_engines`. A server
    /// lists its tools from these, so it offers none that every call would refuse.
    pub fn usable_engines(&self) -> Vec<String> {
        self.engines
            .iter()
            .filter(|e| self.is_configured(e.as_ref()))
            .filter(|e| !self.config.disabled.iter().any(|d| d == e.name()))
            .map(|e| e.name().to_owned())
            .collect()
    }

    /// Every engine with its key need, configuration, group, capabilities and routes.
    pub fn engines_info(&self) -> Vec<EngineInfo> {
        let routes: Vec<(&'static str, Vec<&'static str>)> = Route::BUILT_IN
            .iter()
            .map(|r| (r.name(), self.route_engines(*r)))
            .collect();
        self.engines
            .iter()
            .map(|e| EngineInfo {
                name: e.name(),
                group: e.group(),
                key: e.key_need(),
                key_env: e.key_env(),
                configured: self.is_configured(e.as_ref()),
                keys: self.config.keys_for(e.name()).len(),
                base: self.config.base_for(e.as_ref()).map(|u| u.to_string()),
                capabilities: e.capabilities(),
                confidence: e.confidence(),
                fixtures: e.spec().fixtures,
                routes: routes
                    .iter()
                    .filter(|(_, names)| names.contains(&e.name()))
                    .map(|(r, _)| *r)
                    .collect(),
                transport: e.transport(),
            })
            .collect()
    }

    /// Run a search: fan out to the selected engines for every query phrasing, wait at
    /// most the deadline for each, and fuse what came back. Never fails: engines that
    /// could not answer are listed with their outcome.
    pub async fn search(&self, req: &SearchRequest) -> SearchData {
        let queries: Vec<&str> = std::iter::once(req.query.as_str())
            .chain(req.expand.iter().map(String::as_str))
            .filter(|q| !q.trim().is_empty())
            .collect();
        let expanded = queries.len() > 1;
        let deadline = req
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.config.timeout);
        // 0 means no limit, as for every trawl knob; a day stands in for "forever" because
        // a timer cannot be armed for Duration::MAX.
        let deadline = if deadline.is_zero() {
            Duration::from_secs(86_400)
        } else {
            deadline
        };
        // Callers that must refuse an empty plan call `plan` first; here it just runs nothing.
        let selection = self.plan(req).unwrap_or_default();
        let news;
        let req = match news_default(req, &selection) {
            Some(defaulted) => {
                news = defaulted;
                &news
            }
            None => req,
        };
        let started = Instant::now();
        let (run, mut outcomes) = self.select(&selection.asked);
        // A spaced engine asked alone has no other engine to answer in its place: it waits
        // for its slot (within the deadline) instead of being skipped as busy.
        let sole = run.len() == 1;
        let mut calls = Vec::new();
        for (qi, q) in queries.iter().enumerate() {
            let qidx = expanded.then_some(qi as u32);
            for e in &run {
                let waits = sole || qidx.is_some_and(|q| q > 0);
                calls.push(self.run_engine(e.clone(), q, req, deadline, qidx, waits));
            }
        }
        let mut results = join_all(calls).await;
        // Every engine that ran failed, and some were skipped only because their slot was
        // busy: those are now the only way to answer, so they are asked again, waiting for
        // their slot within what is left of the deadline.
        let answered = results
            .iter()
            .any(|(o, _, items, _)| o.outcome == OutcomeKind::Ok && !items.is_empty());
        let busy: Vec<usize> = (0..results.len())
            .filter(|&i| results[i].0.outcome == OutcomeKind::Skipped && results[i].3)
            .collect();
        let left = deadline.saturating_sub(started.elapsed());
        if !answered && !busy.is_empty() && !left.is_zero() {
            let again = busy.iter().map(|&i| {
                let (outcome, engine, _, _) = &results[i];
                let query = queries[outcome.query.unwrap_or(0) as usize];
                self.run_engine(engine.clone(), query, req, left, outcome.query, true)
            });
            let again = join_all(again.collect::<Vec<_>>()).await;
            for (i, (mut outcome, engine, items, busy_still)) in busy.into_iter().zip(again) {
                let note = "asked again after every other engine failed";
                outcome.detail = Some(match outcome.detail.take() {
                    Some(d) => format!("{note}; {d}"),
                    None => note.to_owned(),
                });
                results[i] = (outcome, engine, items, busy_still);
            }
        }
        let mut lists = Vec::new();
        let mut more = false;
        for (outcome, engine, items, _) in results {
            if outcome.outcome == OutcomeKind::Ok && engine.capabilities().paging {
                more = true;
            }
            if !items.is_empty() {
                lists.push((
                    outcome.query,
                    EngineList {
                        engine: engine.name().to_owned(),
                        group: engine.group().to_owned(),
                        items,
                    },
                ));
            }
            outcomes.push(outcome);
        }
        let (hits, folded) = fuse::fuse(&lists, req.max_results);
        SearchData {
            query: req.query.clone(),
            hits,
            engines: outcomes,
            folded,
            next_page: more.then(|| req.filters.page() + 1),
            selection,
        }
    }

    /// Which engines a request asks: its explicit list, else its configured route, else its
    /// built-in route; minus `disabled_engines`. An error says why nothing is left.
    pub fn plan(&self, req: &SearchRequest) -> Result<Selection, String> {
        let mut sel = Selection::default();
        let listed: Vec<String> = if !req.engines.is_empty() {
            req.engines.clone()
        } else if let Some(name) = &req.route_name {
            sel.route = Some(name.clone());
            self.config.routes.get(name).cloned().ok_or_else(|| {
                format!(
                    "unknown route {name:?}{}",
                    trawl_core::did_you_mean_note(
                        name,
                        self.config
                            .routes
                            .keys()
                            .map(String::as_str)
                            .chain(crate::types::Route::BUILT_IN.map(|r| r.name()))
                    )
                )
            })?
        } else {
            let name = req.route.name();
            sel.route = Some(name.to_owned());
            match self.config.routes.get(name) {
                Some(custom) => custom.clone(),
                None => self
                    .route_engines(req.route)
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            }
        };
        for n in listed {
            let n = n.trim().to_ascii_lowercase();
            if !n.is_empty() && !sel.route_engines.contains(&n) {
                sel.route_engines.push(n);
            }
        }
        for n in &sel.route_engines {
            if self.config.disabled.contains(n) {
                sel.disabled.push(n.clone());
            } else {
                sel.asked.push(n.clone());
            }
        }
        if sel.asked.is_empty() {
            let from = match &sel.route {
                Some(r) => format!("route {r:?}"),
                None => "the engines asked for".to_owned(),
            };
            return Err(if sel.disabled.is_empty() {
                format!("{from} has no engine that can run here (see `trawl engines`)")
            } else {
                format!(
                    "no engine left: disabled_engines removes every engine of {from} ({})",
                    sel.disabled.join(", ")
                )
            });
        }
        Ok(sel)
    }

    /// The engines to run, and outcomes for those asked for that cannot run.
    fn select(&self, names: &[String]) -> (Vec<Arc<dyn Engine>>, Vec<EngineOutcome>) {
        let mut run = Vec::new();
        let mut not_run = Vec::new();
        for n in names {
            let outcome = |kind, detail: String| EngineOutcome {
                engine: n.clone(),
                outcome: kind,
                count: 0,
                latency_ms: 0,
                status: None,
                detail: Some(detail),
                query: None,
            };
            match self.engine(n) {
                None => not_run.push(outcome(
                    OutcomeKind::Skipped,
                    format!("unknown engine `{n}`"),
                )),
                Some(e) if !self.is_configured(e.as_ref()) => {
                    let hint = match (e.name(), e.key_env()) {
                        _ if self.config.replay_dir.is_some() => {
                            "no recording in the replay directory".to_owned()
                        }
                        ("searxng", _) => "set TRAWL_SEARXNG_URL".to_owned(),
                        (_, Some(var)) => format!("set {var}"),
                        _ => "not configured".to_owned(),
                    };
                    not_run.push(outcome(OutcomeKind::NotConfigured, hint));
                }
                Some(e) => run.push(e),
            }
        }
        (run, not_run)
    }

    /// A slot from the shared limiter when there is one and it answers, else from this
    /// process's.
    async fn acquire_slot(&self, name: &str) -> Result<Slot, String> {
        let spacing = self.config.min_interval_for(name);
        if let Some(shared) = &self.shared_limiter {
            let (max, spacing) = policy_with(name, spacing);
            match shared.try_acquire(name, spacing, max).await {
                Ok(Some(slot)) => return Ok(Slot::Shared(slot)),
                Ok(None) => {
                    return Err(format!(
                        "rate-limit slot busy across replicas (at most {max} in flight, one \
                         start every {} ms)",
                        spacing.as_millis()
                    ));
                }
                // Unreachable: limit this process at least.
                Err(_) => {}
            }
        }
        self.limiter.try_acquire(name, spacing).map(Slot::Local)
    }

    async fn run_engine(
        &self,
        engine: Arc<dyn Engine>,
        query: &str,
        req: &SearchRequest,
        deadline: Duration,
        qidx: Option<u32>,
        waits: bool,
    ) -> (EngineOutcome, Arc<dyn Engine>, Vec<RawItem>, bool) {
        let start = Instant::now();
        let unsupported = engine.capabilities().unsupported(&req.filters);
        // `waits`: an `--expand` phrasing past the first (the slot is its own request's),
        // or the only engine asked; either waits within the deadline instead of skipping.
        let mut slept = false;
        let slot = if self.config.rate_limits {
            loop {
                match self.acquire_slot(engine.name()).await {
                    Ok(g) => break Some(g),
                    Err(_) if waits && start.elapsed() + SLOT_POLL < deadline => {
                        slept = true;
                        tokio::time::sleep(SLOT_POLL).await;
                    }
                    Err(why) => {
                        // Skipped only because the slot was busy (the last field).
                        let a = Attempt::fail(OutcomeKind::Skipped, why);
                        return (
                            self.outcome(&engine, a, &unsupported, start, qidx),
                            engine,
                            Vec::new(),
                            true,
                        );
                    }
                }
            }
        } else {
            None
        };
        let waited = start.elapsed();
        let attempt = match tokio::time::timeout(
            deadline.saturating_sub(waited),
            self.attempt_with_fallback(&engine, query, req),
        )
        .await
        {
            Ok(a) => a,
            Err(_) => Attempt::fail(
                OutcomeKind::Timeout,
                format!("no answer within {}", trawl_core::spoken_duration(deadline)),
            ),
        };
        drop(slot);
        let mut attempt = attempt;
        if slept {
            let note = format!("waited {} ms for its rate-limit slot", waited.as_millis());
            attempt.detail = Some(match attempt.detail.take() {
                Some(d) => format!("{note}; {d}"),
                None => note,
            });
        }
        let mut items = std::mem::take(&mut attempt.items);
        // `--site` is also enforced here, so an engine that cannot restrict by site (or
        // ignores it) does not put other sites' pages into a site-restricted answer.
        let mut unsupported = unsupported;
        if let Some(site) = req.filters.site.as_deref() {
            let before = items.len();
            items.retain(|it| fuse::on_site(&it.url, site));
            let dropped = before - items.len();
            if let Some(i) = unsupported.iter().position(|u| *u == "site") {
                unsupported.remove(i);
                let note =
                    format!("site filtered here: {dropped} result(s) from other sites dropped");
                attempt.detail = Some(match attempt.detail.take() {
                    Some(d) => format!("{note}; {d}"),
                    None => note,
                });
            } else if dropped > 0 {
                let note = format!("{dropped} result(s) from other sites dropped");
                attempt.detail = Some(match attempt.detail.take() {
                    Some(d) => format!("{d}; {note}"),
                    None => note,
                });
            }
            if items.is_empty() && attempt.kind == OutcomeKind::Ok {
                attempt.kind = OutcomeKind::Empty;
            }
        }
        let mut outcome = self.outcome(&engine, attempt, &unsupported, start, qidx);
        outcome.count = items.len();
        (outcome, engine, items, false)
    }

    fn outcome(
        &self,
        engine: &Arc<dyn Engine>,
        a: Attempt,
        unsupported: &[&str],
        start: Instant,
        qidx: Option<u32>,
    ) -> EngineOutcome {
        let mut notes = Vec::new();
        if !unsupported.is_empty() {
            notes.push(format!("cannot honour: {}", unsupported.join(", ")));
        }
        if let Some(d) = a.detail {
            notes.push(d);
        }
        let secrets: Vec<&str> = self
            .config
            .keys_for(engine.name())
            .iter()
            .chain(self.hidden.iter())
            .map(String::as_str)
            .collect();
        let detail = (!notes.is_empty()).then(|| record::scrub(&notes.join("; "), &secrets));
        EngineOutcome {
            engine: engine.name().to_owned(),
            outcome: a.kind,
            count: a.items.len(),
            latency_ms: start.elapsed().as_millis() as u64,
            status: a.status,
            detail,
            query: qidx,
        }
    }

    /// One engine call, and when the engine refuses (blocked or rate limited) and has a
    /// second transport, that transport in the same search; a remembered refusal sends
    /// the call to the second transport first.
    async fn attempt_with_fallback(
        &self,
        engine: &Arc<dyn Engine>,
        query: &str,
        req: &SearchRequest,
    ) -> Attempt {
        // The second transport only where the first is the engine's own: a first
        // transport moved by `TRAWL_<ENGINE>_URL` (a mirror, a test server) is not
        // followed to the real second endpoint unless that is moved too.
        let moved = |e: &dyn Engine| {
            self.config.base_for(e).map(|u| u.to_string()) != Some(format!("{}/", e.default_base()))
        };
        let alt = engine
            .fallback()
            .filter(|alt| !moved(engine.as_ref()) || moved(alt.as_ref()));
        let Some(alt) = alt else {
            return self.attempt(engine, query, req).await;
        };
        let note = if engine.fallback_first() {
            format!(
                "asked {} (the first transport refused recently)",
                alt.name()
            )
        } else {
            let first = self.attempt(engine, query, req).await;
            if !matches!(first.kind, OutcomeKind::Blocked | OutcomeKind::RateLimited) {
                return first;
            }
            engine.refused();
            format!(
                "refused ({}), so asked {}",
                first.detail.as_deref().unwrap_or("no detail"),
                alt.name()
            )
        };
        let mut a = self.attempt(&alt, query, req).await;
        if !matches!(a.kind, OutcomeKind::Ok | OutcomeKind::Empty) {
            a.detail = Some(format!(
                "{}: {}",
                alt.name(),
                a.detail.as_deref().unwrap_or("no detail")
            ));
        }
        a.detail = Some(match a.detail.take() {
            Some(d) => format!("{note}; {d}"),
            None => note,
        });
        a
    }

    /// One engine call, with key rotation: a key that is rate limited, out of quota or
    /// refused is marked and the next usable key is tried at once.
    async fn attempt(&self, engine: &Arc<dyn Engine>, query: &str, req: &SearchRequest) -> Attempt {
        let name = engine.name();
        let replay_base = || url::Url::parse("http://replay.invalid/").ok();
        let base = match &self.config.replay_dir {
            Some(_) => self.config.base_for(engine.as_ref()).or_else(replay_base),
            None => self.config.base_for(engine.as_ref()),
        };
        let Some(base) = base else {
            return Attempt::fail(OutcomeKind::NotConfigured, "no base URL");
        };
        let all_keys = self.config.keys_for(name);
        let secrets: Vec<&str> = all_keys
            .iter()
            .chain(self.hidden.iter())
            .map(String::as_str)
            .collect();
        let now = SystemTime::now();
        let candidates: Vec<Option<&str>> = if all_keys.is_empty() {
            vec![None]
        } else {
            let usable: Vec<Option<&str>> = all_keys
                .iter()
                .filter(|k| self.keys.load(name, &key_id(name, k)).usable(now))
                .map(|k| Some(k.as_str()))
                .collect();
            if usable.is_empty() {
                return self.all_keys_unusable(name, all_keys);
            }
            usable
        };
        let n = candidates.len();
        let mut last = None;
        for (i, key) in candidates.into_iter().enumerate() {
            let request = engine.request(query, req, &RequestContext { base: &base, key });
            let resp = match self
                .exchange(name, engine.browser_like(), query, req, &request, &secrets)
                .await
            {
                Ok(r) => r,
                Err(a) => return a,
            };
            // A keyed engine's limit is its key's (the key state), not its host's.
            if let Some(backoff) = self.backoff.as_ref().filter(|_| key.is_none()) {
                crate::backoff::after(backoff.as_ref(), &request.url, &resp).await;
            }
            let (attempt, event) = classify(
                self.config.body_cap,
                engine,
                query,
                req,
                resp,
                key.is_some(),
            )
            .await;
            if let Some(k) = key {
                let id = key_id(name, k);
                let mut st = self.keys.load(name, &id);
                match event {
                    KeyEvent::Success => st.succeeded(),
                    KeyEvent::RateLimited(ra) => st.rate_limited(SystemTime::now(), ra),
                    KeyEvent::Quota => st.quota_exhausted(SystemTime::now()),
                    KeyEvent::Auth => st.auth_failed(),
                    KeyEvent::None => {}
                }
                self.keys.save(name, &id, st);
            }
            let key_problem = matches!(
                event,
                KeyEvent::RateLimited(_) | KeyEvent::Quota | KeyEvent::Auth
            );
            if key_problem && key.is_some() && i + 1 < n {
                last = Some(attempt);
                continue;
            }
            return attempt;
        }
        last.unwrap_or_else(|| Attempt::fail(OutcomeKind::Skipped, "no key to try"))
    }

    fn all_keys_unusable(&self, name: &str, keys: &[String]) -> Attempt {
        let states: Vec<_> = keys
            .iter()
            .map(|k| self.keys.load(name, &key_id(name, k)))
            .collect();
        let count = |s: KeyStatus| states.iter().filter(|st| st.status == s).count();
        let soonest = states
            .iter()
            .filter_map(|s| s.until)
            .min()
            .and_then(|u| u.duration_since(SystemTime::now()).ok())
            .map(|d| format!(", next usable in {} s", d.as_secs()))
            .unwrap_or_default();
        let kind = if count(KeyStatus::Cooldown) > 0 {
            OutcomeKind::RateLimited
        } else if count(KeyStatus::QuotaExhausted) > 0 {
            OutcomeKind::QuotaExhausted
        } else {
            OutcomeKind::AuthFailed
        };
        Attempt::fail(
            kind,
            format!(
                "all {} key(s) unusable: {} cooling down, {} out of quota, {} invalid{soonest}",
                keys.len(),
                count(KeyStatus::Cooldown),
                count(KeyStatus::QuotaExhausted),
                count(KeyStatus::Invalid),
            ),
        )
    }

    /// Send (or replay) one request; one retry after a short pause on a 5xx or a
    /// transport error. Records the answer when `record_dir` is set.
    async fn exchange(
        &self,
        name: &str,
        browser_like: bool,
        query: &str,
        req: &SearchRequest,
        request: &EngineRequest,
        secrets: &[&str],
    ) -> Result<Response, Attempt> {
        let stem = record::stem(name, query, &req.filters);
        if let Some(dir) = &self.config.replay_dir {
            return match record::load(dir, &stem) {
                Ok((rec, body)) => Ok(Response {
                    status: rec.status,
                    headers: rec.response_headers,
                    body,
                    truncated: rec.truncated,
                }),
                Err(_) => Err(Attempt::fail(
                    OutcomeKind::Skipped,
                    format!("no recording {stem}.json in the replay directory"),
                )),
            };
        }
        if let Some(backoff) = &self.backoff {
            crate::backoff::before(backoff.as_ref(), &request.url).await?;
        }
        let mut tries = 0;
        let resp = loop {
            tries += 1;
            match self.send(request, browser_like).await {
                Ok(r) if r.status >= 500 && tries == 1 => {}
                Ok(r) => break r,
                Err(e) if tries > 1 => {
                    return Err(Attempt::fail(
                        OutcomeKind::HttpError,
                        record::scrub(&format!("transport error: {}", error_chain(&e)), secrets),
                    ));
                }
                Err(_) => {}
            }
            tokio::time::sleep(self.config.retry_backoff).await;
        };
        if let Some(dir) = &self.config.record_dir {
            let (url, request_headers, request_body) = record::describe(request, secrets);
            let rec = Recording {
                engine: name.to_owned(),
                query: query.to_owned(),
                method: record::method_name(request.method).to_owned(),
                url,
                request_headers,
                request_body,
                status: resp.status,
                response_headers: resp
                    .headers
                    .iter()
                    .filter(|(k, _)| !k.eq_ignore_ascii_case("set-cookie"))
                    .map(|(k, v)| (k.clone(), record::scrub(v, secrets)))
                    .collect(),
                truncated: resp.truncated,
            };
            // A failed recording must not fail the search; the caller asked for results.
            let _ = record::save(dir, &stem, &rec, &record::scrub_bytes(&resp.body, secrets));
        }
        Ok(resp)
    }

    /// One HTTP exchange with a bounded, streamed body read.
    async fn send(
        &self,
        request: &EngineRequest,
        browser_like: bool,
    ) -> Result<Response, reqwest::Error> {
        let mut rb = match request.method {
            Method::Get => self.client.get(request.url.clone()),
            Method::Post => self.client.post(request.url.clone()),
        };
        let has = |name: &str| {
            request
                .headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case(name))
        };
        if browser_like {
            if !has("user-agent") {
                rb = rb.header(reqwest::header::USER_AGENT, &self.config.browser_user_agent);
            }
            if !has("accept") {
                rb = rb.header(
                    reqwest::header::ACCEPT,
                    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                );
            }
            if !has("accept-language") {
                rb = rb.header(reqwest::header::ACCEPT_LANGUAGE, "en-US,en;q=0.9");
            }
        } else if !has("user-agent") {
            rb = rb.header(reqwest::header::USER_AGENT, &self.config.user_agent);
        }
        for (k, v) in &request.headers {
            rb = rb.header(k.as_str(), v.as_str());
        }
        match &request.body {
            Some(Body::Form(pairs)) => {
                let encoded = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(pairs)
                    .finish();
                rb = rb
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(encoded);
            }
            Some(Body::Json(v)) => {
                rb = rb
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(v.to_string());
            }
            None => {}
        }
        let mut resp = rb.send().await.map_err(reqwest::Error::without_url)?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_owned(),
                    v.to_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        let cap = match self.config.body_cap {
            0 => usize::MAX,
            n => n,
        };
        let mut body = Vec::new();
        let mut truncated = false;
        // Streamed: a body past the cap is cut there and the rest is never downloaded.
        while let Some(chunk) = resp.chunk().await.map_err(reqwest::Error::without_url)? {
            let room = cap.saturating_sub(body.len());
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Response {
            status,
            headers,
            body,
            truncated,
        })
    }
}

/// The built-in news route asks for the last week when the caller gave no freshness:
/// without a date bound its engines answer with evergreen pages, not news.
fn news_default(req: &SearchRequest, selection: &Selection) -> Option<SearchRequest> {
    let news = req.engines.is_empty()
        && req.route_name.is_none()
        && req.route == Route::News
        && selection.route.as_deref() == Some("news");
    (news && req.filters.freshness.is_none()).then(|| {
        let mut r = req.clone();
        r.filters.freshness = Some(Freshness::Week);
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        let r = Router::builder(SearchConfig::default()).build();
        assert_eq!(
            r.route_engines(Route::Web),
            ["duckduckgo", "mojeek", "brave", "wikipedia"]
        );
        let mut cfg = SearchConfig::default();
        cfg.set_keys("exa", vec!["k".into()]);
        cfg.set_base("searxng", url::Url::parse("http://127.0.0.1:1").unwrap());
        let r = Router::builder(cfg).build();
        let web = r.route_engines(Route::Web);
        assert!(web.contains(&"exa") && web.contains(&"searxng") && !web.contains(&"tavily"));
        assert_eq!(r.route_engines(Route::Academic), ["wikipedia", "arxiv"]);
        let info = r.engines_info();
        let exa = info.iter().find(|i| i.name == "exa").unwrap();
        assert!(exa.configured && exa.routes.contains(&"web"));
    }

    #[test]
    fn the_news_route_defaults_to_the_last_week() {
        let r = Router::builder(SearchConfig::default()).build();
        let mut req = SearchRequest::new("q");
        req.route = Route::News;
        let sel = r.plan(&req).unwrap();
        let defaulted = news_default(&req, &sel).unwrap();
        assert_eq!(defaulted.filters.freshness, Some(Freshness::Week));
        // A freshness the caller gave is kept; other routes and explicit lists get none.
        req.filters.freshness = Some(Freshness::Day);
        assert!(news_default(&req, &sel).is_none());
        req.filters.freshness = None;
        req.route = Route::Web;
        assert!(news_default(&req, &r.plan(&req).unwrap()).is_none());
        req.route = Route::News;
        req.engines = vec!["hackernews".into()];
        assert!(news_default(&req, &r.plan(&req).unwrap()).is_none());
    }

    #[test]
    fn plan_subtracts_disabled_engines_and_says_when_nothing_is_left() {
        let mut cfg = SearchConfig {
            disabled: vec!["arxiv".into()],
            ..SearchConfig::default()
        };
        cfg.routes
            .insert("mine".into(), vec!["arxiv".into(), "GitHub".into()]);
        let r = Router::builder(cfg).build();
        let mut req = SearchRequest::new("q");
        req.route = Route::Academic;
        let sel = r.plan(&req).unwrap();
        assert_eq!(sel.route.as_deref(), Some("academic"));
        assert_eq!(sel.route_engines, ["wikipedia", "arxiv"]);
        assert_eq!(sel.disabled, ["arxiv"]);
        assert_eq!(sel.asked, ["wikipedia"]);
        req.route_name = Some("mine".into());
        assert_eq!(r.plan(&req).unwrap().asked, ["github"]);
        req.engines = vec!["arxiv".into()];
        let err = r.plan(&req).unwrap_err();
        assert!(err.contains("disabled_engines"), "{err}");
        req.engines.clear();
        req.route_name = Some("nope".into());
        assert!(r.plan(&req).unwrap_err().contains("unknown route"));
    }
}
