//! `map`: a site's URLs without reading its pages. Sources, in the order they are asked:
//! robots.txt's `Sitemap:` lines (else `/sitemap.xml`), sitemap indexes and the sitemaps
//! they name (gzipped or not), `/llms.txt`, and the start page with the feeds it links.
//! Every request goes through the [`Fetcher`], so the guard checks every hop.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use trawl_core::{TrawlError, canonical_url};
use trawl_fetch::Fetcher;
use url::Url;

use crate::discover::{self, ListingKind};
use crate::links::page_links;
use crate::rank::Query;
use crate::robots::{Robots, RobotsStatus};
use crate::scope::Scope;

/// Most sitemap files read for one site (an index may name thousands).
pub const MAX_SITEMAP_FILES: usize = 64;
/// Most feeds read from the start page's links.
const MAX_FEEDS: usize = 4;
/// Default `--limit` of `map`.
pub const DEFAULT_MAP_LIMIT: usize = 5_000;

/// Where a URL was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UrlSource {
    /// A sitemap (through robots.txt, `/sitemap.xml` or an index).
    Sitemap,
    /// An RSS or Atom feed linked from the start page.
    Feed,
    /// The site's `/llms.txt`.
    LlmsTxt,
    /// A link on the start page.
    Link,
    /// The start URL itself.
    Start,
}

impl UrlSource {
    /// The name used in output.
    pub fn as_str(self) -> &'static str {
        match self {
            UrlSource::Sitemap => "sitemap",
            UrlSource::Feed => "feed",
            UrlSource::LlmsTxt => "llms_txt",
            UrlSource::Link => "link",
            UrlSource::Start => "start",
        }
    }
}

/// One URL of a site.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MappedUrl {
    /// The URL as the source wrote it (resolved).
    pub url: String,
    /// Where it was found first.
    pub source: UrlSource,
    /// When the source says it last changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lastmod: Option<String>,
    /// A title, from a feed, llms.txt or the anchor text of a link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Relevance to `--search` (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// What `map` is asked.
#[derive(Debug, Clone)]
pub struct MapOptions {
    /// The start URL.
    pub url: String,
    /// Rank the URLs by relevance to this query.
    pub search: Option<String>,
    /// At most this many URLs in the answer.
    pub limit: usize,
    /// Regular expressions a path must match one of.
    pub include: Vec<String>,
    /// Regular expressions a path must match none of.
    pub exclude: Vec<String>,
    /// Subdomains of the start host belong to the site.
    pub subdomains: bool,
    /// Other ports of the start host that belong to the site.
    pub allow_ports: Vec<u16>,
    /// Keep only paths under the start URL's section ([`crate::scope::section_of`]);
    /// false, the whole site.
    pub section_only: bool,
    /// Read the site's sitemaps (default true).
    pub sitemap: bool,
}

impl MapOptions {
    /// Options for `url` with the defaults.
    pub fn new(url: impl Into<String>) -> Self {
        MapOptions {
            url: url.into(),
            search: None,
            limit: DEFAULT_MAP_LIMIT,
            include: Vec::new(),
            exclude: Vec::new(),
            subdomains: false,
            allow_ports: Vec::new(),
            section_only: false,
            sitemap: true,
        }
    }
}

/// A site's URLs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SiteMap {
    /// The start URL as checked.
    pub start: String,
    /// The URLs, ranked when a search was given, at most `limit`.
    pub urls: Vec<MappedUrl>,
    /// How many distinct URLs were found before the limit.
    pub found: usize,
    /// The sitemap files read.
    pub sitemaps: Vec<String>,
    /// How robots.txt came out (`parsed`, `missing`, `unreachable`).
    pub robots: String,
    /// Requests sent (0 when the answer came from the store).
    pub requests: usize,
    /// What could not be read, and why (one line each).
    pub notes: Vec<String>,
    /// The answer is a map made earlier and kept in the store ([`map_site_kept`](crate::map_site_kept)).
    #[serde(default)]
    pub from_store: bool,
    /// How old the kept answer is, in seconds (absent when just made).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_s: Option<u64>,
}

/// Collects URLs once each (by canonical form), merging what later sources add.
#[derive(Default)]
pub(crate) struct Collected {
    pub(crate) urls: Vec<MappedUrl>,
    index: HashMap<String, usize>,
}

impl Collected {
    pub(crate) fn add(
        &mut self,
        url: &Url,
        source: UrlSource,
        lastmod: Option<String>,
        title: Option<String>,
    ) {
        let key = canonical_url(url).to_string();
        if let Some(&i) = self.index.get(&key) {
            let u = &mut self.urls[i];
            if u.lastmod.is_none() {
                u.lastmod = lastmod;
            }
            if u.title.is_none() {
                u.title = title.filter(|t| !t.is_empty());
            }
            return;
        }
        self.index.insert(key, self.urls.len());
        self.urls.push(MappedUrl {
            url: url.to_string(),
            source,
            lastmod,
            title: title.filter(|t| !t.is_empty()),
            score: None,
        });
    }
}

/// Most sitemap URLs one map or crawl collects: past it sitemaps are not read further
/// and the answer says so (a sitemap may list 50,000 URLs and an index 50,000 sitemaps).
pub const MAX_SITEMAP_URLS: usize = 100_000;

/// Reads sitemaps (robots.txt's, else `/sitemap.xml`), following indexes, into `into`,
/// until `into` holds `budget` URLs (at most [`MAX_SITEMAP_URLS`]): each file is read as
/// it inflates and reading stops there, so memory follows the budget, not the sitemaps'
/// size. Returns the sitemap files read and the requests sent.
#[allow(
    clippy::too_many_arguments,
    reason = "a map and a crawl each pass their own fetcher, scope, budget and pace"
)]
pub(crate) async fn read_sitemaps(
    fetcher: &Fetcher,
    origin: &Url,
    robots: &Robots,
    scope: &Scope,
    into: &mut Collected,
    budget: usize,
    notes: &mut Vec<String>,
    pace: Option<(&crate::pace::Pacer, &str)>,
) -> (Vec<String>, usize) {
    let budget = budget.min(MAX_SITEMAP_URLS);
    let mut queue: VecDeque<Url> = robots
        .sitemaps()
        .iter()
        .filter_map(|s| Url::parse(s.trim()).ok())
        .collect();
    if queue.is_empty() {
        let mut guess = origin.clone();
        guess.set_path("/sitemap.xml");
        guess.set_query(None);
        queue.push_back(guess);
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut read = Vec::new();
    let mut requests = 0;
    // Sitemaps an index named past what is read: counted, never queued.
    let mut unread_named = 0usize;
    let mut full = false;
    while let Some(sitemap) = queue.pop_front() {
        if into.urls.len() >= budget {
            full = true;
            unread_named += 1 + queue.len();
            break;
        }
        if !seen.insert(canonical_url(&sitemap).to_string()) {
            continue;
        }
        if !scope.on_site(&sitemap) {
            notes.push(format!("sitemap {sitemap}: not on the site, not read"));
            continue;
        }
        if read.len() >= MAX_SITEMAP_FILES {
            unread_named += 1 + queue.len();
            notes.push(format!(
                "more than {MAX_SITEMAP_FILES} sitemap files; the rest are not read"
            ));
            break;
        }
        requests += 1;
        let pass = match pace {
            Some((pacer, host)) => Some(pacer.enter(host).await),
            None => None,
        };
        let fetched = fetcher.fetch(sitemap.as_str()).await;
        drop(pass);
        let page = match fetched {
            Ok(p) => p,
            Err(e) => {
                notes.push(format!("sitemap {sitemap}: {}", e.message));
                continue;
            }
        };
        // A sitemap answered from elsewhere is not the site's (the crawl's redirects are
        // checked the same way).
        if !scope.on_site(&page.final_url) {
            notes.push(format!(
                "sitemap {sitemap}: redirected off the site to {}, not read",
                page.final_url
            ));
            continue;
        }
        read.push(sitemap.to_string());
        let base = page.final_url.clone();
        let room = MAX_SITEMAP_FILES.saturating_sub(read.len());
        let visited = discover::visit_listing(&page.body, |kind, entry| {
            let Ok(url) = base.join(&entry.loc) else {
                return ControlFlow::Continue(());
            };
            match kind {
                ListingKind::SitemapIndex if queue.len() < room => queue.push_back(url),
                ListingKind::SitemapIndex => unread_named += 1,
                _ if scope.contains(&url) => {
                    if into.urls.len() >= budget {
                        full = true;
                        return ControlFlow::Break(());
                    }
                    into.add(&url, UrlSource::Sitemap, entry.lastmod, entry.title)
                }
                _ => {}
            }
            ControlFlow::Continue(())
        });
        if let Err(e) = visited {
            notes.push(format!("sitemap {sitemap}: {e}"));
        }
    }
    if full {
        notes.push(format!(
            "sitemaps: stopped at {budget} URLs (the most read for this request){}",
            match unread_named {
                0 => String::new(),
                n => format!("; {n} named sitemap file(s) not read"),
            }
        ));
    } else if unread_named > 0 && read.len() < MAX_SITEMAP_FILES {
        notes.push(format!("{unread_named} named sitemap file(s) not read"));
    }
    (read, requests)
}

pub(crate) fn robots_name(status: &RobotsStatus) -> String {
    match status {
        RobotsStatus::Parsed => "parsed".into(),
        RobotsStatus::Missing => "missing".into(),
        RobotsStatus::Unreachable(why) => format!("unreachable ({why})"),
        RobotsStatus::Ignored => "ignored".into(),
    }
}

/// Refuses a limit of 0 (before anything else is checked, so the error names it).
pub(crate) fn check_limit(options: &MapOptions) -> Result<(), TrawlError> {
    if options.limit == 0 {
        return Err(TrawlError::invalid_input("limit: must be at least 1"));
    }
    Ok(())
}

/// Map the site of `options.url`.
pub async fn map_site(fetcher: &Fetcher, options: &MapOptions) -> Result<SiteMap, TrawlError> {
    check_limit(options)?;
    let start = fetcher.guard().check_raw(&options.url, None)?;
    let scope = Scope::new(
        &start,
        options.subdomains,
        &options.include,
        &options.exclude,
    )?
    .with_ports(&options.allow_ports)
    .within(
        options
            .section_only
            .then(|| crate::scope::section_of(&start))
            .flatten()
            .as_deref(),
    );
    let query = match options.search.as_deref() {
        Some(q) => Some(Query::new(q).ok_or_else(|| {
            TrawlError::invalid_input("search: needs at least one word of two letters or more")
        })?),
        None => None,
    };
    // Every hop of every request stays on the site, as a crawl's do.
    let fetcher = &crate::crawler::scoped(fetcher, &scope);
    let mut notes = Vec::new();
    let mut requests = 1;
    let robots = Robots::fetch(fetcher, &start).await;
    let mut found = Collected::default();
    // Without a search the answer is the first `limit` URLs, sitemaps' first: reading
    // stops there. A search ranks every candidate, up to MAX_SITEMAP_URLS.
    let budget = match query {
        Some(_) => MAX_SITEMAP_URLS,
        None => options.limit,
    };
    let (sitemaps, n) = if options.sitemap {
        read_sitemaps(
            fetcher, &start, &robots, &scope, &mut found, budget, &mut notes, None,
        )
        .await
    } else {
        (Vec::new(), 0)
    };
    requests += n;

    let mut llms = start.clone();
    llms.set_path("/llms.txt");
    llms.set_query(None);
    requests += 1;
    if let Ok(page) = fetcher.fetch(llms.as_str()).await {
        let text = String::from_utf8_lossy(&page.body);
        for e in discover::parse_llms_txt(&text, &page.final_url) {
            if let Ok(url) = Url::parse(&e.loc)
                && scope.contains(&url)
            {
                found.add(&url, UrlSource::LlmsTxt, None, e.title);
            }
        }
    }

    if robots.allowed(&start) {
        requests += 1;
        match fetcher.fetch(start.as_str()).await {
            Ok(page) => {
                if scope.contains(&page.final_url) {
                    found.add(&page.final_url, UrlSource::Start, None, None);
                }
                let html = String::from_utf8_lossy(&page.body);
                let links = page_links(&html, &page.final_url);
                for feed in links
                    .feeds
                    .iter()
                    .filter(|f| scope.on_site(f))
                    .take(MAX_FEEDS)
                {
                    requests += 1;
                    match fetcher.fetch(feed.as_str()).await {
                        Ok(fp) => match discover::parse_listing(&fp.body) {
                            Ok(listing) => {
                                for e in listing.entries {
                                    if let Ok(url) = fp.final_url.join(&e.loc)
                                        && scope.contains(&url)
                                    {
                                        found.add(&url, UrlSource::Feed, e.lastmod, e.title);
                                    }
                                }
                            }
                            Err(e) => notes.push(format!("feed {feed}: {e}")),
                        },
                        Err(e) => notes.push(format!("feed {feed}: {}", e.message)),
                    }
                }
                for link in links.links {
                    if scope.contains(&link.url) {
                        found.add(&link.url, UrlSource::Link, None, Some(link.text));
                    }
                }
            }
            Err(e) => notes.push(format!("start page: {}", e.message)),
        }
    } else {
        notes.push("start page: disallowed by robots.txt, not read".into());
    }

    let mut urls = found.urls;
    if let Some(q) = &query {
        for u in &mut urls {
            let parsed = Url::parse(&u.url).ok();
            u.score = parsed.map(|p| q.score(&p, u.title.as_deref()));
        }
        // Stable: equal scores keep the order of discovery.
        urls.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
    }
    let found_count = urls.len();
    // URLs that share no word with the search are not an answer to it, however few.
    if query.is_some() && !urls.first().is_some_and(|u| u.score.unwrap_or(0.0) > 0.0) {
        urls.clear();
        notes.push(format!(
            "search: nothing matched {:?} in the {found_count} URLs found (their paths and \
             titles); try other words, or map without a search",
            options.search.as_deref().unwrap_or_default().trim()
        ));
    }
    urls.truncate(options.limit);
    Ok(SiteMap {
        start: start.to_string(),
        urls,
        found: found_count,
        sitemaps,
        robots: robots_name(&robots.status),
        requests,
        notes,
        from_store: false,
        age_s: None,
    })
}
