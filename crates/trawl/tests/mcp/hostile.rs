//! Issue 27 through `trawl serve`: two PDF bombs fetched at once end in `too_large`, the
//! server's peak memory stays bounded, and `/healthz` keeps answering. A page with an
//! injected, oversized title: inside the fence and cut over stdio and HTTP. Two Host
//! headers, or a target naming another host: 400. `trawl mcp` whose stdin closes right after
//! a large call still writes the whole answer.

use super::*;

/// The documented bound on `trawl serve`'s peak resident memory after two refused 16 MiB
/// bombs (each took 1.0 GB unbounded; two aborted a server under a 4 GiB limit).
const SERVE_PEAK_RSS: u64 = 384 << 20;

fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    kb * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pdf_bombs_fetched_at_once_are_too_large_and_the_server_stays_up() {
    let world = World::new();
    let bomb = trawl_testkit::pdf::content_bomb(16 << 20);
    for path in ["/bomb-a.pdf", "/bomb-b.pdf"] {
        world
            .pages
            .route(path, Reply::ok("application/pdf", bomb.clone()));
    }
    let server = HttpServer::start(&world, &["--fetch-only"], &[]);
    let client = Arc::new(server.client(None).await);
    let calls = ["/bomb-a.pdf", "/bomb-b.pdf"].map(|path| {
        let client = client.clone();
        let url = world.pages.url(path);
        tokio::spawn(async move {
            client
                .call_tool(call("web_fetch", json!({"url": url})))
                .await
        })
    });
    for call in calls {
        let result = call.await.unwrap().unwrap();
        let results = &result
            .structured_content
            .as_ref()
            .map(|s| s["results"].clone());
        // A batch of one answers its failure per URL, or as the call's error.
        let code = match results {
            Some(Value::Array(items)) => items[0]["error"]["code"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            _ => error_code(&result),
        };
        assert_eq!(code, "too_large", "{}", text(&result));
    }
    let health = reqwest::get(format!("{}/healthz", server.base()))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let peak = peak_rss(server.pid());
    assert!(
        peak < SERVE_PEAK_RSS,
        "peak RSS {} MiB, bound {} MiB",
        peak >> 20,
        SERVE_PEAK_RSS >> 20
    );
}

/// The injected, oversized title of `hostile::fence` through `web_fetch`: inside the fence
/// and cut, in the text and in the structured content.
async fn fetch_hostile(client: &Client, url: String) {
    let result = client
        .call_tool(call("web_fetch", json!({"url": url})))
        .await
        .unwrap();
    crate::hostile::fence::assert_title_fenced_and_cut(&text(&result));
    let doc = &structured(&result)["results"][0]["document"];
    let title = doc["title"].as_str().unwrap();
    assert!(title.chars().count() < 600, "{}", title.chars().count());
    assert!(
        text(&result).len() < 100_000,
        "{} bytes",
        text(&result).len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_injected_oversized_title_is_fenced_and_cut_over_stdio_and_http() {
    let world = World::new();
    world.pages.route(
        "/hostile.html",
        Reply::html(crate::hostile::fence::hostile_page()),
    );
    let stdio = stdio_client(&world, &["--fetch-only"]).await;
    fetch_hostile(&stdio, world.pages.url("/hostile.html")).await;
    let _ = stdio.cancel().await;
    let server = HttpServer::start(&world, &["--fetch-only"], &[]);
    let http = server.client(None).await;
    fetch_hostile(&http, world.pages.url("/hostile.html")).await;
}

/// One raw HTTP/1.1 request to the server; the status code of its answer.
fn raw_status(server: &HttpServer, request: &str) -> u16 {
    use std::io::{Read, Write};
    let addr = server.base().trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {answer}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_host_header_or_another_authority_in_the_target_is_refused() {
    let world = World::new();
    let server = HttpServer::start(&world, &["--fetch-only"], &[]);
    let host = server.base().trim_start_matches("http://").to_owned();
    let ok = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    assert_eq!(raw_status(&server, &ok), 200);
    let absolute_same =
        format!("GET http://{host}/healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    assert_eq!(raw_status(&server, &absolute_same), 200);
    for path in ["/healthz", "/metrics", "/mcp"] {
        let twice = format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
        );
        assert_eq!(raw_status(&server, &twice), 400, "{path}: two Host headers");
        let other = format!(
            "GET http://evil.example{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        );
        assert_eq!(
            raw_status(&server, &other),
            400,
            "{path}: another authority"
        );
    }
}

/// A page of about `bytes` of prose, so `web_fetch` with `page_size_tokens: 0` answers it
/// whole in one line of several megabytes.
fn huge_article(bytes: usize) -> String {
    let para = "<p>The harbour seals rest on the sandbanks at low tide while the ferries \
        pass; the tidal range along this coast is among the largest in the world.</p>";
    format!(
        "<html><head><title>Long</title></head><body><article>{}<p>THE LAST WORDS</p>\
         </article></body></html>",
        para.repeat(bytes / para.len())
    )
}

#[test]
fn stdin_closed_right_after_a_large_call_still_gets_the_whole_answer() {
    use std::io::{Read, Write};
    let world = World::new();
    world
        .pages
        .route("/huge", Reply::html(huge_article(4 << 20)));
    // A grace far beyond the call's time, so a slow machine cannot make this a race.
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["mcp", "--fetch-only", "--shutdown-grace", "600"])
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "web_fetch",
        "arguments": {"url": world.pages.url("/huge"), "page_size_tokens": 0}}});
    for line in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call,
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    // The client hangs up at once, before the call can have been answered.
    drop(stdin);
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(child.wait().unwrap().success());
    let answer: Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no answer to the call in {} bytes", stdout.len()));
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.len() > 2 << 20, "{} bytes", text.len());
    assert!(text.contains("THE LAST WORDS"), "the answer is whole");
}
