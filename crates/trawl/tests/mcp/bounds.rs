//! What a client can hold is bounded: idle connections, abandoned MCP sessions, silent
//! sockets, oversized and malformed stdio lines.

use std::io::{Read, Write};
use std::net::TcpStream;

use super::*;

/// Raise this test process's own open-file soft limit, so it can hold the connections it
/// opens against the server.
fn raise_own_descriptor_limit(needed: u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed in.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        assert!(
            limit.rlim_max >= needed,
            "this test needs {needed} open files; the hard limit is {}",
            limit.rlim_max
        );
        limit.rlim_cur = limit.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
    }
}

fn addr(server: &HttpServer) -> String {
    server.base().trim_start_matches("http://").to_owned()
}

/// Resident memory of a process, in bytes, from /proc.
fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status");
    kb * 1024
}

/// Not a test of its own: run by the test below in a child process (this same test
/// binary), so the 1,100 sockets and the raised descriptor limit stay out of the process
/// that runs the other tests. Opens the connections to TRAWL_HOLD_ADDR, says `ready`, and
/// holds them until stdin closes; then says whether the oldest one had been closed.
#[test]
#[ignore = "a helper run by idle_connections_beyond_the_descriptor_limit_leave_healthz_answering"]
fn hold_idle_connections() {
    let Ok(addr) = std::env::var("TRAWL_HOLD_ADDR") else {
        return;
    };
    raise_own_descriptor_limit(1_300);
    let idle: Vec<TcpStream> = (0..1_100)
        .map(|i| TcpStream::connect(&addr).unwrap_or_else(|e| panic!("connection {i}: {e}")))
        .collect();
    println!("ready");
    let mut rest = String::new();
    let _ = std::io::stdin().read_to_string(&mut rest);
    let mut first = &idle[0];
    first
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut buf = [0u8; 16];
    let closed = first.read(&mut buf).unwrap_or(0) == 0;
    println!("oldest closed: {closed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_beyond_the_descriptor_limit_leave_healthz_answering() {
    let world = World::new();
    // The descriptor limit as a default Linux session has it; a header timeout long enough
    // that only the connection cap can be what keeps /healthz up.
    let server = HttpServer::start_limited(
        &world,
        &["--fetch-only", "--header-timeout", "600"],
        &[],
        Some(1_024),
    );
    let mut holder = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "mcp::bounds::hold_idle_connections",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("TRAWL_HOLD_ADDR", addr(&server))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(holder.stdout.take().unwrap()).lines();
    assert!(
        said.by_ref()
            .map_while(Result::ok)
            .any(|l| l.ends_with("ready")),
        "the helper could not open 1,100 connections"
    );
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let health = http
        .get(format!("{}/healthz", server.base()))
        .send()
        .await
        .expect("/healthz answers with 1,100 idle connections open");
    assert_eq!(health.status(), 200);
    let body: Value = health.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    // The cap (1,024 - 256) made room by closing the longest-idle connections.
    let metrics = server.metrics(None).await;
    let evicted: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("trawl_connections_evicted_total "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no eviction counter:\n{metrics}"));
    assert!(evicted >= 1_100 - 768, "evicted {evicted}:\n{metrics}");
    drop(holder.stdin.take());
    assert!(
        said.map_while(Result::ok)
            .any(|l| l.contains("oldest closed: true")),
        "the oldest idle connection was not closed"
    );
    let _ = holder.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_is_closed_after_the_header_timeout() {
    let world = World::new();
    let server = HttpServer::start(&world, &["--fetch-only", "--header-timeout", "1"], &[]);
    let mut silent = TcpStream::connect(addr(&server)).unwrap();
    // Half a request head, then nothing.
    silent
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0")
        .unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut answer = Vec::new();
    let read = silent.read_to_end(&mut answer);
    assert!(
        read.is_ok(),
        "the server kept a silent connection open: {read:?}"
    );
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
}

/// The documented bound (README, "Limits"): 20,000 abandoned sessions under the default
/// cap of 1,000 keep `trawl serve` under 256 MB resident.
const SESSION_RSS_BOUND: u64 = 256 * 1024 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_thousand_abandoned_sessions_stay_under_the_memory_bound() {
    let world = World::new();
    let server = HttpServer::start(&world, &["--fetch-only"], &[]);
    let before = rss_bytes(server.pid());
    let http = reqwest::Client::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "abandoner", "version": "0"}}
    })
    .to_string();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let http = http.clone();
        let url = server.url.clone();
        let body = initialize.clone();
        workers.spawn(async move {
            let mut peak_ids = 0usize;
            for _ in 0..2_500 {
                let response = http
                    .post(&url)
                    .header("Accept", "application/json, text/event-stream")
                    .header("Content-Type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 200);
                assert!(response.headers().contains_key("mcp-session-id"));
                peak_ids += 1;
                // Read the initialize answer, then walk away without DELETE.
                let _ = tokio::time::timeout(Duration::from_secs(5), response.bytes()).await;
            }
            peak_ids
        });
    }
    let mut opened = 0;
    while let Some(n) = workers.join_next().await {
        opened += n.unwrap();
    }
    assert_eq!(opened, 20_000);
    let metrics = server.metrics(None).await;
    let live: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("trawl_live_sessions "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no session gauge:\n{metrics}"));
    assert!(live <= 1_000, "{live} sessions alive");
    let after = rss_bytes(server.pid());
    eprintln!(
        "RSS before {} MB, after 20,000 abandoned sessions {} MB",
        before / 1_048_576,
        after / 1_048_576
    );
    assert!(
        after < SESSION_RSS_BOUND,
        "RSS {after} bytes after 20,000 sessions (bound {SESSION_RSS_BOUND})"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_answers_malformed_lines_and_refuses_a_50_mb_line() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let world = World::new();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["mcp", "--fetch-only", "--log-quiet"])
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut answers = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), answers.next_line())
            .await
            .expect("an answer within 30 s")
            .unwrap()
            .expect("stdout open");
        serde_json::from_str(&line).unwrap()
    };
    stdin
        .write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 1,\n")
        .await
        .unwrap();
    let answer = next().await;
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);

    let huge = vec![b'a'; 50 * 1024 * 1024];
    stdin.write_all(&huge).await.unwrap();
    stdin.write_all(b"\n").await.unwrap();
    let answer = next().await;
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than"),
        "{answer}"
    );

    // The session still works afterwards.
    let initialize = json!({
        "jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "pipe", "version": "0"}}
    });
    stdin
        .write_all(format!("{initialize}\n").as_bytes())
        .await
        .unwrap();
    let answer = next().await;
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "trawl", "{answer}");
    drop(stdin);
    let _ = child.wait().await;
}
