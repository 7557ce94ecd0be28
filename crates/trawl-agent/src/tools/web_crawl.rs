//! `web_crawl`: starts a crawl that outlives the call and answers its id at once; called with
//! that id it answers how far the crawl got and a page of the pages stored so far; with
//! `cancel` it stops it; with neither a URL nor an id it lists the crawls. The work is
//! trawl-crawl's [`CrawlService`](trawl_crawl::CrawlService).

use std::fmt::Write;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::TrawlError;
use trawl_crawl::{CrawlRequest, CrawlState, CrawledPage, MAX_LIMIT};

use super::bounds::{ToolArgs, checked, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::{Agent, Progress, invalid};
use crate::fence::Fence;

/// Stored pages answered per call when no page size is given.
pub const DEFAULT_CRAWL_PAGE_SIZE: usize = 50;

/// Start a crawl, see one, cancel one, or list them.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct WebCrawlArgs {
    /// Start a crawl here.
    #[schemars(length(min = 1, max = 4096))]
    pub url: Option<String>,
    /// A crawl's id: its progress and stored pages.
    #[schemars(length(min = 1, max = 100))]
    pub id: Option<String>,
    /// With id: stop the crawl (what it stored stays).
    pub cancel: Option<bool>,
    /// Follow the links most relevant to these words first.
    #[schemars(length(max = 500))]
    pub query: Option<String>,
    /// Most pages stored (default 100).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<usize>,
    /// Most links followed from the start page (default 5).
    #[schemars(range(min = 0, max = 100))]
    pub max_depth: Option<u32>,
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
    /// With id: skip this many stored pages (default 0).
    #[schemars(range(min = 0, max = 1000000))]
    pub offset: Option<usize>,
    /// With id: at most this many stored pages (default 50).
    #[schemars(range(min = 1, max = 500))]
    pub page_size: Option<usize>,
    /// An ended crawl's id: crawl its site again with its options and say for each page
    /// new, same, changed or removed.
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

impl WebCrawlArgs {
    /// The crawl to start, as the crawler takes it (what is left out stays left out: the
    /// server's defaults fill it in).
    pub fn crawl_request(&self) -> CrawlRequest {
        CrawlRequest {
            url: self.url.clone(),
            query: self.query.clone(),
            limit: self.limit,
            max_depth: self.max_depth,
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            subdomains: self.subdomains,
            whole_site: self.whole_site,
            changes: self.changes.clone(),
        }
    }
}

/// What `web_crawl` answers.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct CrawlOut {
    /// What was done: started, status, cancelled or listed.
    pub action: String,
    /// The crawl started, shown or cancelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl: Option<CrawlState>,
    /// Stored pages, from `offset` (status only).
    pub pages: Vec<CrawledPage>,
    /// Pass this as offset for the next stored pages; absent when there are no more yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Every kept crawl, newest first (listed only).
    pub crawls: Vec<CrawlState>,
}

impl Agent {
    /// Starts, shows, cancels or lists crawls, through the crawler this agent was given.
    pub async fn web_crawl(
        &self,
        args: WebCrawlArgs,
        progress: Option<Progress>,
    ) -> Result<CrawlOut, TrawlError> {
        let args = checked(args)?;
        let crawls = self.crawls()?;
        let cancel = args.cancel.unwrap_or(false);
        // A changes-crawl starts from the old crawl's start URL when none is given.
        let starts = args.url.is_some() || args.changes.is_some();
        match (starts, args.id.clone()) {
            (true, Some(_)) if args.changes.is_some() => Err(invalid(
                "changes",
                "starts a new crawl compared with that one: give it without id",
            )),
            (true, Some(_)) => Err(invalid("url", "give either url (to start) or id, not both")),
            (true, None) if cancel => Err(invalid("cancel", "needs the id of a crawl")),
            (true, None) => Ok(CrawlOut {
                action: "started".into(),
                crawl: Some(crawls.start(args.crawl_request(), progress).await?),
                ..CrawlOut::default()
            }),
            (false, Some(id)) if cancel => {
                crawls.cancel(&id).await?;
                Ok(CrawlOut {
                    action: "cancelled".into(),
                    crawl: Some(crawls.status(&id).await?),
                    ..CrawlOut::default()
                })
            }
            (false, Some(id)) => {
                let crawl = crawls.status(&id).await?;
                let offset = args.offset.unwrap_or(0);
                let size = args.page_size.unwrap_or(DEFAULT_CRAWL_PAGE_SIZE);
                // One more than asked tells whether there are more.
                let mut pages = crawls.pages(&id, offset, size + 1).await?;
                let more = pages.len() > size;
                pages.truncate(size);
                let next_offset = (more || crawl.status == "running").then(|| offset + pages.len());
                Ok(CrawlOut {
                    action: "status".into(),
                    crawl: Some(crawl),
                    pages,
                    next_offset,
                    crawls: Vec::new(),
                })
            }
            (false, None) if cancel => Err(invalid("cancel", "needs the id of a crawl")),
            (false, None) => Ok(CrawlOut {
                action: "listed".into(),
                crawls: crawls.list().await?,
                ..CrawlOut::default()
            }),
        }
    }
}

/// The `web_crawl` tool.
#[derive(Debug)]
pub struct WebCrawl;

/// A changes-crawl's counts, then its changed and removed pages (URLs are site text).
fn changes_text(c: &CrawlState, fence: &Fence) -> String {
    let Some(ch) = &c.changes else {
        return String::new();
    };
    let mut text = format!(
        "Since crawl {}: {} new, {} changed, {} same, {} removed.\n",
        ch.compared_with, ch.new, ch.changed, ch.same, ch.removed
    );
    if ch.unknown > 0 {
        let _ = writeln!(
            text,
            "{} of its pages could not be read now (not a 404/410): how they changed is not known.",
            ch.unknown
        );
    }
    let mut listed = String::new();
    for url in &ch.changed_urls {
        let _ = writeln!(listed, "- changed: {url}");
    }
    for r in &ch.removed_pages {
        let handle = r.handle.as_deref().unwrap_or("-");
        let _ = writeln!(listed, "- removed: {} ({}; stored copy {handle})", r.url, r.why);
    }
    if !listed.is_empty() {
        text.push_str(&fence.wrap(&listed));
    }
    text
}

fn state_line(c: &CrawlState) -> String {
    let limit = c.limit.map(|l| format!(" of at most {l}")).unwrap_or_default();
    format!(
        "crawl {}: {}{}, {} page(s) stored{limit}, {} failed, {} waiting",
        c.id,
        c.status,
        if c.cancel_requested && c.status == "running" {
            " (stopping)"
        } else {
            ""
        },
        c.done,
        c.failed,
        c.queued
    )
}

impl Tool for WebCrawl {
    const NAME: &'static str = "web_crawl";
    const TITLE: &'static str = "Crawl a site into the store";
    const DESCRIPTION: &'static str = "Read many pages of one site into the store, politely \
(robots.txt obeyed). Use it when a task needs a site's pages (its docs, a section); web_map \
finds one page cheaper, web_fetch reads a few. With url: starts a crawl (best-first with query) \
and answers its id at once; it goes on after the call. With id: progress and the stored pages' \
handles (open or search them with web_open); with cancel=true, stops it. Neither: lists crawls. \
changes: crawl an ended crawl's site again.";
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: Some(false),
        idempotent: Some(false),
        open_world: true,
    };
    const NEEDS: Needs = Needs::Nothing;
    type Args = WebCrawlArgs;
    type Out = CrawlOut;

    async fn call(
        agent: Agent,
        args: WebCrawlArgs,
        progress: Option<Progress>,
    ) -> Result<CrawlOut, TrawlError> {
        agent.web_crawl(args, progress).await
    }

    fn reports_progress(args: &WebCrawlArgs) -> bool {
        args.url.is_some() || args.changes.is_some()
    }

    fn markdown(out: &CrawlOut, fence: &Fence) -> String {
        let mut text = String::new();
        if let Some(c) = &out.crawl {
            let _ = writeln!(text, "{}.", state_line(c));
            text.push_str(&changes_text(c, fence));
            if out.action == "started" {
                let _ = writeln!(
                    text,
                    "It runs on after this call: call web_crawl with id \"{}\" for progress \
                     and the stored pages' handles.",
                    c.id
                );
            }
        }
        if out.action == "listed" {
            if out.crawls.is_empty() {
                text.push_str("No crawl is kept.\n");
            }
            for c in &out.crawls {
                let _ = writeln!(text, "- {} (from {})", state_line(c), c.start_url);
            }
        }
        if !out.pages.is_empty() {
            let _ = writeln!(
                text,
                "Stored pages (read one with web_open by its handle):"
            );
            let mut listed = String::new();
            for p in &out.pages {
                let _ = write!(listed, "- {} {} ({} words, depth {})", p.handle, p.url, p.words, p.depth);
                if let Some(status) = &p.change_status {
                    let _ = write!(listed, " [{status}");
                    if let (Some(a), Some(r)) = (p.lines_added, p.lines_removed) {
                        let _ = write!(listed, " +{a} -{r}");
                    }
                    if let Some(v) = p.previous_version {
                        let _ = write!(listed, ", old copy: version {v}");
                    }
                    listed.push(']');
                }
                if let Some(title) = &p.title {
                    let _ = write!(listed, " {}", title.replace('\n', " "));
                }
                listed.push('\n');
            }
            text.push_str(&fence.wrap(&listed));
        }
        if let Some(next) = out.next_offset {
            let _ = writeln!(text, "More pages: call again with offset {next}.");
        }
        text
    }

    fn asked(args: &WebCrawlArgs) -> Vec<Asked> {
        let mut asked = Vec::new();
        if let Some(url) = &args.url {
            asked.push(Asked::Url("url", url.clone()));
        }
        if let Some(id) = &args.id {
            asked.push(Asked::Text("id", id.clone()));
        }
        if args.cancel == Some(true) {
            asked.push(Asked::Text("cancel", "true".into()));
        }
        if let Some(old) = &args.changes {
            asked.push(Asked::Text("changes", old.clone()));
        }
        asked
    }

    fn details(out: &CrawlOut) -> Details {
        let mut details = vec![("action", out.action.clone())];
        if let Some(c) = &out.crawl {
            details.push(("crawl", c.id.clone()));
            details.push(("done", c.done.to_string()));
        }
        details
    }
}
