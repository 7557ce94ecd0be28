//! Keys never leak. Distinctive fake keys come from the environment, `.env` and the config
//! file; keyed engines and readers point at a loopback server that echoes every request
//! (headers, query, body: the key included) back in its error body. Then every channel is
//! searched for the key values: stdout and stderr of every command, the `--record`
//! directory, the MCP request log, the store file, and every other file trawl wrote.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use trawl_testkit::{Reply, TestServer};

use crate::util::{Run, run, temp_dir, trawl};

/// Each key, where it is set, and a value no other text could contain by chance.
const KEYS: &[(&str, &str, &str)] = &[
    ("BRAVE_API_KEY", "env", "brvKEY-env-7f3a9c51e0d24b68"),
    ("SERPAPI_API_KEY", "env", "spaKEY-env-c0ffee1234abcd99"),
    ("SERPER_API_KEY", "dotenv", "srpKEY-dotenv-41b2a7e9d3c5f816"),
    ("JINA_API_KEY", "dotenv", "jinKEY-dotenv-9e8d7c6b5a4f3e21"),
    ("EXA_API_KEY", "file", "exaKEY-file-0a1b2c3d4e5f6a7b"),
    ("TAVILY_API_KEY", "file", "tvlKEY-file-5d4c3b2a1f0e9d8c"),
    ("FIRECRAWL_API_KEY", "file", "fcrKEY-file-13579bdf2468ace0"),
];

/// A server answering every request with `status` and the request itself as the body, the
/// way careless providers echo a refused key.
fn echo_server(status: u16) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0; len];
                let _ = reader.read_exact(&mut body);
                let echo = format!(
                    "{{\"error\":\"invalid request, we received: {}\"}}",
                    (head + &String::from_utf8_lossy(&body))
                        .replace('\\', "\\\\")
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
    format!("http://{addr}")
}

/// A home with the config file and `.env` holding their keys.
fn home() -> std::path::PathBuf {
    let dir = temp_dir();
    std::fs::create_dir_all(dir.join(".config/trawl")).unwrap();
    let mut file = String::from("[keys]\n");
    let mut dotenv = String::new();
    for (name, source, value) in KEYS {
        match *source {
            "file" => file.push_str(&format!("{name} = \"{value}\"\n")),
            "dotenv" => dotenv.push_str(&format!("{name}={value}\n")),
            _ => {}
        }
    }
    std::fs::write(dir.join(".config/trawl/config.toml"), file).unwrap();
    std::fs::write(dir.join(".env"), dotenv).unwrap();
    dir
}

/// `trawl` in `dir` with the env keys set and every keyed service aimed at an echo server.
fn keyed(dir: &Path, echo: &[(&str, &String)]) -> Command {
    let mut cmd = trawl(dir);
    for (name, source, value) in KEYS {
        if *source == "env" {
            cmd.env(name, value);
        }
    }
    for (var, base) in echo {
        cmd.env(var, base.as_str());
    }
    cmd
}

fn leaks(text: &str) -> Vec<&'static str> {
    KEYS.iter()
        .filter(|(_, _, v)| text.contains(v) || text.contains(&v[..14]))
        .map(|(n, _, _)| *n)
        .collect()
}

fn assert_clean(what: &str, text: &str) {
    let found = leaks(text);
    assert!(found.is_empty(), "{what} shows {found:?}:\n{text}");
}

fn assert_run_clean(what: &str, r: &Run) {
    assert_clean(&format!("{what} stdout"), &r.stdout);
    assert_clean(&format!("{what} stderr"), &r.stderr);
}

/// Every file under `dir` except the two that hold the keys on purpose.
fn assert_files_clean(dir: &Path) -> usize {
    let mut checked = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.ends_with(".env") || path.ends_with("config.toml") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            assert_clean(
                &path.display().to_string(),
                &String::from_utf8_lossy(&bytes),
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn keys_never_appear_in_any_output_channel() {
    let dir = home();
    // Each keyed service refuses in its own way, echoing the request (and so the key).
    let e401 = echo_server(401);
    let e402 = echo_server(402);
    let e403 = echo_server(403);
    let e429 = echo_server(429);
    let e500 = echo_server(500);
    let e200 = echo_server(200);
    let echo: Vec<(&str, &String)> = vec![
        ("TRAWL_BRAVE_API_URL", &e401),
        ("TRAWL_SERPER_URL", &e402),
        ("TRAWL_SERPAPI_URL", &e403),
        ("TRAWL_EXA_URL", &e429),
        ("TRAWL_TAVILY_URL", &e500),
        ("TRAWL_JINA_URL", &e200),
        ("TRAWL_FIRECRAWL_URL", &e402),
        ("TRAWL_READER_JINA_URL", &e402),
        ("TRAWL_READER_TAVILY_URL", &e500),
        ("TRAWL_READER_FIRECRAWL_URL", &e401),
        ("TRAWL_READER_EXA_URL", &e200),
    ];
    let engines = "brave_api,serper,serpapi,exa,tavily,jina,firecrawl";
    let record = dir.join("recorded");

    // Searches: JSON, human, recorded, and again from the recording.
    let mut runs = Vec::new();
    runs.push((
        "search --json --record",
        run(keyed(&dir, &echo)
            .args([
                "search",
                "secret leak probe",
                "--engines",
                engines,
                "--json",
            ])
            .arg("--record")
            .arg(&record)),
    ));
    let v: serde_json::Value = serde_json::from_str(&runs[0].1.stdout).unwrap_or_else(|e| {
        panic!("{e}: {} {}", runs[0].1.stdout, runs[0].1.stderr);
    });
    // Every engine failed here, so the outcomes sit in `meta` (in `data` otherwise).
    let listed = if v["data"]["engines"].is_array() {
        &v["data"]["engines"]
    } else {
        &v["meta"]["engines"]
    };
    let outcomes: Vec<String> = listed
        .as_array()
        .unwrap_or_else(|| panic!("no engine outcomes: {v}"))
        .iter()
        .map(|o| format!("{}={}", o["engine"], o["outcome"]))
        .collect();
    // Every keyed engine was configured (its key reached it) and was refused.
    assert_eq!(outcomes.len(), 7, "{outcomes:?}");
    assert!(
        outcomes.iter().all(|o| !o.contains("not_configured")),
        "{outcomes:?}"
    );
    runs.push((
        "search (human)",
        run(keyed(&dir, &echo).args(["search", "secret leak probe", "--engines", engines])),
    ));
    runs.push((
        "search --replay",
        run(keyed(&dir, &[])
            .args([
                "search",
                "secret leak probe",
                "--engines",
                engines,
                "--json",
            ])
            .arg("--replay")
            .arg(&record)),
    ));

    // Reads that fall back to every keyed reader (the page is a challenge).
    let page = TestServer::start();
    page.route(
        "/cf",
        Reply::status(
            403,
            "<title>Just a moment...</title><script src=/cdn-cgi/challenge-platform/x></script>",
        )
        .with_header("Server", "cloudflare")
        .with_header("cf-mitigated", "challenge"),
    );
    for json in [true, false] {
        let mut cmd = keyed(&dir, &echo);
        cmd.args(["read", &page.url("/cf"), "--allow-host", "127.0.0.1"]);
        if json {
            cmd.arg("--json");
        }
        runs.push(("read via readers", run(&mut cmd)));
    }
    let last = &runs.last().unwrap().1;
    assert_ne!(last.code, 0, "the echoing readers must have failed");

    // Settings, both ways.
    runs.push((
        "config show --json",
        run(keyed(&dir, &echo).args(["config", "show", "--json"])),
    ));
    runs.push((
        "config show",
        run(keyed(&dir, &echo).args(["config", "show"])),
    ));
    runs.push((
        "engines --json",
        run(keyed(&dir, &echo).args(["engines", "--json"])),
    ));
    for (what, r) in &runs {
        assert_run_clean(what, r);
    }

    // MCP over stdio with a request log file: a search and a read through the keyed echoes.
    let log = dir.join("logs/requests.log");
    let (stdout, stderr) = mcp_exchange(
        keyed(&dir, &echo).args(["mcp", "--log-file"]).arg(&log),
        &[
            serde_json::json!({"name": "web_search", "arguments": {"query": "secret leak probe", "engines": engines.split(',').collect::<Vec<_>>()}}),
            serde_json::json!({"name": "web_fetch", "arguments": {"url": page.url("/cf")}}),
        ],
    );
    assert_clean("mcp stdout", &stdout);
    assert_clean("mcp stderr", &stderr);
    assert!(stdout.contains("\"id\":3"), "both calls answered: {stdout}");

    // Files: the recording, the log, the store (and its WAL), anything else written.
    assert!(record.exists(), "--record wrote nothing");
    let checked = assert_files_clean(&dir);
    assert!(checked >= 3, "only {checked} files checked");
}

/// Initialize, call each tool in turn (ids 2, 3, …), wait for every answer, then close.
pub(crate) fn mcp_exchange(cmd: &mut Command, calls: &[serde_json::Value]) -> (String, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let out_thread = std::thread::spawn(move || {
        let mut all = String::new();
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            all.push_str(&line);
            all.push('\n');
            let _ = tx.send(line);
        }
        all
    });
    let send = |stdin: &mut std::process::ChildStdin, v: serde_json::Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "secrets-test", "version": "1"}}}),
    );
    wait_for_id(&rx, 1);
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    for (i, call) in calls.iter().enumerate() {
        let id = i + 2;
        send(
            &mut stdin,
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call}),
        );
        wait_for_id(&rx, id);
    }
    drop(stdin);
    let _ = child.wait();
    (out_thread.join().unwrap(), err_thread.join().unwrap())
}

fn wait_for_id(rx: &std::sync::mpsc::Receiver<String>, id: usize) {
    let needle = format!("\"id\":{id}");
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no answer to request {id}"));
        if line.contains(&needle) {
            return;
        }
    }
}
