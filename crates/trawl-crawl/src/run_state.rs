//! The coordinating loop's view of a crawl ([`State`]): its frontier and seen set, the
//! decision made once about every URL found (on the site, wanted by the filters, within
//! depth, seen, a trap, allowed by robots.txt), its near-duplicate index and its summary.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use trawl_core::{TrawlError, ascii_lowercase, canonical_text};
use trawl_fetch::Fetcher;
use trawl_store::{CrawlRecord, CrawlUrl, UrlOutcome, UrlState};
use url::Url;

use crate::changes::Baseline;
use crate::dedup::Folder;
use crate::frontier::{Frontier, MEMORY_CAP, Seen, Waiting};
use crate::journal::Journal;
use crate::map::{Collected, read_sitemaps, robots_name};
use crate::options::CrawlOptions;
use crate::pace::Pacer;
use crate::rank::Query;
use crate::report::{CrawlPage, CrawlProgress, CrawlSummary};
use crate::robots::{Robots, RobotsStatus};
use crate::scope::Scope;
use crate::traps;

/// Trap reports kept in a summary (the count covers all of them).
pub(crate) const TRAP_EXAMPLES: usize = 10;

/// [`key`] as an owned string, as the tests name it.
#[cfg(test)]
fn key_of(url: &Url) -> String {
    key(url).into_owned()
}

/// The key of `url` in the seen set and the store: its canonical form's text, borrowed from
/// `url` when that is canonical already or differs by trailing slashes only (most links
/// do), so that a link met before costs no copy to look up.
pub(crate) fn key(url: &Url) -> Cow<'_, str> {
    canonical_text(url)
}

/// `url`'s host, lower case: borrowed unless it has upper case (the `url` crate lowercases
/// the hosts of http(s) URLs), as it is asked of every link.
fn host_of(url: &Url) -> Cow<'_, str> {
    ascii_lowercase(url.host_str().unwrap_or(""))
}

/// The coordinating loop's view of the crawl; see `run.rs`.
pub(crate) struct State {
    pub(crate) id: String,
    pub(crate) options: CrawlOptions,
    pub(crate) scope: Scope,
    pub(crate) query: Option<Query>,
    pub(crate) frontier: Frontier,
    pub(crate) seen: Seen,
    /// Queued URLs whose rows are (or are about to be) in the store, to leave the seen set
    /// once those rows are written (see [`State::forget_written`]).
    pub(crate) to_forget: Vec<String>,
    /// Some URL this crawl has seen is in the store only: a URL not in `seen` may still be
    /// known, and the store is asked (see [`State::ask_store`]).
    pub(crate) forgets: bool,
    /// The keys the store knew of, among those of the page being taken.
    pub(crate) stored_only: HashSet<String>,
    /// URLs that left the seen set whose rows the committer holds, not yet committed: known
    /// without asking the store, until their batch is written.
    pub(crate) unwritten: Arc<std::sync::Mutex<HashSet<String>>>,
    pub(crate) folder: Folder,
    pub(crate) robots: HashMap<String, Arc<Robots>>,
    pub(crate) pacer: Arc<Pacer>,
    pub(crate) journal: Journal,
    pub(crate) summary: CrawlSummary,
    pub(crate) started: Instant,
    /// Its URLs are claimed from the store rather than popped from `frontier` (several
    /// processes work on it; see `Journal::shared`).
    pub(crate) shared: bool,
    /// Queued URLs in the store, as last counted (shared crawls).
    pub(crate) store_queued: u64,
    /// A changes-crawl: the pages of the crawl it compares with.
    pub(crate) baseline: Option<Arc<Baseline>>,
    /// Any other crawl of a site crawled before: that crawl's pages, whose stored copies
    /// are asked for conditionally (a 304 costs no body), with nothing reported as changed.
    pub(crate) revalidate_from: Option<Arc<Baseline>>,
    /// Pages answered 304 against `revalidate_from`'s copies.
    pub(crate) not_modified: u64,
    /// Why the start URL could not be read, when it could not: a crawl that stored nothing
    /// then ends `failed` with this reason, not `done` with nothing.
    pub(crate) start_failed: Option<String>,
    /// Rows this run of the crawl made (URLs queued or skipped), held to [`url_budget`].
    pub(crate) rows_made: usize,
}

impl State {
    pub(crate) fn new(
        id: String,
        options: CrawlOptions,
        scope: Scope,
        journal: Journal,
        pacer: Arc<Pacer>,
    ) -> Self {
        let query = options.query.as_deref().and_then(Query::new);
        // Spilled URLs are read back from the store: only a kept crawl can spill.
        let memory = match (journal.kept(), options.frontier_memory) {
            (false, _) => usize::MAX,
            (true, 0) => MEMORY_CAP,
            (true, n) => n,
        };
        let summary = CrawlSummary {
            id: id.clone(),
            start_url: options.url.clone(),
            status: "running".into(),
            order: if query.is_some() {
                "best_first"
            } else {
                "breadth_first"
            },
            kept: journal.kept(),
            robots: if options.ignore_robots {
                "ignored (--ignore-robots): robots.txt was not read or obeyed".into()
            } else {
                "obeyed".into()
            },
            progress: CrawlProgress {
                limit: options.limit as u64,
                ..CrawlProgress::default()
            },
            owner: crate::owner::this_process(),
            ..CrawlSummary::default()
        };
        State {
            id,
            options,
            scope,
            query,
            frontier: Frontier::with_cap(memory),
            seen: Seen::default(),
            to_forget: Vec::new(),
            unwritten: Default::default(),
            // A shared crawl's queue is the store's: its queued URLs are never held here.
            forgets: journal.shared(),
            stored_only: HashSet::new(),
            folder: Default::default(),
            robots: HashMap::new(),
            pacer,
            shared: journal.shared(),
            store_queued: 0,
            baseline: None,
            revalidate_from: None,
            not_modified: 0,
            start_failed: None,
            rows_made: 0,
            journal,
            summary,
            started: Instant::now(),
        }
    }

    /// Fetches (once) the robots.txt of every host in `urls` not met before, and sets each
    /// new host's pace.
    pub(crate) async fn learn_hosts(&mut self, fetcher: &Fetcher, urls: &[&Url]) {
        let mut new: Vec<&Url> = Vec::new();
        let mut hosts = HashSet::new();
        // A page's links are mostly to its own host, one after another: a host the last
        // link had is settled, without hashing it again (a hundred links a page).
        let mut last: Option<Cow<'_, str>> = None;
        for u in urls {
            let h = host_of(u);
            if last.as_deref() == Some(h.as_ref()) {
                continue;
            }
            if !self.robots.contains_key(h.as_ref()) && hosts.insert(h.clone()) {
                new.push(u);
            }
            last = Some(h);
        }
        for u in new {
            let host = host_of(u).into_owned();
            let robots = if self.options.ignore_robots {
                Robots::ignored()
            } else {
                // One request at a time for robots.txt, unless another crawl of this
                // process paces the host already.
                if !self.pacer.knows(&host) {
                    self.pacer.configure(&host, 1, Duration::ZERO);
                }
                let pass = self.pacer.enter_here(&host).await;
                let r = Robots::fetch(fetcher, u).await;
                drop(pass);
                r
            };
            let delay = robots
                .crawl_delay()
                .unwrap_or_default()
                .max(self.options.delay());
            self.pacer.configure(&host, self.options.concurrency, delay);
            if self.summary.delay_ms.is_none() && !delay.is_zero() {
                self.summary.delay_ms = Some(delay.as_millis() as u64);
            }
            self.summary
                .robots_hosts
                .push(format!("{host}: {}", robots_name(&robots.status)));
            self.robots.insert(host, Arc::new(robots));
        }
    }

    /// Decides about a URL found at `depth`: a new row for the journal (queued or
    /// skipped), or `None` when it is dropped (seen, off the site, filtered, too deep).
    pub(crate) fn consider(
        &mut self,
        url: Url,
        depth: u32,
        run: u32,
        priority: f64,
        always: bool,
    ) -> Option<CrawlUrl> {
        self.decide(Cow::Owned(url), depth, run, |_| priority, always)
    }

    /// [`State::consider`] for a link a page holds: copied, and its priority reckoned,
    /// only if it is queued (most links of a page were met before).
    pub(crate) fn consider_link(
        &mut self,
        url: &Url,
        depth: u32,
        run: u32,
        priority: impl FnOnce(&Self) -> f64,
    ) -> Option<CrawlUrl> {
        self.decide(Cow::Borrowed(url), depth, run, priority, false)
    }

    fn decide(
        &mut self,
        url: Cow<'_, Url>,
        depth: u32,
        run: u32,
        priority: impl FnOnce(&Self) -> f64,
        always: bool,
    ) -> Option<CrawlUrl> {
        if !self.scope.on_site(&url) {
            self.summary.off_site += 1;
            return None;
        }
        if !always && !self.scope.path_wanted(&url) {
            self.summary.filtered += 1;
            return None;
        }
        if depth > self.options.max_depth {
            self.summary.beyond_depth += 1;
            return None;
        }
        let key = key(&url);
        if self.seen.contains_key(&key) || self.stored_only.contains(key.as_ref()) {
            return None;
        }
        let key = key.into_owned();
        let budget = url_budget(self.options.limit);
        if self.rows_made >= budget {
            self.summary.over_budget += 1;
            if self.summary.over_budget == 1 {
                let note = self.over_budget_note();
                self.summary.notes.push(note);
            }
            return None;
        }
        self.rows_made += 1;
        let priority = priority(self);
        let mut row = CrawlUrl {
            key: key.clone(),
            url: url.as_str().to_owned(),
            depth,
            priority,
            run,
            state: UrlState::Queued,
            handle: None,
            title: None,
            words: 0,
            status: None,
            detail: None,
        };
        let robots_ok = self
            .robots
            .get(host_of(&url).as_ref())
            .is_none_or(|r| r.allowed(&url));
        if let Some(why) = traps::trap(&url, run, &self.options.traps) {
            self.summary.traps += 1;
            if self.summary.trap_examples.len() < TRAP_EXAMPLES {
                self.summary.trap_examples.push(format!("{url}: {why}"));
            }
            row.state = UrlState::Skipped;
            row.detail = Some(why);
        } else if !robots_ok {
            self.summary.disallowed += 1;
            row.state = UrlState::Skipped;
            row.detail = Some("disallowed by robots.txt".into());
            // The start URL behind a robots.txt that could not be reached: the host is down
            // (or refuses), which is the crawl's failure, not an empty site.
            if depth == 0
                && self.start_failed.is_none()
                && let Some(robots) = self.robots.get(host_of(&url).as_ref())
                && let RobotsStatus::Unreachable(why) = &robots.status
            {
                self.start_failed = Some(format!(
                    "its robots.txt could not be read ({why}), so nothing may be fetched"
                ));
            }
        } else if !self.shared {
            self.queue(key, url.into_owned(), depth, priority, run);
            return Some(row);
        } else {
            // A shared crawl's frontier is the store's queue (claimed from there).
            self.to_forget.push(key.clone());
        }
        self.seen.insert(key, row.state);
        Some(row)
    }

    /// Puts a queued URL (its row in the store or about to be) in the frontier; the URLs
    /// that spills leave the seen set once their rows are written.
    pub(crate) fn queue(&mut self, key: String, url: Url, depth: u32, priority: f64, run: u32) {
        self.seen.insert(&key, UrlState::Queued);
        let spilled = self.frontier.push(key, url, depth, priority, run);
        if !spilled.is_empty() {
            self.forgets = true;
            self.to_forget.extend(spilled);
        }
    }

    /// The rows of every URL put in `to_forget` are in the store now: those URLs leave the
    /// seen set, so memory does not grow with the URLs waiting.
    pub(crate) fn forget_written(&mut self) {
        let keys = std::mem::take(&mut self.to_forget);
        // A URL spilled and read back, or dispatched, since is held again: keep it.
        let waiting: Vec<String> = keys
            .into_iter()
            .filter(|k| self.seen.get(k) == Some(&UrlState::Queued))
            .collect();
        self.seen.forget(&waiting);
        if waiting.is_empty() || self.journal.committer().is_none() {
            return;
        }
        // Their rows may still wait in the committer: held as known until written.
        let unwritten = self.unwritten.clone();
        crate::lock::lock(&unwritten).extend(waiting.iter().cloned());
        let written = self.journal.once_written();
        tokio::spawn(async move {
            written.await;
            let mut held = crate::lock::lock(&unwritten);
            for k in &waiting {
                held.remove(k);
            }
        });
    }

    /// Before a page's links are considered: which of those not in memory the store has
    /// seen (only asked once some URL is held in the store alone).
    pub(crate) async fn ask_store(&mut self, urls: &[&Url]) -> Result<(), TrawlError> {
        self.stored_only.clear();
        if !self.forgets {
            return Ok(());
        }
        let mut keys: Vec<String> = urls
            .iter()
            .filter(|u| self.scope.on_site(u))
            .map(|u| key(u))
            .filter(|k| !self.seen.contains_key(k))
            .map(Cow::into_owned)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        if self.journal.committer().is_none() {
            self.stored_only = self.journal.known(keys).await?.into_iter().collect();
            return Ok(());
        }
        // Rows queued and not yet committed are known from memory; the rest are asked of
        // what is committed, without waiting for the committer's next batch.
        let (held, ask): (Vec<String>, Vec<String>) = {
            let unwritten = crate::lock::lock(&self.unwritten);
            keys.into_iter().partition(|k| unwritten.contains(k))
        };
        self.stored_only = held.into_iter().collect();
        self.stored_only.extend(self.journal.known_now(ask).await?);
        Ok(())
    }

    /// The priority of a link: minus its depth breadth-first; best-first, its relevance
    /// (anchor text and path) plus half its parent's, a little less the deeper it is. A
    /// copy-like address (a query, a print or AMP view) waits behind the clean ones of its
    /// depth, so that of two copies of a page the one stored is the cleaner address.
    pub(crate) fn priority(&self, url: &Url, anchor: Option<&str>, depth: u32, parent: f32) -> f64 {
        let base = match &self.query {
            None => -f64::from(depth),
            Some(q) => {
                f64::from(q.score(url, anchor)) + 0.5 * f64::from(parent) - 0.05 * f64::from(depth)
            }
        };
        if copy_like(url) {
            base - 0.5 * if self.query.is_some() { 0.1 } else { 1.0 }
        } else {
            base
        }
    }

    /// Seeds the frontier: the start URL, then the sitemaps' URLs (depth 1), at most
    /// [`sitemap_seeds`] of them.
    pub(crate) async fn seed(&mut self, fetcher: &Fetcher, start: &Url) -> Vec<CrawlUrl> {
        self.learn_hosts(fetcher, &[start]).await;
        let mut rows = Vec::new();
        let p = self.priority(start, None, 0, 0.0) + 1_000.0;
        if let Some(row) = self.consider(start.clone(), 0, 0, p, true) {
            rows.push(row);
        }
        let robots = self.robots.get(host_of(start).as_ref()).cloned();
        if self.options.sitemap
            && let Some(robots) = robots
        {
            let mut found = Collected::default();
            let mut notes = Vec::new();
            let host = host_of(start).into_owned();
            let _ = read_sitemaps(
                fetcher,
                start,
                &robots,
                &self.scope,
                &mut found,
                sitemap_seeds(self.options.limit),
                &mut notes,
                Some((&self.pacer, &host)),
            )
            .await;
            self.summary.notes.extend(notes);
            for u in found.urls {
                if let Ok(url) = Url::parse(&u.url) {
                    let p = self.priority(&url, u.title.as_deref(), 1, 0.0);
                    if let Some(row) = self.consider(url, 1, 0, p, false) {
                        rows.push(row);
                    }
                }
            }
        }
        rows
    }

    /// Why the crawl has `over_budget` URLs: said once.
    pub(crate) fn over_budget_note(&self) -> String {
        format!(
            "stopped keeping new URLs at {}, the most a crawl of {} pages keeps; later links \
             were not followed",
            url_budget(self.options.limit),
            self.options.limit
        )
    }

    pub(crate) fn progress(&mut self, in_flight: usize) -> CrawlProgress {
        let p = &mut self.summary.progress;
        p.queued = if self.shared {
            self.store_queued
        } else {
            self.frontier.len() as u64
        };
        p.in_flight = in_flight as u64;
        p.elapsed_ms = self.started.elapsed().as_millis() as u64;
        p.clone()
    }

    pub(crate) fn outcome(page: &CrawlPage) -> UrlOutcome {
        UrlOutcome {
            handle: page.handle.clone(),
            title: page.title.clone(),
            words: page.words,
            status: page.http_status,
            detail: page.detail.clone(),
        }
    }

    pub(crate) fn record(&self, status: &str) -> CrawlRecord {
        let now = SystemTime::now();
        CrawlRecord {
            id: self.id.clone(),
            start_url: self.summary.start_url.clone(),
            status: status.into(),
            options: serde_json::to_value(&self.options).unwrap_or_default(),
            summary: serde_json::to_value(&self.summary).unwrap_or_default(),
            created_at: now,
            updated_at: now,
            cancel_requested: false,
        }
    }

    pub(crate) fn waiting_host(w: &Waiting) -> Cow<'_, str> {
        host_of(&w.url)
    }
}

/// URLs one run of a crawl of `limit` pages keeps rows for (queued, or skipped with a
/// reason): a hundred a page, at least 10,000, at most 1,000,000. Each row is about 200
/// bytes of SQLite, so a crawl's own rows stay near 20 KB a page of its limit however many
/// links its pages carry.
pub const fn url_budget(limit: usize) -> usize {
    let wanted = limit.saturating_mul(100);
    let wanted = if wanted < 10_000 { 10_000 } else { wanted };
    if wanted < 1_000_000 {
        wanted
    } else {
        1_000_000
    }
}

/// Sitemap URLs a crawl of `limit` pages seeds its frontier with: ten candidates a page
/// (some fail, repeat or fall outside the paths wanted), at least 1,000, at most
/// [`MAX_SITEMAP_URLS`](crate::MAX_SITEMAP_URLS). The rest of a flood is never read, so
/// neither memory nor the crawl's rows in the store grow with it.
pub const fn sitemap_seeds(limit: usize) -> usize {
    let wanted = limit.saturating_mul(10);
    let wanted = if wanted < 1_000 { 1_000 } else { wanted };
    if wanted < crate::MAX_SITEMAP_URLS {
        wanted
    } else {
        crate::MAX_SITEMAP_URLS
    }
}

/// Whether `url` looks like another view of a page: a query, or a print, AMP or mobile
/// path segment ([`trawl_core::is_view_copy`]).
fn copy_like(url: &Url) -> bool {
    url.query().is_some() || trawl_core::is_view_copy(url)
}

#[cfg(test)]
#[path = "run_state_tests.rs"]
mod tests;
