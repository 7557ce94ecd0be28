//! The coordinating loop of one crawl: dispatch from the frontier within the limit and the
//! hosts' pace, take each finished page (duplicate? links? store it), report, and write
//! the crawl's state as it goes so that a killed crawl resumes where it stopped. A shared
//! crawl (see `shared.rs`) dispatches what it claims from the store instead.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use trawl_core::{ErrorCode, TrawlError};
use trawl_fetch::Fetcher;
use trawl_store::{CrawlUrl, PageNotes, SharedStore, UrlOutcome, UrlState};
use trawl_text::diff::ChangeStatus;
use url::Url;

use super::{Begin, Crawler};
use crate::changes::{self, Baseline, PageChange};
use crate::compare::{compare_end, compared, duplicate_change};
use crate::frontier::Waiting;
use crate::journal::{Journal, settle_in, skipped_row};
use crate::page::{self, Keep, Read};
use crate::report::{CrawlEvent, CrawlPage, CrawlSummary, Observer, emit};
use crate::resume::{refold, restore};
use crate::run_state::State;
use crate::scope::Scope;
use crate::{shared, traps};

/// How often a running crawl writes its summary and looks for a cancel request.
pub(crate) const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Most pages in flight at once, whatever the number of hosts.
const MAX_IN_FLIGHT: usize = 32;

enum Output {
    Fetched(Waiting, Box<Result<Read, TrawlError>>),
    /// The page stored (or not), with its key.
    Stored(String, CrawlPage, Result<(), TrawlError>),
}

fn key_of(url: &Url) -> String {
    crate::run_state::key(url).into_owned()
}

/// A fetcher that refuses redirect hops off the crawl's site before they are sent.
pub(crate) fn scoped(fetcher: &Fetcher, scope: &Scope) -> Fetcher {
    let scope = scope.clone();
    fetcher.with_redirect_scope(Arc::new(move |from: &Url, to: &Url| {
        if scope.on_site(to) {
            Ok(())
        } else {
            Err(TrawlError::new(
                ErrorCode::BlockedByPolicy,
                format!("redirect from {from} to {to} leaves the site; not followed"),
            ))
        }
    }))
}

/// What a fetch task needs besides the URL.
#[derive(Clone)]
struct Fetching {
    fetcher: Fetcher,
    journal: Journal,
    pacer: Arc<crate::pace::Pacer>,
    extract: trawl_extract::ExtractOptions,
    store: SharedStore,
    /// A changes-crawl: the old crawl's pages.
    baseline: Option<Arc<Baseline>>,
    /// Any other crawl: an earlier crawl's pages, asked for conditionally.
    revalidate_from: Option<Arc<Baseline>>,
    /// Extract on this worker ([`Crawler::extracting_in_place`]).
    in_place: bool,
}

impl Fetching {
    fn of(st: &State, crawler: &Crawler, fetcher: &Fetcher) -> Self {
        Fetching {
            fetcher: fetcher.clone(),
            journal: st.journal.clone(),
            pacer: st.pacer.clone(),
            extract: crawler.extract_options().clone(),
            store: crawler.store().clone(),
            baseline: st.baseline.clone(),
            revalidate_from: st.revalidate_from.clone(),
            in_place: crawler.in_place(),
        }
    }
}

async fn fetch_task(f: Fetching, w: Waiting) -> Output {
    let Fetching {
        fetcher,
        journal,
        pacer,
        extract,
        store,
        baseline,
        revalidate_from,
        in_place,
    } = f;
    // Asked before the request, so a crawl killed mid-fetch knows to look for it (a
    // shared crawl's claim wrote it already). Not waited for: the committer writes it
    // before anything asked later; a crawl killed before it is written finds the row
    // queued and fetches the page again, as any page it had not stored.
    if !journal.shared()
        && let Err(e) = journal.fetching_soon(w.key.clone()).await
    {
        return Output::Fetched(w, Box::new(Err(e)));
    }
    // A changes-crawl reads what the old crawl stored first (for the validators); any
    // other crawl of a site crawled before, what the earlier crawl stored.
    let previous = match baseline.as_ref().or(revalidate_from.as_ref()) {
        Some(b) => match b.previous(&store, &w.key).await {
            Ok(p) => p,
            Err(e) => return Output::Fetched(w, Box::new(Err(e))),
        },
        None => None,
    };
    let pass = pacer.enter(&State::waiting_host(&w)).await;
    let result = page::read(&fetcher, &w.url, &extract, previous, in_place, move || {
        drop(pass)
    })
    .await;
    Output::Fetched(w, Box::new(result))
}

/// Reads spilled URLs back from the store (in the order they were found) once none waits
/// in memory. Rows the loop has dispatched or settled since are passed over: the seen set
/// in memory is the authority, the store's rows may lag by the pages in flight.
async fn refill(st: &mut State, in_flight: usize) -> Result<(), TrawlError> {
    let rows = st.journal.queued(st.frontier.cap()).await?;
    let mut back = 0;
    for row in rows {
        // A spilled URL is not in memory; one that is, and not queued, was dispatched or
        // settled since.
        if !matches!(st.seen.get(&row.key), None | Some(UrlState::Queued)) {
            continue;
        }
        if let Ok(url) = Url::parse(&row.url) {
            st.queue(row.key, url, row.depth, row.priority, row.run);
            back += 1;
        }
    }
    st.forget_written();
    if back == 0 && in_flight == 0 {
        // Nothing in flight can still write a row: whatever was counted is gone.
        back = st.frontier.spilled();
    }
    st.frontier.unspill(back);
    Ok(())
}

/// Runs one crawl (new or resumed) to its end, cancellation or failure.
pub(crate) async fn drive(
    crawler: Crawler,
    id: String,
    options: crate::options::CrawlOptions,
    created: SystemTime,
    begin: Begin,
    observer: Option<Observer>,
    cancel: CancellationToken,
) -> Result<CrawlSummary, TrawlError> {
    let begun = crawler
        .fetcher()
        .guard()
        .check_raw(&options.url, None)
        .and_then(|start| {
            let scope = Scope::new(
                &start,
                options.subdomains,
                &options.include,
                &options.exclude,
            )?
            .with_ports(&options.allow_ports)
            .within(options.section.as_deref());
            Ok((start, scope))
        });
    let (start, scope) = match begun {
        Ok(begun) => begun,
        Err(e) => {
            // A crawl that cannot even begin (kept options no longer valid) ends failed,
            // never left `running`.
            let journal = Journal::new(crawler.store().clone(), id.clone());
            if let Ok(Some(mut record)) = journal.record().await {
                record.status = "failed".into();
                record.updated_at = SystemTime::now();
                let _ = journal.put(record).await;
            }
            return Err(e);
        }
    };
    let fetcher = scoped(crawler.fetcher(), &scope);
    let journal = Journal::new(crawler.store().clone(), id.clone()).committing();
    let mut st = State::new(id, options, scope, journal.clone(), crawler.pacer().clone());
    if !journal.kept() {
        st.summary
            .notes
            .push("this store does not keep crawls: this one cannot be resumed".into());
    }
    let outcome = async {
        if let Some(old) = st.options.changes_of.clone() {
            st.baseline = Some(Arc::new(Baseline::load(crawler.store(), &old).await?));
        } else if !st.shared
            && let Some(earlier) = earlier_crawl(crawler.store(), &st.id, start.as_str()).await
        {
            st.revalidate_from = Some(Arc::new(Baseline::load(crawler.store(), &earlier).await?));
        }
        let new = matches!(begin, Begin::New);
        let new_rows = match begin {
            Begin::New => st.seed(&fetcher, &start).await,
            Begin::Resume(rows) => {
                restore(&mut st, crawler.store(), rows, created).await?;
                st.learn_hosts(&fetcher, &[&start]).await;
                Vec::new()
            }
            Begin::Join => {
                st.learn_hosts(&fetcher, &[&start]).await;
                refold(&mut st, crawler.store()).await?;
                Vec::new()
            }
        };
        journal.add(new_rows).await?;
        st.forget_written();
        if st.shared && new {
            // Seeded (other processes join it only now that it has URLs): the record with
            // the summary's limit.
            journal.put(st.record("running")).await?;
        }
        let p = st.progress(0);
        emit(&observer, CrawlEvent::Progress(&p));
        crawl_loop(&mut st, &crawler, &fetcher, &observer, &cancel, created).await
    }
    .await;
    let status = match &outcome {
        Ok(true) => "cancelled",
        // Nothing stored because the start URL itself could not be read: the crawl failed,
        // and says why (a host that is down is not a crawl of an empty site).
        Ok(false) if st.summary.progress.done == 0 && st.start_failed.is_some() => "failed",
        Ok(false) => "done",
        Err(_) => "failed",
    };
    if status == "failed"
        && let Some(why) = &st.start_failed
    {
        st.summary
            .notes
            .push(format!("the start URL could not be read: {why}"));
    }
    st.summary.status = status.into();
    if st.shared && outcome.is_ok() {
        shared::count_all(&mut st).await?;
    }
    st.summary.limit_reached = st.summary.progress.done >= st.options.limit as u64
        && (st.frontier.len() > 0 || st.store_queued > 0);
    st.progress(0);
    if let Err(e) = &outcome {
        st.summary.notes.push(format!("stopped: {}", e.message));
    }
    if st.baseline.is_some() {
        compare_end(&mut st, &observer, matches!(outcome, Ok(false))).await?;
    }
    if let Some(earlier) = st.revalidate_from.as_ref().filter(|_| st.not_modified > 0) {
        let note = format!(
            "{} pages had not changed since crawl {} (asked with its copies' validators, \
             answered 304: not downloaded again)",
            st.not_modified, earlier.id
        );
        st.summary.notes.push(note);
    }
    if !st.shared {
        journal.put(st.record(status)).await?;
        // Every write queued before the record is answered by now.
        journal.failure()?;
    } else if outcome.is_ok() {
        // Once, by whichever process saw the end first. A process that failed leaves the
        // crawl running for the others (and for a resume).
        journal.end(st.record(status)).await?;
    }
    outcome.map(|_| st.summary)
}

/// The loop; `Ok(true)` when it was cancelled.
async fn crawl_loop(
    st: &mut State,
    crawler: &Crawler,
    fetcher: &Fetcher,
    observer: &Option<Observer>,
    cancel: &CancellationToken,
    created: SystemTime,
) -> Result<bool, TrawlError> {
    let mut tasks: JoinSet<Output> = JoinSet::new();
    // Pages dispatched and not yet stored or given up: they count against the limit.
    let mut pending = 0usize;
    let mut stopping = false;
    // A shared crawl renews its leases at each tick: three times within a lease.
    let every = if st.shared {
        CHECK_EVERY.min(crawler.lease / 3)
    } else {
        CHECK_EVERY
    };
    let mut ticker = tokio::time::interval(every);
    let mut last_write = Instant::now();
    // A shared crawl: the keys this process holds leases on, and when to claim again.
    let mut leased: HashSet<String> = HashSet::new();
    let mut next_claim = tokio::time::Instant::now();
    let mut ended_elsewhere = false;
    loop {
        // A write queued without waiting failed: the crawl's rows would no longer hold.
        st.journal.failure()?;
        let parallel = (st.options.concurrency * st.robots.len().max(1)).min(MAX_IN_FLIGHT);
        if st.shared {
            if !stopping && tasks.len() < parallel && tokio::time::Instant::now() >= next_claim {
                let claimed = st
                    .journal
                    .claim(parallel - tasks.len(), crawler.lease, st.options.limit)
                    .await?;
                if claimed.is_empty() {
                    if tasks.is_empty() && shared::finished(st).await? {
                        return Ok(false);
                    }
                    next_claim = tokio::time::Instant::now() + shared::CLAIM_AGAIN;
                }
                for c in claimed {
                    if let Some(page) =
                        shared::stored_already(st, crawler.store(), &c, created).await?
                    {
                        let p = st.progress(tasks.len());
                        emit(observer, CrawlEvent::Page(&page, &p));
                        continue;
                    }
                    let u = c.url;
                    if leased.contains(&u.key) {
                        // Ours, still in flight: its lease ran out between renewals and
                        // this claim took it back; the fetch already running settles it.
                        continue;
                    }
                    let Ok(url) = Url::parse(&u.url) else {
                        let outcome = UrlOutcome {
                            detail: Some("not a URL".into()),
                            ..UrlOutcome::default()
                        };
                        st.journal.settle(u.key, UrlState::Failed, outcome).await?;
                        continue;
                    };
                    st.seen.insert(u.key.clone(), UrlState::Fetching);
                    leased.insert(u.key.clone());
                    pending += 1;
                    tasks.spawn(fetch_task(
                        Fetching::of(st, crawler, fetcher),
                        Waiting::claimed(u.key, url, u.depth, u.priority, u.run),
                    ));
                }
            }
            if stopping && tasks.is_empty() {
                return Ok(!ended_elsewhere);
            }
        } else if !stopping
            && st.frontier.wants_refill()
            && (st.summary.progress.done as usize + pending) < st.options.limit
        {
            refill(st, tasks.len()).await?;
        }
        while !st.shared
            && !stopping
            && tasks.len() < parallel
            && (st.summary.progress.done as usize + pending) < st.options.limit
        {
            let Some(w) = st.frontier.pop() else { break };
            // Claimed meanwhile as another URL's redirect target or canonical page.
            if st.seen.get(&w.key) != Some(&UrlState::Queued) {
                continue;
            }
            st.seen.insert(w.key.clone(), UrlState::Fetching);
            pending += 1;
            tasks.spawn(fetch_task(Fetching::of(st, crawler, fetcher), w));
        }
        if !st.shared && tasks.is_empty() {
            return Ok(stopping);
        }
        tokio::select! {
            Some(joined) = tasks.join_next() => {
                let output = match joined {
                    Ok(o) => o,
                    Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                    Err(e) => return Err(TrawlError::internal(format!("a crawl task ended: {e}"))),
                };
                match output {
                    Output::Fetched(w, result) => {
                        let key = w.key.clone();
                        if let Some(page) = fetched(st, crawler, fetcher, w, *result, &mut tasks).await? {
                            leased.remove(&key);
                            pending -= 1;
                            let p = st.progress(tasks.len());
                            emit(observer, CrawlEvent::Page(&page, &p));
                        }
                    }
                    Output::Stored(key, mut page, result) => {
                        leased.remove(&key);
                        pending -= 1;
                        match result {
                            Ok(()) => st.summary.progress.done += 1,
                            Err(e) => {
                                st.summary.progress.failed += 1;
                                page.status = "failed";
                                page.detail = Some(e.message);
                            }
                        }
                        let p = st.progress(tasks.len());
                        emit(observer, CrawlEvent::Page(&page, &p));
                    }
                }
            }
            _ = ticker.tick() => {
                if last_write.elapsed() >= every {
                    last_write = Instant::now();
                    if let Some(r) = st.journal.record().await? {
                        if r.cancel_requested {
                            cancel.cancel();
                        } else if r.status != "running" {
                            // Another worker of a shared crawl saw it end.
                            ended_elsewhere = true;
                            stopping = true;
                        }
                    }
                    if st.shared {
                        // The record is written once, at the end; the leases held now are
                        // kept.
                        st.journal.renew(leased.iter().cloned().collect(), crawler.lease).await?;
                        shared::finished(st).await?;
                    } else {
                        st.progress(tasks.len());
                        st.journal.put(st.record("running")).await?;
                    }
                }
            }
            _ = cancel.cancelled(), if !stopping => stopping = true,
            _ = tokio::time::sleep_until(next_claim), if st.shared && !stopping && tasks.len() < parallel => {}
        }
    }
}

/// The HTTP status a fetch failed with (a 404, a 500), kept on the page's row so that a
/// status can say "404" rather than only "failed". The fetcher's status errors are worded
/// `HTTP NNN …` (trawl-fetch's `status_failure`); TrawlError carries no status of its own.
fn http_status_of(e: &TrawlError) -> Option<u16> {
    if !matches!(e.code, ErrorCode::NotFound | ErrorCode::HttpError) {
        return None;
    }
    let rest = e.message.strip_prefix("HTTP ")?;
    rest.get(..3)?
        .parse()
        .ok()
        .filter(|s| (400..600).contains(s))
}

/// Takes a fetched page: failed, a duplicate (answered now), or new — its links join the
/// frontier and a store task is started (its page is answered when that task ends).
async fn fetched(
    st: &mut State,
    crawler: &Crawler,
    fetcher: &Fetcher,
    w: Waiting,
    result: Result<Read, TrawlError>,
    tasks: &mut JoinSet<Output>,
) -> Result<Option<CrawlPage>, TrawlError> {
    let mut page = CrawlPage {
        url: w.url.to_string(),
        final_url: None,
        handle: None,
        title: None,
        words: 0,
        depth: w.depth,
        http_status: None,
        status: "done",
        detail: None,
        change: None,
        diff: None,
    };
    let read = match result {
        Ok(r) => r,
        Err(e) => {
            st.summary.progress.failed += 1;
            st.seen.insert(w.key.clone(), UrlState::Failed);
            page.status = "failed";
            if w.depth == 0 && st.start_failed.is_none() {
                st.start_failed = Some(format!("{}: {}", e.code, e.message));
            }
            // A page of the old crawl gone from the site: removed, its stored copy kept.
            let old_handle = st.baseline.as_ref().and_then(|b| b.handle(&w.key));
            if let Some(handle) = old_handle.filter(|_| changes::gone(&e)) {
                page.handle = Some(handle.to_owned());
                let mut change = PageChange::new(ChangeStatus::Removed);
                change.why = Some(format!("gone from the site ({})", e.message));
                st.journal
                    .notes(vec![changes::change_note(
                        &w.key,
                        &page.url,
                        Some(handle),
                        &change,
                    )])
                    .await?;
                page.change = Some(change);
            }
            page.http_status = http_status_of(&e);
            page.detail = Some(e.message);
            st.journal
                .settle(w.key, UrlState::Failed, State::outcome(&page))
                .await?;
            return Ok(Some(page));
        }
    };
    let doc = &read.record.document;
    page.final_url = (read.final_url != w.url).then(|| read.final_url.to_string());
    page.http_status = Some(read.status);
    page.title = doc.title.clone();
    page.words = doc.word_count as u64;
    let canonical = read
        .links
        .canonical
        .clone()
        .or_else(|| {
            doc.canonical_url
                .as_deref()
                .and_then(|c| Url::parse(c).ok())
        })
        .filter(|c| st.scope.on_site(c));
    let aliases: Vec<String> = [
        Some(key_of(&read.final_url)),
        canonical.as_ref().map(key_of),
    ]
    .into_iter()
    .flatten()
    .filter(|k| *k != w.key)
    .collect();
    let done_alias = aliases
        .iter()
        .find(|k| st.seen.get(k) == Some(&UrlState::Done))
        .cloned()
        .map(|original| format!("duplicate of {original}"));
    let mut canonical_row = None;
    let duplicate_of = match done_alias {
        Some(detail) => Some(detail),
        None => match gives_way_to(st, &w, canonical.as_ref()) {
            Some((detail, row)) => {
                canonical_row = row;
                Some(detail)
            }
            None => st
                .folder
                .duplicate_of(&read.record.content_hash, read.signature.as_deref()),
        },
    };
    if let Some(row) = canonical_row {
        st.journal.add_soon(vec![row]).await?;
    }
    if let Some(detail) = duplicate_of {
        st.summary.progress.duplicates += 1;
        st.seen.insert(w.key.clone(), UrlState::Skipped);
        page.status = "skipped";
        page.detail = Some(detail);
        if let Some(change) = duplicate_change(st, &read) {
            st.journal
                .notes(vec![changes::change_note(&w.key, &page.url, None, &change)])
                .await?;
            page.change = Some(change);
        }
        st.journal
            .settle(w.key, UrlState::Skipped, State::outcome(&page))
            .await?;
        return Ok(Some(page));
    }
    let handle = doc.handle.clone();
    page.handle = Some(handle.clone());
    st.seen.insert(w.key.clone(), UrlState::Done);
    st.folder.keep(
        &page.url,
        &read.record.content_hash,
        read.signature.as_deref(),
    );
    // The redirect target and the declared canonical page are this page: never fetched.
    let mut alias_rows = Vec::new();
    for alias in aliases {
        if matches!(st.seen.get(&alias), None | Some(UrlState::Queued)) {
            st.seen.insert(alias.clone(), UrlState::Skipped);
            alias_rows.push(alias);
        }
    }
    // Links, unless this page is as deep as the crawl goes.
    let found: Vec<&Url> = read.links.links.iter().map(|l| &l.url).collect();
    st.ask_store(&found).await?;
    let mut rows = Vec::new();
    if w.depth < st.options.max_depth {
        let on_site: Vec<&Url> = read
            .links
            .links
            .iter()
            .map(|l| &l.url)
            .filter(|u| st.scope.on_site(u))
            .collect();
        st.learn_hosts(fetcher, &on_site).await;
        let relevance = st.query.as_ref().map_or(0.0, |q| {
            let head: String = doc.markdown.chars().take(2000).collect();
            q.coverage(&format!("{} {head}", doc.title.as_deref().unwrap_or("")))
        });
        let shape = traps::shape(&w.url);
        for link in &read.links.links {
            let run = traps::shape_run(&link.url, &shape, w.run);
            let priority =
                |st: &State| st.priority(&link.url, Some(&link.text), w.depth + 1, relevance);
            if let Some(row) = st.consider_link(&link.url, w.depth + 1, run, priority) {
                rows.push(row);
            }
        }
    } else {
        st.summary.beyond_depth += read
            .links
            .links
            .iter()
            .filter(|l| {
                // The key only of a link on the site.
                st.scope.on_site(&l.url) && {
                    let key = crate::run_state::key(&l.url);
                    !st.seen.contains_key(&key) && !st.stored_only.contains(key.as_ref())
                }
            })
            .count() as u64;
    }
    let id = st.id.clone();
    let key = w.key.clone();
    let outcome = State::outcome(&page);
    let same = format!("same page as {}", w.url);
    // Kept for a later changes-crawl, which goes on from them after a 304.
    let validated = read.record.etag.is_some() || read.record.last_modified.is_some();
    let links = changes::links_note(&read.links, validated, |u| st.scope.on_site(u));
    let (how, change) = compared(st, &w.key, &read);
    if read.not_modified && st.baseline.is_none() {
        st.not_modified += 1;
    }
    let alias_new: Vec<CrawlUrl> = alias_rows
        .iter()
        .map(|k| skipped_row(k.clone(), k.clone(), w.depth, handle.clone(), same.clone()))
        .collect();
    // The new rows are queued before any of them can be dispatched, and the committer
    // writes in the order asked: otherwise a link's own fetch and store could finish before
    // its row is added, and the update of a row not yet there would be lost (the page
    // stored, its row still queued).
    st.journal.add_soon(rows).await?;
    st.journal.add_soon(alias_new).await?;
    st.stored_only.clear();
    st.forget_written();
    let store = crawler.store().clone();
    let record = read.record;
    let passages = read.passages;
    let worker = st.journal.worker().map(str::to_owned);
    let committer = st.journal.committer().cloned();
    let stored_key = w.key.clone();
    tasks.spawn(async move {
        let mut page = page;
        let mut change = change;
        if let (Keep::Replace(previous), Some(c)) = (&how, change.as_mut()) {
            let (old, new) = (
                previous.document.markdown.clone(),
                record.document.markdown.clone(),
            );
            let handle = record.handle().to_owned();
            let diff = trawl_text::cpu::run(move || {
                let (before, now) = (format!("{handle} (before)"), format!("{handle} (now)"));
                trawl_text::diff::unified(&old, &new, &before, &now)
            })
            .await;
            c.lines_added = u32::try_from(diff.added).unwrap_or(u32::MAX);
            c.lines_removed = u32::try_from(diff.removed).unwrap_or(u32::MAX);
            page.diff = Some(diff.unified);
        }
        let (note_key, note_url, note_change) = (key.clone(), page.url.clone(), change.clone());
        let note_handle = page.handle.clone();
        let note_id = id.clone();
        let note = move |s: &dyn trawl_store::Store, kept: Option<u32>| {
            let Some(c) = s.crawl_state() else {
                return Ok(());
            };
            let mut notes = PageNotes {
                key: note_key.clone(),
                links,
                change: None,
            };
            if let Some(mut change) = note_change {
                change.previous_version = kept;
                notes.change =
                    changes::change_note(&note_key, &note_url, note_handle.as_deref(), &change)
                        .change;
            }
            if notes.links.is_none() && notes.change.is_none() {
                return Ok(());
            }
            c.put_page_notes(&note_id, &[notes])
        };
        let result = page::keep(
            &store,
            committer.as_ref(),
            record,
            passages,
            how,
            note,
            move |s| {
                let Some(c) = s.crawl_state() else {
                    return Ok(());
                };
                c.set_crawl_url_state(
                    &id,
                    &alias_rows,
                    UrlState::Skipped,
                    &UrlOutcome {
                        detail: Some(same),
                        ..UrlOutcome::default()
                    },
                )?;
                settle_in(c, &id, worker.as_deref(), &key, UrlState::Done, &outcome).map(drop)
            },
        )
        .await;
        if let Some(c) = change.as_mut() {
            c.previous_version = *result.as_ref().unwrap_or(&None);
        }
        page.change = change;
        Output::Stored(stored_key, page, result.map(drop))
    });
    Ok(None)
}

/// The latest ended crawl (not this one) that started at `start`: its stored pages are
/// what a new crawl of the same site asks for conditionally. `None` when there is none, or
/// the store keeps no crawls.
async fn earlier_crawl(store: &SharedStore, this: &str, start: &str) -> Option<String> {
    let (this, start) = (this.to_owned(), start.to_owned());
    store
        .run(move |s| {
            let Some(c) = s.crawl_state() else {
                return Ok(None);
            };
            Ok(c.crawls()?
                .into_iter()
                .filter(|r| r.id != this && r.start_url == start && r.status != "running")
                .max_by_key(|r| r.updated_at)
                .map(|r| r.id))
        })
        .await
        .ok()
        .flatten()
}

/// Whether a page gives way to the page it names as its canonical copy: another page of
/// the site, not read yet, that the crawl would read. A print view or a copy with tracking
/// parameters met first then no longer wins over the article: the canonical page is read
/// in its place (queued at this depth; the row to add when it is new). Never the start
/// page, whose links the crawl needs.
fn gives_way_to(
    st: &mut State,
    w: &Waiting,
    canonical: Option<&Url>,
) -> Option<(String, Option<CrawlUrl>)> {
    let c = canonical.filter(|_| w.depth > 0)?;
    let key = key_of(c);
    if key == w.key {
        return None;
    }
    let detail = format!("duplicate of {c} (its canonical page, read instead)");
    match st.seen.get(&key) {
        Some(UrlState::Queued) => Some((detail, None)),
        Some(_) => None,
        None => {
            let priority = st.priority(c, None, w.depth, 0.0);
            let row = st.consider(c.clone(), w.depth, w.run, priority, false)?;
            Some((detail, Some(row)))
        }
    }
}
