//! What `web_map` and `web_crawl` need from a crawler, as a trait: trawl-crawl reads pages
//! with this crate's pager and extraction helpers, so it depends on trawl-agent and cannot be
//! named here. trawl-crawl implements [`SiteCrawls`] and the binary hands it to the
//! [`Agent`](super::Agent) ([`Agent::with_crawls`](super::Agent::with_crawls)); the tools
//! stay in the table like every other tool. Their argument types live here, beside the
//! trait that takes them, so the tool files import from this file and not the other way.

use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::TrawlError;

use super::Progress;
use super::bounds::{ToolArgs, describe};

/// Maps and crawls sites for the tools. Crawls it starts outlive the call that started them.
pub trait SiteCrawls: Send + Sync {
    /// A site's URLs without reading its pages.
    fn map(&self, args: WebMapArgs) -> BoxFuture<'static, Result<MapOut, TrawlError>>;

    /// Starts a crawl of `args.url` and answers at once; `progress` is told (pages done,
    /// limit) as pages are stored, until the crawl ends.
    fn start(
        &self,
        args: WebCrawlArgs,
        progress: Option<Progress>,
    ) -> BoxFuture<'static, Result<CrawlState, TrawlError>>;

    /// How far a kept crawl got.
    fn status(&self, id: String) -> BoxFuture<'static, Result<CrawlState, TrawlError>>;

    /// A page of a crawl's stored pages, in the order they were found.
    fn pages(
        &self,
        id: String,
        offset: usize,
        limit: usize,
    ) -> BoxFuture<'static, Result<Vec<CrawledPage>, TrawlError>>;

    /// Asks a crawl to stop (whichever process runs it).
    fn cancel(&self, id: String) -> BoxFuture<'static, Result<(), TrawlError>>;

    /// Every kept crawl, newest first.
    fn list(&self) -> BoxFuture<'static, Result<Vec<CrawlState>, TrawlError>>;
}

/// List a site's URLs.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct WebMapArgs {
    /// The site's start URL.
    #[schemars(length(min = 1, max = 4096))]
    pub url: String,
    /// Rank the URLs by relevance to these words (path words, sitemap and feed titles,
    /// link text).
    #[schemars(length(max = 500))]
    pub search: Option<String>,
    /// At most this many URLs (default 100).
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<usize>,
    /// Keep only URLs whose path matches one of these regular expressions.
    #[schemars(length(max = 20), inner(length(min = 1, max = 500)))]
    pub include: Option<Vec<String>>,
    /// Leave out URLs whose path matches one of these regular expressions.
    #[schemars(length(max = 20), inner(length(min = 1, max = 500)))]
    pub exclude: Option<Vec<String>>,
    /// Subdomains of the start host belong to the site (default false).
    pub subdomains: Option<bool>,
    /// Map again even when the store holds a map of this site younger than its TTL
    /// (default false: such a map answers at once).
    pub fresh: Option<bool>,
}

impl ToolArgs for WebMapArgs {
    fn normalized(mut self) -> Self {
        self.url = self.url.trim().to_owned();
        self.search = self
            .search
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        self
    }
}

/// Start a crawl, see one, cancel one, or list them.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct WebCrawlArgs {
    /// Start a crawl here (same host by default). Give either url or id.
    #[schemars(length(min = 1, max = 4096))]
    pub url: Option<String>,
    /// A crawl's id (from starting it): answers its progress and a page of its stored pages.
    #[schemars(length(min = 1, max = 100))]
    pub id: Option<String>,
    /// With id: stop that crawl after the pages in flight (what it stored stays).
    pub cancel: Option<bool>,
    /// Best-first: follow the links most relevant to these words first (breadth-first
    /// without).
    #[schemars(length(max = 500))]
    pub query: Option<String>,
    /// Most pages stored (default 100; the server may allow fewer).
    #[schemars(range(min = 1, max = 1000000))]
    pub limit: Option<usize>,
    /// Most links followed from the start page (default 5).
    #[schemars(range(min = 0, max = 100))]
    pub max_depth: Option<u32>,
    /// Crawl only paths matching one of these regular expressions.
    #[schemars(length(max = 20), inner(length(min = 1, max = 500)))]
    pub include: Option<Vec<String>>,
    /// Leave out paths matching one of these regular expressions.
    #[schemars(length(max = 20), inner(length(min = 1, max = 500)))]
    pub exclude: Option<Vec<String>>,
    /// Subdomains of the start host belong to the site (default false).
    pub subdomains: Option<bool>,
    /// With id: skip this many stored pages (default 0).
    #[schemars(range(min = 0, max = 1000000))]
    pub offset: Option<usize>,
    /// With id: at most this many stored pages (default 50).
    #[schemars(range(min = 1, max = 500))]
    pub page_size: Option<usize>,
    /// The id of an ended crawl: crawl its site again with its options, as a new crawl
    /// that says for every page new, same, changed (lines added and removed, the old copy
    /// kept as a version) or removed since then. url may be left out (given, it must be
    /// that crawl's start URL); the other options are that crawl's.
    #[schemars(length(min = 1, max = 100))]
    pub changes: Option<String>,
}

impl ToolArgs for WebCrawlArgs {
    fn normalized(mut self) -> Self {
        let trim = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        self.url = trim(self.url);
        self.id = trim(self.id);
        self.query = trim(self.query);
        self.changes = trim(self.changes);
        self
    }
}

/// A site's URLs, as `web_map` answers.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct MapOut {
    /// The start URL as checked.
    pub start: String,
    /// The URLs, ranked by relevance when a search was given.
    pub urls: Vec<MapUrl>,
    /// Distinct URLs found before the limit.
    pub found: usize,
    /// The sitemap files read.
    pub sitemaps: Vec<String>,
    /// How robots.txt came out: parsed, missing or unreachable.
    pub robots: String,
    /// What could not be read, and why.
    pub notes: Vec<String>,
    /// Whether this answer came from the store (a map made earlier and still fresh).
    #[serde(default)]
    pub from_store: bool,
    /// With from_store: how old that map is, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_s: Option<u64>,
}

/// One URL of a site.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MapUrl {
    /// The URL.
    pub url: String,
    /// Where it was found: sitemap, feed, llms_txt, link or start.
    pub source: String,
    /// When the site says it last changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lastmod: Option<String>,
    /// A title from a feed, llms.txt or a link's text (site text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Relevance to the search, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// Where one crawl stands.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct CrawlState {
    /// The crawl's id: pass it as `id` to see progress and pages, or to cancel.
    pub id: String,
    /// Where it started.
    pub start_url: String,
    /// running, done, cancelled or failed.
    pub status: String,
    /// A stop was asked for.
    pub cancel_requested: bool,
    /// Pages stored so far.
    pub done: u64,
    /// Pages that could not be read.
    pub failed: u64,
    /// URLs waiting or being fetched.
    pub queued: u64,
    /// The most pages it stores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// A changes-crawl, once it ended: what changed since the crawl it compares with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<CrawlChanges>,
}

/// What a changes-crawl found since the crawl it compares with.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct CrawlChanges {
    /// The id of the crawl compared with.
    pub compared_with: String,
    /// Pages not in it.
    pub new: u64,
    /// Pages unchanged.
    pub same: u64,
    /// Pages whose text changed.
    pub changed: u64,
    /// Its pages gone (404/410) or no longer reached.
    pub removed: u64,
    /// The changed pages' URLs (the first 100).
    #[serde(default)]
    pub changed_urls: Vec<String>,
    /// The removed pages (the first 100), each with why and its stored copy's handle.
    #[serde(default)]
    pub removed_pages: Vec<RemovedPage>,
    /// Its pages that could not be read now (not a 404/410: a 5xx, a timeout); how they
    /// changed is not known.
    #[serde(default)]
    pub unknown: u64,
}

/// A page of the old crawl that is gone or no longer reached.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct RemovedPage {
    /// Its URL.
    pub url: String,
    /// Its stored copy (kept): read it with web_open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Gone from the site, or how it was no longer reached.
    pub why: String,
}

/// One stored page of a crawl.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CrawledPage {
    /// Its handle: read it with web_open.
    pub handle: String,
    /// The URL fetched.
    pub url: String,
    /// Its title (page text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Words of its main content.
    pub words: u64,
    /// Links followed from the start page.
    pub depth: u32,
    /// A changes-crawl: new, same, changed or removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_status: Option<String>,
    /// Changed: lines only in the new copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_added: Option<u32>,
    /// Changed: lines only in the old copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_removed: Option<u32>,
    /// Changed: the old copy opens with web_open's version set to this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version: Option<u32>,
}
