//! Every tool over both transports, tool errors as `isError`, progress, `--fetch-only`.

use super::*;

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
        [
            "arxiv",
            "github",
            "sites",
            "web_crawl",
            "web_fetch",
            "web_map",
            "web_open",
            "web_search"
        ]
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
    let body = doc["markdown"].as_str().unwrap();
    assert!(body.contains("Harbour seals"));
    // Structured content is fenced like the text content, with the same nonce.
    let nonce = body
        .split("<<<TRAWL_UNTRUSTED_BEGIN nonce=")
        .nth(1)
        .and_then(|rest| rest.get(..32))
        .unwrap_or_else(|| panic!("structured markdown is not fenced: {body}"));
    assert!(body.contains(&format!("<<<TRAWL_UNTRUSTED_END nonce={nonce}>>>")));
    let shown = text(&result);
    assert!(shown.contains(nonce), "one fence per answer");
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
    assert_eq!(
        names,
        ["sites", "web_crawl", "web_fetch", "web_map", "web_open"]
    );
    client.cancel().await.unwrap();
}

/// `web_search` over MCP: the `social` route, `disabled_engines` from the environment,
/// the selection echoed in the answer, and a clear error when nothing is left.
#[tokio::test]
async fn web_search_routes_and_disabled_engines() {
    let world = World::new();
    // The social route's engines, on loopback: Hacker News answers empty, Reddit and
    // SOV2EX 404.
    let social = TestServer::start();
    social.route(
        "/api/v1/search",
        Reply::ok("application/json", r#"{"hits":[]}"#),
    );
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_trawl"));
    cmd.arg("mcp")
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .env("TRAWL_HACKERNEWS_URL", social.base())
        .env("TRAWL_REDDIT_URL", social.base())
        .env("TRAWL_SOV2EX_URL", social.base())
        .env("TRAWL_DISABLED_ENGINES", "arxiv")
        .env("TRAWL_CONFIG", world.dir.join("trawl.toml"));
    std::fs::write(
        world.dir.join("trawl.toml"),
        "[routes]\npapers = [\"arxiv\", \"searxng\"]\n",
    )
    .unwrap();
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn trawl mcp");
    let client = serve_client(transport).await;

    let result = client
        .call_tool(call(
            "web_search",
            json!({"query": "python format", "engines": ["searxng", "arxiv"]}),
        ))
        .await
        .unwrap();
    let data = structured(&result);
    assert_eq!(
        data["selection"]["route_engines"],
        json!(["searxng", "arxiv"])
    );
    assert_eq!(data["selection"]["disabled"], json!(["arxiv"]));
    assert_eq!(data["selection"]["asked"], json!(["searxng"]));
    assert_eq!(data["engines"].as_array().unwrap().len(), 1);

    let result = client
        .call_tool(call(
            "web_search",
            json!({"query": "q", "engines": ["arxiv"]}),
        ))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "invalid_input");
    assert!(
        text(&result).contains("disabled_engines"),
        "{}",
        text(&result)
    );

    // A route the configuration defines is a route argument like the built-in ones.
    let result = client
        .call_tool(call(
            "web_search",
            json!({"query": "python format", "route": "papers"}),
        ))
        .await
        .unwrap();
    let data = structured(&result);
    assert_eq!(data["selection"]["route"], "papers", "{data}");
    assert_eq!(
        data["selection"]["route_engines"],
        json!(["arxiv", "searxng"])
    );
    assert_eq!(data["selection"]["asked"], json!(["searxng"]));
    let result = client
        .call_tool(call("web_search", json!({"query": "q", "route": "nosuch"})))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "invalid_input");
    assert!(text(&result).contains("unknown route"), "{}", text(&result));

    // The social route: Reddit and Hacker News by the table (both keyless).
    let result = client
        .call_tool(call("web_search", json!({"query": "q", "route": "social"})))
        .await
        .unwrap();
    let data = structured(&result);
    assert_eq!(data["selection"]["route"], "social");
    assert_eq!(
        data["selection"]["route_engines"],
        json!(["hackernews", "reddit", "sov2ex"])
    );
    let asked: Vec<String> = social.seen().into_iter().map(|s| s.path).collect();
    assert!(
        asked.iter().any(|p| p.starts_with("/api/v1/search")),
        "{asked:?}"
    );
    client.cancel().await.unwrap();
}

/// A logged-in `gh` (a fake one on PATH) lends its token on the first search, not when the
/// server starts: starting and listing the tools run no child process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gh_is_asked_for_a_token_on_the_first_search_not_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let world = World::new();
    let bin = world.dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let calls = world.dir.join("gh-calls");
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        format!(
            "#!/bin/sh\necho \"$@\" >> {}\nif [ \"$1 $2\" = \"auth token\" ]; then echo gho_LAZY1234token; exit 0; fi\nexit 1\n",
            calls.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut env = world.env();
    let path = format!("{}:{}", bin.display(), env["PATH"]);
    env.insert("PATH".into(), path);
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_trawl"));
    cmd.arg("mcp").current_dir(&world.dir).env_clear().envs(env);
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn trawl mcp");
    let client = serve_client(transport).await;

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "github"));
    assert!(!calls.exists(), "gh was asked at start");

    let result = client
        .call_tool(call("github", json!({"query": "pygithub"})))
        .await
        .unwrap();
    assert!(!structured(&result)["hits"].as_array().unwrap().is_empty());
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), "auth token\n");
    let sent: Vec<String> = world
        .engines
        .seen()
        .into_iter()
        .filter_map(|r| r.headers.get("authorization").cloned())
        .collect();
    assert_eq!(sent, ["Bearer gho_LAZY1234token"]);
    client.cancel().await.unwrap();
}

/// The `sites` tool: a read is remembered, a pin is listed and kept over what works, and
/// reset forgets one site; the same store the CLI's `trawl sites` shows.
#[tokio::test]
async fn sites_lists_pins_and_resets_the_site_memory() {
    let world = World::new();
    let client = stdio_client(&world, &[]).await;
    let result = client.call_tool(call("sites", json!({}))).await.unwrap();
    assert_eq!(structured(&result)["sites"], json!([]));
    let url = world.pages.url("/article");
    let result = client
        .call_tool(call("web_fetch", json!({"url": url})))
        .await
        .unwrap();
    assert_eq!(structured(&result)["results"][0]["ok"], true);
    let result = client.call_tool(call("sites", json!({}))).await.unwrap();
    let listed = structured(&result);
    assert_eq!(listed["sites"][0]["site"], "127.0.0.1", "{listed}");
    assert_eq!(listed["sites"][0]["reader"], "http");
    assert_eq!(listed["sites"][0]["pinned"], false);
    assert_eq!(
        listed["sites"][0]["tiers"],
        json!([{"reader": "http", "ok": 1, "failed": 0}])
    );
    assert!(
        text(&result).contains("127.0.0.1: http; http 1 ok, 0 failed"),
        "{}",
        text(&result)
    );

    let result = client
        .call_tool(call(
            "sites",
            json!({"action": "pin", "site": "http://127.0.0.1/x", "reader": "render"}),
        ))
        .await
        .unwrap();
    let pinned = structured(&result);
    assert_eq!(pinned["sites"][0]["reader"], "render", "{pinned}");
    assert_eq!(pinned["sites"][0]["pinned"], true);
    assert!(text(&result).contains("127.0.0.1: render (pinned)"));

    let result = client
        .call_tool(call(
            "sites",
            json!({"action": "pin", "site": "docs.rs", "reader": "telnet"}),
        ))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "invalid_input");
    assert!(text(&result).contains("impersonate"), "{}", text(&result));
    let result = client
        .call_tool(call("sites", json!({"action": "pin", "site": "docs.rs"})))
        .await
        .unwrap();
    assert_eq!(error_code(&result), "invalid_input");

    let result = client
        .call_tool(call(
            "sites",
            json!({"action": "reset", "site": "127.0.0.1"}),
        ))
        .await
        .unwrap();
    let reset = structured(&result);
    assert_eq!(reset["forgotten"], 1, "{reset}");
    assert_eq!(reset["sites"], json!([]));
    client.cancel().await.unwrap();
}

/// A value just past a published bound (`minimum`/`maximum`, `minLength`/`maxLength`,
/// `minItems`/`maxItems`, and the same on an array's items), if the property has one.
fn past_the_bound(property: &Value) -> Option<Value> {
    let n = |key: &str| property[key].as_u64();
    if let Some(max) = n("maximum") {
        return Some(json!(max + 1));
    }
    if let Some(min) = n("minimum").filter(|m| *m > 0) {
        return Some(json!(min - 1));
    }
    if let Some(max) = n("maxLength") {
        return Some(json!("a".repeat(max as usize + 1)));
    }
    if let Some(max) = n("maxItems") {
        return Some(json!(vec!["a"; max as usize + 1]));
    }
    let item_max = property["items"]["maxLength"].as_u64()?;
    Some(json!(["a".repeat(item_max as usize + 1)]))
}

/// Each tool's arguments as the server checks them: the schema before `tools/list` says each
/// bound once (in words, or for a string's length not at all).
fn checked_schema(tool: &str) -> Value {
    use trawl_agent::tools::*;
    let schema = match tool {
        "arxiv" => input_schema::<ArxivArgs>(),
        "github" => input_schema::<GithubArgs>(),
        "sites" => input_schema::<SitesArgs>(),
        "web_crawl" => input_schema::<WebCrawlArgs>(),
        "web_fetch" => input_schema::<WebFetchArgs>(),
        "web_map" => input_schema::<WebMapArgs>(),
        "web_open" => input_schema::<WebOpenArgs>(),
        "web_search" => input_schema::<WebSearchArgs>(),
        other => panic!("a tool this test does not know: {other}"),
    };
    schema.to_value()
}

/// Every bound the server holds is refused: a value just past it comes back as
/// `invalid_input` naming the argument, for every tool and argument the list shows; and
/// the list says each number's range and array's size in the argument's description.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_published_bound_is_refused_naming_the_argument() {
    let world = World::new();
    let client = stdio_client(&world, &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut tried = 0;
    for tool in &tools {
        let schema = checked_schema(&tool.name);
        let properties = schema.get("properties").and_then(Value::as_object).unwrap();
        let required = schema.get("required").and_then(Value::as_array);
        let published = &tool.input_schema["properties"];
        for (name, property) in properties {
            let Some(value) = past_the_bound(property) else {
                continue;
            };
            let bound = trawl_agent::tools::Bound::of(property).unwrap();
            if bound.counted != trawl_agent::tools::Counted::Chars {
                let said = published[name]["description"].as_str().unwrap_or_default();
                let size = trawl_agent::tools::Bound {
                    each: None,
                    ..bound.clone()
                }
                .words();
                assert!(
                    said.contains(&size),
                    "{}.{name}: {said:?} does not say {size}",
                    tool.name
                );
            }
            let mut arguments = serde_json::Map::new();
            for required in required.into_iter().flatten() {
                arguments.insert(required.as_str().unwrap().to_owned(), json!("seals"));
            }
            // web_open's `limit` counts the passages of a `find`; without one it is not used.
            if tool.name == "web_open" && name == "limit" {
                arguments.insert("find".into(), json!("seals"));
            }
            arguments.insert(name.clone(), value.clone());
            let request = CallToolRequestParams::new(tool.name.clone()).with_arguments(arguments);
            let result = client.call_tool(request).await.unwrap();
            assert_eq!(
                error_code(&result),
                "invalid_input",
                "{} {name}={value}",
                tool.name
            );
            assert!(
                text(&result).contains(&format!("error[invalid_input]: {name}")),
                "{} {name}: {}",
                tool.name,
                text(&result)
            );
            tried += 1;
        }
    }
    // Every bounded argument of the six tools (the implicit `minimum: 0` of a count aside).
    assert!(tried >= 16, "only {tried} bounds tried");
    client.cancel().await.unwrap();
}

/// A PDF over MCP: its tables as GFM in the answer; a scanned PDF and an image served as
/// `image/png` read by OCR (Debian's tesseract), with `ocr` in the structured answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdf_reads_with_tables_and_a_scan_and_an_image_by_ocr() {
    let world = World::new();
    let fixture = |dir: &str, name: &str| {
        let dir = format!(
            "{}/../trawl-extract/tests/{dir}/",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(format!("{dir}{name}")).unwrap()
    };
    world.pages.route(
        "/invoice.pdf",
        Reply::ok("application/pdf", fixture("pdf", "invoice.pdf")),
    );
    world.pages.route(
        "/scan.pdf",
        Reply::ok("application/pdf", fixture("ocr", "scan.pdf")),
    );
    world.pages.route(
        "/notice.png",
        Reply::ok("image/png", fixture("ocr", "paragraph.png")),
    );
    let client = stdio_client(&world, &[]).await;
    let result = client
        .call_tool(call(
            "web_fetch",
            json!({"url": world.pages.url("/invoice.pdf")}),
        ))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    assert!(
        text(&result).contains("| Total due | 471.60 |"),
        "{}",
        text(&result)
    );
    for (path, words) in [
        ("/scan.pdf", "Moorings and charges"),
        ("/notice.png", "listen on channel twelve for instructions"),
    ] {
        let result = client
            .call_tool(call("web_fetch", json!({"url": world.pages.url(path)})))
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
        assert!(text(&result).contains(words), "{}", text(&result));
        let page = &structured(&result)["results"][0]["document"];
        assert_eq!(page["ocr"], true, "{page}");
    }
    client.cancel().await.unwrap();
}
