//! trawl-crawl: a whole site, politely and safely — `map` lists its URLs without reading
//! its pages, `crawl` reads them into the store.
//!
//! - [`map_site`] asks robots.txt, the sitemaps (indexes and gzip included), `/llms.txt`,
//!   the start page and the feeds it links, and answers [`SiteMap`]: each URL with its
//!   [`UrlSource`] and `lastmod`, ranked by a query when given one; [`map_site_kept`]
//!   keeps that answer in the store for a TTL, as a read is kept.
//! - Every request goes through trawl-fetch's [`Fetcher`](trawl_fetch::Fetcher), so the
//!   SSRF guard checks every URL and every redirect hop.
//!
//! - [`CrawlService`] is what the agent tools `web_map` and `web_crawl` call, with typed
//!   requests ([`MapOptions`], [`CrawlRequest`]) and answers ([`MapOut`], [`CrawlState`],
//!   [`CrawledPage`]); it is built from one [`CrawlConfig`]. The crawler is below the
//!   agent: this crate knows nothing of MCP.
//!
//! The pieces are plain and tested on their own: [`discover`] parses sitemaps, feeds and
//! llms.txt, [`links`] reads a page's links, [`robots`] applies RFC 9309, [`scope`] keeps a
//! crawl on its site, [`rank`] scores URLs against a query.
//!
//! A crawl is kept in the store as it runs (resumable); on a store several processes share
//! (Redis) every process can work on it, claiming URLs with leases ([`Crawler::join`],
//! [`CrawlService::join_shared_crawls`]), with one per-host pace for all of them.

#![forbid(unsafe_code)]

mod answers;
mod change_summary;
mod changes;
mod committer;
mod compare;
mod crawler;
mod dedup;
pub mod discover;
mod frontier;
mod journal;
pub mod links;
mod lock;
mod map;
mod map_kept;
mod options;
pub mod owner;
mod pace;
mod page;
pub mod rank;
mod report;
mod resume;
pub mod robots;
mod run_state;
pub use run_state::{sitemap_seeds, url_budget};
pub mod scope;
mod service;
mod shared;
pub mod traps;

pub use answers::{CrawlState, CrawledPage, MapOut, MapUrl};
pub use change_summary::{ChangeSummary, RemovedPage};
pub use changes::{PageChange, page_changes};
pub use crawler::{CRAWL_USER_AGENT, Crawler, DEFAULT_LEASE, RunningCrawl};
pub use journal::{CrawlStatus, cancel, list, pages, status};
pub use options::{
    CrawlOptions, CrawlRequest, DEFAULT_CONCURRENCY, DEFAULT_LIMIT, DEFAULT_MAX_DEPTH,
    MAX_CONCURRENCY, MAX_LIMIT,
};
pub use report::{CrawlEvent, CrawlPage, CrawlProgress, CrawlSummary, Observer};
pub use service::{
    CrawlConfig, CrawlService, DEFAULT_MAX_CRAWL_PAGES, DEFAULT_MAX_CRAWLS, PagesProgress,
};
pub use trawl_store::{CrawlUrl, UrlState};

pub use map::{
    DEFAULT_MAP_LIMIT, MAX_SITEMAP_FILES, MAX_SITEMAP_URLS, MapOptions, MappedUrl, SiteMap,
    UrlSource, map_site,
};
pub use map_kept::{MapKeeping, map_site_kept};
