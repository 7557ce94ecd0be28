//! Load check for `trawl serve` (issue 7): many MCP clients over streamable HTTP, on
//! loopback only. It starts a page server and a slow fake SearXNG, starts `trawl serve`,
//! stores a set of documents with `web_fetch`, then runs CLIENTS concurrent clients making
//! CALLS `web_open` calls in all (random handle and page), while three more clients make
//! `web_search` calls back to back against the slow engine. It reports failed calls,
//! p50/p90/p99/max latency and the server's RSS (before, peak, after), then starts slow page
//! reads, sends SIGTERM while they run, and checks that every one of them finishes and the
//! server exits cleanly.
//!
//! ```text
//! cargo build --release -p trawl --bin trawl
//! cargo run --release -p trawl --example load -- [CLIENTS] [CALLS]   # default 50 20000
//! ```
//! `TRAWL_BIN` names the binary (default: target/release/trawl, else target/debug/trawl).
//! Exits 1 when any call failed. Not a test: the figures depend on the machine.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use trawl_core::vars;
use trawl_testkit::{Reply, TestServer};

type Client = RunningService<RoleClient, ()>;

const DOCUMENTS: usize = 20;
const SEARCHERS: usize = 3;

fn article(n: usize) -> String {
    let mut body = format!(
        "<html><head><title>Load article {n}</title></head><body><article><h1>Load article {n}</h1>"
    );
    for p in 0..80 {
        body.push_str(&format!(
            "<h2>Section {p}</h2><p>Paragraph {p} of article {n} about tides, harbours, \
             seals and the long coastline, with enough words to make several pages of \
             Markdown so that paging has something to do on every call.</p>"
        ));
    }
    body.push_str("</article></body></html>");
    body
}

fn trawl_bin() -> PathBuf {
    if let Ok(p) = std::env::var(vars::BIN) {
        return p.into();
    }
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target");
    for profile in ["release", "debug"] {
        let p = target.join(profile).join("trawl");
        if p.exists() {
            return p;
        }
    }
    panic!("build trawl first (cargo build --release -p trawl) or set TRAWL_BIN");
}

fn rss_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

struct Server {
    child: Child,
    url: String,
}

fn start_server(dir: &std::path::Path, env: &BTreeMap<String, String>) -> Server {
    let mut child = Command::new(trawl_bin())
        .args(["serve", "--listen", "127.0.0.1:0", "--max-concurrent", "64"])
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn trawl serve");
    let (tx, rx) = std::sync::mpsc::channel();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    std::thread::spawn(move || {
        while let Some(Ok(line)) = lines.next() {
            if line.contains("event=listening")
                && let Some(url) = line.split_whitespace().find_map(|f| f.strip_prefix("url="))
            {
                let _ = tx.send(url.to_owned());
            }
            if line.contains("event=stopped") || line.contains("event=shutdown") {
                eprintln!("server: {line}");
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("trawl serve did not start");
    Server { child, url }
}

async fn client(url: &str) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("MCP handshake")
}

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(map) = arguments else {
        unreachable!()
    };
    CallToolRequestParams::new(name).with_arguments(map)
}

fn ok(result: &Result<CallToolResult, rmcp::ServiceError>) -> bool {
    matches!(result, Ok(r) if r.is_error != Some(true))
}

/// A small xorshift, so the example needs no RNG crate.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

#[tokio::main]
async fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("CLIENTS and CALLS are numbers"))
        .collect();
    let clients = args.first().copied().unwrap_or(50);
    let calls = args.get(1).copied().unwrap_or(20_000);

    let pages = TestServer::start();
    for n in 0..DOCUMENTS {
        pages.route(&format!("/doc/{n}"), Reply::html(article(n)));
    }
    let fixture = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/serp/searxng/search-python-format-json.json"
    ))
    .expect("the searxng fixture");
    // The slow engine: its answer trickles out over about half a second.
    let piece = fixture.len().div_ceil(10);
    let engine = TestServer::start();
    engine.route(
        "/search",
        Reply::Trickle {
            body: fixture,
            piece,
            pause: Duration::from_millis(50),
        },
    );

    // A page that takes about a second to arrive, for the calls in flight at SIGTERM.
    let slow_page = article(999).into_bytes();
    pages.route(
        "/slow",
        Reply::Trickle {
            piece: slow_page.len().div_ceil(10),
            body: slow_page,
            pause: Duration::from_millis(100),
        },
    );

    let dir = std::env::temp_dir().join(format!("trawl-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut env = BTreeMap::new();
    for (k, v) in [
        ("HOME", dir.display().to_string()),
        ("XDG_CONFIG_HOME", dir.join(".config").display().to_string()),
        ("XDG_CACHE_HOME", dir.join(".cache").display().to_string()),
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        (vars::STORE, dir.join("store.db").display().to_string()),
        (vars::ALLOW_HOSTS, "127.0.0.1".into()),
        (vars::READERS, "none".into()),
        (vars::SEARXNG_URL, engine.base()),
    ] {
        env.insert(k.to_owned(), v);
    }
    let mut server = start_server(&dir, &env);
    let pid = server.child.id();

    // Store the documents; learn their handles and page counts.
    let seed = client(&server.url).await;
    let urls: Vec<String> = (0..DOCUMENTS)
        .map(|n| pages.url(&format!("/doc/{n}")))
        .collect();
    let out = seed
        .call_tool(call(
            "web_fetch",
            json!({"urls": urls, "page_size_tokens": 500}),
        ))
        .await
        .expect("web_fetch");
    let results = &out.structured_content.as_ref().expect("structured")["results"];
    let docs: Vec<(String, u64)> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let d = &r["document"];
            (
                d["handle"].as_str().expect("a handle").to_owned(),
                d["pages"].as_u64().unwrap(),
            )
        })
        .collect();
    let _ = seed.cancel().await;
    let rss_before = rss_kib(pid, "VmRSS:");
    eprintln!(
        "stored {} documents ({} pages each at 500 tokens); server RSS {} MiB; {clients} clients, {calls} web_open calls",
        docs.len(),
        docs[0].1,
        rss_before / 1024
    );

    let docs = Arc::new(docs);
    let issued = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let (docs, issued, url) = (docs.clone(), issued.clone(), server.url.clone());
        tasks.push(tokio::spawn(async move {
            let client = client(&url).await;
            let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (c as u64 + 1);
            let mut opens = Vec::new();
            let mut failures = Vec::new();
            loop {
                let n = issued.fetch_add(1, Ordering::SeqCst);
                if n >= calls {
                    break;
                }
                let (handle, count) = &docs[next(&mut rng) as usize % docs.len()];
                let page = next(&mut rng) % count + 1;
                let t = Instant::now();
                let r = client
                    .call_tool(call(
                        "web_open",
                        json!({"handle": handle, "page": page, "page_size_tokens": 500}),
                    ))
                    .await;
                opens.push(t.elapsed());
                if !ok(&r) {
                    failures.push(format!("web_open {handle} {page}: {r:?}"));
                }
            }
            let _ = client.cancel().await;
            (opens, Vec::new(), failures)
        }));
    }
    // Searchers: web_search against the slow engine, back to back, until the opens are
    // done (fewer than the engine's four rate-limit slots, so none is skipped by design).
    for s in 0..SEARCHERS {
        let (issued, url) = (issued.clone(), server.url.clone());
        tasks.push(tokio::spawn(async move {
            let client = client(&url).await;
            let (mut searches, mut failures) = (Vec::new(), Vec::new());
            let mut n = 0;
            while issued.load(Ordering::SeqCst) < calls {
                let t = Instant::now();
                let r = client
                    .call_tool(call(
                        "web_search",
                        json!({"query": format!("load query {s} {n}"), "engines": ["searxng"]}),
                    ))
                    .await;
                searches.push(t.elapsed());
                if !ok(&r) {
                    failures.push(format!("web_search {s} {n}: {r:?}"));
                }
                n += 1;
            }
            let _ = client.cancel().await;
            (Vec::new(), searches, failures)
        }));
    }
    let mut opens = Vec::new();
    let mut searches = Vec::new();
    let mut failures = Vec::new();
    for t in tasks {
        let (o, s, f) = t.await.expect("client task");
        opens.extend(o);
        searches.extend(s);
        failures.extend(f);
    }
    let elapsed = started.elapsed();
    let rss_after = rss_kib(pid, "VmRSS:");
    let rss_peak = rss_kib(pid, "VmHWM:");
    opens.sort();
    searches.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "load: {clients} clients, {} web_open + {} web_search calls in {:.1} s ({:.0} calls/s), {} failed",
        opens.len(),
        searches.len(),
        elapsed.as_secs_f64(),
        (opens.len() + searches.len()) as f64 / elapsed.as_secs_f64(),
        failures.len()
    );
    println!(
        "web_open latency ms: p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1}",
        ms(percentile(&opens, 0.5)),
        ms(percentile(&opens, 0.9)),
        ms(percentile(&opens, 0.99)),
        ms(percentile(&opens, 1.0))
    );
    println!(
        "web_search (slow engine) latency ms: p50 {:.1}  p99 {:.1}  max {:.1}",
        ms(percentile(&searches, 0.5)),
        ms(percentile(&searches, 0.99)),
        ms(percentile(&searches, 1.0))
    );
    println!(
        "server RSS MiB: before {:.1}  peak {:.1}  after {:.1}",
        rss_before as f64 / 1024.0,
        rss_peak as f64 / 1024.0,
        rss_after as f64 / 1024.0
    );

    // SIGTERM with slow calls in flight: every one must finish.
    // Sessions first, so that every call below is in flight when the signal comes.
    let mut sessions = Vec::new();
    for _ in 0..8 {
        sessions.push(client(&server.url).await);
    }
    let mut inflight = Vec::new();
    for (i, c) in sessions.into_iter().enumerate() {
        let slow = pages.url("/slow");
        inflight.push(tokio::spawn(async move {
            let r = c
                .call_tool(call(
                    "web_fetch",
                    json!({"url": format!("{slow}?call={i}")}),
                ))
                .await;
            if !ok(&r) {
                let why = match &r {
                    Ok(res) => format!("error result: {:?}", res.content),
                    Err(e) => format!("transport: {e}"),
                };
                eprintln!(
                    "in-flight call {i}: {}",
                    why.chars().take(300).collect::<String>()
                );
            }
            ok(&r)
        }));
    }
    tokio::time::sleep(Duration::from_millis(250)).await;
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let mut finished = 0;
    for t in inflight {
        // A call the server dropped would never answer: give up on it after a minute.
        if let Ok(Ok(true)) = tokio::time::timeout(Duration::from_secs(60), t).await {
            finished += 1;
        }
    }
    let status = server.child.wait().expect("server exit");
    println!(
        "SIGTERM with 8 slow calls in flight: {finished}/8 finished, server exit {}",
        status.code().map_or("signal".into(), |c| c.to_string())
    );
    let _ = std::fs::remove_dir_all(&dir);
    for f in failures.iter().take(10) {
        eprintln!("failed: {f}");
    }
    if !failures.is_empty() || finished != 8 || !status.success() {
        std::process::exit(1);
    }
}
