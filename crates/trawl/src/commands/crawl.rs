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
    /// Most pages stored.
    #[arg(long, default_value_t = DEFAULT_LIMIT)]
    pub limit: usize,
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
    /// One crawl: status, counts, summary.
    Status {
        /// The crawl's id.
        id: String,
    },
    /// Ask a crawl to stop (the process running it stops after its pages in flight).
    Cancel {
        /// The crawl's id.
        id: String,
    },
}

fn meta(started: Instant) -> Meta {
    Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
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
                        println!(
                            "{}  {:<9}  {done} done, {queued} queued  {}",
                            c.id, c.status, c.start_url
                        );
                    }
                    0
                }
                Err(e) => report_error(&e, args.json, meta(started)),
            };
        }
        Some(CrawlCommand::Status { id }) => {
            return match trawl_crawl::status(&store, id).await {
                Ok(st) if args.json => {
                    print_json(&Envelope::success(&st, meta(started)));
                    0
                }
                Ok(st) => {
                    println!("{}  {}  {}", st.id, st.status, st.start_url);
                    for (state, n) in &st.urls {
                        println!("  {state}: {n}");
                    }
                    if st.cancel_requested {
                        println!("  a stop was asked for");
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
    let lease = settings.crawl_config(ExtractOptions::default()).lease;
    let mut crawler = Crawler::new(fetcher, store.clone()).with_lease(lease);
    if let Some(slots) = host_slots {
        crawler = crawler.with_shared_limiter(slots);
    }
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
            if !args.json && !args.jsonl {
                eprintln!("resuming crawl {id}");
            }
            crawler.resume_in_background(id, Some(observer)).await
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
    let summary = tokio::select! {
        s = &mut wait => s,
        _ = cancel_on_signal => {
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
    i32::from(summary.status == "failed")
}

fn options(args: &CrawlArgs, url: &str) -> Result<CrawlOptions, TrawlError> {
    if !(args.delay.is_finite() && args.delay >= 0.0) {
        return Err(TrawlError::invalid_input(
            "delay: must be a number of seconds, 0 or more",
        ));
    }
    let mut o = CrawlOptions::new(url);
    o.query = args.query.clone();
    o.limit = args.limit;
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
            matches!(c.status.as_str(), "running" | "failed")
                && now.saturating_sub(c.updated_ms) > 10_000
                && c.urls.get("queued").copied().unwrap_or(0)
                    + c.urls.get("fetching").copied().unwrap_or(0)
                    > 0
                && c.summary.is_object()
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
    let bar = indicatif::ProgressBar::new(args.limit as u64);
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} pages  {per_sec}  eta {eta}  {msg}",
    )
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
            bar.set_position(progress.done);
            bar.set_message(format!(
                "{} queued, {} failed",
                progress.queued, progress.failed
            ));
        }
    })
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
            "  stopped at the limit of {} pages (raise it with --limit)\n",
            p.limit
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
