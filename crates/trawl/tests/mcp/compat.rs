//! The Firecrawl- and Jina-compatible routes of `trawl serve`, with a plain HTTP client:
//! each route's shape, the token, refusals in Firecrawl's error shape.

use super::*;

async fn post(server: &HttpServer, path: &str, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", server.base()))
        .bearer_auth("compat-token")
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn get(server: &HttpServer, path: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .get(if path.starts_with("http") {
            path.to_owned()
        } else {
            format!("{}{path}", server.base())
        })
        .bearer_auth("compat-token")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn start(world: &World) -> HttpServer {
    HttpServer::start(world, &[], &[("TRAWL_TOKEN", "compat-token")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrape_answers_firecrawls_shape_and_refuses_what_trawl_cannot_do() {
    let world = World::new();
    let server = start(&world);
    let url = world.pages.url("/article");
    // The token is the same as /mcp's.
    let unauthorised = reqwest::Client::new()
        .post(format!("{}/v2/scrape", server.base()))
        .json(&json!({"url": url}))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorised.status(), 401);
    // In Firecrawl's error shape, which the SDKs read.
    let refused: Value = unauthorised.json().await.unwrap();
    assert_eq!(refused["success"], false, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("Unauthorized"),
        "{refused}"
    );

    let (status, body) = post(&server, "/v2/scrape", json!({"url": url})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], true);
    let data = &body["data"];
    let markdown = data["markdown"].as_str().unwrap();
    assert!(
        markdown.contains("Paragraph 3 of Harbour seals"),
        "{markdown}"
    );
    // The title the extractor kept apart opens the Markdown (issue 40 item 9).
    assert!(markdown.starts_with("# Harbour seals\n\n"), "{markdown}");
    assert!(data.get("html").is_none());
    assert_eq!(data["metadata"]["title"], "Harbour seals");
    assert_eq!(data["metadata"]["sourceURL"], url);
    assert_eq!(data["metadata"]["statusCode"], 200);

    let (status, body) = post(
        &server,
        "/v1/scrape",
        json!({"url": url, "formats": ["html", "rawHtml", "links"], "excludeTags": ["h1"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert!(
        data["rawHtml"]
            .as_str()
            .unwrap()
            .contains("<article><h1>Harbour seals</h1>")
    );
    // The cleaned content opens with the page's title, as Firecrawl's does.
    let html = data["html"].as_str().unwrap();
    assert!(
        html.starts_with("<h1>Harbour seals</h1>")
            && html.contains("<p>Paragraph 0")
            && !html.contains("<article>"),
        "{html}"
    );
    assert!(
        data["metadata"]["scrapeId"]
            .as_str()
            .is_some_and(|id| id.len() == 36),
        "{data}"
    );
    assert_eq!(data["metadata"]["creditsUsed"], 1, "{data}");
    assert_eq!(data["metadata"]["proxyUsed"], "basic", "{data}");
    assert!(data["links"].is_array());

    // A second read is served from the store.
    let (_, body) = post(&server, "/v2/scrape", json!({"url": url})).await;
    assert_eq!(body["data"]["metadata"]["cacheState"], "hit");
    let (_, body) = post(&server, "/v2/scrape", json!({"url": url, "maxAge": 0})).await;
    assert_eq!(body["data"]["metadata"]["cacheState"], "miss");

    for (request, says) in [
        (json!({"url": url, "formats": ["json"]}), "json format"),
        (
            json!({"url": url, "formats": ["markdown", "changeTracking", "screenshot"]}),
            "changeTracking with screenshot",
        ),
        (
            json!({"url": url, "actions": [{"type": "executeJavascript", "script": "1"}]}),
            "executeJavascript is refused",
        ),
        (
            json!({"url": url, "actions": [{"type": "click"}]}),
            "needs `selector`",
        ),
        (
            json!({"url": url, "formats": ["markdown", {"type": "changeTracking", "modes": ["json"]}]}),
            "json mode",
        ),
        (
            json!({"url": url, "formats": ["changeTracking"]}),
            "ask for markdown too",
        ),
    ] {
        let (status, body) = post(&server, "/v2/scrape", request).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["success"], false);
        assert!(body["error"].as_str().unwrap().contains(says), "{body}");
    }
    let (status, body) = post(&server, "/v2/extract", json!({"urls": [url]})).await;
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("not supported"),
        "{body}"
    );
    // The guard refuses the metadata address before any request.
    let (status, body) = post(
        &server,
        "/v2/scrape",
        json!({"url": "http://169.254.169.254/latest/meta-data/"}),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "blocked_by_policy");
    let (status, _) = post(&server, "/v2/scrape", json!({"nourl": 1})).await;
    assert_eq!(status, 400);
}

/// A page whose navigation and footer are not its main content.
fn laid_out(title: &str) -> String {
    article(title, 8)
        .replace(
            "<body><article>",
            "<body><nav><a href=\"/menu\">Harbour menu entry</a></nav><script>var tracker = 1;\
         </script><article>",
        )
        .replace(
            "</article></body>",
            "</article><footer>Footer of the seal society</footer></body>",
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_main_content_false_answers_the_whole_page() {
    let world = World::new();
    world
        .pages
        .route("/laid-out", Reply::html(laid_out("Seal colonies")));
    let server = start(&world);
    let url = world.pages.url("/laid-out");
    let scrape = |only_main: bool| {
        post(
            &server,
            "/v2/scrape",
            json!({"url": url, "formats": ["markdown", "html"], "onlyMainContent": only_main}),
        )
    };
    let (status, body) = scrape(true).await;
    assert_eq!(status, 200, "{body}");
    let main = body["data"]["markdown"].as_str().unwrap();
    assert!(main.contains("Paragraph 3 of Seal colonies"), "{main}");
    assert!(
        !main.contains("Harbour menu entry") && !main.contains("Footer of the seal society"),
        "{main}"
    );

    let (status, body) = scrape(false).await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    let whole = data["markdown"].as_str().unwrap();
    for kept in [
        "Harbour menu entry",
        "Paragraph 3 of Seal colonies",
        "Footer of the seal society",
    ] {
        assert!(whole.contains(kept), "{kept} missing from {whole}");
    }
    // The menu's link is made absolute against the page.
    assert!(whole.contains(&world.pages.url("/menu")), "{whole}");
    assert!(!whole.contains("var tracker"), "{whole}");
    let html = data["html"].as_str().unwrap();
    assert!(
        html.contains("<nav>") && html.contains("<footer>") && !html.contains("<script"),
        "{html}"
    );
    assert_eq!(data["metadata"]["title"], "Seal colonies");
    // With excludeTags, the whole page minus what they drop.
    let (_, body) = post(
        &server,
        "/v1/scrape",
        json!({"url": url, "onlyMainContent": false, "excludeTags": ["nav"]}),
    )
    .await;
    let minus = body["data"]["markdown"].as_str().unwrap();
    assert!(
        !minus.contains("Harbour menu entry") && minus.contains("Footer of the seal society"),
        "{minus}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_tracking_says_new_same_changed_and_removed() {
    let world = World::new();
    world
        .pages
        .route("/tracked", Reply::html(article("Tide tables", 6)));
    let server = start(&world);
    let url = world.pages.url("/tracked");
    let track = || {
        post(
            &server,
            "/v2/scrape",
            json!({"url": url, "formats": ["markdown", {"type": "changeTracking", "modes": ["git-diff"]}]}),
        )
    };
    let (status, body) = track().await;
    assert_eq!(status, 200, "{body}");
    let ct = &body["data"]["changeTracking"];
    assert_eq!(ct["changeStatus"], "new", "{body}");
    assert!(ct["previousScrapeAt"].is_null(), "{body}");
    assert_eq!(ct["visibility"], "visible");
    assert!(
        body["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Paragraph 2 of Tide tables")
    );

    let (_, body) = track().await;
    let ct = &body["data"]["changeTracking"];
    assert_eq!(ct["changeStatus"], "same", "{body}");
    let previous = ct["previousScrapeAt"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(previous).is_ok(),
        "{previous}"
    );
    assert!(ct.get("diff").is_none(), "{body}");
    // Firecrawl answers the Markdown every time, not only for a new page.
    assert!(
        body["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Paragraph 2 of Tide tables"),
        "{body}"
    );

    let edited = article("Tide tables", 6).replacen(
        "Paragraph 4 of Tide tables",
        "Paragraph 4 (revised) of Tide tables",
        1,
    );
    world.pages.route("/tracked", Reply::html(edited));
    // v1's spelling: changeTrackingOptions beside the format name.
    let (status, body) = post(
        &server,
        "/v1/scrape",
        json!({"url": url, "formats": ["markdown", "changeTracking"],
               "changeTrackingOptions": {"modes": ["git-diff"]}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let ct = &body["data"]["changeTracking"];
    assert_eq!(ct["changeStatus"], "changed", "{body}");
    let diff = ct["diff"]["text"].as_str().unwrap();
    assert!(
        diff.contains("+Paragraph 4 (revised) of Tide tables"),
        "{diff}"
    );
    assert!(diff.contains("-Paragraph 4 of Tide tables"), "{diff}");
    assert!(!diff.contains("Paragraph 2 of Tide tables"), "{diff}");
    assert!(
        body["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Paragraph 4 (revised)"),
        "{body}"
    );
    // Without git-diff mode, no diff.
    world
        .pages
        .route("/tracked", Reply::html(article("Tide tables", 5)));
    let (_, body) = post(
        &server,
        "/v2/scrape",
        json!({"url": url, "formats": ["markdown", "changeTracking"]}),
    )
    .await;
    assert_eq!(
        body["data"]["changeTracking"]["changeStatus"], "changed",
        "{body}"
    );
    assert!(
        body["data"]["changeTracking"].get("diff").is_none(),
        "{body}"
    );

    world
        .pages
        .route("/tracked", Reply::status(404, "<h1>Not Found</h1>"));
    let (status, body) = track().await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"]["changeTracking"]["changeStatus"], "removed",
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_crawl_map_search_and_jina_reader() {
    let world = World::new();
    world.pages.route(
        "/site",
        Reply::html(format!(
            "<html><head><title>Seal site</title></head><body><article><h1>Seals</h1>\
             <p>{}</p><a href=\"/article\">harbour</a> <a href=\"/second\">grey</a></article></body></html>",
            "Seals are marine mammals that rest on land and hunt at sea. ".repeat(12)
        )),
    );
    let server = start(&world);
    let urls = [world.pages.url("/second"), world.pages.url("/third")];

    // Batch scrape: started, polled until completed.
    let (status, body) = post(
        &server,
        "/v2/batch/scrape",
        json!({"urls": urls, "formats": ["markdown"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let job = body["url"].as_str().unwrap().to_owned();
    let mut answer = Value::Null;
    until(async || {
        answer = get(&server, &job).await.1;
        answer["status"] == "completed"
    })
    .await;
    assert_eq!(answer["total"], 2);
    assert_eq!(answer["data"].as_array().unwrap().len(), 2, "{answer}");

    // Map.
    let (status, body) = post(
        &server,
        "/v2/map",
        json!({"url": world.pages.url("/site"), "filterByPath": false}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let links: Vec<&str> = body["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["url"].as_str().unwrap())
        .collect();
    assert!(
        links.contains(&world.pages.url("/second").as_str()),
        "{body}"
    );
    let (_, body) = post(
        &server,
        "/v1/map",
        json!({"url": world.pages.url("/site"), "filterByPath": false}),
    )
    .await;
    assert!(body["links"][0].is_string(), "{body}");

    // Crawl: started, polled, its pages served from the store.
    let (status, body) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/site"), "limit": 3, "sitemap": "skip",
               "crawlEntireDomain": true}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let crawl = body["url"].as_str().unwrap().to_owned();
    until(async || {
        answer = get(&server, &crawl).await.1;
        answer["status"] == "completed"
    })
    .await;
    assert_eq!(answer["completed"], 3, "{answer}");
    let titles: Vec<&str> = answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["metadata"]["title"].as_str())
        .collect();
    assert!(
        titles.contains(&"Seal site") && titles.contains(&"Harbour seals"),
        "{answer}"
    );
    let (status, body) = get(&server, &format!("{crawl}/errors")).await;
    assert_eq!(status, 200);
    assert!(body["errors"].is_array());
    let (_, body) = get(&server, "/v2/crawl/active").await;
    assert_eq!(body["success"], true);
    let (status, _) = get(&server, "/v2/crawl/c-000000000000").await;
    assert_eq!(status, 404);

    // Search, through the loopback engine.
    let (status, body) = post(
        &server,
        "/v2/search",
        json!({"query": "python format", "limit": 3}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let web = body["data"]["web"].as_array().unwrap();
    assert!(!web.is_empty() && web.len() <= 3, "{body}");
    assert!(web[0]["url"].as_str().unwrap().starts_with("http"));
    // The JS SDK's v1 `search(q)` sends empty scrape formats: results only, not a 400.
    let (status, body) = post(
        &server,
        "/v1/search",
        json!({"query": "python format", "limit": 2, "scrapeOptions": {"formats": []}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = post(
        &server,
        "/v2/search",
        json!({"query": "x", "sources": ["images"]}),
    )
    .await;
    assert_eq!(status, 400, "{body}");

    // Jina Reader's form.
    let response = reqwest::Client::new()
        .get(format!(
            "{}/r/{}",
            server.base(),
            world.pages.url("/article")
        ))
        .bearer_auth("compat-token")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(
        text.starts_with("Title: Harbour seals\n\nURL Source: http"),
        "{text}"
    );
    assert!(text.contains("Markdown Content:\n") && text.contains("Paragraph 1 of Harbour seals"));
    let json: Value = reqwest::Client::new()
        .get(format!(
            "{}/r/{}",
            server.base(),
            world.pages.url("/article")
        ))
        .bearer_auth("compat-token")
        .header("Accept", "application/json")
        .header("X-Target-Selector", "h1")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(json["data"]["title"], "Harbour seals", "{json}");
    assert!(
        !json["data"]["content"]
            .as_str()
            .unwrap()
            .contains("Paragraph"),
        "{json}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jina_search_answers_its_text_and_json_layouts() {
    let world = World::new();
    let server = start(&world);
    let search = |accept: &'static str, respond_with: Option<&'static str>| {
        let mut request = reqwest::Client::new()
            .get(format!("{}/s/python%20format?count=3", server.base()))
            .bearer_auth("compat-token")
            .header("Accept", accept);
        if let Some(r) = respond_with {
            request = request.header("X-Respond-With", r);
        }
        request.send()
    };
    // The hits of the saved SearXNG answer are on the internet, so they are not read here:
    // `no-content` asks only for the results.
    let response = search("text/plain", Some("no-content")).await.unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(text.starts_with("[1] Title: "), "{text}");
    assert!(text.contains("\n[1] URL Source: https://"), "{text}");
    assert!(text.contains("\n[3] Description: "), "{text}");
    assert!(!text.contains("[4] Title"), "count=3: {text}");
    assert!(!text.contains("Markdown Content"), "{text}");
    let json: Value = search("application/json", Some("no-content"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let data = json["data"].as_array().unwrap();
    assert_eq!(data.len(), 3, "{json}");
    assert!(data[0]["url"].as_str().unwrap().starts_with("https://"));
    assert!(data[0]["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(data[0].get("content").is_none(), "{json}");
    let (status, _) = get(&server, "/s/%20").await;
    assert_eq!(status, 400);
}

const TABS: &str = r#"<html><head><title>Survey tabs</title></head><body>
<h1>Survey</h1><button id="t2">Counts</button><div id="panel">The overview of the survey.</div>
<script>document.getElementById('t2').onclick = function () { setTimeout(function () {
  var p = document.createElement('p'); p.className = 'counts';
  p.textContent = 'Counts: 412 harbour seals on the sandbanks.'; document.body.appendChild(p); }, 100); };</script>
</body></html>"#;

/// Screenshots and actions through the Firecrawl and Jina forms, in Debian's chromium; with
/// no browser on the server, each asks a clear 400 naming what is missing, never an empty
/// 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_and_actions_need_a_browser_and_say_so_without_one() {
    use base64::Engine as _;
    trawl_testkit::require_isolation!();
    trawl_testkit::require_chromium!();
    let world = World::new();
    world.pages.route("/tabs", Reply::html(TABS));
    let url = world.pages.url("/tabs");
    let server = start(&world);
    let (status, body) = post(
        &server,
        "/v2/scrape",
        json!({"url": url, "formats": ["markdown", "screenshot@fullPage"],
               "actions": [{"type": "click", "selector": "#t2"}, {"type": "wait", "selector": ".counts"}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert!(
        data["markdown"]
            .as_str()
            .unwrap()
            .contains("412 harbour seals"),
        "{data}"
    );
    let shot = data["screenshot"].as_str().unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot.strip_prefix("data:image/png;base64,").unwrap())
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // Jina: the PNG itself to a text client; X-Wait-For-Selector waits in the browser.
    let response = reqwest::Client::new()
        .get(format!("{}/r/{url}", server.base()))
        .bearer_auth("compat-token")
        .header("X-Respond-With", "screenshot")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let png = response.bytes().await.unwrap();
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1280);
    let response = reqwest::Client::new()
        .get(format!("{}/r/{url}", server.base()))
        .bearer_auth("compat-token")
        .header("X-Wait-For-Selector", "#panel")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("overview of the survey")
    );

    // The same server with no browser on its PATH.
    let blind = HttpServer::start(
        &world,
        &[],
        &[("TRAWL_TOKEN", "compat-token"), ("PATH", "/nonexistent")],
    );
    for request in [
        json!({"url": url, "formats": ["screenshot"]}),
        json!({"url": url, "actions": [{"type": "click", "selector": "#t2"}]}),
        json!({"url": url, "waitFor": 500}),
    ] {
        let (status, body) = post(&blind, "/v2/scrape", request.clone()).await;
        assert_eq!(status, 400, "{request}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains("needs a browser"), "{error}");
        assert!(error.contains("chromium"), "{error}");
    }
    let response = reqwest::Client::new()
        .get(format!("{}/r/{url}", blind.base()))
        .bearer_auth("compat-token")
        .header("X-Respond-With", "screenshot")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

/// A bad include/exclude regular expression is refused before any crawl exists, through
/// the compatible API and MCP alike: no id, nothing left `running`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_path_regex_is_refused_before_a_crawl_exists() {
    let world = World::new();
    let server = start(&world);
    for body in [
        json!({"url": world.pages.url("/article"), "includePaths": ["("]}),
        json!({"url": world.pages.url("/article"), "excludePaths": ["[z-a]"]}),
    ] {
        let (status, answer) = post(&server, "/v2/crawl", body).await;
        assert_eq!(status, 400, "{answer}");
        assert!(answer.get("id").is_none(), "{answer}");
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains("not a regular expression"),
            "{answer}"
        );
    }
    let client = server.client(Some("compat-token")).await;
    let result = client
        .call_tool(call(
            "web_crawl",
            json!({"url": world.pages.url("/article"), "include": ["("]}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("invalid_input"), "{}", text(&result));
    let (_, active) = get(&server, "/v2/crawl/active").await;
    assert_eq!(
        active["crawls"].as_array().map(Vec::len),
        Some(0),
        "{active}"
    );
    // The store the server uses holds no crawl at all.
    let listed = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["crawl", "list", "--json"])
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(0), "{listed}");
}

/// The SDKs' spelling `ignoreInvalidURLs` is read, and a finished job's last page has no
/// `next` key at all (the JS SDK's v1 client fetches a `null` as a URL).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ignore_invalid_urls_in_the_sdks_spelling_and_no_null_next() {
    let world = World::new();
    let server = start(&world);
    let (status, answer) = post(
        &server,
        "/v2/batch/scrape",
        json!({"urls": [world.pages.url("/second"), "not a url"], "ignoreInvalidURLs": true}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["invalidURLs"], json!(["not a url"]), "{answer}");
    let id = answer["id"].as_str().unwrap().to_owned();
    let mut polled = Value::Null;
    until(async || {
        polled = get(&server, &format!("/v2/batch/scrape/{id}")).await.1;
        polled["status"] == "completed"
    })
    .await;
    assert!(polled.get("next").is_none(), "{polled}");
    let (_, crawl) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/article"), "limit": 1, "sitemap": "skip"}),
    )
    .await;
    let id = crawl["id"].as_str().unwrap().to_owned();
    until(async || {
        polled = get(&server, &format!("/v2/crawl/{id}")).await.1;
        polled["status"] == "completed"
    })
    .await;
    assert!(polled.get("next").is_none(), "{polled}");
}

/// Jina's other documented forms: `/s/?q=`, a percent-encoded `/r/` target and
/// `X-Return-Format: text`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jina_query_parameter_encoded_target_and_text_format() {
    let world = World::new();
    let server = start(&world);
    let response = reqwest::Client::new()
        .get(format!("{}/s/?q=python%20format&count=2", server.base()))
        .bearer_auth("compat-token")
        .header("X-Respond-With", "no-content")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(text.starts_with("[1] Title: "), "{text}");
    assert!(!text.contains("[3] Title"), "count=2: {text}");
    let encoded: String =
        url::form_urlencoded::byte_serialize(world.pages.url("/article").as_bytes()).collect();
    let response = reqwest::Client::new()
        .get(format!("{}/r/{encoded}", server.base()))
        .bearer_auth("compat-token")
        .header("X-Return-Format", "text")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(text.contains("Text Content:\n"), "{text}");
    assert!(text.contains("Paragraph 3 of Harbour seals"), "{text}");
    assert!(!text.contains("**") && !text.contains("]("), "{text}");
}

/// `total` is what the crawl returns (a limit of 2 on a site with more links: 2, not every
/// URL found), and a crawl whose start URL cannot be read ends `failed` with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn total_is_what_the_crawl_returns_and_a_dead_start_fails() {
    let world = World::new();
    let links: String = (0..20)
        .map(|i| format!("<a href=\"/many/{i}\">page {i}</a> "))
        .collect();
    world.pages.route(
        "/many",
        Reply::html(format!(
            "<html><head><title>Many</title></head><body><article><h1>Many</h1>\
             <p>Seals rest on sandbanks at low tide and hunt fish when it comes back.</p>\
             {links}</article></body></html>"
        )),
    );
    for i in 0..20 {
        world.pages.route(
            &format!("/many/{i}"),
            Reply::html(article(&format!("Page {i}"), 3)),
        );
    }
    let server = start(&world);
    let mut polled = Value::Null;
    let (_, crawl) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/many"), "limit": 2, "sitemap": "skip"}),
    )
    .await;
    let id = crawl["id"].as_str().unwrap().to_owned();
    until(async || {
        polled = get(&server, &format!("/v2/crawl/{id}")).await.1;
        polled["status"] == "completed"
    })
    .await;
    assert_eq!(polled["completed"], 2, "{polled}");
    assert_eq!(polled["total"], 2, "{polled}");
    // Nothing listens on port 9 of 127.0.0.1.
    let (status, crawl) = post(
        &server,
        "/v2/crawl",
        json!({"url": "http://127.0.0.1:9/", "limit": 3, "sitemap": "skip"}),
    )
    .await;
    assert_eq!(status, 200, "{crawl}");
    let id = crawl["id"].as_str().unwrap().to_owned();
    until(async || {
        polled = get(&server, &format!("/v2/crawl/{id}")).await.1;
        polled["status"] != "scraping"
    })
    .await;
    assert_eq!(polled["status"], "failed", "{polled}");
    assert!(
        polled["error"]
            .as_str()
            .is_some_and(|e| e.contains("start URL could not be read")),
        "{polled}"
    );
}

/// `/v2/crawl` goes through the server's crawl service, as `web_crawl` does: a limit above
/// `--max-crawl-pages` is refused before a crawl exists, and a crawl beyond `--max-crawls`
/// (counting the tools' crawls and the compatible API's together) is a 429.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compatible_crawls_share_the_servers_crawl_limits() {
    let world = World::new();
    let server = HttpServer::start(
        &world,
        &["--max-crawls", "1", "--max-crawl-pages", "20"],
        &[("TRAWL_TOKEN", "compat-token")],
    );
    let (status, answer) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/article"), "limit": 50}),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer.get("id").is_none(), "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("at most 20"),
        "{answer}"
    );
    // A crawl that waits 30 s between requests is still running for the rest of the test.
    let (status, first) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/article"), "limit": 5, "delay": 30}),
    )
    .await;
    assert_eq!(status, 200, "{first}");
    let (status, second) = post(
        &server,
        "/v1/crawl",
        json!({"url": world.pages.url("/second"), "limit": 5}),
    )
    .await;
    assert_eq!(status, 429, "{second}");
    assert_eq!(second["success"], false, "{second}");
    assert!(
        second["error"]
            .as_str()
            .unwrap()
            .contains("already running"),
        "{second}"
    );
    let client = server.client(Some("compat-token")).await;
    let result = client
        .call_tool(call(
            "web_crawl",
            json!({"url": world.pages.url("/second"), "limit": 5}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("already running"),
        "{}",
        text(&result)
    );
    let id = first["id"].as_str().unwrap();
    let cancelled = reqwest::Client::new()
        .delete(format!("{}/v2/crawl/{id}", server.base()))
        .bearer_auth("compat-token")
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), 200);
}

/// The sitemap flood (`hostile::sitemaps`) through `/v2/map` and MCP `web_map`: five links,
/// only the first sitemap asked for, and the server's peak memory bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_flood_maps_in_bounded_memory_through_the_server() {
    let world = World::new();
    crate::hostile::sitemaps::flood_routes(&world.pages);
    let server = start(&world);
    let (status, answer) = post(
        &server,
        "/v2/map",
        json!({"url": world.pages.url("/"), "limit": 5}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["links"].as_array().map(Vec::len),
        Some(5),
        "{answer}"
    );
    let client = server.client(Some("compat-token")).await;
    let result = client
        .call_tool(call(
            "web_map",
            json!({"url": world.pages.url("/"), "limit": 5, "fresh": true}),
        ))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    assert!(
        text(&result).contains("sitemaps: stopped at 5 URLs"),
        "{}",
        text(&result)
    );
    assert_eq!(world.pages.hits("/s1.xml.gz"), 0);
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(
        peak_kib < 200 << 10,
        "trawl serve peak RSS {} MiB",
        peak_kib >> 10
    );
}

/// A site where the start URL sits in a section: `/otters/` links to its own pages and to
/// pages elsewhere, and the sitemap lists both.
fn sectioned(world: &World) {
    let page = |title: &str, links: &str| {
        Reply::html(format!(
            "<html><head><title>{title}</title></head><body><article><h1>{title}</h1>\
             <p>Otters and seals share the estuary; {title} tells how they meet at low tide.</p>\
             {links}</article></body></html>"
        ))
    };
    world.pages.route(
        "/otters/",
        page(
            "Otters",
            "<a href=\"/otters/river\">river</a><a href=\"/otters/sea\">sea</a>\
             <a href=\"/seals/grey\">grey</a><a href=\"/about\">about</a>",
        ),
    );
    for path in ["/otters/river", "/otters/sea", "/seals/grey", "/about"] {
        world
            .pages
            .route(path, page(path, "<a href=\"/seals/harbour\">h</a>"));
    }
    world.pages.route("/seals/harbour", page("Harbour", ""));
    let base = world.pages.base();
    world.pages.route(
        "/sitemap.xml",
        Reply::ok(
            "application/xml",
            format!(
                "<?xml version=\"1.0\"?><urlset><url><loc>{base}/seals/monk</loc></url>\
                 <url><loc>{base}/otters/sea</loc></url></urlset>"
            ),
        ),
    );
}

/// Firecrawl's scope: a crawl or map of `/otters/` keeps to `/otters/` unless
/// `crawlEntireDomain` (v1 `allowBackwardLinks`) or `filterByPath: false` says otherwise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_and_a_map_keep_to_the_start_urls_path() {
    let world = World::new();
    sectioned(&world);
    let server = start(&world);
    let crawled = async |body: Value| {
        let (status, crawl) = post(&server, "/v2/crawl", body).await;
        assert_eq!(status, 200, "{crawl}");
        let id = crawl["id"].as_str().unwrap().to_owned();
        let mut polled = Value::Null;
        until(async || {
            polled = get(&server, &format!("/v2/crawl/{id}")).await.1;
            polled["status"] == "completed"
        })
        .await;
        let mut urls: Vec<String> = polled["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["metadata"]["sourceURL"].as_str().unwrap().to_owned())
            .collect();
        urls.sort();
        urls
    };
    let section = crawled(json!({"url": world.pages.url("/otters/"), "limit": 10})).await;
    assert_eq!(
        section,
        vec![
            world.pages.url("/otters/"),
            world.pages.url("/otters/river"),
            world.pages.url("/otters/sea"),
        ]
    );
    let whole = crawled(json!({"url": world.pages.url("/otters/"), "limit": 10,
                               "crawlEntireDomain": true}))
    .await;
    assert!(whole.contains(&world.pages.url("/seals/grey")), "{whole:?}");
    let (_, map) = post(
        &server,
        "/v2/map",
        json!({"url": world.pages.url("/otters/")}),
    )
    .await;
    let links: Vec<&str> = map["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["url"].as_str().unwrap())
        .collect();
    assert!(!links.is_empty(), "{map}");
    assert!(links.iter().all(|l| l.contains("/otters/")), "{map}");
    let (_, map) = post(
        &server,
        "/v1/map",
        json!({"url": world.pages.url("/otters/"), "filterByPath": false}),
    )
    .await;
    assert!(map["links"].to_string().contains("/seals/monk"), "{map}");
}

/// A page that answers 404 or 500 is a document with its `statusCode`, as Firecrawl answers
/// it (the SDKs raise on an HTTP 404 from the API): in a scrape (with its content), in a
/// batch and in a crawl (address, status and why).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_pages_are_documents_with_their_status() {
    let world = World::new();
    world.pages.route(
        "/gone",
        Reply::status(
            404,
            "<html><head><title>Not found</title></head><body><h1>Not found</h1>\
             <p>The seal colony page moved; try the harbour guide instead.</p></body></html>",
        ),
    );
    world.pages.route(
        "/broken",
        Reply::status(500, "<html><body><p>Internal error</p></body></html>"),
    );
    world.pages.route(
        "/linking",
        Reply::html(
            "<html><head><title>Links</title></head><body><article><h1>Links</h1>\
             <p>Seals rest on sandbanks at low tide and hunt fish when it comes back.</p>\
             <a href=\"/gone\">gone</a> <a href=\"/second\">second</a></article></body></html>",
        ),
    );
    let server = start(&world);
    let (status, answer) = post(
        &server,
        "/v2/scrape",
        json!({"url": world.pages.url("/gone")}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["data"]["metadata"]["statusCode"], 404, "{answer}");
    assert!(
        answer["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("seal colony page moved"),
        "{answer}"
    );
    let (status, answer) = post(
        &server,
        "/v1/scrape",
        json!({"url": world.pages.url("/broken"), "formats": ["rawHtml"]}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["data"]["metadata"]["statusCode"], 500, "{answer}");

    let (_, batch) = post(
        &server,
        "/v2/batch/scrape",
        json!({"urls": [world.pages.url("/gone"), world.pages.url("/second")]}),
    )
    .await;
    let id = batch["id"].as_str().unwrap().to_owned();
    let mut polled = Value::Null;
    until(async || {
        polled = get(&server, &format!("/v2/batch/scrape/{id}")).await.1;
        polled["status"] == "completed"
    })
    .await;
    let codes: Vec<u64> = polled["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["metadata"]["statusCode"].as_u64().unwrap())
        .collect();
    assert_eq!(codes.len(), 2, "{polled}");
    assert!(codes.contains(&404) && codes.contains(&200), "{polled}");

    let (_, crawl) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/linking"), "limit": 5, "sitemap": "skip",
               "crawlEntireDomain": true}),
    )
    .await;
    let id = crawl["id"].as_str().unwrap().to_owned();
    until(async || {
        polled = get(&server, &format!("/v2/crawl/{id}")).await.1;
        polled["status"] == "completed"
    })
    .await;
    let gone = polled["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["metadata"]["sourceURL"] == world.pages.url("/gone"))
        .unwrap_or_else(|| panic!("no document for /gone: {polled}"));
    assert_eq!(gone["metadata"]["statusCode"], 404, "{polled}");
    assert_eq!(polled["completed"], 3, "{polled}");
    assert_eq!(polled["total"], 3, "{polled}");
}

/// A scrape of a page that answers 404 asks the page once: the read's own answer is the
/// document (its status, the error page's Markdown and metadata), not a second request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_page_is_fetched_once_by_a_scrape() {
    let world = World::new();
    world.pages.route(
        "/gone-once",
        Reply::status(
            404,
            "<html><head><title>Not found</title><meta name=\"description\" \
             content=\"No seals here\"></head><body><h1>Not found</h1>\
             <p>The seal colony page moved; try the harbour guide instead.</p></body></html>",
        ),
    );
    let server = start(&world);
    let url = world.pages.url("/gone-once");
    let (status, answer) = post(&server, "/v2/scrape", json!({"url": url})).await;
    assert_eq!(status, 200, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["metadata"]["statusCode"], 404, "{answer}");
    assert_eq!(data["metadata"]["error"], "HTTP 404", "{answer}");
    assert_eq!(data["metadata"]["sourceURL"], url, "{answer}");
    assert_eq!(data["metadata"]["title"], "Not found", "{answer}");
    assert_eq!(data["metadata"]["description"], "No seals here", "{answer}");
    assert!(
        data["markdown"]
            .as_str()
            .unwrap()
            .contains("seal colony page moved"),
        "{answer}"
    );
    let asked: Vec<String> = world.pages.seen().into_iter().map(|s| s.path).collect();
    assert_eq!(world.pages.hits("/gone-once"), 1, "{asked:?}");
}

/// Behind a TLS reverse proxy, `--public-url` is the base of every link an answer carries
/// (job `url`, `next`); without it, `http://` and the Host the client sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_start_with_the_public_url() {
    let world = World::new();
    let server = HttpServer::start(
        &world,
        &["--public-url", "https://trawl.example.com/"],
        &[("TRAWL_TOKEN", "compat-token")],
    );
    let (status, crawl) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/article"), "limit": 1, "sitemap": "skip"}),
    )
    .await;
    assert_eq!(status, 200, "{crawl}");
    let id = crawl["id"].as_str().unwrap();
    assert_eq!(
        crawl["url"],
        format!("https://trawl.example.com/v2/crawl/{id}"),
        "{crawl}"
    );
    let urls: Vec<String> = (0..3).map(|i| world.pages.url(&format!("/p{i}"))).collect();
    for u in &urls {
        world.pages.route(
            &u[world.pages.base().len()..],
            Reply::html(article("Seal page", 2)),
        );
    }
    let (_, batch) = post(&server, "/v1/batch/scrape", json!({"urls": urls})).await;
    assert!(
        batch["url"]
            .as_str()
            .unwrap()
            .starts_with("https://trawl.example.com/v1/batch/scrape/"),
        "{batch}"
    );
    let plain = start(&world);
    let (_, crawl) = post(
        &plain,
        "/v2/crawl",
        json!({"url": world.pages.url("/article"), "limit": 1, "sitemap": "skip"}),
    )
    .await;
    assert!(
        crawl["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:"),
        "{crawl}"
    );
}

/// Each compatible-API call is a line on the request log (route, what was asked with its
/// credentials masked, status, latency) and is counted in `/metrics` by route template.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_calls_are_logged_and_counted_by_route() {
    let world = World::new();
    let server = start(&world);
    let asked = format!("{}?api_key=s3cr3tvalue", world.pages.url("/article"));
    let (status, _) = post(&server, "/v2/scrape", json!({"url": asked})).await;
    assert_eq!(status, 200);
    let (_, crawl) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/article"), "limit": 1, "sitemap": "skip"}),
    )
    .await;
    let id = crawl["id"].as_str().unwrap().to_owned();
    let (status, _) = get(&server, &format!("/v2/crawl/{id}")).await;
    assert_eq!(status, 200);
    let mut log = String::new();
    until(async || {
        log = world.request_log();
        log.contains("route=/v2/crawl/{id}")
    })
    .await;
    let scrape = log
        .lines()
        .find(|l| l.contains("event=api_call") && l.contains("route=/v2/scrape"))
        .unwrap_or_else(|| panic!("no api_call line for /v2/scrape:\n{log}"));
    assert!(
        scrape.contains("method=POST") && scrape.contains("status=200"),
        "{scrape}"
    );
    assert!(scrape.contains("/article"), "{scrape}");
    assert!(
        !log.contains("s3cr3tvalue"),
        "a credential reached the log:\n{log}"
    );
    assert!(log.contains(&format!("id={id}")), "{log}");
    let metrics = server.metrics(Some("compat-token")).await;
    assert!(
        metrics.contains("trawl_http_requests_total{route=\"/v2/crawl/{id}\",status=\"200\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("trawl_http_requests_total{route=\"/v2/scrape\",status=\"200\"} 1"),
        "{metrics}"
    );
}

/// The account routes the SDKs call answer in Firecrawl's shapes (v1's credit usage in
/// both spellings), `params-preview` is refused by name, and an unknown route is a JSON 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_routes_answer_and_unknown_routes_say_so() {
    let world = World::new();
    let server = start(&world);
    let (status, v1) = get(&server, "/v1/team/credit-usage").await;
    assert_eq!(status, 200, "{v1}");
    assert_eq!(v1["data"]["remaining_credits"], 0, "{v1}");
    assert_eq!(v1["data"]["remainingCredits"], 0, "{v1}");
    let (status, tokens) = get(&server, "/v2/team/token-usage").await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(tokens["data"]["remainingTokens"], 0, "{tokens}");
    let (status, queue) = get(&server, "/v2/team/queue-status").await;
    assert_eq!(status, 200, "{queue}");
    assert_eq!(queue["jobsInQueue"], 0, "{queue}");
    assert!(queue["maxConcurrency"].is_u64(), "{queue}");
    let (status, check) = get(&server, "/v1/concurrency-check").await;
    assert_eq!(status, 200, "{check}");
    assert!(check["concurrency"].is_u64(), "{check}");
    let (status, preview) = post(
        &server,
        "/v2/crawl/params-preview",
        json!({"url": world.pages.url("/"), "prompt": "blog posts"}),
    )
    .await;
    assert_eq!(status, 400, "{preview}");
    assert!(
        preview["error"]
            .as_str()
            .unwrap()
            .contains("params-preview"),
        "{preview}"
    );
    let (status, unknown) = get(&server, "/v2/no-such-route").await;
    assert_eq!(status, 404, "{unknown}");
    assert_eq!(unknown["success"], false, "{unknown}");
    assert!(
        unknown["error"]
            .as_str()
            .unwrap()
            .contains("/v2/no-such-route"),
        "{unknown}"
    );
}

/// `trawl serve --help` says the listener speaks the compatible APIs, and how to run it
/// behind a TLS proxy.
#[test]
fn serve_help_names_the_compatible_api() {
    let help = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Firecrawl's API"), "{help}");
    assert!(help.contains("/r/URL"), "{help}");
    assert!(help.contains("--public-url"), "{help}");
}

/// Jina's other forms: `POST /r/` with a JSON body, `X-With-Links-Summary`, headers trawl
/// cannot honour refused by name, an error target read with a warning, and an error
/// answered as text to a text client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jina_posted_reads_links_summary_refusals_and_text_errors() {
    let world = World::new();
    world.pages.route(
        "/gone",
        Reply::status(
            404,
            "<html><body><h1>Gone</h1><p>This seal guide moved to the harbour pages.</p></body></html>",
        ),
    );
    world.pages.route(
        "/linked",
        Reply::html(
            "<html><head><title>Linked</title></head><body><article><h1>Linked</h1>\
             <p>Harbour seals rest on the sandbanks at low tide and hunt fish.</p>\
             <a href=\"/second\">grey seals</a></article></body></html>",
        ),
    );
    let server = start(&world);
    let client = reqwest::Client::new();
    let posted = client
        .post(format!("{}/r/", server.base()))
        .bearer_auth("compat-token")
        .header("X-With-Links-Summary", "true")
        .json(&json!({"url": world.pages.url("/linked")}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 200);
    let text = posted.text().await.unwrap();
    assert!(text.starts_with("Title: Linked"), "{text}");
    assert!(text.contains("Links/Buttons:"), "{text}");
    assert!(text.contains(&world.pages.url("/second")), "{text}");

    let refused = client
        .get(format!(
            "{}/r/{}",
            server.base(),
            world.pages.url("/linked")
        ))
        .bearer_auth("compat-token")
        .header("X-Proxy-Url", "http://proxy.example:8080")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    assert_eq!(
        refused.headers()["content-type"],
        "text/plain; charset=utf-8"
    );
    assert!(refused.text().await.unwrap().contains("x-proxy-url"));

    let gone = client
        .get(format!("{}/r/{}", server.base(), world.pages.url("/gone")))
        .bearer_auth("compat-token")
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 200);
    let text = gone.text().await.unwrap();
    assert!(
        text.contains("Warning: Target URL returned error 404"),
        "{text}"
    );
    assert!(text.contains("seal guide moved"), "{text}");

    // Nothing listens on port 9: a text client gets the error as text.
    let down = client
        .get(format!("{}/r/http://127.0.0.1:9/", server.base()))
        .bearer_auth("compat-token")
        .send()
        .await
        .unwrap();
    assert!(down.status().is_client_error() || down.status().is_server_error());
    assert!(
        down.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain"),
    );
    assert!(down.text().await.unwrap().starts_with("Error: "));
}

/// The spreadsheet bombs (`hostile::sheets`) through `/v2/scrape` of a server held to a
/// 1 GiB address space: each answers (a bounded table, or `too_large`), and the server
/// still answers `/healthz` after them all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spreadsheet_bombs_leave_the_server_standing() {
    use crate::hostile::sheets::{ods_bomb, xls_bomb, xlsb_bomb};
    let world = World::new();
    let ods = "application/vnd.oasis.opendocument.spreadsheet";
    world
        .pages
        .route("/bomb-1000.ods", Reply::ok(ods, ods_bomb(1_000, 16_384)));
    world
        .pages
        .route("/bomb-6000.ods", Reply::ok(ods, ods_bomb(6_000, 16_384)));
    world
        .pages
        .route("/bomb-all.ods", Reply::ok(ods, ods_bomb(1_048_576, 16_384)));
    world.pages.route(
        "/bomb.xls",
        Reply::ok("application/vnd.ms-excel", xls_bomb()),
    );
    world.pages.route(
        "/bomb.xlsb",
        Reply::ok(
            "application/vnd.ms-excel.sheet.binary.macroenabled.12",
            xlsb_bomb(),
        ),
    );
    let server = HttpServer::start_with_rlimits(
        &world,
        &[],
        &[("TRAWL_TOKEN", "compat-token")],
        &[(libc::RLIMIT_AS, 1 << 30)],
    );
    for path in ["/bomb-1000.ods", "/bomb-6000.ods", "/bomb-all.ods"] {
        let (status, answer) =
            post(&server, "/v2/scrape", json!({"url": world.pages.url(path)})).await;
        assert_eq!(status, 200, "{path}: {}", &answer.to_string()[..300]);
        assert!(
            answer["data"]["markdown"]
                .as_str()
                .unwrap()
                .contains("## Bomb"),
            "{path}"
        );
    }
    let (status, answer) = post(
        &server,
        "/v2/scrape",
        json!({"url": world.pages.url("/bomb.xlsb")}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("1 more rows past the first 5000"),
        "{answer}"
    );
    let (status, answer) = post(
        &server,
        "/v2/scrape",
        json!({"url": world.pages.url("/bomb.xls")}),
    )
    .await;
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("65536 rows"),
        "{answer}"
    );
    let health = reqwest::get(format!("{}/healthz", server.base()))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

/// Search options mapped onto trawl's routes and filters (on a real saved SearXNG answer):
/// a location name, include/exclude domains, the news source beside web, one category, and
/// each hit's `position`; what trawl cannot map is refused by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_options_map_to_routes_and_filters() {
    let world = World::new();
    // The news route asks the loopback SearXNG here (its own engines are on the internet).
    std::fs::create_dir_all(world.dir.join(".config/trawl")).unwrap();
    std::fs::write(
        world.dir.join(".config/trawl/config.toml"),
        "[routes]\nnews = [\"searxng\"]\n",
    )
    .unwrap();
    let server = start(&world);
    let hosts = |body: &Value, source: &str| -> Vec<String> {
        body["data"][source]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                url::Url::parse(h["url"].as_str().unwrap())
                    .unwrap()
                    .host_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    let (status, body) = post(
        &server,
        "/v2/search",
        json!({"query": "python format", "limit": 4, "location": "Germany"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let positions: Vec<u64> = body["data"]["web"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["position"].as_u64().unwrap())
        .collect();
    assert_eq!(positions, (1..=positions.len() as u64).collect::<Vec<_>>());

    let (status, body) = post(
        &server,
        "/v2/search",
        json!({"query": "python format", "limit": 5, "includeDomains": ["python.org"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let included = hosts(&body, "web");
    assert!(!included.is_empty(), "{body}");
    let python = |h: &String| h == "python.org" || h.ends_with(".python.org");
    assert!(included.iter().all(python), "{included:?}");

    let (status, body) = post(
        &server,
        "/v2/search",
        json!({"query": "python format", "limit": 10, "excludeDomains": ["python.org"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let left = hosts(&body, "web");
    assert!(!left.is_empty(), "{body}");
    assert!(!left.iter().any(python), "{left:?}");
    // micropython.org is not python.org.
    assert!(left.iter().any(|h| h == "micropython.org"), "{left:?}");

    let (status, body) = post(
        &server,
        "/v2/search",
        json!({"query": "python format", "sources": ["web", "news"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["data"]["web"].is_array() && body["data"]["news"].is_array(),
        "{body}"
    );

    let (status, body) = post(
        &server,
        "/v2/search",
        json!({"query": "python format", "categories": ["pdf"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["data"]["web"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["url"].as_str().unwrap().ends_with(".pdf")),
        "{body}"
    );
    for (request, named) in [
        (
            json!({"query": "x", "categories": ["github", "pdf"]}),
            "several categories",
        ),
        (json!({"query": "x", "categories": ["videos"]}), "videos"),
        (json!({"query": "x", "location": "Atlantis"}), "Atlantis"),
    ] {
        let (status, body) = post(&server, "/v2/search", request).await;
        assert_eq!(status, 400, "{body}");
        assert!(body["error"].as_str().unwrap().contains(named), "{body}");
    }
}

/// The status WebSocket takes the API key as its subprotocol (a browser-style WebSocket
/// cannot send headers) and echoes it; without the key the upgrade is a 401. The stream
/// itself is driven by the real watchers in `scripts/compat`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_websocket_takes_the_key_as_its_subprotocol() {
    use std::io::{Read, Write};
    let world = World::new();
    let server = start(&world);
    let (_, crawl) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/article"), "limit": 1, "sitemap": "skip"}),
    )
    .await;
    let id = crawl["id"].as_str().unwrap().to_owned();
    let host = server.base().trim_start_matches("http://").to_owned();
    let handshake = move |protocol: &str| {
        let mut stream = std::net::TcpStream::connect(&host).unwrap();
        write!(
            stream,
            "GET /v2/crawl/{id} HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: {protocol}\r\n\r\n"
        )
        .unwrap();
        let mut head = [0u8; 1024];
        let n = stream.read(&mut head).unwrap();
        String::from_utf8_lossy(&head[..n]).to_string()
    };
    let refused = tokio::task::spawn_blocking({
        let handshake = handshake.clone();
        move || handshake("wrong-key")
    })
    .await
    .unwrap();
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    let accepted = tokio::task::spawn_blocking(move || handshake("compat-token"))
        .await
        .unwrap();
    assert!(accepted.starts_with("HTTP/1.1 101"), "{accepted}");
    assert!(
        accepted
            .to_ascii_lowercase()
            .contains("sec-websocket-protocol: compat-token"),
        "{accepted}"
    );
}

/// The batch status WebSocket sends each page once, in the catch-up or as a `document`
/// message, then `done`: each look reads on from where the last stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_batch_websocket_sends_each_page_once() {
    use std::io::{Read, Write};
    let world = World::new();
    let urls: Vec<String> = (0..4).map(|i| world.pages.url(&format!("/w{i}"))).collect();
    for i in 0..4 {
        world.pages.route(
            &format!("/w{i}"),
            Reply::html(article(&format!("Seal page {i}"), 2)),
        );
    }
    let server = start(&world);
    let (_, batch) = post(
        &server,
        "/v2/batch/scrape",
        json!({"urls": urls, "maxConcurrency": 2}),
    )
    .await;
    let id = batch["id"].as_str().unwrap().to_owned();
    let host = server.base().trim_start_matches("http://").to_owned();
    let messages = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(&host).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            stream,
            "GET /v2/batch/scrape/{id} HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: compat-token\r\n\r\n"
        )
        .unwrap();
        let (mut bytes, mut chunk) = (Vec::new(), [0u8; 8192]);
        loop {
            let n = stream.read(&mut chunk).unwrap();
            assert!(n > 0, "no close frame: {}", String::from_utf8_lossy(&bytes));
            bytes.extend_from_slice(&chunk[..n]);
            if let Some(messages) = text_frames_until_close(&bytes) {
                return messages;
            }
        }
    })
    .await
    .unwrap();
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"catchup"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"done"), "{kinds:?}");
    let mut sent: Vec<&str> = messages[0]["data"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .chain(
            messages
                .iter()
                .filter(|m| m["type"] == "document")
                .map(|m| &m["data"]),
        )
        .map(|d| d["metadata"]["sourceURL"].as_str().unwrap())
        .collect();
    sent.sort_unstable();
    assert_eq!(sent, urls, "{messages:?}");
}

/// The text frames of a server's WebSocket answer (`bytes` from its HTTP head on) once
/// the close frame is in; `None` before.
fn text_frames_until_close(bytes: &[u8]) -> Option<Vec<Value>> {
    let mut at = bytes.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let mut texts = Vec::new();
    while at + 2 <= bytes.len() {
        let (len, head) = match bytes[at + 1] & 0x7f {
            126 => (
                usize::from(u16::from_be_bytes(
                    bytes.get(at + 2..at + 4)?.try_into().ok()?,
                )),
                4,
            ),
            127 => (
                usize::try_from(u64::from_be_bytes(
                    bytes.get(at + 2..at + 10)?.try_into().ok()?,
                ))
                .ok()?,
                10,
            ),
            n => (usize::from(n), 2),
        };
        let payload = bytes.get(at + head..at + head + len)?;
        match bytes[at] & 0x0f {
            1 => texts.push(serde_json::from_slice(payload).unwrap()),
            8 => return Some(texts),
            _ => {}
        }
        at += head + len;
    }
    None
}

/// Firecrawl's metadata from the page's head: `title` is the `<title>` as written, and
/// `ogTitle`, `ogDescription`, `ogImage` (absolute), `ogUrl`, `keywords`, `robots` and
/// `favicon` (absolute) are there when the page states them, one line each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_carries_the_pages_head() {
    let world = World::new();
    world.pages.route(
        "/head",
        Reply::html(
            "<html><head><title>Seals | Harbour guide</title>\
             <meta property=\"og:title\" content=\"Harbour seals\">\
             <meta property=\"og:description\" content=\"Where they rest\nat low tide\">\
             <meta property=\"og:image\" content=\"/img/seal.png\">\
             <meta property=\"og:url\" content=\"https://example.org/seals\">\
             <meta name=\"keywords\" content=\"seals, harbour\">\
             <meta name=\"robots\" content=\"index, follow\">\
             <link rel=\"icon\" href=\"/favicon.ico\"></head><body><article><h1>Harbour seals</h1>\
             <p>Harbour seals rest on the sandbanks at low tide and hunt fish when the water \
             comes back in over the flats of the estuary.</p></article></body></html>",
        ),
    );
    let server = start(&world);
    for formats in [json!(["markdown"]), json!(["markdown", "rawHtml"])] {
        let (status, body) = post(
            &server,
            "/v2/scrape",
            json!({"url": world.pages.url("/head"), "formats": formats}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let m = &body["data"]["metadata"];
        assert_eq!(m["title"], "Seals | Harbour guide", "{m}");
        assert_eq!(m["ogTitle"], "Harbour seals", "{m}");
        assert_eq!(m["ogDescription"], "Where they rest at low tide", "{m}");
        assert_eq!(m["ogImage"], world.pages.url("/img/seal.png"), "{m}");
        assert_eq!(m["ogUrl"], "https://example.org/seals", "{m}");
        assert_eq!(m["keywords"], "seals, harbour", "{m}");
        assert_eq!(m["robots"], "index, follow", "{m}");
        assert_eq!(m["favicon"], world.pages.url("/favicon.ico"), "{m}");
    }
    // The second markdown read answers from the store and says since when.
    let (_, body) = post(
        &server,
        "/v2/scrape",
        json!({"url": world.pages.url("/head")}),
    )
    .await;
    let m = &body["data"]["metadata"];
    assert_eq!(m["cacheState"], "hit", "{m}");
    assert!(
        m["cachedAt"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{m}"
    );
    // A PDF says how many pages it has.
    world.pages.route(
        "/tides.pdf",
        Reply::ok(
            "application/pdf",
            trawl_testkit::minimal_pdf("Harbour seals rest on the sandbanks at low tide."),
        ),
    );
    let (status, body) = post(
        &server,
        "/v2/scrape",
        json!({"url": world.pages.url("/tides.pdf")}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["metadata"]["numPages"], 1, "{body}");
}
