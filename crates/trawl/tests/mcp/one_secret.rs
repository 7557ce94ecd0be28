//! One secret through every face (issue 28): an API key, a Redis password and a proxy
//! password, each a distinctive canary, go into one configuration; the engine, the proxy
//! and the "Redis" are loopback servers that answer with an error echoing what they were
//! sent (key header, `Proxy-Authorization: Basic …`, Redis `AUTH`). Then every face is
//! searched for each canary in every spelling (as is, percent- and form-encoded, base64
//! alone and inside `user:password`): CLI errors (human and `--json`), the `--record`
//! files, `config show` (human and `--json`), `doctor`, MCP error results over stdio,
//! `trawl serve`'s stderr and request log, and `/metrics`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};

use super::*;
use crate::util::{Run, run};

const API_KEY: &str = "sk-canary-brave-7f3a9c51e0d2";
const REDIS_USER: &str = "trawluser";
const REDIS_PASSWORD: &str = "rds-canary-41b2a7e9d3c5";
const PROXY_USER: &str = "proxyuser";
const PROXY_PASSWORD: &str = "pxy-canary-5d4c3b2a1f0e";

/// Every way a canary could show: the spellings written out here, plus those trawl's own
/// scrubber knows (base64 runs at each alignment).
fn forbidden() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let mut add = |s: String, what: &'static str| {
        if !out.iter().any(|(o, _)| *o == s) {
            out.push((s, what));
        }
    };
    for (canary, user, what) in [
        (API_KEY, None, "API key"),
        (REDIS_PASSWORD, Some(REDIS_USER), "Redis password"),
        (PROXY_PASSWORD, Some(PROXY_USER), "proxy password"),
    ] {
        add(canary.to_owned(), what);
        let pct: String = canary
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        add(pct.clone(), what);
        add(pct.to_ascii_lowercase(), what);
        for engine in [STANDARD, URL_SAFE] {
            add(engine.encode(canary), what);
            if let Some(user) = user {
                add(engine.encode(format!("{user}:{canary}")), what);
            }
        }
        for spelling in trawl_core::redact::spellings(canary) {
            add(spelling, what);
        }
    }
    out
}

#[track_caller]
fn assert_clean(face: &str, text: &str) {
    let found: Vec<String> = forbidden()
        .into_iter()
        .filter(|(s, _)| text.contains(s.as_str()))
        .map(|(s, what)| format!("{what} as {s:?}"))
        .collect();
    assert!(found.is_empty(), "{face} shows {found:?}:\n{text}");
}

fn assert_run_clean(face: &str, r: &Run) {
    assert_clean(&format!("{face} stdout"), &r.stdout);
    assert_clean(&format!("{face} stderr"), &r.stderr);
}

/// A loopback HTTP server that answers every request with `status` and the request
/// itself (headers included) as the body, the way careless services echo a refused key;
/// counts the requests.
fn http_echo(status: u16) -> (String, Arc<Mutex<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(Mutex::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            *counter.lock().unwrap() += 1;
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut seen = String::new();
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    seen.push_str(&line);
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0; len];
                let _ = reader.read_exact(&mut body);
                seen.push_str(&String::from_utf8_lossy(&body));
                let echo = format!(
                    "{{\"error\":\"invalid request, we received: {}\"}}",
                    seen.replace('\\', "\\\\")
                        .replace('"', "'")
                        .replace("\r\n", " | ")
                );
                let reply = format!(
                    "HTTP/1.1 {status} Echo\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{echo}",
                    echo.len()
                );
                let _ = stream.write_all(reply.as_bytes());
            });
        }
    });
    (format!("127.0.0.1:{}", addr.port()), hits)
}

/// A loopback "Redis" that accepts `AUTH` and `CLIENT` and answers any other command with
/// an error repeating everything the connection sent, `AUTH user password` included.
fn redis_echo() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut seen = String::new();
                let mut line = String::new();
                // One RESP command: `*N`, then N times `$len` and the argument.
                while reader.read_line(&mut line).unwrap_or(0) > 0 {
                    let n: usize = line.trim().trim_start_matches('*').parse().unwrap_or(0);
                    seen.push_str(&line);
                    let mut args = Vec::new();
                    for _ in 0..2 * n {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        seen.push_str(&line);
                        args.push(line.trim_end().to_owned());
                    }
                    let command = args.get(1).map(|c| c.to_ascii_uppercase());
                    let reply = match command.as_deref() {
                        Some("AUTH" | "CLIENT" | "SELECT" | "PING") => "+OK\r\n".to_owned(),
                        _ => format!(
                            "-ERR unknown command, we received: {}\r\n",
                            seen.replace("\r\n", " ")
                        ),
                    };
                    if stream.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                    line.clear();
                }
            });
        }
    });
    format!("127.0.0.1:{}", addr.port())
}

/// The configuration with the three canaries: key and proxy from the environment, the
/// Redis URL from the config file (the proxy's and the engine's servers echo).
fn configure(world: &World) -> (Vec<(&'static str, String)>, Arc<Mutex<usize>>) {
    let (engine, _) = http_echo(200);
    let (proxy, proxied) = http_echo(200);
    let redis = redis_echo();
    std::fs::create_dir_all(world.dir.join(".config/trawl")).unwrap();
    std::fs::write(
        world.dir.join(".config/trawl/config.toml"),
        format!("redis = \"redis://{REDIS_USER}:{REDIS_PASSWORD}@{redis}/0\"\n"),
    )
    .unwrap();
    let env = vec![
        ("BRAVE_API_KEY", API_KEY.to_owned()),
        ("TRAWL_BRAVE_API_URL", format!("http://{engine}")),
        (
            "TRAWL_PROXY",
            format!("http://{PROXY_USER}:{PROXY_PASSWORD}@{proxy}"),
        ),
    ];
    (env, proxied)
}

fn cli(world: &World, env: &[(&'static str, String)], args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_trawl"));
    cmd.current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .args(args);
    run(&mut cmd)
}

/// Every file under `dir`, except the config file that holds the Redis URL on purpose.
fn assert_files_clean(dir: &Path) -> usize {
    let mut checked = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.ends_with("config.toml") {
                let bytes = std::fs::read(&path).unwrap();
                assert_clean(
                    &path.display().to_string(),
                    &String::from_utf8_lossy(&bytes),
                );
                checked += 1;
            }
        }
    }
    checked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_secret_shows_through_no_face() {
    let world = World::new();
    let (env, proxied) = configure(&world);
    let record = world.dir.join("recorded");
    let record_arg = record.display().to_string();
    let search = ["search", "canary probe", "--engines", "brave_api"];

    // CLI: a store that refuses (no fallback), then searches on a private store, whose one
    // engine answers an echo; settings both ways; doctor.
    let store_refused = cli(&world, &env, &["cache", "stats"]);
    assert_ne!(store_refused.code, 0, "the echoing Redis must be refused");
    assert!(
        store_refused.stderr.contains("Redis"),
        "{}",
        store_refused.stderr
    );
    let fallback = ["--store-fallback", "memory"];
    let mut runs = vec![("cache stats", store_refused)];
    for extra in [
        &["--json"][..],
        &[][..],
        &["--json", "--record", &record_arg][..],
    ] {
        let args: Vec<&str> = fallback
            .iter()
            .chain(&search)
            .chain(extra)
            .copied()
            .collect();
        runs.push(("search", cli(&world, &env, &args)));
    }
    let json = runs[1].1.stdout.clone();
    assert!(
        json.contains("brave_api") && runs[1].1.code != 0,
        "the engine must have been asked and failed: {json}\n{}",
        runs[1].1.stderr
    );
    runs.push(("config show", cli(&world, &env, &["config", "show"])));
    let shown = cli(&world, &env, &["config", "show", "--json"]);
    let data: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert!(
        data["data"]["redis"]["value"]
            .as_str()
            .is_some_and(|v| v.starts_with("redis://****@")),
        "{data}"
    );
    assert!(
        data["data"]["proxy"]["value"]
            .as_str()
            .is_some_and(|v| v.starts_with("http://****@")),
        "{data}"
    );
    runs.push(("config show --json", shown));
    runs.push(("doctor --json", cli(&world, &env, &["doctor", "--json"])));
    // The engine's requests went through the proxy, so its credentials travelled.
    assert!(*proxied.lock().unwrap() > 0, "the proxy was never asked");
    for (face, r) in &runs {
        assert_run_clean(face, r);
    }
    assert!(record.exists(), "--record wrote nothing");

    // MCP over stdio: the failed search is an error result.
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_trawl"));
    cmd.args(["--store-fallback", "memory", "mcp"])
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn trawl mcp");
    let client = serve_client(transport).await;
    let args = json!({"query": "canary probe", "engines": ["brave_api"]});
    let result = client
        .call_tool(call("web_search", args.clone()))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "upstream", "{}", text(&result));
    assert_clean(
        "MCP stdio error result",
        &serde_json::to_string(&result).unwrap(),
    );
    client.cancel().await.unwrap();
    let mut stdio_stderr = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stderr.unwrap(), &mut stdio_stderr)
        .await
        .unwrap();
    assert_clean("trawl mcp stderr", &stdio_stderr);

    // trawl serve: its stderr and request log, the error result, /metrics.
    let mut serve_env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    serve_env.push(("TRAWL_TOKEN", "tok-canary-0000"));
    let server = HttpServer::start(&world, &["--store-fallback", "memory"], &serve_env);
    let client = server.client(Some("tok-canary-0000")).await;
    let result = client.call_tool(call("web_search", args)).await.unwrap();
    assert_eq!(error_code(&result), "upstream", "{}", text(&result));
    assert_clean(
        "MCP HTTP error result",
        &serde_json::to_string(&result).unwrap(),
    );
    let metrics = server.metrics(Some("tok-canary-0000")).await;
    assert!(
        metrics.contains("trawl_tool_errors_total{tool=\"web_search\",code=\"upstream\"} 1"),
        "{metrics}"
    );
    assert_clean("/metrics", &metrics);
    client.cancel().await.unwrap();
    let log = world.request_log();
    assert!(log.contains("tool=web_search"), "{log}");
    assert_clean("serve's request log", &log);
    assert_clean("serve's stderr", &server.stderr.lock().unwrap());
    drop(server);

    // And every file trawl wrote: the recording, the logs, the store.
    assert!(assert_files_clean(&world.dir) >= 3);
}
