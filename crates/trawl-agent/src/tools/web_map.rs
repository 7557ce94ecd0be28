//! `web_map`: a site's URLs without reading its pages (robots.txt, sitemaps, llms.txt, feeds,
//! the start page), ranked by relevance when given a search. The work is trawl-crawl's
//! [`CrawlService`](trawl_crawl::CrawlService).

use std::fmt::Write;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::TrawlError;
use trawl_crawl::{MapOptions, MapOut};

use super::bounds::{ToolArgs, checked, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::{Agent, Progress};
use crate::fence::Fence;

/// URLs answered when no limit is given.
pub const DEFAULT_MAP_URLS: usize = 100;

/// List a site's URLs.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct WebMapArgs {
    /// The site's start URL.
    #[schemars(length(min = 1, max = 4096))]
    pub url: String,
    /// Rank the URLs by relevance to these words.
    #[schemars(length(max = 500))]
    pub search: Option<String>,
    /// At most this many URLs (default 100).
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<usize>,
    /// Only paths matching one of these regexes.
    #[schemars(length(max = 20), inner(length(min = 1, max = 500)))]
    pub include: Option<Vec<String>>,
    /// No paths matching one of these regexes.
    #[schemars(length(max = 20), inner(length(min = 1, max = 500)))]
    pub exclude: Option<Vec<String>>,
    /// Subdomains belong to the site.
    pub subdomains: Option<bool>,
    /// The whole site, not only paths under the start URL.
    pub whole_site: Option<bool>,
    /// Map again rather than answer from the store.
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

impl WebMapArgs {
    /// The crawler's map options, with the tool's default limit; and whether to map again
    /// rather than answer a kept map.
    pub fn map_options(self) -> (MapOptions, bool) {
        let options = MapOptions {
            url: self.url,
            search: self.search,
            limit: self.limit.unwrap_or(DEFAULT_MAP_URLS),
            include: self.include.unwrap_or_default(),
            exclude: self.exclude.unwrap_or_default(),
            subdomains: self.subdomains.unwrap_or(false),
            allow_ports: Vec::new(),
            section_only: !self.whole_site.unwrap_or(false),
            sitemap: true,
        };
        (options, self.fresh.unwrap_or(false))
    }
}


impl Agent {
    /// A site's URLs, through the crawler this agent was given.
    pub async fn web_map(&self, args: WebMapArgs) -> Result<MapOut, TrawlError> {
        let args = checked(args)?;
        let (options, fresh) = args.map_options();
        self.crawls()?.map(options, fresh).await
    }
}

/// ", from the store (N s old; fresh maps again)" for a kept answer, else nothing.
fn kept_note(out: &MapOut) -> String {
    if !out.from_store {
        return String::new();
    }
    match out.age_s {
        Some(age) => format!(", from the store, made {age} s ago (fresh: true maps again)"),
        None => ", from the store (fresh: true maps again)".to_owned(),
    }
}

/// The `web_map` tool.
#[derive(Debug)]
pub struct WebMap;

impl Tool for WebMap {
    const NAME: &'static str = "web_map";
    const TITLE: &'static str = "Map a site's URLs";
    const DESCRIPTION: &'static str = "List a site's URLs without reading them (robots.txt, sitemaps, llms.txt, feeds, the \
start page's links). Use it first to find the page about something on a site (search ranks \
them), then read the few that matter with web_fetch; web_crawl reads many. Asked again soon, it \
answers from the store.";
    const HINTS: Hints = Hints::reads(true);
    const NEEDS: Needs = Needs::Nothing;
    type Args = WebMapArgs;
    type Out = MapOut;

    async fn call(agent: Agent, args: WebMapArgs, _: Option<Progress>) -> Result<MapOut, TrawlError> {
        agent.web_map(args).await
    }

    fn markdown(out: &MapOut, fence: &Fence) -> String {
        let mut text = String::new();
        let _ = writeln!(
            text,
            "{} of {} URL(s) found (robots.txt {}, {} sitemap file(s){}). Read one with \
             web_fetch; crawl the site with web_crawl.",
            out.urls.len(),
            out.found,
            out.robots,
            out.sitemaps.len(),
            kept_note(out),
        );
        let mut listed = String::new();
        for u in &out.urls {
            let _ = write!(listed, "- {} ({}", u.url, u.source);
            if let Some(lastmod) = &u.lastmod {
                let _ = write!(listed, ", {lastmod}");
            }
            if let Some(score) = u.score {
                let _ = write!(listed, ", score {score:.2}");
            }
            listed.push(')');
            if let Some(title) = &u.title {
                let _ = write!(listed, " {}", title.replace('\n', " "));
            }
            listed.push('\n');
        }
        for note in &out.notes {
            let _ = writeln!(listed, "note: {note}");
        }
        if !listed.is_empty() {
            text.push_str(&fence.wrap(&listed));
        }
        text
    }

    fn asked(args: &WebMapArgs) -> Vec<Asked> {
        let mut asked = vec![Asked::Url("url", args.url.clone())];
        if let Some(search) = &args.search {
            asked.push(Asked::Text("search", search.clone()));
        }
        asked
    }

    fn details(out: &MapOut) -> Details {
        vec![
            ("urls", out.urls.len().to_string()),
            ("found", out.found.to_string()),
        ]
    }
}
