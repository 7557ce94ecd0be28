//! The crawler as a service, for the agent tools `web_map` and `web_crawl`: [`CrawlService`]
//! maps sites and starts, shows, pages through, cancels and lists crawls. Crawls it starts run in the background and
//! outlive the call; their state lives in the store, so status, pages and cancel work for a
//! crawl whichever process started it. What it reads from the server's settings is one
//! value, [`CrawlConfig`]: the limits (crawls running at once in this process, pages per
//! crawl), the lease, how pages are extracted, how long a map is kept.
//!
//! All crawls of one service share one per-host pace ([`Pacer`]). On a store that shares
//! work (Redis), [`CrawlService::join_shared_crawls`] makes a server join every running
//! crawl of the store with its own fetches — started through any replica, or left by
//! replicas that died — so the replicas crawl together.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use trawl_core::{ErrorCode, Lazy, SharedLimiter, TrawlError};
use trawl_extract::ExtractOptions;
use trawl_fetch::Fetcher;
use trawl_store::{SharedStore, UrlState};

use crate::answers::{CrawlState, CrawledPage, MapOut, MapUrl};
use crate::crawler::{Crawler, DEFAULT_LEASE, RunningCrawl};
use crate::journal::{self, CrawlStatus};
use crate::map::{MapOptions, SiteMap};
use crate::map_kept::{MapKeeping, map_site_kept};
use crate::options::{CrawlOptions, CrawlRequest, DEFAULT_LIMIT};
use crate::pace::Pacer;
use crate::report::{CrawlEvent, Observer};

/// How often a server looks for shared crawls to join.
const JOIN_EVERY: Duration = Duration::from_secs(1);

/// Told (pages stored, limit) as a started crawl stores pages.
pub type PagesProgress = Arc<dyn Fn(usize, usize) + Send + Sync>;

/// Crawls one process runs at once when not configured.
pub const DEFAULT_MAX_CRAWLS: usize = 4;
/// Most pages one crawl started by a tool may store when not configured.
pub const DEFAULT_MAX_CRAWL_PAGES: usize = 1_000;

/// What the crawl service takes from the server's settings, built there in one piece.
#[derive(Debug, Clone)]
pub struct CrawlConfig {
    /// Crawls running at once in this process.
    pub max_crawls: usize,
    /// Most pages one crawl started through the tools stores.
    pub max_pages: usize,
    /// How long a URL claimed from a shared crawl stays leased without a renewal.
    pub lease: Duration,
    /// How long a `web_map` answer is kept and answered from the store (the read TTL,
    /// `document_ttl`, by default; zero: until the cache is cleared).
    pub map_ttl: Duration,
    /// Extraction options for every crawled page.
    pub extract: ExtractOptions,
    /// The User-Agent crawls send ([`crate::CRAWL_USER_AGENT`] by default).
    pub user_agent: String,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            max_crawls: DEFAULT_MAX_CRAWLS,
            max_pages: DEFAULT_MAX_CRAWL_PAGES,
            lease: DEFAULT_LEASE,
            map_ttl: trawl_store::StoreConfig::default().document_ttl,
            extract: ExtractOptions::default(),
            user_agent: crate::CRAWL_USER_AGENT.to_owned(),
        }
    }
}

/// Maps and crawls for the agent tools.
#[derive(Clone)]
pub struct CrawlService {
    fetcher: Lazy<Fetcher>,
    store: SharedStore,
    config: CrawlConfig,
    /// Ids of the crawls this process runs now.
    running: Arc<Mutex<HashSet<String>>>,
    /// The per-host gates of every crawl of this service.
    pacer: Arc<Pacer>,
}

impl CrawlService {
    /// A service configured by `config`, fetching with `fetcher` (built on first use) and
    /// keeping pages and crawl state in `store`. With `shared`, per-host politeness holds
    /// across processes too: each request also takes the host's slot from it (see
    /// [`Crawler::with_shared_limiter`]).
    pub fn new(
        config: CrawlConfig,
        fetcher: Lazy<Fetcher>,
        store: SharedStore,
        shared: Option<Arc<dyn SharedLimiter>>,
    ) -> Self {
        let pacer = match shared {
            Some(shared) => Pacer::with_shared(shared),
            None => Pacer::default(),
        };
        CrawlService {
            fetcher,
            store,
            config,
            running: Arc::default(),
            pacer: Arc::new(pacer),
        }
    }

    fn crawler(&self) -> Result<Crawler, TrawlError> {
        Ok(
            Crawler::new(self.fetcher.get()?.clone(), self.store.clone())
                .with_user_agent(&self.config.user_agent)?
                .with_extract_options(self.config.extract.clone())
                .with_pacer(self.pacer.clone())
                .with_lease(self.config.lease),
        )
    }

    /// On a store that shares work (Redis), joins every running crawl there now and from
    /// now on (looking every second), up to the limit of crawls at once: each is then
    /// worked on by this process too, until it ends. A no-op on other stores. Needs a Tokio
    /// runtime; meant for long-running servers (`trawl serve`), not one-shot commands.
    pub fn join_shared_crawls(&self) {
        if !self
            .store
            .store()
            .crawl_state()
            .is_some_and(|c| c.shares_work())
        {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(JOIN_EVERY);
            loop {
                ticker.tick().await;
                // A store that does not answer now is asked again at the next tick.
                let _ = this.join_running().await;
            }
        });
    }

    async fn join_running(&self) -> Result<(), TrawlError> {
        let records = self
            .store
            .run(|s| match s.crawl_state() {
                Some(c) => c.crawls(),
                None => Ok(Vec::new()),
            })
            .await
            .map_err(journal::store_error)?;
        for record in records {
            if record.status != "running" || record.cancel_requested {
                continue;
            }
            let id = record.id;
            // Not seeded yet (its starter adds the first URLs when robots.txt and the
            // sitemaps are read): joining now could find it empty and end it.
            if !self.seeded(&id).await? {
                continue;
            }
            {
                let mut running = crate::lock::lock(&self.running);
                if running.contains(&id) {
                    continue;
                }
                if running.len() >= self.config.max_crawls {
                    return Ok(());
                }
                running.insert(id.clone());
            }
            let joined = match self.crawler() {
                Ok(crawler) => crawler.join(&id, None).await,
                Err(e) => Err(e),
            };
            match joined {
                Ok(crawl) => self.forget_when_done(crawl),
                Err(_) => {
                    crate::lock::lock(&self.running).remove(&id);
                }
            }
        }
        Ok(())
    }

    async fn seeded(&self, id: &str) -> Result<bool, TrawlError> {
        let id = id.to_owned();
        self.store
            .run(move |s| match s.crawl_state() {
                Some(c) => Ok(!c.crawl_url_counts(&id)?.is_empty()),
                None => Ok(false),
            })
            .await
            .map_err(journal::store_error)
    }

    /// Takes a crawl off the running set when it ends (its outcome is in the store).
    fn forget_when_done(&self, crawl: RunningCrawl) {
        let running = self.running.clone();
        let finished = crawl.id.clone();
        tokio::spawn(async move {
            let _ = crawl.wait().await;
            crate::lock::lock(&running).remove(&finished);
        });
    }

    /// Most pages one crawl may store on this server.
    pub fn max_pages(&self) -> usize {
        self.config.max_pages
    }

    /// Crawls running in this process now.
    pub fn running(&self) -> usize {
        crate::lock::lock(&self.running).len()
    }

    fn options(&self, args: &CrawlRequest) -> Result<CrawlOptions, TrawlError> {
        let url = args
            .url
            .clone()
            .ok_or_else(|| TrawlError::invalid_input("url: needed to start a crawl"))?;
        let max = self.config.max_pages;
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT.min(max));
        if limit > max {
            return Err(TrawlError::invalid_input(format!(
                "limit: at most {max} pages per crawl on this server"
            )));
        }
        let mut options = CrawlOptions::new(url);
        options.query = args.query.clone();
        options.limit = limit;
        if let Some(depth) = args.max_depth {
            options.max_depth = depth;
        }
        options.include = args.include.clone().unwrap_or_default();
        options.exclude = args.exclude.clone().unwrap_or_default();
        options.subdomains = args.subdomains.unwrap_or(false);
        if !args.whole_site.unwrap_or(false) {
            options = options.within_section();
        }
        Ok(options)
    }

    /// A changes-crawl's options: the old crawl's own, within this server's page bound.
    async fn changes_options(
        &self,
        args: &CrawlRequest,
    ) -> Result<Option<CrawlOptions>, TrawlError> {
        let Some(old) = &args.changes else {
            return Ok(None);
        };
        let given = [
            ("query", args.query.is_some()),
            ("limit", args.limit.is_some()),
            ("max_depth", args.max_depth.is_some()),
            ("include", args.include.is_some()),
            ("exclude", args.exclude.is_some()),
            ("subdomains", args.subdomains.is_some()),
            ("whole_site", args.whole_site.is_some()),
        ];
        if let Some((name, _)) = given.iter().find(|(_, given)| *given) {
            return Err(TrawlError::invalid_input(format!(
                "{name}: a changes-crawl runs with the options of crawl {old}; leave {name} out"
            )));
        }
        let options = self
            .crawler()?
            .changes_options(old, args.url.as_deref())
            .await?;
        let max = self.config.max_pages;
        if options.limit > max {
            return Err(TrawlError::invalid_input(format!(
                "changes: crawl {old} could store {} pages, and this server allows at most {max} per crawl",
                options.limit
            )));
        }
        Ok(Some(options))
    }

    /// Starts a crawl and answers at once; `progress` is told (pages done, limit) as
    /// pages are stored, until the crawl ends. The crawl outlives the call.
    pub async fn start(
        &self,
        args: CrawlRequest,
        progress: Option<PagesProgress>,
    ) -> Result<CrawlState, TrawlError> {
        let options = match self.changes_options(&args).await? {
            Some(options) => options,
            None => self.options(&args)?,
        };
        self.start_options(options, progress).await
    }

    /// Starts a crawl of fully formed `options` (the compatible API's, which set more than
    /// the tools do) under the same bounds as [`CrawlService::start`]: the server's pages per
    /// crawl, crawls at once and per-host pace.
    pub async fn start_options(
        &self,
        options: CrawlOptions,
        progress: Option<PagesProgress>,
    ) -> Result<CrawlState, TrawlError> {
        let max = self.config.max_pages;
        if options.limit > max {
            return Err(TrawlError::invalid_input(format!(
                "limit: at most {max} pages per crawl on this server"
            )));
        }
        if self.store.store().crawl_state().is_none() {
            return Err(TrawlError::invalid_input(
                "this store does not keep crawls, so web_crawl cannot follow one",
            ));
        }
        // Claimed before starting so two calls at once cannot both pass the bound.
        let claim = format!("starting-{}", claim_number());
        {
            let mut running = crate::lock::lock(&self.running);
            if running.len() >= self.config.max_crawls {
                return Err(TrawlError::new(
                    ErrorCode::RateLimited,
                    format!(
                        "{} crawl(s) already running here, the most this server runs at once: \
                         wait for one to end or cancel one",
                        running.len()
                    ),
                )
                .with_retryable(true));
            }
            running.insert(claim.clone());
        }
        let release = |key: &str| {
            crate::lock::lock(&self.running).remove(key);
        };
        let crawler = match self.crawler() {
            Ok(c) => c,
            Err(e) => {
                release(&claim);
                return Err(e);
            }
        };
        let observer: Option<Observer> = progress.map(|progress| {
            Arc::new(move |event: CrawlEvent<'_>| {
                if let CrawlEvent::Page(_, p) = event {
                    progress(p.done as usize, p.limit as usize);
                }
            }) as Observer
        });
        let limit = options.limit as u64;
        let started = match crawler.start(options, observer).await {
            Ok(started) => started,
            Err(e) => {
                release(&claim);
                return Err(e);
            }
        };
        let id = started.id.clone();
        {
            let mut running = crate::lock::lock(&self.running);
            running.remove(&claim);
            running.insert(id.clone());
        }
        self.forget_when_done(started);
        let mut state = state_of(journal::status(&self.store, &id).await?);
        state.limit = Some(limit);
        Ok(state)
    }
}

/// A claim's name, unique within the process.
fn claim_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn state_of(status: CrawlStatus) -> CrawlState {
    let count = |state: &str| status.urls.get(state).copied().unwrap_or(0);
    let limit = status
        .summary
        .pointer("/progress/limit")
        .and_then(|v| v.as_u64());
    CrawlState {
        id: status.id,
        start_url: status.start_url,
        status: status.status,
        cancel_requested: status.cancel_requested,
        done: count("done"),
        failed: count("failed"),
        queued: count("queued") + count("fetching"),
        limit,
        changes: status
            .summary
            .get("changes")
            .and_then(|c| serde_json::from_value(c.clone()).ok()),
    }
}

fn map_out(map: SiteMap) -> MapOut {
    MapOut {
        start: map.start,
        urls: map
            .urls
            .into_iter()
            .map(|u| MapUrl {
                url: u.url,
                source: u.source.as_str().to_owned(),
                lastmod: u.lastmod,
                title: u.title,
                score: u.score,
            })
            .collect(),
        found: map.found,
        sitemaps: map.sitemaps,
        robots: map.robots,
        notes: map.notes,
        from_store: map.from_store,
        age_s: map.age_s,
    }
}

/// What the tools ask of the crawler; every answer is read from the store, so it holds
/// whichever process runs the crawl.
impl CrawlService {
    /// A site's URLs without reading its pages; with `fresh` false a map kept in the store
    /// younger than the map TTL answers at once.
    pub async fn map(&self, options: MapOptions, fresh: bool) -> Result<MapOut, TrawlError> {
        let keeping = MapKeeping {
            ttl: self.config.map_ttl,
            fresh,
        };
        Ok(map_out(
            map_site_kept(self.fetcher.get()?, &self.store, &options, keeping).await?,
        ))
    }

    /// How far a kept crawl got.
    pub async fn status(&self, id: &str) -> Result<CrawlState, TrawlError> {
        Ok(state_of(journal::status(&self.store, id).await?))
    }

    /// A page of a crawl's stored pages, in the order they were found.
    pub async fn pages(
        &self,
        id: &str,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<CrawledPage>, TrawlError> {
        let store = &self.store;
        let rows = journal::pages(store, id, &[UrlState::Done], offset, limit).await?;
        // A changes-crawl's pages say how they changed (its removed pages are in its
        // state's `changes`).
        let keys = rows.iter().map(|r| r.key.clone()).collect();
        let mut changes = crate::changes::page_changes(store, id, keys).await?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let change = changes.remove(&r.key);
                let changed = change
                    .as_ref()
                    .filter(|c| c.lines_added + c.lines_removed > 0);
                Some(CrawledPage {
                    handle: r.handle?,
                    url: r.url,
                    title: r.title,
                    words: r.words,
                    depth: r.depth,
                    change_status: change.as_ref().map(|c| c.change_status.as_str().to_owned()),
                    lines_added: changed.map(|c| c.lines_added),
                    lines_removed: changed.map(|c| c.lines_removed),
                    previous_version: change.as_ref().and_then(|c| c.previous_version),
                })
            })
            .collect())
    }

    /// Asks a crawl to stop (whichever process runs it).
    pub async fn cancel(&self, id: &str) -> Result<(), TrawlError> {
        journal::cancel(&self.store, id).await
    }

    /// Every kept crawl, newest first.
    pub async fn list(&self) -> Result<Vec<CrawlState>, TrawlError> {
        Ok(journal::list(&self.store)
            .await?
            .into_iter()
            .map(state_of)
            .collect())
    }
}
