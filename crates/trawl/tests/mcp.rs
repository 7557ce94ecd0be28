//! `trawl mcp` (stdio) and `trawl serve` (streamable HTTP) driven by rmcp's own client, with
//! every engine and page on loopback test servers: the handshake, tools/list, each tool,
//! errors as `isError` results, progress, cancellation, over-limit calls, bearer auth and
//! Origin checks.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::{
    StreamableHttpClientTransport, TokioChildProcess,
    streamable_http_client::StreamableHttpClientTransportConfig,
};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use trawl_testkit::{Reply, TestServer};

use crate::util::temp_dir;

const SEARXNG_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/serp/searxng/search-python-format-json.json"
);
const ARXIV_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/serp/arxiv/query-electron-proton-2025-11-new-format.xml"
);
const GITHUB_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/serp/github/search-repositories-2014-pygithub.json"
);

/// A long page, so that it has several token-budget pages.
fn article(title: &str, paragraphs: usize) -> String {
    let mut body =
        format!("<html><head><title>{title}</title></head><body><article><h1>{title}</h1>");
    for i in 0..paragraphs {
        body.push_str(&format!(
            "<p>Paragraph {i} of {title}: trawl reads pages into clean Markdown so that agents \
             can page through them, search inside them and cite them without fetching again. \
             The quick brown fox jumps over the lazy dog while the harbour seals watch.</p>"
        ));
    }
    body.push_str("</article></body></html>");
    body
}

/// Loopback engines and pages, and a private HOME for the server.
struct World {
    dir: PathBuf,
    pages: TestServer,
    engines: TestServer,
}

impl World {
    fn new() -> Self {
        let pages = TestServer::start();
        pages.route("/article", Reply::html(article("Harbour seals", 60)));
        pages.route("/second", Reply::html(article("Grey seals", 20)));
        pages.route("/third", Reply::html(article("Monk seals", 20)));
        pages.route("/hang", Reply::Hang);
        let engines = TestServer::start();
        engines.route(
            "/search",
            Reply::ok("application/json", std::fs::read(SEARXNG_FIXTURE).unwrap()),
        );
        engines.route(
            "/api/query",
            Reply::ok(
                "application/atom+xml",
                std::fs::read(ARXIV_FIXTURE).unwrap(),
            ),
        );
        engines.route(
            "/search/repositories",
            Reply::ok("application/json", std::fs::read(GITHUB_FIXTURE).unwrap()),
        );
        World {
            dir: temp_dir(),
            pages,
            engines,
        }
    }

    /// The server's whole environment: nothing from the user's, engines and readers that
    /// could reach the internet pointed at loopback or turned off.
    fn env(&self) -> BTreeMap<String, String> {
        let d = &self.dir;
        let mut env = BTreeMap::new();
        for (k, v) in [
            ("HOME", d.display().to_string()),
            ("XDG_CONFIG_HOME", d.join(".config").display().to_string()),
            ("XDG_CACHE_HOME", d.join(".cache").display().to_string()),
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("TRAWL_STORE", d.join("store.db").display().to_string()),
            ("TRAWL_ALLOW_HOSTS", "127.0.0.1".into()),
            ("TRAWL_READERS", "none".into()),
            ("TRAWL_SEARXNG_URL", self.engines.base()),
            ("TRAWL_ARXIV_URL", self.engines.base()),
            ("TRAWL_GITHUB_URL", self.engines.base()),
            (
                "TRAWL_LOG_FILE",
                d.join("requests.log").display().to_string(),
            ),
        ] {
            env.insert(k.to_owned(), v);
        }
        env
    }

    fn request_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("requests.log")).unwrap_or_default()
    }
}

/// Progress notifications seen: (progress, total).
type ProgressSeen = Arc<Mutex<Vec<(f64, Option<f64>)>>>;

/// A client that records progress notifications.
#[derive(Clone, Default)]
struct Probe {
    progress: ProgressSeen,
}

impl ClientHandler for Probe {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("trawl-tests", "0"),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push((params.progress, params.total));
    }
}

type Client = RunningService<RoleClient, Probe>;

async fn stdio_client(world: &World, args: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_trawl"));
    cmd.arg("mcp")
        .args(args)
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env());
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn trawl mcp");
    serve_client(transport).await
}

async fn serve_client<T, E, A>(transport: T) -> Client
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    Probe::default()
        .serve(transport)
        .await
        .expect("MCP handshake")
}

/// A running `trawl serve`; killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl HttpServer {
    fn start(world: &World, args: &[&str], extra_env: &[(&str, &str)]) -> HttpServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .current_dir(&world.dir)
            .env_clear()
            .envs(world.env())
            .envs(extra_env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn trawl serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (url_tx, url_rx) = std::sync::mpsc::channel();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            while let Some(Ok(line)) = lines.next() {
                if line.contains("event=listening")
                    && let Some(url) = line.split_whitespace().find_map(|f| f.strip_prefix("url="))
                {
                    let _ = url_tx.send(url.to_owned());
                }
                let mut all = sink.lock().unwrap();
                all.push_str(&line);
                all.push('\n');
            }
        });
        let url = url_rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("trawl serve did not start:\n{}", stderr.lock().unwrap()));
        HttpServer { child, url, stderr }
    }

    fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_owned()
    }

    async fn client(&self, token: Option<&str>) -> Client {
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.clone());
        if let Some(token) = token {
            config = config.auth_header(token);
        }
        serve_client(StreamableHttpClientTransport::from_config(config)).await
    }

    async fn metrics(&self, token: Option<&str>) -> String {
        let mut req = reqwest::Client::new().get(format!("{}/metrics", self.base()));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        req.send().await.unwrap().text().await.unwrap()
    }
}

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name).with_arguments(map)
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn error_code(result: &CallToolResult) -> String {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected an error result: {}",
        text(result)
    );
    result
        .meta
        .as_ref()
        .and_then(|m| m.0.get("trawl/error"))
        .and_then(|e| e["code"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn structured(result: &CallToolResult) -> &Value {
    assert_ne!(result.is_error, Some(true), "tool failed: {}", text(result));
    result
        .structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("no structuredContent: {}", text(result)))
}

/// Every tool once, as an agent would chain them: search, read, page, find, papers, repos;
/// then a failed read, bad arguments and an unknown tool.
async fn exercise_every_tool(client: &Client, world: &World) {
    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().unwrap().name, "trawl");
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        ["arxiv", "github", "web_fetch", "web_open", "web_search"]
    );
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(
            tool.output_schema.is_some(),
            "{} has no output schema",
            tool.name
        );
        assert!(
            tool.description.as_deref().unwrap_or("").len() > 100,
            "{} needs a description a model can act on",
            tool.name
        );
    }
    let fetch = tools.iter().find(|t| t.name == "web_fetch").unwrap();
    assert_eq!(fetch.input_schema["additionalProperties"], false);
    assert!(fetch.input_schema["properties"]["urls"].is_object());

    // web_search, on the SearXNG fixture only.
    let result = client
        .call_tool(call(
            "web_search",
            json!({"query": "python format", "engines": ["searxng"], "max_results": 5}),
        ))
        .await
        .unwrap();
    let data = structured(&result);
    let hits = data["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 5, "{data}");
    assert!(hits[0]["url"].as_str().unwrap().starts_with("http"));
    assert_eq!(data["engines"][0]["engine"], "searxng");
    assert_eq!(data["engines"][0]["outcome"], "ok");
    let shown = text(&result);
    assert!(shown.contains(hits[0]["url"].as_str().unwrap()), "{shown}");

    // web_fetch one page, in small pages.
    let url = world.pages.url("/article");
    let result = client
        .call_tool(call(
            "web_fetch",
            json!({"url": url, "page_size_tokens": 300}),
        ))
        .await
        .unwrap();
    let doc = &structured(&result)["results"][0]["document"];
    let handle = doc["handle"].as_str().unwrap().to_owned();
    assert_eq!(doc["page"], 1);
    assert!(doc["pages"].as_u64().unwrap() >= 3, "{doc}");
    assert!(doc["markdown"].as_str().unwrap().contains("Harbour seals"));
    let shown = text(&result);
    assert!(
        shown.contains(&format!("web_open handle={handle} page=2")),
        "{shown}"
    );

    // web_open: the next page, then passages.
    let result = client
        .call_tool(call(
            "web_open",
            json!({"handle": handle, "page": 2, "page_size_tokens": 300}),
        ))
        .await
        .unwrap();
    let page = structured(&result);
    assert_eq!(page["page"], 2);
    assert!(page["markdown"].as_str().unwrap().contains("Paragraph"));
    let result = client
        .call_tool(call(
            "web_open",
            json!({"handle": handle, "find": "harbour seals"}),
        ))
        .await
        .unwrap();
    let found = structured(&result);
    assert!(!found["passages"].as_array().unwrap().is_empty(), "{found}");

    // arxiv and github, on their fixtures.
    let result = client
        .call_tool(call("arxiv", json!({"query": "electron proton"})))
        .await
        .unwrap();
    let data = structured(&result);
    assert!(!data["hits"].as_array().unwrap().is_empty(), "{data}");
    assert!(
        data["hits"][0]["url"]
            .as_str()
            .unwrap()
            .contains("arxiv.org")
    );
    let result = client
        .call_tool(call("github", json!({"query": "pygithub"})))
        .await
        .unwrap();
    let data = structured(&result);
    assert!(!data["hits"].as_array().unwrap().is_empty(), "{data}");
    assert!(
        data["hits"][0]["url"]
            .as_str()
            .unwrap()
            .contains("github.com")
    );

    // A failed read is a tool result with isError and the Envelope's code.
    let missing = world.pages.url("/missing");
    let result = client
        .call_tool(call("web_fetch", json!({"url": missing})))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "not_found", "{}", text(&result));
    assert!(
        text(&result).starts_with("error[not_found]"),
        "{}",
        text(&result)
    );
    // So is a request the agent layer refuses.
    let result = client
        .call_tool(call("web_fetch", json!({"url": url, "handle": handle})))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "invalid_input");

    // Arguments that break the schema come back as isError too, naming the problem, so
    // the model can correct them.
    let result = client
        .call_tool(call("web_search", json!({"query": "x", "bogus": 1})))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "invalid_input");
    assert!(
        text(&result).contains("unknown field `bogus`"),
        "{}",
        text(&result)
    );
    // An unknown tool is refused one way or the other.
    let unknown = client.call_tool(call("no_such_tool", json!({}))).await;
    assert!(
        !matches!(&unknown, Ok(r) if r.is_error != Some(true)),
        "{unknown:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_serves_every_tool() {
    let world = World::new();
    let client = stdio_client(&world, &[]).await;
    exercise_every_tool(&client, &world).await;
    client.cancel().await.unwrap();
    let log = world.request_log();
    assert!(
        log.contains("tool=web_search query=\"python format\""),
        "{log}"
    );
    assert!(log.contains("engines=searxng:ok:"), "{log}");
    assert!(
        log.contains("tool=web_fetch url=http://127.0.0.1:"),
        "{log}"
    );
    assert!(log.contains("outcome=not_found"), "{log}");
    assert!(
        log.lines().all(|l| !l.contains("Paragraph")),
        "bodies never reach the log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_serves_every_tool_with_metrics() {
    let world = World::new();
    let server = HttpServer::start(&world, &[], &[]);
    let client = server.client(None).await;
    exercise_every_tool(&client, &world).await;
    client.cancel().await.unwrap();

    let health: Value = reqwest::get(format!("{}/healthz", server.base()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["status"], "ok");
    let metrics = server.metrics(None).await;
    for line in [
        "trawl_tool_calls_total{tool=\"web_search\",outcome=\"ok\"} 1",
        "trawl_tool_errors_total{tool=\"web_fetch\",code=\"not_found\"} 1",
        "trawl_engine_outcomes_total{engine=\"searxng\",outcome=\"ok\"} 1",
        "trawl_tool_call_duration_seconds_count{tool=\"web_open\"} 2",
        "trawl_inflight_calls 0",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "missing {line:?}:\n{metrics}"
        );
    }
    assert!(metrics.contains("trawl_http_requests_total{route=\"/mcp\",status=\"200\"}"));
    assert!(metrics.contains("trawl_store_bytes "), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_reads_report_progress() {
    let world = World::new();
    let client = stdio_client(&world, &[]).await;
    let urls = [
        world.pages.url("/article"),
        world.pages.url("/second"),
        world.pages.url("/third"),
    ];
    let result = client
        .call_tool(call("web_fetch", json!({"urls": urls})))
        .await
        .unwrap();
    let results = structured(&result)["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["ok"] == true), "{results:?}");
    // rmcp's client handles each notification on its own task, so they may be recorded
    // out of order, and the last one may land just after the answer.
    let seen = client.service().progress.clone();
    until(async || seen.lock().unwrap().len() >= 3).await;
    let mut progress = seen.lock().unwrap().clone();
    progress.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(
        progress,
        vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );
    client.cancel().await.unwrap();
}

/// Wait until `check` holds, polling for at most 30 s.
async fn until(mut check: impl AsyncFnMut() -> bool) {
    for _ in 0..600 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("condition not reached within 30 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_frees_its_slot_over_stdio() {
    let world = World::new();
    // One slot, a long queue wait and a long fetch timeout: only a real cancellation lets
    // the second call run.
    let client = stdio_client(
        &world,
        &[
            "--max-concurrent",
            "1",
            "--queue-timeout",
            "120",
            "--timeout",
            "300",
        ],
    )
    .await;
    let hang = world.pages.url("/hang");
    let abandoned = tokio::time::timeout(
        Duration::from_millis(500),
        client.call_tool(call("web_fetch", json!({"url": hang}))),
    )
    .await;
    assert!(
        abandoned.is_err(),
        "the hanging read answered: {abandoned:?}"
    );
    let result = client
        .call_tool(call(
            "web_fetch",
            json!({"url": world.pages.url("/second")}),
        ))
        .await
        .unwrap();
    structured(&result);
    client.cancel().await.unwrap();
    let log = world.request_log();
    assert!(log.contains("outcome=cancelled"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_the_limit_calls_are_refused_as_busy_over_http() {
    let world = World::new();
    let server = HttpServer::start(
        &world,
        &[
            "--max-concurrent",
            "1",
            "--queue-timeout",
            "0.2",
            "--timeout",
            "300",
        ],
        &[],
    );
    let client = Arc::new(server.client(None).await);
    let hang = world.pages.url("/hang");
    let hanging = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool(call("web_fetch", json!({"url": hang})))
                .await
        })
    };
    until(async || {
        server
            .metrics(None)
            .await
            .contains("trawl_inflight_calls 1")
    })
    .await;
    let result = client
        .call_tool(call(
            "web_fetch",
            json!({"url": world.pages.url("/second")}),
        ))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "rate_limited");
    assert!(text(&result).contains("busy"), "{}", text(&result));
    hanging.abort();
    until(async || {
        server
            .metrics(None)
            .await
            .contains("trawl_inflight_calls 0")
    })
    .await;
    let metrics = server.metrics(None).await;
    assert!(
        metrics.contains("trawl_rejected_calls_total{reason=\"busy\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("trawl_tool_errors_total{tool=\"web_fetch\",code=\"cancelled\"} 1"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_requires_the_bearer_token_when_one_is_set() {
    let world = World::new();
    let server = HttpServer::start(&world, &[], &[("TRAWL_TOKEN", "s3cret-token")]);
    let http = reqwest::Client::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "curl", "version": "0"}}
    });
    for auth in [None, Some("Bearer wrong"), Some("Basic s3cret-token")] {
        let mut req = http
            .post(&server.url)
            .header("Accept", "application/json, text/event-stream")
            .json(&initialize);
        if let Some(auth) = auth {
            req = req.header("Authorization", auth);
        }
        let response = req.send().await.unwrap();
        assert_eq!(response.status(), 401, "{auth:?}");
        assert!(response.headers().contains_key("www-authenticate"));
    }
    let response = http
        .get(format!("{}/metrics", server.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let response = http
        .get(format!("{}/healthz", server.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let client = server.client(Some("s3cret-token")).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 5);
    client.cancel().await.unwrap();
    let metrics = server.metrics(Some("s3cret-token")).await;
    assert!(
        metrics.contains("trawl_http_requests_total{route=\"/mcp\",status=\"401\"} 3"),
        "{metrics}"
    );
    assert!(
        !server.stderr.lock().unwrap().contains("s3cret"),
        "the token reached the log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refuses_foreign_origins_and_hosts() {
    let world = World::new();
    let server = HttpServer::start(&world, &[], &[]);
    let http = reqwest::Client::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "page", "version": "0"}}
    });
    let post = |origin: Option<&str>, host: Option<&str>| {
        let mut req = http
            .post(&server.url)
            .header("Accept", "application/json, text/event-stream")
            .json(&initialize);
        if let Some(origin) = origin {
            req = req.header("Origin", origin);
        }
        if let Some(host) = host {
            req = req.header("Host", host);
        }
        req.send()
    };
    assert_eq!(
        post(Some("http://evil.example"), None)
            .await
            .unwrap()
            .status(),
        403
    );
    assert_eq!(
        post(None, Some("evil.example")).await.unwrap().status(),
        403
    );
    assert_eq!(
        post(Some("http://localhost:3000"), None)
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(post(None, None).await.unwrap().status(), 200);
}

#[test]
fn serve_refuses_an_open_public_listener() {
    let world = World::new();
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["serve", "--listen", "0.0.0.0:0"])
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--insecure-no-auth") && stderr.contains("TRAWL_TOKEN"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_only_serves_reading_tools() {
    let world = World::new();
    let client = stdio_client(&world, &["--fetch-only"]).await;
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["web_fetch", "web_open"]);
    client.cancel().await.unwrap();
}

#[test]
fn sigterm_lets_a_running_call_finish_over_stdio() {
    use std::io::Write;
    let world = World::new();
    // A page that takes a while to arrive, so the call is still running at SIGTERM.
    world.pages.route(
        "/slow",
        Reply::Trickle {
            body: article("Slow seals", 10).into_bytes(),
            piece: 400,
            pause: Duration::from_millis(150),
        },
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["mcp", "--shutdown-grace", "60"])
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}),
    );
    let first: Value = serde_json::from_str(&stdout.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "web_fetch", "arguments": {"url": world.pages.url("/slow")}}}),
    );
    for _ in 0..600 {
        if world.pages.hits("/slow") > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(world.pages.hits("/slow"), 1, "the read never started");
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let answer: Value = serde_json::from_str(&stdout.next().unwrap().unwrap()).unwrap();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let markdown = answer["result"]["structuredContent"]["results"][0]["document"]["markdown"]
        .as_str()
        .unwrap_or_default();
    assert!(markdown.contains("Slow seals"), "{answer}");
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let log = world.request_log();
    assert!(log.contains("event=shutdown"), "{log}");
    assert!(log.contains("all_calls_finished=true"), "{log}");
}
