//! A small-scale version of `examples/load.rs` (8 clients × 25 `web_open` calls on stored
//! documents, with a `web_search` client beside them): no call fails; then SIGTERM with slow
//! reads in flight lets every one finish. No timing is asserted.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use trawl_testkit::{Reply, TestServer};

use crate::util::temp_dir;

type Client = RunningService<RoleClient, ()>;

fn article(n: usize) -> String {
    let mut body = format!("<html><head><title>Doc {n}</title></head><body><article>");
    for p in 0..40 {
        body.push_str(&format!(
            "<h2>Part {p}</h2><p>Paragraph {p} of document {n}: tides, harbours and seals \
             along a long coastline, written out so that the document has several pages.</p>"
        ));
    }
    body + "</article></body></html>"
}

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(map) = arguments else {
        unreachable!()
    };
    CallToolRequestParams::new(name).with_arguments(map)
}

fn ok(r: &Result<CallToolResult, rmcp::ServiceError>) -> Result<(), String> {
    match r {
        Ok(res) if res.is_error != Some(true) => Ok(()),
        Ok(res) => Err(format!("{:?}", res.content)),
        Err(e) => Err(e.to_string()),
    }
}

async fn client(url: &str) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("MCP handshake")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_under_load_fails_no_call_and_finishes_in_flight_calls_on_sigterm() {
    let pages = TestServer::start();
    for n in 0..5 {
        pages.route(&format!("/doc/{n}"), Reply::html(article(n)));
    }
    let slow = article(99).into_bytes();
    pages.route(
        "/slow",
        Reply::Trickle {
            piece: slow.len().div_ceil(8),
            body: slow,
            pause: Duration::from_millis(100),
        },
    );
    let engine = TestServer::start();
    engine.route(
        "/search",
        Reply::ok(
            "application/json",
            r#"{"query":"q","results":[{"url":"https://example.org/a","title":"A","content":"a","engine":"bing","engines":["bing"],"positions":[1]}]}"#,
        ),
    );
    let dir = temp_dir();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(&dir)
        .env_clear()
        .env("HOME", &dir)
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TRAWL_STORE", dir.join("store.db"))
        .env("TRAWL_ALLOW_HOSTS", "127.0.0.1")
        .env("TRAWL_READERS", "none")
        .env("TRAWL_SEARXNG_URL", engine.base())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    std::thread::spawn(move || {
        while let Some(Ok(line)) = lines.next() {
            if let Some(url) = line
                .split_whitespace()
                .find_map(|f| f.strip_prefix("url="))
                .filter(|_| line.contains("event=listening"))
            {
                let _ = tx.send(url.to_owned());
            }
        }
    });
    let url = rx.recv_timeout(Duration::from_secs(60)).unwrap();

    let seed = client(&url).await;
    let urls: Vec<String> = (0..5).map(|n| pages.url(&format!("/doc/{n}"))).collect();
    let out = seed
        .call_tool(call(
            "web_fetch",
            json!({"urls": urls, "page_size_tokens": 300}),
        ))
        .await
        .unwrap();
    let docs: Vec<(String, u64)> = out.structured_content.unwrap()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let d = &r["document"];
            (
                d["handle"].as_str().unwrap().to_owned(),
                d["pages"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(docs.iter().all(|(_, pages)| *pages > 1), "{docs:?}");

    let mut tasks = Vec::new();
    for c in 0..8usize {
        let (url, docs) = (url.clone(), docs.clone());
        tasks.push(tokio::spawn(async move {
            let client = client(&url).await;
            let mut failures = Vec::new();
            for i in 0..25usize {
                let (handle, pages) = &docs[(c + i) % docs.len()];
                let page = (c * 7 + i) as u64 % pages + 1;
                let r = client
                    .call_tool(call(
                        "web_open",
                        json!({"handle": handle, "page": page, "page_size_tokens": 300}),
                    ))
                    .await;
                if let Err(e) = ok(&r) {
                    failures.push(format!("web_open {handle} {page}: {e}"));
                }
            }
            failures
        }));
    }
    let searcher = {
        let url = url.clone();
        tokio::spawn(async move {
            let client = client(&url).await;
            let mut failures = Vec::new();
            for i in 0..10 {
                let r = client
                    .call_tool(call(
                        "web_search",
                        json!({"query": format!("load {i}"), "engines": ["searxng"]}),
                    ))
                    .await;
                if let Err(e) = ok(&r) {
                    failures.push(format!("web_search {i}: {e}"));
                }
            }
            failures
        })
    };
    let mut failures = Vec::new();
    for t in tasks {
        failures.extend(t.await.unwrap());
    }
    failures.extend(searcher.await.unwrap());
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // SIGTERM with slow reads in flight: each one still gets its answer.
    let mut sessions = Vec::new();
    for _ in 0..4 {
        sessions.push(client(&url).await);
    }
    let mut inflight = Vec::new();
    for (i, c) in sessions.into_iter().enumerate() {
        let u = pages.url(&format!("/slow?call={i}"));
        inflight.push(tokio::spawn(async move {
            ok(&c.call_tool(call("web_fetch", json!({"url": u}))).await)
        }));
    }
    // Wait until every slow read has reached the page server, then signal.
    let slow_hits = || {
        pages
            .seen()
            .iter()
            .filter(|s| s.path.starts_with("/slow"))
            .count()
    };
    for _ in 0..600 {
        if slow_hits() >= 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(slow_hits(), 4);
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    for t in inflight {
        let r = tokio::time::timeout(Duration::from_secs(60), t).await;
        assert!(
            matches!(r, Ok(Ok(Ok(())))),
            "an in-flight call was lost: {r:?}"
        );
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
