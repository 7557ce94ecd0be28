//! `web_map`: a site's URLs without reading its pages (robots.txt, sitemaps, llms.txt, feeds,
//! the start page), ranked by relevance when given a search. The work is trawl-crawl's,
//! reached through [`SiteCrawls`](super::SiteCrawls).

use std::fmt::Write;

use trawl_core::TrawlError;

use super::bounds::checked;
use super::crawls::{MapOut, WebMapArgs};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::{Agent, Progress};
use crate::fence::Fence;

/// URLs answered when no limit is given.
pub const DEFAULT_MAP_URLS: usize = 100;

impl Agent {
    /// A site's URLs, through the crawler this agent was given.
    pub async fn web_map(&self, args: WebMapArgs) -> Result<MapOut, TrawlError> {
        let args = checked(args)?;
        self.crawls()?.map(args).await
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
    const DESCRIPTION: &'static str = "List a site's URLs without reading its pages: from \
robots.txt, its sitemaps, llms.txt, its feeds and the start page's links, each with where it \
was found and its lastmod when known. Use it first to find the page about something on a site \
(give search to rank the URLs by relevance), then read the few that matter with web_fetch. Use \
web_crawl instead when you need many pages of the site read and stored. A map is kept like a \
read: asked again soon, it answers from the store (fresh: true maps again).";
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
