//! `trawl crawl URL`: a site into the store, politely (robots.txt, Crawl-delay, per-host
//! pace) and resumably; `trawl crawl --changes ID` crawls an ended crawl's site again and
//! says what changed; `trawl crawl list | status ID | cancel ID`.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use clap::{Args, Subcommand};
use serde::Serialize;
use trawl_core::{Envelope, Meta, TrawlError};
use trawl_crawl::{
    ChangeSummary, CrawlEvent, CrawlOptions, CrawlPage, CrawlSummary, Crawler, DEFAULT_CONCURRENCY,
    DEFAULT_LIMIT, DEFAULT_MAX_DEPTH, Observer,
};
use trawl_extract::ExtractOptions;

use crate::context::build_crawl_agent;
use crate::net_args::NetArgs;
use crate::output::{print_json, report_error};
use crate::settings::Settings;

/// `trawl crawl URL [options]`, `trawl crawl --resume ID`, `trawl crawl list|status|cancel`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct CrawlArgs {
    #[command(subcommand)]
    pub action: Option<CrawlCommand>,
    /// The start URL.
    pub url: Option<String>,
    /// Resume a kept crawl by its id (its options are kept with it). Running the same
    /// `trawl crawl URL ...` again resumes an unfinished crawl too.
    #[arg(long, value_name = "ID", conflicts_with = "url")]
    pub resume: Option<String>,
    /// Crawl again what the ended crawl ID crawled, with its options (start URL, scope,
    /// limit, depth, filters, query), as a new crawl that says for every page new, same,
    /// changed (with a diff; the old copy opens with `open HANDLE --version N`) or removed
    /// (404/410, or no longer linked). A URL may be given too: it must be that crawl's start.
    #[arg(
        long,
        value_name = "ID",
        conflicts_with_all = ["resume", "query", "limit", "max_depth", "include", "exclude",
            "subdomains", "allow_port", "whole_site", "ignore_robots", "concurrency", "delay", "no_sitemap"]
    )]
    pub changes: Option<String>,
    /// Best-first: follow the links most relevant to these words first.
    #[arg(long, value_name = "QUERY")]
    pub query: Option<String>,
    /// Most pages stored [default: 100]. With --resume, raises a kept crawl's limit: one
    /// that stopped at its limit goes on from the URLs it left queued.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Most links followed from the start URL (sitemap URLs are at depth 1).
    #[arg(long, default_value_t = DEFAULT_MAX_DEPTH)]
    pub max_depth: u32,
    /// Follow only paths matching this regular expression (repeatable: any of them).
    #[arg(long, value_name = "REGEX")]
    pub include: Vec<String>,
    /// Never follow paths matching this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub exclude: Vec<String>,
    /// Subdomains of the start host belong to the site.
    #[arg(long)]
    pub subdomains: bool,
    /// Another port of the start host that belongs to the site (repeatable). A site is its
    /// scheme, host and port: without it, links to other ports are not followed.
    #[arg(long, value_name = "PORT")]
    pub allow_port: Vec<u16>,
    /// The whole site: without it a start URL with a path (`/docs/`) keeps to the paths
    /// under it, as Firecrawl does.
    #[arg(long)]
    pub whole_site: bool,
    /// Neither fetch nor obey robots.txt (the summary says so).
    #[arg(long)]
    pub ignore_robots: bool,
    /// Requests in flight to one host.
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Seconds to wait after each request to a host (robots.txt's Crawl-delay wins when
    /// longer; any delay means one request at a time).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub delay: f64,
    /// Do not seed the crawl from the site's sitemaps (links only).
    #[arg(long)]
    pub no_sitemap: bool,
    /// Print one Envelope as JSON at the end (summary and pages).
    #[arg(long, global = true)]
    pub json: bool,
    /// Print one JSON line per page as it is stored, then the summary as the last line.
    #[arg(long)]
    pub jsonl: bool,
    #[command(flatten)]
    pub net: NetArgs,
}

#[derive(Debug, Subcommand)]
pub enum CrawlCommand {
    /// Every kept crawl, newest first.
    List,
    /// One crawl: status, counts, summary, and its pages (URL, title, handle).
    Status {
        /// The crawl's id.
        id: String,
    },
    /// Ask a crawl to stop (the process running it stops after its pages in flight).
    Cancel {
        /// The crawl's id.
        id: String,
    },
    /// Write a crawl's stored pages out: Markdown files and index.jsonl (--out DIR), or
    /// one JSON line a page on stdout (--jsonl). Nothing is fetched again.
    Export {
        /// The crawl's id.
        id: String,
        /// A new or empty folder: one Markdown file a page, paths mirroring the URLs
        /// (host/path.md), and index.jsonl (url, title, handle, status, fetched_at, file).
        #[arg(long, value_name = "DIR", required_unless_present = "jsonl")]
        out: Option<std::path::PathBuf>,
        /// One JSON line a page on stdout, its Markdown included.
        #[arg(long, conflicts_with = "out")]
        jsonl: bool,
    },
}

fn meta(started: Instant) -> Meta {
    Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    }
}

/// The URLs `crawl status` lists: those read and those that failed.
const LISTED: [trawl_crawl::UrlState; 2] =
    [trawl_crawl::UrlState::Done, trawl_crawl::UrlState::Failed];

/// `crawl status ID --json`: the crawl's standing and its pages.
#[derive(Serialize)]
struct StatusOut<'a> {
    #[serde(flatten)]
    status: &'a trawl_crawl::CrawlStatus,
    pages: Vec<ListedPage>,
}

/// A page as `crawl status` lists it.
#[derive(Serialize)]
struct ListedPage {
    url: String,
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    handle: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

impl ListedPage {
    fn of(row: &trawl_crawl::CrawlUrl) -> Self {
        ListedPage {
            url: row.url.clone(),
            state: row.state.as_str(),
            title: row.title.clone(),
            handle: row.handle.clone(),
            status: row.status,
            detail: row.detail.clone(),
        }
    }

    /// One line of the human listing: a read page by its handle and title, a failed one
    /// by why.
    fn line(&self) -> String {
        match &self.handle {
            Some(handle) => format!(
                "  {handle}  {}  {}",
                self.url,
                self.title.as_deref().unwrap_or("(untitled)")
            ),
            None => format!(
                "  failed{}  {}  {}",
                self.status.map(|s| format!(" {s}")).unwrap_or_default(),
                self.url,
                self.detail.as_deref().unwrap_or("")
            ),
        }
    }
}

#[derive(Serialize)]
struct CrawlOut<'a> {
    summary: &'a CrawlSummary,
    pages: Vec<CrawlPage>,
}

/// Runs `trawl crawl`.
pub async fn crawl(args: &CrawlArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let (agent, host_slots) = match build_crawl_agent(settings) {
        Ok(a) => a,
        Err(e) => return report_error(&e, args.json, meta(started)),
    };
    let store = agent.store().clone();
    if args.json && args.jsonl {
        let e = TrawlError::invalid_input("give --json or --jsonl, not both");
        return report_error(&e, true, meta(started));
    }
    match &args.action {
        Some(CrawlCommand::List) => {
            return match trawl_crawl::list(&store).await {
                Ok(list) if args.json => {
                    print_json(&Envelope::success(&list, meta(started)));
                    0
                }
                Ok(list) => {
                    for c in &list {
                        let done = c.urls.get("done").copied().unwrap_or(0);
                        let queued = c.urls.get("queued").copied().unwrap_or(0);
                        let hint = if c.status == "interrupted" {
                            format!("  (its process is gone: trawl crawl --resume {})", c.id)
                        } else {
                            String::new()
                        };
                        println!(
                            "{}  {:<11}  {done} done, {queued} queued  {}{hint}",
                            c.id, c.status, c.start_url
                        );
                    }
                    0
                }
                Err(e) => report_error(&e, args.json, meta(started)),
            };
        }
        Some(CrawlCommand::Status { id }) => {
            let status = match trawl_crawl::status(&store, id).await {
                Ok(st) => trawl_crawl::pages(&store, id, &LISTED, 0, usize::MAX)
                    .await
                    .map(|pages| (st, pages)),
                Err(e) => Err(e),
            };
            return match status {
                Ok((st, pages)) if args.json => {
                    let pages: Vec<ListedPage> = pages.iter().map(ListedPage::of).collect();
                    print_json(&Envelope::success(
                        StatusOut { status: &st, pages },
                        meta(started),
                    ));
                    0
                }
                Ok((st, pages)) => {
                    println!("{}  {}  {}", st.id, st.status, st.start_url);
                    for (state, n) in &st.urls {
                        println!("  {state}: {n}");
                    }
                    if st.cancel_requested {
                        println!("  a stop was asked for");
                    }
                    if !pages.is_empty() {
                        // Titles and addresses are the site's words: inside the fence.
                        let listing: Vec<String> =
                            pages.iter().map(|p| ListedPage::of(p).line()).collect();
                        println!("pages ({}):", pages.len());
                        let code = crate::output::print_fenced(|fence| {
                            fence.wrap(&(listing.join("\n") + "\n"))
                        });
                        if code != 0 {
                            return code;
                        }
                    }
                    if let Some(changes) = st
                        .summary
                        .get("changes")
                        .and_then(|c| serde_json::from_value(c.clone()).ok())
                    {
                        print!("{}", changes_text(&changes));
                    }
                    0
                }
                Err(e) => report_error(&e, args.json, meta(started)),
            };
        }
        Some(CrawlCommand::Export { id, out, jsonl }) => {
            let to = match (out, jsonl) {
                (Some(dir), _) => super::crawl_export::ExportTo::Folder(dir),
                _ => super::crawl_export::ExportTo::Stdout,
            };
            return match super::crawl_export::export(&store, id, to).await {
                Ok(done) => {
                    if let Some(dir) = out {
                        if args.json {
                            print_json(&Envelope::success(
                                serde_json::json!({
                                    "id": id, "out": dir, "written": done.written,
                                    "missing": done.missing,
                                }),
                                meta(started),
                            ));
                        } else {
                            println!(
                                "wrote {} pages of crawl {id} to {} (index.jsonl lists them)",
                                done.written,
                                dir.display()
                            );
                        }
                    }
                    if done.missing > 0 {
                        eprintln!(
                            "warning: {} pages' stored copies are gone (the cache was cleared); index.jsonl says which",
                            done.missing
                        );
                    }
                    0
                }
                Err(e) => report_error(&e, args.json, meta(started)),
            };
        }
        Some(CrawlCommand::Cancel { id }) => {
            return match trawl_crawl::cancel(&store, id).await {
                Ok(()) => {
                    if args.json {
                        print_json(&Envelope::success(
                            serde_json::json!({"id": id}),
                            meta(started),
                        ));
                    } else {
                        println!("asked crawl {id} to stop");
                    }
                    0
                }
                Err(e) => report_error(&e, args.json, meta(started)),
            };
        }
        None => {}
    }
    let fetcher = match agent.fetcher() {
        Ok(f) => f.clone(),
        Err(e) => return report_error(&e, args.json, meta(started)),
    };
    // The command's crawler extracts with the default options, as it always has.
    let config = settings.crawl_config(ExtractOptions::default());
    let mut crawler = match Crawler::new(fetcher, store.clone()).with_user_agent(&config.user_agent)
    {
        Ok(c) => c.with_lease(config.lease),
        Err(e) => return report_error(&e, args.json, meta(started)),
    };
    if let Some(slots) = host_slots {
        crawler = crawler.with_shared_limiter(slots);
    }
    // The one async worker main.rs gives a crawl on a small machine extracts too. On more
    // cores (one worker only by TOKIO_WORKER_THREADS) the blocking threads extract in
    // parallel.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let one_worker = crate::crawls_on_one_worker(cores)
        && tokio::runtime::Handle::current().metrics().num_workers() == 1;
    crawler = crawler.extracting_in_place(one_worker);
    let changes = match &args.changes {
        Some(old) => match crawler.changes_options(old, args.url.as_deref()).await {
            Ok(o) => Some(o),
            Err(e) => return report_error(&e, args.json, meta(started)),
        },
        None => None,
    };
    let resume = match (&args.resume, &args.url) {
        (Some(id), _) => Some(id.clone()),
        (None, _) if changes.is_some() => None,
        (None, Some(url)) => match options(args, url) {
            Ok(o) => unfinished(&store, &o).await,
            Err(e) => return report_error(&e, args.json, meta(started)),
        },
        (None, None) => {
            let e = TrawlError::invalid_input("give a URL to crawl, --resume ID or --changes ID");
            return report_error(&e, args.json, meta(started));
        }
    };
    let pages: Arc<Mutex<Vec<CrawlPage>>> = Arc::new(Mutex::new(Vec::new()));
    let bar = progress_bar(args);
    let observer = observer(args, pages.clone(), bar.clone());
    let running = match (&resume, changes) {
        (_, Some(o)) => crawler.start(o, Some(observer)).await,
        (Some(id), None) => {
            if args.resume.is_some()
                && let Some(note) = nothing_to_resume(&store, id, args.limit).await
            {
                eprintln!("{note}");
                return 0;
            }
            if !args.json && !args.jsonl {
                match args.limit {
                    Some(n) => eprintln!("resuming crawl {id} with a limit of {n} pages"),
                    None => eprintln!("resuming crawl {id}"),
                }
            }
            crawler
                .resume_extended(id, args.limit, Some(observer))
                .await
        }
        (None, None) => match options(args, args.url.as_deref().unwrap_or_default()) {
            Ok(o) => crawler.start(o, Some(observer)).await,
            Err(e) => Err(e),
        },
    };
    let running = match running {
        Ok(r) => r,
        Err(e) => return report_error(&e, args.json, meta(started)),
    };
    let id = running.id.clone();
    if bar.is_none() && !args.json && !args.jsonl && std::io::stderr().is_terminal() {
        eprintln!("crawl {id} started");
    }
    // Ctrl-C stops the crawl after its pages in flight; it can be resumed.
    let cancel_on_signal = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let wait = running.wait();
    tokio::pin!(wait);
    let mut interrupted = false;
    let summary = tokio::select! {
        s = &mut wait => s,
        _ = cancel_on_signal => {
            interrupted = true;
            let _ = trawl_crawl::cancel(&store, &id).await;
            wait.await
        }
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let summary = match summary {
        Ok(s) => s,
        Err(e) => return report_error(&e, args.json, meta(started)),
    };
    if args.json {
        let pages = std::mem::take(&mut *pages.lock().unwrap_or_else(PoisonError::into_inner));
        print_json(&Envelope::success(
            CrawlOut {
                summary: &summary,
                pages,
            },
            meta(started),
        ));
    } else if args.jsonl {
        let line = serde_json::json!({ "summary": &summary });
        println!("{line}");
    } else {
        print!("{}", human(&summary));
    }
    if interrupted {
        // As a shell expects of Ctrl-C (128 + SIGINT), with the way back.
        eprintln!("interrupted: crawl {id} stopped; `trawl crawl --resume {id}` goes on");
        return 130;
    }
    i32::from(summary.status == "failed")
}

/// Why `--resume ID` has nothing to do: the crawl has ended and `limit` does not raise
/// its limit. `None` when it should go on (or when the crawl is unknown: the resume says
/// so itself).
async fn nothing_to_resume(
    store: &trawl_store::SharedStore,
    id: &str,
    limit: Option<usize>,
) -> Option<String> {
    let st = trawl_crawl::status(store, id).await.ok()?;
    if st.status != "done" {
        return None;
    }
    let kept_limit = st.summary["progress"]["limit"].as_u64();
    // A raised limit goes on; a lowered one is refused by the resume itself.
    if limit.is_some_and(|l| kept_limit.is_none_or(|k| l as u64 != k)) {
        return None;
    }
    let done = st.urls.get("done").copied().unwrap_or(0);
    let more = if st.summary.get("limit_reached") == Some(&serde_json::Value::Bool(true)) {
        format!(
            "it stopped at its limit of {} pages: `trawl crawl --resume {id} --limit N` goes on",
            kept_limit.unwrap_or_default()
        )
    } else {
        format!("`trawl crawl --changes {id}` crawls its site again and says what changed")
    };
    Some(format!(
        "crawl {id} has ended ({done} pages stored); nothing is left to resume: {more}"
    ))
}

fn options(args: &CrawlArgs, url: &str) -> Result<CrawlOptions, TrawlError> {
    if !(args.delay.is_finite() && args.delay >= 0.0) {
        return Err(TrawlError::invalid_input(
            "delay: must be a number of seconds, 0 or more",
        ));
    }
    let mut o = CrawlOptions::new(url);
    o.query = args.query.clone();
    o.limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    o.max_depth = args.max_depth;
    o.include = args.include.clone();
    o.exclude = args.exclude.clone();
    o.subdomains = args.subdomains;
    o.allow_ports = args.allow_port.clone();
    if !args.whole_site {
        o = o.within_section();
    }
    o.ignore_robots = args.ignore_robots;
    o.concurrency = args.concurrency;
    o.delay_ms = (args.delay * 1000.0).round() as u64;
    o.sitemap = !args.no_sitemap;
    o.validate()?;
    Ok(o)
}

/// A kept crawl with the same options that did not finish and that no process has
/// written for a while (one still running elsewhere writes every second).
async fn unfinished(store: &trawl_store::SharedStore, o: &CrawlOptions) -> Option<String> {
    let wanted = serde_json::to_value(o).ok()?;
    let list = trawl_crawl::list(store).await.ok()?;
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    list.into_iter()
        .find(|c| {
            (c.status == "interrupted"
                || matches!(c.status.as_str(), "running" | "failed")
                    && now.saturating_sub(c.updated_ms) > 10_000)
                && c.urls.get("queued").copied().unwrap_or(0)
                    + c.urls.get("fetching").copied().unwrap_or(0)
                    > 0
                && (c.summary.get("progress").is_some() || c.status == "interrupted")
                && crawl_options_of(store, &c.id, &wanted)
        })
        .map(|c| c.id)
}

fn crawl_options_of(
    store: &trawl_store::SharedStore,
    id: &str,
    wanted: &serde_json::Value,
) -> bool {
    store
        .store()
        .crawl_state()
        .and_then(|c| c.get_crawl(id).ok().flatten())
        .is_some_and(|r| &r.options == wanted)
}

fn progress_bar(args: &CrawlArgs) -> Option<indicatif::ProgressBar> {
    if args.json || args.jsonl || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(args.limit.unwrap_or(DEFAULT_LIMIT) as u64);
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} pages  {rate}  eta {eta}  {msg}",
    )
    .map(|s| {
        s.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate_text(state.per_sec()));
            },
        )
    })
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

fn observer(
    args: &CrawlArgs,
    pages: Arc<Mutex<Vec<CrawlPage>>>,
    bar: Option<indicatif::ProgressBar>,
) -> Observer {
    let (json, jsonl) = (args.json, args.jsonl);
    Arc::new(move |event: CrawlEvent<'_>| {
        let progress = match event {
            CrawlEvent::Page(page, progress) => {
                if jsonl && let Ok(line) = serde_json::to_string(page) {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "{line}");
                }
                if json {
                    pages
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(page.clone());
                }
                progress
            }
            CrawlEvent::Progress(progress) => progress,
        };
        if let Some(bar) = &bar {
            bar.set_length(progress.limit);
            // A resumed crawl starts with pages done before: its rate and ETA count from
            // there, not from zero.
            let first = bar.position() == 0 && progress.done > 0 && progress.elapsed_ms < 1_000;
            bar.set_position(progress.done);
            if first {
                bar.reset_eta();
            }
            bar.set_message(format!(
                "{} queued, {} failed",
                progress.queued, progress.failed
            ));
        }
    })
}

/// Pages a second as a person reads it: whole numbers, one decimal below 10.
fn rate_text(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        return "-- pages/s".to_owned();
    }
    if per_sec < 10.0 {
        format!("{per_sec:.1} pages/s")
    } else {
        format!("{per_sec:.0} pages/s")
    }
}

fn human(s: &CrawlSummary) -> String {
    let p = &s.progress;
    let mut out = format!(
        "crawl {} {}: {} pages stored, {} failed, {} duplicates, {} still queued ({:.1} s)\n",
        s.id,
        s.status,
        p.done,
        p.failed,
        p.duplicates,
        p.queued,
        p.elapsed_ms as f64 / 1000.0
    );
    out.push_str(&format!("  robots.txt: {}", s.robots));
    if !s.robots_hosts.is_empty() {
        out.push_str(&format!(" ({})", s.robots_hosts.join(", ")));
    }
    out.push('\n');
    if let Some(d) = s.delay_ms {
        out.push_str(&format!("  delay between requests: {d} ms\n"));
    }
    if s.limit_reached {
        out.push_str(&format!(
            "  stopped at the limit of {} pages (go on: trawl crawl --resume {} --limit N)\n",
            p.limit, s.id
        ));
    }
    for (n, what) in [
        (s.disallowed, "disallowed by robots.txt, never requested"),
        (s.traps, "stopped by a trap guard"),
        (s.beyond_depth, "beyond --max-depth"),
        (s.filtered, "left out by --include/--exclude"),
        (s.off_site, "on other sites, not followed"),
    ] {
        if n > 0 {
            out.push_str(&format!("  {n} URLs {what}\n"));
        }
    }
    for t in &s.trap_examples {
        out.push_str(&format!("    {t}\n"));
    }
    for n in &s.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    if let Some(c) = &s.changes {
        out.push_str(&changes_text(c));
    }
    if s.kept {
        out.push_str(&format!(
            "  next: `trawl open --find WORDS --all` searches what was stored; `trawl crawl status {}`; `trawl crawl --resume {}` goes on\n",
            s.id, s.id
        ));
    }
    out
}

/// A changes-crawl's counts, then its changed and removed URLs.
fn changes_text(c: &ChangeSummary) -> String {
    let mut out = format!(
        "  since crawl {}: {} new, {} changed, {} same, {} removed\n",
        c.compared_with, c.new, c.changed, c.same, c.removed
    );
    for url in &c.changed_urls {
        out.push_str(&format!("    changed: {url}\n"));
    }
    for r in &c.removed_pages {
        out.push_str(&format!("    removed: {} ({})\n", r.url, r.why));
    }
    if c.unknown > 0 {
        out.push_str(&format!(
            "    {} pages of that crawl could not be read now (not a 404/410): how they changed is not known\n",
            c.unknown
        ));
    }
    for (n, listed, what) in [
        (c.changed, c.changed_urls.len(), "changed"),
        (c.removed, c.removed_pages.len(), "removed"),
    ] {
        if n > listed as u64 {
            out.push_str(&format!(
                "    … and {} more {what} (see --jsonl)\n",
                n - listed as u64
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::rate_text;

    #[test]
    fn the_rate_reads_as_pages_a_second() {
        assert_eq!(rate_text(98.1337), "98 pages/s");
        assert_eq!(rate_text(2.345), "2.3 pages/s");
        assert_eq!(rate_text(0.0), "-- pages/s");
        assert_eq!(rate_text(f64::NAN), "-- pages/s");
    }
}
