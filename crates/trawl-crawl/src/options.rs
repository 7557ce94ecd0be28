//! What a crawl is asked to do, with its documented defaults. Kept with the crawl (as
//! JSON) so that `--resume` goes on with the same options.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use trawl_core::TrawlError;

use crate::traps::TrapLimits;

/// Default most pages stored by one crawl.
pub const DEFAULT_LIMIT: usize = 100;
/// Default most links followed from the start URL (sitemap URLs count as one).
pub const DEFAULT_MAX_DEPTH: u32 = 5;
/// Default requests in flight to one host.
pub const DEFAULT_CONCURRENCY: usize = 2;
/// Most pages one crawl may be asked for.
pub const MAX_LIMIT: usize = 1_000_000;
/// Most requests in flight to one host.
pub const MAX_CONCURRENCY: usize = 64;

/// How a crawl runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrawlOptions {
    /// Where it starts.
    pub url: String,
    /// Best-first: follow the links most relevant to this query first (anchor text, path,
    /// the parent page's relevance). Breadth-first without one.
    pub query: Option<String>,
    /// At most this many pages stored ([`DEFAULT_LIMIT`]).
    pub limit: usize,
    /// Links followed from the start at most ([`DEFAULT_MAX_DEPTH`]).
    pub max_depth: u32,
    /// Regular expressions a path must match one of (the start URL is always read).
    pub include: Vec<String>,
    /// Regular expressions a path must match none of.
    pub exclude: Vec<String>,
    /// Subdomains of the start host belong to the site.
    pub subdomains: bool,
    /// Other ports of the start host that belong to the site (`--allow-port`); by default a
    /// site is its scheme, host and port.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_ports: Vec<u16>,
    /// Only paths starting with this are crawled (the start URL's section,
    /// [`scope::section_of`](crate::scope::section_of)); `None`, the whole site (and every
    /// crawl kept before sections existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Do not fetch or obey robots.txt (the answer says so).
    pub ignore_robots: bool,
    /// Requests in flight to one host ([`DEFAULT_CONCURRENCY`]).
    pub concurrency: usize,
    /// Pause after each request to a host, in milliseconds; robots.txt's `Crawl-delay`
    /// wins when it is longer. Any delay means one request at a time per host.
    pub delay_ms: u64,
    /// Seed the frontier from the site's sitemaps as well as its links.
    pub sitemap: bool,
    /// The trap guards' bounds.
    pub traps: TrapLimits,
    /// A changes-crawl: the id of the ended crawl whose pages this one is compared with
    /// (`trawl crawl --changes ID`); kept so that a resumed one goes on comparing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes_of: Option<String>,
    /// URLs waiting kept in memory when the rest can be read back from the store (0: the
    /// default, 4,096). For tests that make a small site spill.
    #[doc(hidden)]
    #[serde(default, skip_serializing_if = "is_zero")]
    pub frontier_memory: usize,
}

/// A crawl asked of the crawl service (`CrawlService::start`, by `web_crawl`): what is left
/// out takes the server's defaults, and a changes-crawl takes the old crawl's options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CrawlRequest {
    /// Where it starts; a changes-crawl may leave it out (given, it must be the old one's).
    pub url: Option<String>,
    /// Best-first by this query ([`CrawlOptions::query`]).
    pub query: Option<String>,
    /// Most pages stored ([`DEFAULT_LIMIT`], within the server's bound).
    pub limit: Option<usize>,
    /// Most links followed from the start ([`DEFAULT_MAX_DEPTH`]).
    pub max_depth: Option<u32>,
    /// Paths to crawl only ([`CrawlOptions::include`]).
    pub include: Option<Vec<String>>,
    /// Paths to leave out ([`CrawlOptions::exclude`]).
    pub exclude: Option<Vec<String>>,
    /// Subdomains belong to the site (default false).
    pub subdomains: Option<bool>,
    /// The whole site, not only the start URL's section (default false).
    pub whole_site: Option<bool>,
    /// A changes-crawl: the id of the ended crawl to compare with.
    pub changes: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CrawlOptions {
    /// Scoped to the start URL's section ([`section_of`](crate::scope::section_of)): a
    /// crawl of `/docs/` stays under `/docs/`, as Firecrawl's does unless asked for the
    /// whole domain. A URL without a scheme is read as the guard reads it, over https.
    pub fn within_section(mut self) -> Self {
        let parsed = match url::Url::parse(&self.url) {
            Ok(u) => Some(u),
            Err(_) => url::Url::parse(&format!("https://{}", self.url)).ok(),
        };
        self.section = parsed.and_then(|u| crate::scope::section_of(&u));
        self
    }

    /// A crawl of `url` with the defaults.
    pub fn new(url: impl Into<String>) -> Self {
        CrawlOptions {
            url: url.into(),
            query: None,
            limit: DEFAULT_LIMIT,
            max_depth: DEFAULT_MAX_DEPTH,
            include: Vec::new(),
            exclude: Vec::new(),
            subdomains: false,
            allow_ports: Vec::new(),
            section: None,
            ignore_robots: false,
            concurrency: DEFAULT_CONCURRENCY,
            delay_ms: 0,
            sitemap: true,
            traps: TrapLimits::default(),
            changes_of: None,
            frontier_memory: 0,
        }
    }

    /// The user's delay.
    pub fn delay(&self) -> Duration {
        Duration::from_millis(self.delay_ms)
    }

    /// Refuses options out of range, naming the field.
    pub fn validate(&self) -> Result<(), TrawlError> {
        if !(1..=MAX_LIMIT).contains(&self.limit) {
            return Err(TrawlError::invalid_input(format!(
                "limit: must be 1-{MAX_LIMIT}"
            )));
        }
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            return Err(TrawlError::invalid_input(format!(
                "concurrency: must be 1-{MAX_CONCURRENCY}"
            )));
        }
        if self.delay_ms > 3_600_000 {
            return Err(TrawlError::invalid_input(
                "delay: at most one hour between requests",
            ));
        }
        if let Some(q) = &self.query
            && crate::rank::Query::new(q).is_none()
        {
            return Err(TrawlError::invalid_input(
                "query: needs at least one word of two letters or more",
            ));
        }
        Ok(())
    }
}
