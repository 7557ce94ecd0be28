//! The agent tools: `web_search`, `web_fetch`, `web_open`, `arxiv`, `github`, `sites`,
//! `web_map`, `web_crawl`. The same functions serve the CLI and MCP; [`render`] turns their
//! answers into the fenced Markdown an agent reads.
//!
//! Each tool is one file: its argument type (whose JSON Schema, bounds included, is its MCP
//! input schema and its check, see [`bounds`]), its [`Agent`] method, and a unit struct
//! implementing [`Tool`] (name, description, hints, what it needs, how a call is logged).
//! `web_map` and `web_crawl` call trawl-crawl's [`CrawlService`]. The table below lists them once; the MCP server,
//! the tool names, the tools that need search and the argument checks all come from it.

mod bounds;
mod browse;
mod changes;
mod declare;
mod keystate;
mod page;
mod read;
pub mod readers;
pub mod render;
mod search;
mod site_read;
mod standard;
pub mod thin;
mod types;

use std::sync::Arc;
use std::time::Duration;

use trawl_core::{Lazy, TrawlError};
use trawl_crawl::CrawlService;
use trawl_extract::ExtractOptions;
use trawl_fetch::{Fetcher, Guard, KeptErrorPage};
use trawl_search::Router;
use trawl_store::SharedStore;

pub use bounds::{Bound, CHECKED_KEYWORDS, Counted, ToolArgs, check, checked, input_schema};
pub use browse::{BrowserAsk, BrowserRead};
pub use declare::{
    Asked, CheckFn, Details, Hints, Needs, Tool, ToolInfo, VisitTools, find_tool, parse_arguments,
    tools,
};
pub use keystate::StoredKeyStates;
pub use read::STORE_UNAVAILABLE;
pub use readers::{ReaderConfig, ReaderKind};
pub use search::SearchAnswer;
pub use standard::{STANDARD_FORMATS, drop_custom_formats};
pub use types::*;

/// The table of tools: each line names a tool's module (its file) and its [`Tool`] type.
/// Adding a tool is its file plus one line here.
macro_rules! tools {
    ($($module:ident :: $tool:ident),* $(,)?) => {
        $(mod $module; pub use $module::*;)*

        /// Hands every tool of the table to `visitor`, in the table's order.
        pub fn visit_tools(visitor: &mut impl VisitTools) {
            $(visitor.tool::<$module::$tool>();)*
        }
    };
}

tools! {
    web_search::WebSearch,
    web_fetch::WebFetch,
    web_open::WebOpen,
    arxiv::Arxiv,
    github::Github,
    sites::Sites,
    web_map::WebMap,
    web_crawl::WebCrawl,
}

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
    /// ([`trawl_text::cpu::DEFAULT_EXTRACT_MEMORY_BYTES`]; 0: no limit): a job waits until its
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
            extract_memory_bytes: trawl_text::cpu::DEFAULT_EXTRACT_MEMORY_BYTES,
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
    memory: trawl_text::cpu::MemoryGate,
    /// Set when the store in use stands in for one that could not be written: every read
    /// carries this note.
    store_note: Option<NotStored>,
    /// The usable engines' names, when something cheaper than the router can tell them
    /// (see [`Agent::with_usable_engines`]).
    usable_engines: Option<Lazy<Vec<String>>>,
    /// Maps and crawls sites for `web_map` and `web_crawl`.
    crawls: Option<CrawlService>,
    /// The site readers' bases and bounds (no token: asking `gh` is left to `github_token`).
    sites: Lazy<trawl_sites::SiteConfig>,
    /// GitHub's token for the GitHub site reader, asked for on its first read.
    github_token: Lazy<Option<String>>,
    /// Where a read's plain fetch keeps the page of an HTTP error status it refused (see
    /// [`Agent::keeping_error_pages`]).
    kept_error_page: Option<KeptErrorPage>,
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
            memory: trawl_text::cpu::MemoryGate::new(config.extract_memory_bytes),
            config: Arc::new(config),
            store_note: None,
            usable_engines: None,
            crawls: None,
            sites: Lazy::ready(trawl_sites::SiteConfig::default()),
            github_token: Lazy::ready(None),
            kept_error_page: None,
        }
    }

    /// Answers [`Agent::usable_engines`] from `usable` instead of the router: a server
    /// lists its tools at start, and building the router then would pay for what only a
    /// search needs (asking `gh` for a token, say).
    pub fn with_usable_engines(mut self, usable: Lazy<Vec<String>>) -> Self {
        self.usable_engines = Some(usable);
        self
    }

    /// This agent (sharing everything) whose reads keep in `keep` the page of an HTTP
    /// error status (404, 500 …) that their plain fetch refused: the read still fails as
    /// it would, and a caller that answers such pages as documents (the compatible API's
    /// scrape) has the page without fetching it again. Meant for one read of one URL.
    pub fn keeping_error_pages(&self, keep: KeptErrorPage) -> Self {
        Agent {
            kept_error_page: Some(keep),
            ..self.clone()
        }
    }

    /// Marks the store as a stand-in for one that cannot be written (say, an in-memory
    /// store used because the configured file is on a full disk): reads carry `note`.
    pub fn with_store_note(mut self, note: NotStored) -> Self {
        self.store_note = Some(note);
        self
    }

    /// The site readers' configuration, and GitHub's token (both built on first use).
    pub fn with_sites(
        mut self,
        sites: Lazy<trawl_sites::SiteConfig>,
        github_token: Lazy<Option<String>>,
    ) -> Self {
        self.sites = sites;
        self.github_token = github_token;
        self
    }

    /// Gives `web_map` and `web_crawl` their crawler.
    pub fn with_crawls(mut self, crawls: CrawlService) -> Self {
        self.crawls = Some(crawls);
        self
    }

    /// The crawler, or why `web_map` and `web_crawl` cannot run.
    pub fn crawls(&self) -> Result<&CrawlService, TrawlError> {
        self.crawls
            .as_ref()
            .ok_or_else(|| TrawlError::invalid_input("mapping and crawling are not available here"))
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

    /// Engines that can run now (configured, with a key where one is needed, and not
    /// disabled).
    pub fn usable_engines(&self) -> Result<Vec<String>, TrawlError> {
        if let Some(usable) = &self.usable_engines {
            return usable.get().cloned();
        }
        Ok(self.router()?.usable_engines())
    }

    /// Names of the fallback readers in the order they are tried.
    pub fn reader_names(&self) -> Vec<&'static str> {
        self.readers.iter().map(|r| r.kind.name()).collect()
    }
}
