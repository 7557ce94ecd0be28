//! Who gets in: the bearer token, Host and Origin checks, the open-listener refusal.

use super::*;

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
    assert_eq!(tools.len(), 8);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_refuses_foreign_hosts_and_origins() {
    let world = World::new();
    let server = HttpServer::start(&world, &[], &[]);
    let http = reqwest::Client::new();
    let get = |origin: Option<&str>, host: Option<&str>| {
        let mut req = http.get(format!("{}/metrics", server.base()));
        if let Some(origin) = origin {
            req = req.header("Origin", origin);
        }
        if let Some(host) = host {
            req = req.header("Host", host);
        }
        req.send()
    };
    // A DNS-rebinding page: its own name in Host, or its origin.
    let rebound = get(None, Some("evil.example")).await.unwrap();
    assert_eq!(rebound.status(), 403);
    assert!(!rebound.text().await.unwrap().contains("trawl_"));
    let cross = get(Some("http://evil.example"), None).await.unwrap();
    assert_eq!(cross.status(), 403);
    let local = get(Some("http://localhost:3000"), None).await.unwrap();
    assert_eq!(local.status(), 200);
    assert!(local.text().await.unwrap().contains("trawl_uptime_seconds"));
    assert_eq!(get(None, None).await.unwrap().status(), 200);
}

#[test]
fn an_empty_token_is_refused_like_an_empty_token_file() {
    let world = World::new();
    // A server that starts is stopped after a while, and fails the test.
    let serve = |env: &[(&str, &str)], args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .current_dir(&world.dir)
            .env_clear()
            .envs(world.env())
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("trawl serve {args:?} with {env:?} started");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    };
    for value in ["", "  "] {
        let out = serve(&[("TRAWL_TOKEN", value)], &[]);
        assert_eq!(out.status.code(), Some(2), "TRAWL_TOKEN={value:?} served");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("TRAWL_TOKEN is set but empty"), "{stderr}");
    }
    // From the config file's keys too, and even beside a token file.
    std::fs::write(world.dir.join("token"), "s3cret\n").unwrap();
    let out = serve(&[("TRAWL_TOKEN", "")], &["--token-file", "token"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(world.dir.join("empty.toml"), "[keys]\nTRAWL_TOKEN = \"\"\n").unwrap();
    let out = serve(&[], &["--config", "empty.toml"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(world.dir.join("empty-token"), "\n").unwrap();
    let out = serve(&[], &["--token-file", "empty-token"]);
    assert_eq!(out.status.code(), Some(2));
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
