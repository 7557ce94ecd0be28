//! The agent tools: `web_search`, `web_fetch`, `web_open`, `arxiv`, `github`, `sites`. The same
//! functions serve the CLI and MCP; [`render`] turns their answers into the fenced Markdown
//! an agent reads.

mod keystate;
mod lazy;
mod read;
pub mod readers;
pub mod render;
mod sites;
mod types;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use trawl_core::{ErrorBody, ErrorCode, TrawlError, is_valid_handle};
use trawl_extract::ExtractOptions;
use trawl_fetch::{Fetcher, Guard};
use trawl_search::{
    Filters, Freshness, OutcomeKind, Route, Router, SafeSearch, SearchData, SearchRequest,
};
use trawl_store::{FindScope, SharedStore};

pub use keystate::StoredKeyStates;
pub use lazy::Lazy;
pub use read::STORE_UNAVAILABLE;
pub use readers::{ReaderConfig, ReaderKind};
pub use sites::{SiteOut, SitesAction, SitesArgs, SitesOut, TIERS, TierOut, site_key};
pub use types::*;

use crate::neardup::{self, Candidate};
use crate::pager::Pages;
use crate::passages;

/// Called as a batch read progresses: (done, total).
pub type Progress = Arc<dyn Fn(usize, usize) + Send + Sync>;

/// Knobs of the tools.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// A read shorter than this (characters of Markdown) tries the fallback readers.
    pub min_chars: usize,
    /// A read scoring below this tries the fallback readers.
    pub min_quality: f32,
    /// Concurrent reads in a batch.
    pub batch_concurrency: usize,
    /// Answer only from the store.
    pub offline: bool,
    /// Always ask the engines, never the search cache.
    pub bypass_search_cache: bool,
    /// How long one hosted reader may take.
    pub reader_timeout: Duration,
    /// Extraction options for every read.
    pub extract: ExtractOptions,
    /// What the extraction jobs of this agent may hold at once, by estimated memory
    /// ([`crate::cpu::DEFAULT_EXTRACT_MEMORY_BYTES`]; 0: no limit): a job waits until its
    /// cost is free, so concurrent PDFs cannot add up past it.
    pub extract_memory_bytes: u64,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            min_chars: 400,
            min_quality: 0.5,
            batch_concurrency: 5,
            offline: false,
            bypass_search_cache: false,
            reader_timeout: read::DEFAULT_READER_TIMEOUT,
            extract: ExtractOptions::default(),
            extract_memory_bytes: crate::cpu::DEFAULT_EXTRACT_MEMORY_BYTES,
        }
    }
}

/// Everything the tools work with. Cheap to clone.
#[derive(Clone)]
pub struct Agent {
    /// Checks URLs before any lookup (cheap; the fetcher holds the same policy).
    guard: Guard,
    fetcher: Lazy<Fetcher>,
    store: SharedStore,
    router: Lazy<Router>,
    /// Fallback readers in the order they are tried (only usable ones).
    readers: Arc<Vec<ReaderConfig>>,
    /// Client for the hosted readers (same proxy as the fetcher, no page guard: the
    /// readers' own endpoints are configuration, not user input).
    http: Lazy<reqwest::Client>,
    config: Arc<AgentConfig>,
    /// Admits extraction jobs by estimated memory (one per agent, so one per server).
    memory: crate::cpu::MemoryGate,
    /// Set when the store in use stands in for one that could not be written: every read
    /// carries this note.
    store_note: Option<NotStored>,
    /// The usable engines' names, when something cheaper than the router can tell them
    /// (see [`Agent::with_usable_engines`]).
    usable_engines: Option<Lazy<Vec<String>>>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("readers", &self.readers)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn invalid(field: &str, why: impl std::fmt::Display) -> TrawlError {
    TrawlError::invalid_input(format!("{field}: {why}"))
}

impl Agent {
    /// Tools over the given fetcher, store, search router and fallback readers (those that
    /// cannot be used, for want of a key, are dropped). `http` is the client for the readers.
    pub fn new(
        fetcher: Fetcher,
        store: SharedStore,
        router: Router,
        readers: Vec<ReaderConfig>,
        http: reqwest::Client,
        config: AgentConfig,
    ) -> Self {
        Self::with_parts(
            fetcher.guard().clone(),
            Lazy::ready(fetcher),
            store,
            Lazy::ready(router),
            readers,
            Lazy::ready(http),
            config,
        )
    }

    /// An agent whose fetcher, search router and reader client are built on first use
    /// (see [`Lazy`]); `guard` must carry the fetcher's policy, and answers URL checks
    /// without building the fetcher.
    pub fn with_parts(
        guard: Guard,
        fetcher: Lazy<Fetcher>,
        store: SharedStore,
        router: Lazy<Router>,
        readers: Vec<ReaderConfig>,
        http: Lazy<reqwest::Client>,
        config: AgentConfig,
    ) -> Self {
        Agent {
            guard,
            fetcher,
            store,
            router,
            readers: Arc::new(readers.into_iter().filter(ReaderConfig::usable).collect()),
            http,
            memory: crate::cpu::MemoryGate::new(config.extract_memory_bytes),
            config: Arc::new(config),
            store_note: None,
            usable_engines: None,
        }
    }

    /// Answers [`Agent::usable_engines`] from `usable` instead of the router: a server
    /// lists its tools at start, and building the router then would pay for what only a
    /// search needs (asking `gh` for a token, say).
    pub fn with_usable_engines(mut self, usable: Lazy<Vec<String>>) -> Self {
        self.usable_engines = Some(usable);
        self
    }

    /// Marks the store as a stand-in for one that cannot be written (say, an in-memory
    /// store used because the configured file is on a full disk): reads carry `note`.
    pub fn with_store_note(mut self, note: NotStored) -> Self {
        self.store_note = Some(note);
        self
    }

    /// The store reads are kept in.
    pub fn store(&self) -> &SharedStore {
        &self.store
    }

    /// The search router (built now if no tool has needed it yet).
    pub fn router(&self) -> Result<&Router, TrawlError> {
        self.router.get()
    }

    /// The fetcher as a handle that outlives the agent (not built by asking).
    pub fn lazy_fetcher(&self) -> Lazy<Fetcher> {
        self.fetcher.clone()
    }

    /// Closes what the fetcher started (a browser), if it was ever built.
    pub async fn shutdown(&self) {
        if let Some(fetcher) = self.fetcher.built() {
            fetcher.shutdown().await;
        }
    }

    /// The fetcher (built now if no tool has needed it yet).
    pub fn fetcher(&self) -> Result<&Fetcher, TrawlError> {
        self.fetcher.get()
    }

    /// Engines that can run now (configured, with a key where one is needed).
    pub fn usable_engines(&self) -> Result<Vec<String>, TrawlError> {
        if let Some(usable) = &self.usable_engines {
            return usable.get().cloned();
        }
        Ok(self
            .router()?
            .engines_info()
            .into_iter()
            .filter(|e| e.configured)
            .map(|e| e.name.to_owned())
            .collect())
    }

    /// Names of the fallback readers in the order they are tried.
    pub fn reader_names(&self) -> Vec<&'static str> {
        self.readers.iter().map(|r| r.kind.name()).collect()
    }

    /// `web_search`: fused hits from many engines; with `read_top`, the top hits are read
    /// and get a handle and a query-aware preview.
    pub async fn web_search(&self, args: WebSearchArgs) -> Result<SearchData, TrawlError> {
        let query = args.query.trim().to_owned();
        if query.is_empty() || query.chars().count() > 500 {
            return Err(invalid("query", "must be 1-500 characters"));
        }
        let max_results = args.max_results.unwrap_or(10);
        if !(1..=50).contains(&max_results) {
            return Err(invalid("max_results", "must be 1-50"));
        }
        let read_top = args.read_top.unwrap_or(0);
        if read_top > 10 {
            return Err(invalid("read_top", "must be 0-10"));
        }
        if let Some(p) = args.page
            && !(1..=10).contains(&p)
        {
            return Err(invalid("page", "must be 1-10"));
        }
        let expand = args.expand.unwrap_or_default();
        if expand.len() > 4 || expand.iter().any(|q| q.trim().is_empty() || q.len() > 500) {
            return Err(invalid(
                "expand",
                "at most 4 non-empty phrasings of at most 500 characters",
            ));
        }
        let engines = args.engines.unwrap_or_default();
        for name in &engines {
            if self.router()?.engine(name).is_none() {
                return Err(invalid(
                    "engines",
                    format!("unknown engine {name:?} (see `trawl engines`)"),
                ));
            }
        }
        let mut request = SearchRequest::new(query.clone());
        request.expand = expand;
        // A built-in route, unless the config file defines one by that name (the router
        // checks it when it plans the search).
        if let Some(name) = args
            .route
            .as_deref()
            .map(str::trim)
            .filter(|r| !r.is_empty())
        {
            match Route::parse(name) {
                Some(r) => request.route = r,
                None => request.route_name = Some(name.to_owned()),
            }
        }
        request.engines = engines;
        request.max_results = max_results as usize;
        request.filters = Filters {
            site: args.site.filter(|s| !s.trim().is_empty()),
            freshness: args.freshness.map(|f| match f {
                FreshnessArg::Day => Freshness::Day,
                FreshnessArg::Week => Freshness::Week,
                FreshnessArg::Month => Freshness::Month,
                FreshnessArg::Year => Freshness::Year,
            }),
            language: args.language.filter(|s| !s.trim().is_empty()),
            region: args.region.filter(|s| !s.trim().is_empty()),
            safesearch: args.safesearch.map(|s| match s {
                SafeSearchArg::Off => SafeSearch::Off,
                SafeSearchArg::Moderate => SafeSearch::Moderate,
                SafeSearchArg::Strict => SafeSearch::Strict,
            }),
            page: args.page,
        };
        self.router()?.plan(&request).map_err(|why| {
            invalid(
                if request.engines.is_empty() {
                    "route"
                } else {
                    "engines"
                },
                why,
            )
        })?;
        let mut data = self.search_cached(&request).await?;
        let any_answered = data
            .engines
            .iter()
            .any(|e| matches!(e.outcome, OutcomeKind::Ok | OutcomeKind::Empty));
        if !any_answered {
            let why: Vec<String> = data
                .engines
                .iter()
                .map(|e| format!("{}: {:?}", e.engine, e.outcome))
                .collect();
            return Err(TrawlError::new(
                ErrorCode::Upstream,
                format!("every engine failed ({})", why.join(", ")),
            ));
        }
        self.read_hits(&mut data, &query, read_top as usize).await;
        Ok(data)
    }

    /// Read the top `n` hits concurrently; each gets a handle and a query-aware preview
    /// (the page's passages that best match `query`), or its read error in `extra`.
    pub async fn read_hits(&self, data: &mut SearchData, query: &str, n: usize) {
        if n == 0 {
            return;
        }
        let top: Vec<(usize, String)> = data
            .hits
            .iter()
            .take(n)
            .map(|h| h.url.clone())
            .enumerate()
            .collect();
        let reads = futures_util::stream::iter(top)
            .map(|(i, url)| async move {
                let read = self.read_url(&url, false).await;
                // Splitting and ranking passages is CPU work: off the async workers.
                let preview = match &read {
                    Ok(read) => {
                        let markdown = read.record.document.markdown.clone();
                        let query = query.to_owned();
                        Some(
                            crate::cpu::run(move || {
                                let parts =
                                    passages::split(&markdown, crate::pager::DEFAULT_PAGE_TOKENS);
                                passages::preview(&parts, &query, None, 600)
                            })
                            .await,
                        )
                    }
                    Err(_) => None,
                };
                (i, read, preview)
            })
            .buffer_unordered(self.config.batch_concurrency.max(1))
            .collect::<Vec<_>>()
            .await;
        for (i, read, preview) in reads {
            let hit = &mut data.hits[i];
            match read {
                Ok(read) => {
                    hit.handle = Some(read.record.document.handle.clone());
                    hit.preview = preview;
                }
                Err(e) => {
                    hit.preview = None;
                    let note = serde_json::json!({ "read_error": ErrorBody::from(e) });
                    hit.extra = Some(match hit.extra.take() {
                        Some(serde_json::Value::Object(mut m)) => {
                            m.extend(note.as_object().cloned().unwrap_or_default());
                            serde_json::Value::Object(m)
                        }
                        _ => note,
                    });
                }
            }
        }
    }

    /// A search through the store's short-lived cache. Only answers where every engine
    /// answered are cached, so a passing outage is not remembered.
    async fn search_cached(&self, request: &SearchRequest) -> Result<SearchData, TrawlError> {
        let mut normalized = request.clone();
        normalized.query = normalized.query.to_lowercase();
        let key = format!(
            "search:v1:{}",
            serde_json::to_string(&normalized).unwrap_or_default()
        );
        let k = key.clone();
        if !self.config.bypass_search_cache
            && let Ok(Some(hit)) = self.store.run(move |s| s.get_search(&k)).await
            && let Ok(mut data) = serde_json::from_value::<SearchData>(hit.value)
        {
            for e in &mut data.engines {
                e.detail = Some(match e.detail.take() {
                    Some(d) => format!("{d}; from the search cache"),
                    None => "from the search cache".to_owned(),
                });
            }
            return Ok(data);
        }
        let data = self.router()?.search(request).await;
        let complete = data
            .engines
            .iter()
            .all(|e| matches!(e.outcome, OutcomeKind::Ok | OutcomeKind::Empty));
        if complete && let Ok(value) = serde_json::to_value(&data) {
            let _ = self
                .store
                .run(move |s| s.put_search(&key, &value, None))
                .await;
        }
        Ok(data)
    }

    /// `arxiv`: papers from the arXiv API.
    pub async fn arxiv(&self, args: ArxivArgs) -> Result<SearchData, TrawlError> {
        self.web_search(WebSearchArgs {
            query: args.query,
            max_results: args.max_results,
            engines: Some(vec!["arxiv".to_owned()]),
            page: args.page,
            ..WebSearchArgs::default()
        })
        .await
    }

    /// `github`: repositories from the GitHub search API.
    pub async fn github(&self, args: GithubArgs) -> Result<SearchData, TrawlError> {
        // Each argument is checked under its own name before they are joined into one
        // GitHub query (a 600-character language was reported as a bad `query`).
        let words = args.query.trim();
        if words.is_empty() || words.chars().count() > 500 {
            return Err(invalid("query", "must be 1-500 characters"));
        }
        let query = match args.language.as_deref().map(str::trim) {
            Some(lang) if lang.chars().count() > 100 => {
                return Err(invalid("language", "must be at most 100 characters"));
            }
            Some(lang) if lang.contains(['"', '\\']) || lang.contains(char::is_control) => {
                return Err(invalid(
                    "language",
                    "must be a language name, e.g. \"rust\"",
                ));
            }
            // A name with a space ("visual basic") is quoted, so it stays one qualifier.
            Some(lang) if lang.contains(char::is_whitespace) => {
                format!("{words} language:\"{lang}\"")
            }
            Some(lang) if !lang.is_empty() => format!("{words} language:{lang}"),
            _ => words.to_owned(),
        };
        self.web_search(WebSearchArgs {
            query,
            max_results: args.max_results,
            engines: Some(vec!["github".to_owned()]),
            page: args.page,
            ..WebSearchArgs::default()
        })
        .await
    }

    /// `web_fetch`: one URL, a batch, or a stored handle, as one page of Markdown each.
    pub async fn web_fetch(
        &self,
        args: WebFetchArgs,
        progress: Option<Progress>,
    ) -> Result<FetchOut, TrawlError> {
        let page = args.page.unwrap_or(1);
        if page == 0 {
            return Err(invalid("page", "pages are numbered from 1"));
        }
        let page_tokens = args.page_size_tokens.unwrap_or(DEFAULT_PAGE_TOKENS);
        let fresh = args.fresh.unwrap_or(false);
        let given = [
            args.url.is_some(),
            args.urls.is_some(),
            args.handle.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count();
        if given != 1 {
            return Err(TrawlError::invalid_input(
                "give exactly one of url, urls or handle",
            ));
        }
        if let Some(handle) = args.handle {
            if !is_valid_handle(&handle) {
                return Err(invalid(
                    "handle",
                    format!("{handle:?} is not a handle (host~12hex)"),
                ));
            }
            let record = self.stored(&handle).await?;
            let out = page_out(&record, true, page, page_tokens)?;
            return Ok(FetchOut {
                results: vec![FetchItem {
                    input: handle,
                    ok: true,
                    document: Some(out),
                    error: None,
                }],
                folded: Vec::new(),
                not_stored: None,
            });
        }
        let inputs: Vec<String> = match (args.url, args.urls) {
            (Some(u), _) => vec![u],
            (_, Some(list)) => list,
            _ => unreachable!("checked above"),
        };
        if inputs.is_empty() || inputs.len() > MAX_BATCH {
            return Err(invalid("urls", format!("give 1-{MAX_BATCH} URLs")));
        }
        if let Some(bad) = inputs.iter().find(|u| u.trim().is_empty()) {
            return Err(invalid("urls", format!("empty URL {bad:?}")));
        }
        let total = inputs.len();
        let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        // The first read that could not be kept says why; the others would say the same.
        let not_stored: Mutex<Option<NotStored>> = Mutex::new(None);
        let mut results: Vec<(usize, FetchItem)> =
            futures_util::stream::iter(inputs.into_iter().enumerate())
                .map(|(i, input)| {
                    let done = done.clone();
                    let progress = progress.clone();
                    let not_stored = &not_stored;
                    async move {
                        let item = match self.read_as_task(&input, fresh, page, page_tokens).await {
                            Ok((note, out)) => {
                                if let Some(note) = note {
                                    not_stored
                                        .lock()
                                        .unwrap_or_else(PoisonError::into_inner)
                                        .get_or_insert(note);
                                }
                                FetchItem {
                                    input,
                                    ok: true,
                                    document: Some(out),
                                    error: None,
                                }
                            }
                            Err(e) => FetchItem {
                                input,
                                ok: false,
                                document: None,
                                error: Some(e.into()),
                            },
                        };
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                        if let Some(p) = &progress {
                            p(n, total);
                        }
                        (i, item)
                    }
                })
                .buffer_unordered(self.config.batch_concurrency.max(1))
                .collect()
                .await;
        results.sort_by_key(|(i, _)| *i);
        let mut results: Vec<FetchItem> = results.into_iter().map(|(_, r)| r).collect();
        let folded = fold_duplicates(&mut results);
        Ok(FetchOut {
            results,
            folded,
            not_stored: not_stored
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        })
    }

    /// One URL of a batch read and paged as its own task. The batch's caller may be the
    /// CLI's `block_on`, which polls on the main thread only: as tasks, the pages' fetch,
    /// decoding, paging and store hand-off spread over every worker. The task is aborted
    /// when the batch is dropped (a cancelled call stops its reads).
    async fn read_as_task(
        &self,
        input: &str,
        fresh: bool,
        page: u32,
        page_tokens: u32,
    ) -> Result<(Option<NotStored>, PageOut), TrawlError> {
        let agent = self.clone();
        let input = input.to_owned();
        let task = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(async move {
            let read = agent.read_url(&input, fresh).await?;
            let out = page_out(&read.record, read.from_store, page, page_tokens)?;
            Ok((read.not_stored, out))
        }));
        match task.await {
            Ok(outcome) => outcome,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(TrawlError::new(
                ErrorCode::Internal,
                format!("a batch read was cancelled: {e}"),
            )),
        }
    }

    /// `web_open`: a page of a stored document, or the passages matching `find`.
    pub async fn web_open(&self, args: WebOpenArgs) -> Result<OpenOut, TrawlError> {
        let all = args.all.unwrap_or(false);
        let page_tokens = args.page_size_tokens.unwrap_or(DEFAULT_PAGE_TOKENS);
        if let Some(h) = &args.handle
            && !is_valid_handle(h)
        {
            return Err(invalid(
                "handle",
                format!("{h:?} is not a handle (host~12hex)"),
            ));
        }
        // Bad arguments are refused before the store is asked (page 0 is not "not found").
        if args.page == Some(0) {
            return Err(invalid("page", "pages are numbered from 1"));
        }
        if let Some(find) = args.find {
            let find = find.trim().to_owned();
            if find.is_empty() || find.chars().count() > 500 {
                return Err(invalid("find", "must be 1-500 characters"));
            }
            // Only letters and digits are indexed: `"` or `--` alone finds nothing.
            if !find.chars().any(char::is_alphanumeric) {
                return Err(invalid("find", "needs at least one letter or digit"));
            }
            if args.page.is_some() {
                return Err(TrawlError::invalid_input("give page or find, not both"));
            }
            let limit = args.limit.unwrap_or(8);
            if !(1..=50).contains(&limit) {
                return Err(invalid("limit", "must be 1-50"));
            }
            let handle = match (&args.handle, all) {
                (Some(_), true) => {
                    return Err(TrawlError::invalid_input("give handle or all, not both"));
                }
                (None, false) => {
                    return Err(invalid("handle", "required unless all is true"));
                }
                (h, _) => h.clone(),
            };
            if let Some(h) = &handle {
                self.stored(h).await?;
            }
            let (q, h) = (find.clone(), handle.clone());
            let hits = self
                .store
                .run(move |s| {
                    let scope = match &h {
                        Some(h) => FindScope::Document(h),
                        None => FindScope::All,
                    };
                    s.find(&q, scope, limit as usize)
                })
                .await
                .map_err(|e| TrawlError::internal(format!("store: {e}")))?;
            // Passage page numbers are those of the default page size (what the store
            // indexed), whatever `page_size_tokens` this call gives.
            let passages = hits
                .into_iter()
                .map(|hit| PassageOut {
                    handle: hit.handle,
                    page: hit.page,
                    text: hit.text,
                    score: hit.score,
                })
                .collect();
            return Ok(OpenOut {
                handle,
                title: None,
                url: None,
                page: None,
                pages: None,
                markdown: None,
                find: Some(find),
                passages: Some(passages),
            });
        }
        if all {
            return Err(invalid("all", "only applies with find"));
        }
        let handle = args.handle.ok_or_else(|| invalid("handle", "required"))?;
        let record = self.stored(&handle).await?;
        let out = page_out(&record, true, args.page.unwrap_or(1), page_tokens)?;
        Ok(OpenOut {
            handle: Some(out.handle),
            title: out.title,
            url: Some(out.final_url),
            page: Some(out.page),
            pages: Some(out.pages),
            markdown: Some(out.markdown),
            find: None,
            passages: None,
        })
    }

    /// Keep a document read outside the tools (a file, stdin) so it can be opened later.
    pub async fn keep(&self, document: trawl_core::Document) -> Result<(), TrawlError> {
        let record = trawl_store::DocumentRecord::new(document, std::time::SystemTime::now());
        self.save(&record).await
    }

    /// A local document (a file or stdin) kept in the store and answered like a fetch of
    /// its handle. When the store cannot be written, the document is answered from memory
    /// with a [`NotStored`] note instead of failing.
    pub async fn read_document(
        &self,
        document: trawl_core::Document,
        page: Option<u32>,
        page_size_tokens: Option<u32>,
    ) -> Result<FetchOut, TrawlError> {
        let handle = document.handle.clone();
        let record = trawl_store::DocumentRecord::new(document, std::time::SystemTime::now());
        match self.save_or_note(&record).await? {
            None => {
                self.web_fetch(
                    WebFetchArgs {
                        handle: Some(handle),
                        page,
                        page_size_tokens,
                        ..WebFetchArgs::default()
                    },
                    None,
                )
                .await
            }
            Some(note) => {
                let page = page.unwrap_or(1);
                if page == 0 {
                    return Err(invalid("page", "pages are numbered from 1"));
                }
                let out = page_out(
                    &record,
                    true,
                    page,
                    page_size_tokens.unwrap_or(DEFAULT_PAGE_TOKENS),
                )?;
                Ok(FetchOut {
                    results: vec![FetchItem {
                        input: handle,
                        ok: true,
                        document: Some(out),
                        error: None,
                    }],
                    folded: Vec::new(),
                    not_stored: Some(note),
                })
            }
        }
    }
}

/// One page of a stored document.
fn page_out(
    record: &trawl_store::DocumentRecord,
    from_store: bool,
    page: u32,
    page_tokens: u32,
) -> Result<PageOut, TrawlError> {
    let doc = &record.document;
    let pages = Pages::new(&doc.markdown, page_tokens as usize);
    let count = pages.count() as u32;
    let this = pages.get(page as usize).ok_or_else(|| {
        invalid(
            "page",
            format!(
                "{} has {count} page(s) at this page size; asked for page {page}",
                doc.handle
            ),
        )
    })?;
    Ok(PageOut {
        handle: doc.handle.clone(),
        url: doc.url.clone(),
        final_url: doc.final_url.clone(),
        title: doc.title.clone(),
        byline: doc.byline.clone(),
        published: doc.published.clone(),
        language: doc.language.clone(),
        site_name: doc.site_name.clone(),
        description: doc.description.clone(),
        page_type: doc.page_type,
        quality_score: doc.quality_score,
        word_count: doc.word_count,
        fetched_via: doc.fetched_via,
        status: doc.status,
        content_type: doc.content_type.clone(),
        canonical_url: doc.canonical_url.clone(),
        json_ld: doc.json_ld.clone(),
        attempts: doc.attempts.clone(),
        from_store,
        page,
        pages: count,
        markdown: this.text.to_owned(),
    })
}

/// Fold near-duplicate documents of a batch: the first of each group is kept (inputs are
/// in the caller's order of preference); the others lose their body and are listed.
fn fold_duplicates(results: &mut [FetchItem]) -> Vec<FoldedOut> {
    let docs: Vec<(usize, String, String, f32)> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            r.document
                .as_ref()
                .map(|d| (i, d.final_url.clone(), d.markdown.clone(), d.quality_score))
        })
        .collect();
    if docs.len() < 2 {
        return Vec::new();
    }
    let candidates: Vec<Candidate<'_>> = docs
        .iter()
        .map(|(_, _, text, quality)| Candidate {
            text,
            quality: f64::from(*quality),
        })
        .collect();
    let folding = neardup::fold(&candidates);
    let mut out = Vec::new();
    for f in folding.folded {
        let (i, url, _, _) = &docs[f.index];
        let into = docs[f.into].1.clone();
        if let Some(doc) = results[*i].document.as_mut() {
            doc.markdown = format!("(near-duplicate of {into}; folded)");
        }
        out.push(FoldedOut {
            url: url.clone(),
            into,
        });
    }
    out
}
