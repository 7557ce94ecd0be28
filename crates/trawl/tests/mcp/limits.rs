//! Cancellation, over-limit calls and SIGTERM with a call running.

use super::*;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_a_running_call_finish_over_http() {
    let world = World::new();
    world.pages.route(
        "/slow",
        Reply::Trickle {
            body: article("Slow seals", 10).into_bytes(),
            piece: 400,
            pause: Duration::from_millis(150),
        },
    );
    let mut server = HttpServer::start(&world, &["--shutdown-grace", "60"], &[]);
    let client = Arc::new(server.client(None).await);
    let running = {
        let client = client.clone();
        let url = world.pages.url("/slow");
        tokio::spawn(async move {
            client
                .call_tool(call("web_fetch", json!({"url": url})))
                .await
        })
    };
    until(async || world.pages.hits("/slow") > 0).await;
    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let result = running.await.unwrap().unwrap();
    let doc = &structured(&result)["results"][0]["document"];
    assert!(doc["markdown"].as_str().unwrap().contains("Slow seals"));
    let mut code = None;
    until(async || {
        code = server.child.try_wait().unwrap().map(|s| s.code());
        code.is_some()
    })
    .await;
    assert_eq!(code, Some(Some(0)));
    let stderr = server.stderr.lock().unwrap().clone();
    assert!(stderr.contains("event=shutdown"), "{stderr}");
    assert!(stderr.contains("all_calls_finished=true"), "{stderr}");
}
