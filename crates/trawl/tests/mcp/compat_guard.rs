//! The guard through the Firecrawl-compatible routes: webhooks (refused to a loopback
//! address nobody opened, delivered when it is allow-listed), a scrape of the metadata
//! address and a crawl whose links redirect to private addresses — each time a canary
//! listening on the refused address counts what reached it.

use std::net::SocketAddr;

use axum::http::HeaderMap;

use super::*;

/// A receiver on `ip` that keeps every request it gets (headers and JSON body): a webhook
/// endpoint when the address is allowed, a canary when it is not.
struct Receiver {
    addr: SocketAddr,
    got: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
}

impl Receiver {
    async fn start(ip: &str) -> Receiver {
        let got: Arc<Mutex<Vec<(HeaderMap, Value)>>> = Arc::default();
        let sink = got.clone();
        let app =
            axum::Router::new().fallback(move |headers: HeaderMap, body: axum::body::Bytes| {
                let sink = sink.clone();
                async move {
                    let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    sink.lock().unwrap().push((headers, json));
                    "ok"
                }
            });
        let listener = tokio::net::TcpListener::bind((ip, 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { addr, got }
    }

    fn url(&self) -> String {
        format!("http://{}/hook?secret=s3", self.addr)
    }

    fn count(&self) -> usize {
        self.got.lock().unwrap().len()
    }

    fn events(&self) -> Vec<String> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .map(|(_, body)| body["type"].as_str().unwrap_or("?").to_owned())
            .collect()
    }
}

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

fn site(world: &World) {
    world.pages.route(
        "/site",
        Reply::html(
            "<html><head><title>Seal site</title></head><body><article><h1>Seals</h1>\
             <p>Seals rest on land and hunt at sea.</p><a href=\"/article\">harbour</a>\
             <a href=\"/second\">grey</a></article></body></html>",
        ),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_to_loopback_is_refused_unless_allowed_and_then_delivered() {
    // The receiver is on 127.0.0.2: loopback, and not the 127.0.0.1 the test pages open.
    trawl_testkit::require_isolation!();
    let world = World::new();
    site(&world);
    let canary = Receiver::start("127.0.0.2").await;
    let server = HttpServer::start(&world, &[], &[("TRAWL_TOKEN", "compat-token")]);
    for (path, body) in [
        (
            "/v2/crawl",
            json!({"url": world.pages.url("/site"), "limit": 2, "webhook": canary.url()}),
        ),
        (
            "/v2/batch/scrape",
            json!({"urls": [world.pages.url("/second")], "webhook": {"url": canary.url()}}),
        ),
    ] {
        let (status, answer) = post(&server, path, body).await;
        assert_eq!(status, 403, "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.starts_with("webhook: "), "{error}");
        assert!(
            !error.contains("s3"),
            "the webhook's query is not echoed: {error}"
        );
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(canary.count(), 0, "nothing reached the refused webhook");
    drop(server);

    // Opened with the allow-host the rest of trawl uses, the deliveries arrive.
    let server = HttpServer::start(
        &world,
        &[],
        &[
            ("TRAWL_TOKEN", "compat-token"),
            ("TRAWL_ALLOW_HOSTS", "127.0.0.1,127.0.0.2"),
        ],
    );
    let hook = json!({"url": canary.url(), "headers": {"x-hook-key": "k1"},
                      "metadata": {"run": "seals"}});
    let (status, answer) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/site"), "limit": 3, "sitemap": "skip", "webhook": hook,
               "crawlEntireDomain": true}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let crawl_id = answer["id"].as_str().unwrap().to_owned();
    until(async || canary.events().contains(&"crawl.completed".to_owned())).await;
    let events = canary.events();
    assert_eq!(events.first().map(String::as_str), Some("crawl.started"));
    assert_eq!(events.last().map(String::as_str), Some("crawl.completed"));
    assert_eq!(
        events.iter().filter(|e| *e == "crawl.page").count(),
        3,
        "{events:?}"
    );
    {
        let got = canary.got.lock().unwrap();
        for (headers, body) in got.iter() {
            assert_eq!(headers["x-hook-key"], "k1");
            assert_eq!(body["id"], crawl_id.as_str());
            assert_eq!(body["metadata"]["run"], "seals");
            assert_eq!(body["success"], true);
        }
        let page = got
            .iter()
            .find(|(_, b)| {
                b["type"] == "crawl.page" && b["data"][0]["metadata"]["title"] == "Seal site"
            })
            .expect("the start page's event");
        assert!(
            page.1["data"][0]["markdown"]
                .as_str()
                .unwrap()
                .contains("hunt at sea")
        );
    }

    // A batch's webhook, narrowed to its `completed` event.
    let before = canary.count();
    let (status, answer) = post(
        &server,
        "/v2/batch/scrape",
        json!({"urls": [world.pages.url("/second"), world.pages.url("/third")],
               "webhook": {"url": canary.url(), "events": ["page", "completed"]}}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    until(async || {
        canary
            .events()
            .contains(&"batch_scrape.completed".to_owned())
    })
    .await;
    let batch: Vec<String> = canary.events()[before..].to_vec();
    assert_eq!(
        batch,
        [
            "batch_scrape.page",
            "batch_scrape.page",
            "batch_scrape.completed"
        ],
        "no started event was asked for"
    );
    let (status, answer) = post(
        &server,
        "/v2/batch/scrape",
        json!({"urls": [world.pages.url("/second")], "webhook": {"url": canary.url(), "events": ["done"]}}),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
}

/// With `TRAWL_PROXY` set, a webhook goes through the proxy (which logs it) and never
/// straight to its receiver; headers that frame or route the delivery are refused by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_go_through_the_proxy_and_reserved_headers_are_refused() {
    trawl_testkit::require_isolation!();
    let world = World::new();
    site(&world);
    let receiver = Receiver::start("127.0.0.2").await;
    let proxy = TestServer::start();
    proxy.route(&receiver.url(), Reply::ok("text/plain", "ok"));
    let proxy_base = proxy.base();
    let server = HttpServer::start(
        &world,
        &[],
        &[
            ("TRAWL_TOKEN", "compat-token"),
            ("TRAWL_ALLOW_HOSTS", "127.0.0.1,127.0.0.2"),
            ("TRAWL_PROXY", proxy_base.as_str()),
        ],
    );
    for reserved in ["Host", "Content-Length", "transfer-encoding", "Connection"] {
        let (status, answer) = post(
            &server,
            "/v2/batch/scrape",
            json!({"urls": [world.pages.url("/second")],
                   "webhook": {"url": receiver.url(), "headers": {reserved: "x"}}}),
        )
        .await;
        assert_eq!(status, 400, "{reserved}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains(reserved),
            "{answer}"
        );
    }
    let (status, answer) = post(
        &server,
        "/v2/batch/scrape",
        json!({"urls": [world.pages.url("/second")],
               "webhook": {"url": receiver.url(), "events": ["completed"]}}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let hook = receiver.url();
    until(async || proxy.seen().iter().any(|r| r.path == hook)).await;
    assert_eq!(receiver.count(), 0, "a delivery went around the proxy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_address_and_private_redirects_are_refused_through_the_api() {
    // A failing guard would send packets to 169.254.169.254: only in the isolated namespace,
    // where that address is put on loopback for a canary to listen on.
    trawl_testkit::require_isolation!();
    let added = Command::new("ip")
        .args(["addr", "add", "169.254.169.254/32", "dev", "lo"])
        .status()
        .unwrap();
    assert!(added.success() || std::net::TcpListener::bind("169.254.169.254:0").is_ok());
    let metadata = Receiver::start("169.254.169.254").await;
    let other_loopback = Receiver::start("127.0.0.2").await;
    let world = World::new();
    let meta_url = format!("http://{}/latest/meta-data/", metadata.addr);
    world
        .pages
        .route("/go/meta", Reply::redirect(302, &meta_url));
    world.pages.route(
        "/go/lo",
        Reply::redirect(302, &format!("{}/", other_loopback.url())),
    );
    world.pages.route(
        "/site",
        Reply::html(
            "<html><head><title>Links out</title></head><body><article><h1>Links</h1>\
             <p>Three links that lead off this machine's allowed pages.</p>\
             <a href=\"/go/meta\">meta</a> <a href=\"/go/lo\">loopback</a>\
             <a href=\"/second\">grey</a></article></body></html>",
        ),
    );
    let server = HttpServer::start(&world, &[], &[("TRAWL_TOKEN", "compat-token")]);

    let (status, answer) = post(&server, "/v2/scrape", json!({"url": meta_url})).await;
    assert_eq!(status, 403, "{answer}");
    assert_eq!(answer["code"], "blocked_by_policy");
    let (status, answer) = post(
        &server,
        "/v1/scrape",
        json!({"url": world.pages.url("/go/meta"), "formats": ["rawHtml"]}),
    )
    .await;
    assert!(status == 403 || status == 502, "{status} {answer}");

    let (status, answer) = post(
        &server,
        "/v2/crawl",
        json!({"url": world.pages.url("/site"), "limit": 10, "sitemap": "skip",
               "crawlEntireDomain": true}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let crawl = answer["url"].as_str().unwrap().to_owned();
    let mut status_answer = Value::Null;
    until(async || {
        status_answer = reqwest::Client::new()
            .get(&crawl)
            .bearer_auth("compat-token")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        status_answer["status"] == "completed"
    })
    .await;
    let titles: Vec<&str> = status_answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["metadata"]["title"].as_str())
        .collect();
    assert!(titles.contains(&"Grey seals"), "{status_answer}");
    let errors: Value = reqwest::Client::new()
        .get(format!("{crawl}/errors"))
        .bearer_auth("compat-token")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let failed: Vec<&str> = errors["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["url"].as_str())
        .collect();
    assert!(
        failed.iter().any(|u| u.ends_with("/go/meta"))
            && failed.iter().any(|u| u.ends_with("/go/lo")),
        "{errors}"
    );
    assert_eq!(metadata.count(), 0, "nothing reached the metadata address");
    assert_eq!(
        other_loopback.count(),
        0,
        "nothing reached the unopened loopback address"
    );
}
