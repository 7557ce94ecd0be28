use std::sync::Arc;
use std::time::Instant;

use trawl_core::{Envelope, ErrorCode, Meta, TrawlError};
use trawl_search::{
    Freshness, InMemoryKeyStore, KeyStateStore, Provenance, Route, Router, SafeSearch, SearchData,
    SearchRequest, Selection,
};

use trawl_store::WhenUnwritable;

use crate::cli::SearchArgs;
use crate::context::{open_store, search_config, service_client};
use crate::output::{print_json, report_error};
use crate::settings::Settings;

/// The search router for the CLI: the settings' proxy and keys, key health in the store
/// when it opens (in memory otherwise: a search never fails for want of a store).
pub fn build_router(
    settings: &Settings,
    record: Option<&std::path::Path>,
    replay: Option<&std::path::Path>,
) -> Result<Router, TrawlError> {
    let mut config = search_config(settings);
    config.record_dir = record.map(std::path::Path::to_path_buf);
    config.replay_dir = replay.map(std::path::Path::to_path_buf);
    let opened = open_store(settings, WhenUnwritable::Fail).ok();
    let keys: Arc<dyn KeyStateStore> = match &opened {
        Some(opened) => Arc::new(trawl_agent::tools::StoredKeyStates(opened.store.clone())),
        None => Arc::new(InMemoryKeyStore::default()),
    };
    let mut router = Router::builder(config)
        .client(service_client(settings)?)
        .key_store(keys)
        .hide(crate::redaction::proxy_secrets(settings));
    // Hosts' back-off, as page reads and other processes on the store keep it.
    if let Some(opened) = opened {
        router = router.shared_backoff(Arc::new(trawl_store::StoredBackoff(opened.store)));
    }
    Ok(router.build())
}

fn request(args: &SearchArgs) -> Result<SearchRequest, TrawlError> {
    let query = args.query.join(" ").trim().to_owned();
    if query.is_empty() {
        return Err(TrawlError::invalid_input("the query is empty"));
    }
    // The same bounds as the web_search tool.
    if query.chars().count() > 500 {
        return Err(TrawlError::invalid_input(
            "the query is too long: at most 500 characters",
        ));
    }
    if let Some(q) = args
        .expand
        .iter()
        .find(|q| q.trim().is_empty() || q.chars().count() > 500)
    {
        return Err(TrawlError::invalid_input(format!(
            "--expand {q:?}: each phrasing must be 1-500 characters"
        )));
    }
    if args.page == Some(0) {
        return Err(TrawlError::invalid_input(
            "--page: pages are numbered from 1",
        ));
    }
    let mut req = SearchRequest::new(query);
    req.expand = args.expand.clone();
    // A built-in route, unless the config file defines one by that name (checked when
    // the router plans the search).
    match Route::parse(&args.route) {
        Some(r) => req.route = r,
        None => req.route_name = Some(args.route.trim().to_owned()),
    }
    req.engines = args
        .engines
        .iter()
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    req.max_results = args.max_results;
    let f = &mut req.filters;
    f.site = args.site.clone();
    f.freshness = match &args.freshness {
        Some(s) => Some(Freshness::parse(s).ok_or_else(|| {
            TrawlError::invalid_input(format!("--freshness {s:?}: use day, week, month or year"))
        })?),
        None => None,
    };
    f.safesearch = match &args.safesearch {
        Some(s) => Some(SafeSearch::parse(s).ok_or_else(|| {
            TrawlError::invalid_input(format!("--safesearch {s:?}: use off, moderate or strict"))
        })?),
        None => None,
    };
    f.language = args.language.clone();
    f.region = args.region.clone();
    f.page = args.page;
    req.timeout_ms = args.net.timeout.map(|d| d.0.as_millis() as u64);
    Ok(req)
}

/// `trawl search QUERY`: fused hits from many engines, then one line per engine.
/// Exits 1 only when every engine failed.
pub async fn search(args: &SearchArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let meta = |started: Instant| Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    };
    let prepared = request(args).and_then(|req| {
        let router = build_router(settings, args.record.as_deref(), args.replay.as_deref())?;
        for name in &req.engines {
            if router.engine(name).is_none() {
                return Err(TrawlError::invalid_input(format!(
                    "unknown engine {name:?}{} (see `trawl engines`)",
                    trawl_core::did_you_mean_note(
                        name,
                        trawl_search::engines::all().iter().map(|e| e.name())
                    )
                )));
            }
        }
        router.plan(&req).map_err(TrawlError::invalid_input)?;
        Ok((req, router))
    });
    let (req, router) = match prepared {
        Ok(p) => p,
        Err(err) => return report_error(&err, args.json, meta(started)),
    };
    // Recorded and replayed runs talk to the engines (or their recordings) every time;
    // any other search goes through the store's short-lived cache, as web_search does.
    let mut data = if args.record.is_some() || args.replay.is_some() {
        router.search(&req).await
    } else {
        match crate::context::open_store(settings, trawl_store::WhenUnwritable::UseMemory) {
            Ok(opened) => {
                trawl_agent::tools::search_through_cache(&opened.store, &router, &req, args.fresh)
                    .await
            }
            Err(_) => router.search(&req).await,
        }
    };
    let selection = data.selection.clone();
    let meta = |started: Instant| {
        let mut m = meta(started);
        insert_selection(&mut m, &selection);
        m
    };
    if args.max_tokens.is_some() && args.read_top == 0 {
        let err = TrawlError::invalid_input("--max-tokens only applies with --read-top N");
        return report_error(&err, args.json, meta(started));
    }
    if let Some(n) = args.max_tokens.filter(|n| !(50..=100_000).contains(n)) {
        let err = TrawlError::invalid_input(format!("--max-tokens: must be 50-100000, not {n}"));
        return report_error(&err, args.json, meta(started));
    }
    if args.read_top > 0 && !data.all_failed() {
        match crate::context::build_agent(settings) {
            Ok(agent) => {
                agent
                    .read_hits_within(
                        &mut data,
                        &req.query,
                        args.read_top as usize,
                        args.max_tokens,
                    )
                    .await
            }
            Err(err) => return report_error(&err, args.json, meta(started)),
        }
    }
    if data.all_failed() {
        let why: Vec<String> = data
            .engines
            .iter()
            .map(|e| format!("{} {}", e.engine, e.outcome.as_str()))
            .collect();
        let err = TrawlError::new(
            ErrorCode::Upstream,
            format!("every engine failed ({})", why.join(", ")),
        );
        let mut m = meta(started);
        m.extra.insert(
            "engines".into(),
            serde_json::to_value(&data.engines).unwrap_or_default(),
        );
        if !args.json {
            print_engines(&data, args.verbose);
        }
        return report_error(&err, args.json, m);
    }
    if args.json {
        print_json(&Envelope::success(&data, meta(started)));
    } else {
        print_human(&data, args.verbose);
    }
    0
}

/// Echo how the engines were chosen into the answer's `meta`.
pub fn insert_selection(meta: &mut Meta, selection: &Selection) {
    if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(selection) {
        meta.extra.extend(map);
    }
}

/// The hits (titles, snippets, previews: the web's words) inside one fence, then trawl's
/// lines about the engines.
fn print_human(data: &SearchData, verbose: bool) {
    use std::fmt::Write;
    if data.hits.is_empty() {
        println!("no results for {:?}", data.query);
    }
    let mut body = String::new();
    for h in &data.hits {
        let title = if h.title.is_empty() {
            "(untitled)"
        } else {
            &h.title
        };
        let _ = writeln!(body, "{:>2}. {}", h.rank, one_line(title));
        let _ = writeln!(body, "    {}", h.url);
        if !h.snippet.is_empty() {
            let _ = writeln!(body, "    {}", shorten(&one_line(&h.snippet), 240));
        }
        let votes: Vec<String> = h.provenance.iter().map(Provenance::label).collect();
        let _ = writeln!(body, "    [{}] score {:.4}", votes.join(" "), h.fused_score);
        if let Some(handle) = &h.handle {
            let _ = writeln!(body, "    handle {handle}");
        }
        if let Some(preview) = &h.preview {
            let _ = writeln!(body, "    preview: {}", shorten(&one_line(preview), 400));
        }
        if let Some((code, message)) = read_error(h) {
            println!(
                "    not read: {}",
                crate::errors::error_line(code, &shorten(message, 400))
            );
        }
    }
    let unread = data.hits.iter().filter(|h| read_error(h).is_some()).count();
    if unread > 0 {
        eprintln!("warning: {unread} of the top hits could not be read (see \"not read\" above)");
    }
    if !body.is_empty() && crate::output::print_fenced(|fence| fence.wrap(&body)) != 0 {
        return;
    }
    println!();
    print_engines(data, verbose);
    if let Some(p) = data.next_page {
        println!("more: --page {p}");
    }
}

/// Why `--read-top` could not read a hit: the code and message `read_hits` left in `extra`.
fn read_error(hit: &trawl_search::Hit) -> Option<(&str, &str)> {
    let error = hit.extra.as_ref()?.get("read_error")?;
    Some((
        error.get("code")?.as_str()?,
        error.get("message")?.as_str()?,
    ))
}

/// A transport failure's cause, from the chain of errors that wrapped it ("transport
/// error: error sending request: client error (Connect): tcp connect error: Connection
/// refused (os error 111)"): its last link, or "could not resolve the host" for DNS.
fn transport_cause(detail: &str) -> Option<String> {
    let chain = detail.strip_prefix("transport error: ")?;
    let cause = if chain.contains("dns error") {
        "could not resolve the host (offline, or a DNS problem)"
    } else {
        chain.rsplit(": ").next().unwrap_or(chain)
    };
    Some(format!("transport error: {cause}"))
}

fn print_engines(data: &SearchData, verbose: bool) {
    let mut shortened = false;
    for e in &data.engines {
        let what = match (e.outcome.as_str(), e.status) {
            ("ok", _) => format!("ok ({})", e.count),
            (o, Some(s)) => format!("{o} ({s})"),
            (o, None) => o.to_owned(),
        };
        let q = e.query.map(|q| format!(" q{q}")).unwrap_or_default();
        let detail = e
            .detail
            .as_deref()
            .map(|d| match transport_cause(d).filter(|_| !verbose) {
                Some(cause) => {
                    shortened = true;
                    format!("  {cause}")
                }
                None => format!("  {d}"),
            })
            .unwrap_or_default();
        println!(
            "{:<14} {:<18} {:>6} ms{q}{detail}",
            e.engine, what, e.latency_ms
        );
    }
    if shortened {
        println!("(-v prints each failure's whole error chain)");
    }
}

/// Web text on one line, so a title cannot start lines of its own.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{}…", cut.trim_end())
}
