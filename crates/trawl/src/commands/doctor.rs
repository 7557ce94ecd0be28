use std::time::{Duration, Instant};

use serde::Serialize;
use trawl_core::{Envelope, ErrorCode, Meta, TrawlError};
use trawl_fetch::Fetcher;
use trawl_search::EngineCheck;
use trawl_store::{RedisStore, StoreConfig, redact_url};

use crate::cli::DoctorArgs;
use crate::commands::ocr_check::{OcrCheck, check_ocr, print_ocr};
use crate::commands::search::build_router;
use crate::errors::{ExitStatus, exit_code, print_error};
use crate::output::{print_json, report_error};
use crate::settings::Settings;

/// The page `doctor` reads to check the fetch path.
const PROBE_PAGE: &str = "https://example.com/";

/// What `doctor --json` answers.
#[derive(Debug, Serialize)]
struct DoctorData {
    engines: Vec<EngineCheck>,
    fetch: FetchCheck,
    /// The shared Redis store, when one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<RedisCheck>,
    browser: BrowserCheck,
    /// OCR of images and scans (tesseract): informational, never required.
    #[serde(skip_serializing_if = "Option::is_none")]
    ocr: Option<OcrCheck>,
    /// With a proxy configured: the exit address through it and without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    egress: Option<crate::commands::egress::EgressCheck>,
    /// Whether everything required works: the page fetch and at least one engine of the
    /// default route.
    healthy: bool,
}

#[derive(Debug, Serialize)]
struct FetchCheck {
    url: String,
    ok: bool,
    latency_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

/// The rendering tier's browser: found, started, and answering over CDP.
#[derive(Debug, Serialize)]
struct BrowserCheck {
    /// `auto`, `never` or `always`.
    render: String,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

async fn check_browser(settings: &Settings, deadline: Duration) -> BrowserCheck {
    let mut check = BrowserCheck {
        render: settings.render.value.as_str().to_owned(),
        ok: false,
        path: None,
        version: None,
        error: None,
        hint: None,
    };
    let fetcher = match settings.fetch_config().and_then(Fetcher::new) {
        Ok(f) => f,
        Err(e) => {
            check.error = Some(e.message);
            return check;
        }
    };
    #[cfg(feature = "render")]
    {
        let Some(renderer) = fetcher.renderer() else {
            check.ok = true;
            check.error = Some("not checked (--render never)".into());
            return check;
        };
        // A cold browser start takes a few seconds; the engine deadline is too short.
        let deadline = deadline.max(Duration::from_secs(20));
        match tokio::time::timeout(deadline, renderer.check()).await {
            Ok(Ok((path, version))) => {
                check.ok = true;
                check.path = Some(path.display().to_string());
                check.version = Some(version);
            }
            Ok(Err(e)) => {
                check.error = Some(e.message);
                check.hint = Some(
                    "install Debian's chromium, or set TRAWL_BROWSER; pages that need a browser are then read without one".into(),
                );
            }
            Err(_) => check.error = Some("the browser did not answer before the deadline".into()),
        }
        fetcher.shutdown().await;
    }
    #[cfg(not(feature = "render"))]
    {
        let _ = (fetcher, deadline);
        check.error = Some("rendering is not compiled into this build".into());
    }
    check
}

/// `trawl doctor [--engine NAME]`: a live check of each configured engine (one tiny
/// query each, in parallel, under a short deadline) and of reading one page. Exits 1 only
/// when something required failed.
pub async fn doctor(args: &DoctorArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let asked = args.net.timeout.map_or(5.0, |d| d.0.as_secs_f64());
    let deadline = Duration::from_secs_f64(asked.clamp(0.1, 60.0));
    let router = match build_router(settings, None, None) {
        Ok(r) => r,
        Err(err) => return report_error(&err, args.json, Meta::default()),
    };
    let names: Vec<String> = args.engine.clone();
    for n in &names {
        if router.engine(n).is_none() {
            let err =
                TrawlError::invalid_input(format!("unknown engine {n:?} (see `trawl engines`)"));
            return report_error(&err, args.json, Meta::default());
        }
    }
    let checking_fetch = names.is_empty();
    let (engines, fetch, browser) = tokio::join!(
        router.check(&names, deadline),
        async {
            if checking_fetch {
                Some(check_fetch(settings, deadline).await)
            } else {
                None
            }
        },
        async {
            if checking_fetch {
                Some(check_browser(settings, deadline).await)
            } else {
                None
            }
        }
    );
    // The browser is required only when every page must be rendered.
    let browser_ok = browser
        .as_ref()
        .is_none_or(|b| b.ok || b.render != "always");
    let engines_ok = if names.is_empty() {
        engines.iter().any(|c| c.default_route && c.healthy())
    } else {
        engines.iter().all(EngineCheck::healthy)
    };
    let fetch_ok = fetch.as_ref().is_none_or(|f| f.ok);
    let store = check_redis(settings).await;
    // Informational: a proxy that does not change the exit is said, not failed.
    let egress = crate::commands::egress::check_egress(settings, deadline).await;
    let store_ok = store.as_ref().is_none_or(|s| s.ok);
    let ocr = if checking_fetch {
        Some(check_ocr(settings).await)
    } else {
        None
    };
    let healthy = engines_ok && fetch_ok && store_ok && browser_ok;
    let browser = browser.unwrap_or(BrowserCheck {
        render: settings.render.value.as_str().to_owned(),
        ok: true,
        path: None,
        version: None,
        error: Some("not checked (--engine given)".into()),
        hint: None,
    });
    let fetch = fetch.unwrap_or(FetchCheck {
        url: PROBE_PAGE.into(),
        ok: true,
        latency_ms: 0,
        error: Some("not checked (--engine given)".into()),
        hint: None,
    });
    let meta = Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    };
    let failed = failed_checks(&names, &engines, &fetch, store.as_ref(), &browser);
    if args.json {
        let data = DoctorData {
            engines,
            fetch,
            store,
            browser,
            ocr,
            egress,
            healthy,
        };
        if healthy {
            print_json(&Envelope::success(&data, meta));
        } else {
            let mut meta = meta;
            meta.extra.insert(
                "doctor".into(),
                serde_json::to_value(&data).unwrap_or_default(),
            );
            let message = format!("required checks failed: {}", failed.names.join(", "));
            print_json(&Envelope::<()>::failure(
                TrawlError::new(ErrorCode::Upstream, message),
                meta,
            ));
        }
        return ExitStatus::from_health(healthy).code();
    }
    print_engines(&engines);
    if checking_fetch {
        let mark = if fetch.ok { "ok  " } else { "FAIL" };
        let why = fetch
            .error
            .as_deref()
            .map(|e| format!("  {e}"))
            .unwrap_or_default();
        let hint = fetch
            .hint
            .as_deref()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        println!(
            "{mark} {:<14} {:<18} {:>6} ms{why}{hint}",
            "fetch", fetch.url, fetch.latency_ms
        );
        let mark = match (browser.ok, browser.render.as_str()) {
            (true, _) => "ok  ",
            (false, "always") => "FAIL",
            (false, _) => "warn",
        };
        let what = browser
            .version
            .clone()
            .or_else(|| browser.error.clone())
            .unwrap_or_default();
        let hint = browser
            .hint
            .as_deref()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        println!(
            "{mark} {:<14} render={} {what}{hint}",
            "browser", browser.render
        );
        if let Some(ocr) = &ocr {
            print_ocr(ocr);
        }
    }
    if let Some(s) = &store {
        let mark = if s.ok { "ok  " } else { "FAIL" };
        let why = s
            .error
            .as_deref()
            .map(|e| format!("  {e}"))
            .unwrap_or_default();
        println!(
            "{mark} {:<14} {:<18} {:>6} ms{why}",
            "redis", s.url, s.latency_ms
        );
    }
    if let Some(e) = &egress {
        let mark = if e.ok { "ok  " } else { "warn" };
        println!("{mark} {:<14} {}", "egress", e.verdict);
    }
    if healthy {
        println!("healthy");
        0
    } else {
        let err = TrawlError::new(
            ErrorCode::Upstream,
            format!("required checks failed: {}", failed.names.join(", ")),
        );
        print_error(&err, None, Some(&failed.action));
        exit_code(&err)
    }
}

/// A probe that failed because the host's name could not be resolved: offline, most
/// likely, when every engine and the fetch say it.
fn unresolved(detail: Option<&str>) -> bool {
    detail.is_some_and(|d| {
        d.contains("dns error") || d.contains("could not resolve") || d.contains("failed to lookup")
    })
}

/// One line per engine, except that engines failing for the same cause share one line
/// (offline, fourteen identical lines said nothing the first did not).
fn print_engines(engines: &[EngineCheck]) {
    let mark = |c: &EngineCheck| {
        if c.healthy() {
            "ok  "
        } else if c.configured {
            "FAIL"
        } else {
            "skip"
        }
    };
    let what = |c: &EngineCheck| match (c.outcome.outcome.as_str(), c.outcome.status) {
        ("ok", _) => format!("ok ({})", c.outcome.count),
        (o, Some(s)) => format!("{o} ({s})"),
        (o, None) => o.to_owned(),
    };
    let cause = |c: &EngineCheck| (what(c), c.hint.clone());
    let mut said: Vec<(String, Option<String>)> = Vec::new();
    for c in engines {
        let shared: Vec<&EngineCheck> = engines
            .iter()
            .filter(|o| mark(o) == "FAIL" && mark(c) == "FAIL" && cause(o) == cause(c))
            .collect();
        if shared.len() > 1 {
            if said.contains(&cause(c)) {
                continue;
            }
            said.push(cause(c));
            let names: Vec<&str> = shared.iter().map(|o| o.engine.as_str()).collect();
            let n = names.len();
            if shared
                .iter()
                .all(|o| unresolved(o.outcome.detail.as_deref()))
            {
                println!(
                    "FAIL no network: {n} engines could not resolve their hosts ({})",
                    names.join(", ")
                );
            } else {
                let hint = c.hint.as_deref().unwrap_or_default();
                println!(
                    "FAIL {:<14} {:<18}  {hint} ({})",
                    format!("{n} engines"),
                    what(c),
                    names.join(", ")
                );
            }
            continue;
        }
        let hint = c
            .hint
            .as_deref()
            .map(|h| format!("  {h}"))
            .unwrap_or_default();
        // A parser never tested on a real response is said, so a failure there is read
        // as possibly ours.
        let untested = if c.fixtures.starts_with("not tested") {
            "  (parser tested on no real response)"
        } else {
            ""
        };
        let transport = c
            .transport
            .map(|t| format!("  (transport: {t})"))
            .unwrap_or_default();
        println!(
            "{} {:<14} {:<18} {:>6} ms{hint}{untested}{transport}",
            mark(c),
            c.engine,
            what(c),
            c.outcome.latency_ms
        );
    }
}

/// The required checks that failed, by name, and the one thing to do first.
struct Failed {
    names: Vec<String>,
    action: String,
}

fn failed_checks(
    asked: &[String],
    engines: &[EngineCheck],
    fetch: &FetchCheck,
    store: Option<&RedisCheck>,
    browser: &BrowserCheck,
) -> Failed {
    let mut names = Vec::new();
    let mut actions: Vec<String> = Vec::new();
    let failing: Vec<&EngineCheck> = engines
        .iter()
        // With --engine every asked engine is required; else the default route's.
        .filter(|c| !c.healthy() && (!asked.is_empty() || c.default_route))
        .collect();
    let engines_ok = if asked.is_empty() {
        engines.iter().any(|c| c.default_route && c.healthy())
    } else {
        engines.iter().all(EngineCheck::healthy)
    };
    let mut offline = true;
    if !engines_ok {
        let list: Vec<&str> = failing.iter().map(|c| c.engine.as_str()).collect();
        names.push(if asked.is_empty() {
            "search (no engine of the default route answered)".to_owned()
        } else {
            format!("engine {}", list.join(", "))
        });
        offline &= failing
            .iter()
            .all(|c| unresolved(c.outcome.detail.as_deref()));
        if let Some(hint) = failing.iter().find_map(|c| c.hint.clone()) {
            actions.push(format!("{}: {hint}", failing[0].engine));
        }
    }
    if !fetch.ok {
        names.push(format!("fetch {}", fetch.url));
        offline &= unresolved(fetch.error.as_deref());
        actions.push(
            fetch
                .hint
                .clone()
                .unwrap_or_else(|| "see the fetch line above".into()),
        );
    }
    if let Some(s) = store.filter(|s| !s.ok) {
        names.push(format!("redis {}", s.url));
        offline = false;
        actions.push(format!("is redis-server running at {}?", s.url));
    }
    if !browser.ok && browser.render == "always" {
        names.push("browser (render = always)".to_owned());
        offline = false;
        actions.push(
            browser
                .hint
                .clone()
                .unwrap_or_else(|| "install Chromium, or set render to auto".into()),
        );
    }
    let action = if offline && !names.is_empty() {
        "no network: check the connection, DNS and TRAWL_PROXY, then run `trawl doctor` again"
            .to_owned()
    } else {
        actions
            .into_iter()
            .next()
            .unwrap_or_else(|| "see the lines above".to_owned())
    };
    Failed { names, action }
}

async fn check_fetch(settings: &Settings, deadline: Duration) -> FetchCheck {
    let started = Instant::now();
    let url = url::Url::parse(PROBE_PAGE).expect("static URL");
    let result = async {
        let fetcher = Fetcher::new(settings.fetch_config()?)?;
        match tokio::time::timeout(deadline, fetcher.fetch(url.as_str())).await {
            Ok(r) => r.map(|_| ()),
            Err(_) => Err(TrawlError::new(
                ErrorCode::Timeout,
                "no answer before the deadline",
            )),
        }
    }
    .await;
    let latency_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(()) => FetchCheck {
            url: url.to_string(),
            ok: true,
            latency_ms,
            error: None,
            hint: None,
        },
        Err(e) => FetchCheck {
            url: url.to_string(),
            ok: false,
            latency_ms,
            hint: Some(
                match e.code {
                    ErrorCode::Timeout => "offline, firewalled, or a slow proxy",
                    ErrorCode::Blocked => "the page is blocking this client",
                    _ => "check the network and TRAWL_PROXY",
                }
                .to_owned(),
            ),
            error: Some(format!("{}: {}", e.code, e.message)),
        },
    }
}

/// `doctor`'s check of the shared Redis: it answers, the layout is one this build
/// understands, and how long a PING takes.
#[derive(Debug, serde::Serialize)]
struct RedisCheck {
    /// The URL, credentials masked.
    url: String,
    ok: bool,
    latency_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    documents: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Checks the configured Redis, if any.
async fn check_redis(settings: &Settings) -> Option<RedisCheck> {
    let url = settings.redis_url()?.to_owned();
    let prefix = settings.redis_prefix.value.clone();
    let shown = redact_url(&url);
    let sent_url = url.clone();
    let checked = tokio::task::spawn_blocking(move || {
        let store = RedisStore::open(&url, &prefix, StoreConfig::default())?;
        let latency = store.ping()?;
        let stats = trawl_store::Store::stats(&store)?;
        Ok::<_, trawl_store::Error>((latency, stats.documents))
    })
    .await;
    Some(match checked {
        Ok(Ok((latency, documents))) => RedisCheck {
            url: shown,
            ok: true,
            latency_ms: latency.as_millis() as u64,
            documents: Some(documents),
            error: None,
        },
        Ok(Err(e)) => RedisCheck {
            url: shown,
            ok: false,
            latency_ms: 0,
            documents: None,
            error: Some(format!(
                "{} (is redis-server running and reachable?)",
                crate::context::redis_error(&sent_url, &e)
            )),
        },
        Err(e) => RedisCheck {
            url: shown,
            ok: false,
            latency_ms: 0,
            documents: None,
            error: Some(e.to_string()),
        },
    })
}
