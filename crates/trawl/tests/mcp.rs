//! `trawl mcp` (stdio) and `trawl serve` (streamable HTTP) driven by rmcp's own client, with
//! every engine and page on loopback test servers: the handshake, tools/list, each tool,
//! errors as `isError` results, progress, cancellation, over-limit calls, bearer auth and
//! Origin checks.
//!
//! - `tools`: every tool over both transports, errors, progress, `--fetch-only`.
//! - `limits`: cancellation, over-limit calls, SIGTERM with a call running.
//! - `access`: bearer token, Host and Origin checks, the open-listener refusal.
//! - `one_secret`: a key, a Redis and a proxy password through every face, shown nowhere.

#![allow(
    unsafe_code,
    reason = "the bounds tests set descriptor limits (setrlimit in pre_exec) and make FIFOs (mkfifo); std has no wrappers"
)]

mod access;
mod blocking;
mod bounds;
mod compat;
mod compat_guard;
mod crawl;
mod disabled_engines;
mod hostile;
mod limits;
mod map_search;
mod one_secret;
mod protocol;
mod reads;
mod render;
mod replica_crawls;
mod replicas;
mod schemas;
mod thin_pages;
mod tools;

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
        Self::start_limited(world, args, extra_env, None)
    }

    /// Like `start`, with the server's open-file limit (soft and hard) set to
    /// `descriptors` before it runs.
    fn start_limited(
        world: &World,
        args: &[&str],
        extra_env: &[(&str, &str)],
        descriptors: Option<u64>,
    ) -> HttpServer {
        let limits: Vec<(libc::__rlimit_resource_t, u64)> = descriptors
            .map(|d| (libc::RLIMIT_NOFILE, d))
            .into_iter()
            .collect();
        Self::start_with_rlimits(world, args, extra_env, &limits)
    }

    /// Like `start`, with each resource limit (soft and hard) set before the server runs.
    fn start_with_rlimits(
        world: &World,
        args: &[&str],
        extra_env: &[(&str, &str)],
        limits: &[(libc::__rlimit_resource_t, u64)],
    ) -> HttpServer {
        let mut command = Command::new(env!("CARGO_BIN_EXE_trawl"));
        for &(resource, limit) in limits {
            use std::os::unix::process::CommandExt;
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            // SAFETY: setrlimit is async-signal-safe and only touches the child's limits.
            unsafe {
                command.pre_exec(move || {
                    if libc::setrlimit(resource, &rlimit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let mut child = command
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

    fn pid(&self) -> u32 {
        self.child.id()
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
