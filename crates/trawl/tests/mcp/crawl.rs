//! `web_map` and `web_crawl` over both transports, against a loopback site: the map lists the
//! sitemap's URLs ranked by a search (and answers from the store when asked again); a crawl starts and answers its id before it ends, sends
//! progress notifications, pages through its stored pages by offset with every page stored
//! once, is listed, and is cancelled mid-way; bad arguments are refused naming the field.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};
use trawl_testkit::{Reply, TestServer};

use super::{Client, HttpServer, World, call, error_code, stdio_client, structured, until};

const PAGES: usize = 24;

/// A site of `PAGES` slow pages linked from `/` and listed in its sitemap; one is about
/// lighthouses.
fn site() -> TestServer {
    let server = TestServer::start();
    let links: String = (0..PAGES)
        .map(|i| format!("<li><a href=\"/p/{i}\">Page {i}</a></li>"))
        .collect();
    server.route(
        "/",
        Reply::html(format!(
            "<html><head><title>Index</title></head><body><main><h1>Index</h1><ul>{links}</ul></main></body></html>"
        )),
    );
    let sitemap: String = (0..PAGES)
        .map(|i| format!("<url><loc>{}</loc></url>", server.url(&format!("/p/{i}"))))
        .collect();
    server.route(
        "/robots.txt",
        Reply::ok(
            "text/plain",
            format!(
                "User-agent: *\nDisallow: /private/\nSitemap: {}\n",
                server.url("/sitemap.xml")
            ),
        ),
    );
    server.route(
        "/sitemap.xml",
        Reply::ok(
            "application/xml",
            format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{sitemap}<url><loc>{}</loc></url></urlset>",
                server.url("/guide/lighthouse-keeping")
            ),
        ),
    );
    server.route(
        "/guide/lighthouse-keeping",
        Reply::html("<html><head><title>Lighthouses</title></head><body><main><p>Keeping a light.</p></main></body></html>"),
    );
    for i in 0..PAGES {
        let body = format!(
            "<html><head><title>Page {i}</title></head><body><main><h1>Page {i}</h1>\
<p>This page number {i} explains one part of the manual in enough words to be read as an \
article by the extractor, with a second sentence about configuration and a third about \
the command line.</p><p><a href=\"/private/{i}\">admin</a></p></main></body></html>"
        );
        // Slow pages, so that a crawl is still running when the test looks at it.
        server.route(
            &format!("/p/{i}"),
            Reply::Trickle {
                body: body.into_bytes(),
                piece: 128,
                pause: Duration::from_millis(30),
            },
        );
    }
    server
}

async fn tool(client: &Client, name: &'static str, args: Value) -> Value {
    let result = client.call_tool(call(name, args)).await.unwrap();
    structured(&result).clone()
}

async fn refused(client: &Client, name: &'static str, args: Value) -> String {
    let result = client.call_tool(call(name, args)).await.unwrap();
    assert_eq!(error_code(&result), "invalid_input");
    super::text(&result)
}

async fn exercise_map_and_crawl(client: &Client, site: &TestServer, other: &TestServer) {
    // Map: every sitemap URL, the one about lighthouses first when searched for.
    let map = tool(
        client,
        "web_map",
        json!({"url": site.url("/"), "search": "lighthouse keeping"}),
    )
    .await;
    let urls: Vec<&str> = map["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls[0], site.url("/guide/lighthouse-keeping"), "{map}");
    for i in 0..PAGES {
        assert!(
            urls.contains(&site.url(&format!("/p/{i}")).as_str()),
            "{map}"
        );
    }
    assert_eq!(map["robots"], "parsed");
    assert_eq!(site.hits("/p/3"), 0, "map read no page");
    assert_eq!(map["from_store"], false, "{map}");
    // Asked again: the kept map answers, without a request to the site; fresh maps again.
    let asked = site.hits("/robots.txt");
    let again = tool(
        client,
        "web_map",
        json!({"url": site.url("/"), "search": "lighthouse keeping"}),
    )
    .await;
    assert_eq!(again["from_store"], true, "{again}");
    assert!(again["age_s"].is_u64(), "{again}");
    assert_eq!(again["urls"], map["urls"]);
    assert_eq!(site.hits("/robots.txt"), asked);
    let fresh = tool(
        client,
        "web_map",
        json!({"url": site.url("/"), "search": "lighthouse keeping", "fresh": true}),
    )
    .await;
    assert_eq!(fresh["from_store"], false, "{fresh}");
    assert_eq!(site.hits("/robots.txt"), asked + 1);

    // Start: the id comes back while the crawl is still running.
    let started = tool(
        client,
        "web_crawl",
        json!({"url": site.url("/"), "limit": 40, "include": ["^/$", "^/p/"]}),
    )
    .await;
    assert_eq!(started["action"], "started");
    let id = started["crawl"]["id"].as_str().unwrap().to_owned();
    let first = tool(client, "web_crawl", json!({"id": id})).await;
    assert_eq!(first["crawl"]["status"], "running", "{first}");
    assert!(first["crawl"]["done"].as_u64().unwrap() < (PAGES + 1) as u64);

    // Progress notifications arrive as pages are stored, against the crawl's limit.
    let seen = client.service().progress.clone();
    until(async || seen.lock().unwrap().iter().any(|p| p.1 == Some(40.0))).await;

    // It ends; its pages come back page by page, each once.
    let mut done = Value::Null;
    for _ in 0..600 {
        done = tool(client, "web_crawl", json!({"id": id, "page_size": 1})).await;
        if done["crawl"]["status"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(done["crawl"]["status"], "done", "{done}");
    assert_eq!(done["crawl"]["done"], (PAGES + 1) as u64);
    let mut handles = BTreeSet::new();
    let mut urls = BTreeSet::new();
    let mut offset = 0;
    loop {
        let page = tool(
            client,
            "web_crawl",
            json!({"id": id, "offset": offset, "page_size": 10}),
        )
        .await;
        let pages = page["pages"].as_array().unwrap();
        assert!(pages.len() <= 10);
        for p in pages {
            assert!(handles.insert(p["handle"].as_str().unwrap().to_owned()));
            assert!(urls.insert(p["url"].as_str().unwrap().to_owned()));
        }
        match page["next_offset"].as_u64() {
            Some(next) => offset = next as usize,
            None => break,
        }
    }
    assert_eq!(handles.len(), PAGES + 1);
    for i in 0..PAGES {
        assert_eq!(site.hits(&format!("/p/{i}")), 1, "/p/{i}");
    }
    assert!(site.seen().iter().all(|s| !s.path.starts_with("/private/")));
    let progress = seen.lock().unwrap().clone();
    let most = progress.iter().map(|p| p.0).fold(0.0, f64::max);
    assert!(most >= 2.0, "{progress:?}");

    // A stored page reads back by its handle.
    let handle = handles.iter().next().unwrap().clone();
    let opened = client
        .call_tool(call("web_open", json!({"handle": handle})))
        .await
        .unwrap();
    assert_ne!(opened.is_error, Some(true), "{}", super::text(&opened));

    // Cancel: a crawl of another site stops before it stored every page.
    let second = tool(
        client,
        "web_crawl",
        json!({"url": other.url("/"), "limit": 40}),
    )
    .await;
    let second_id = second["crawl"]["id"].as_str().unwrap().to_owned();
    let cancelled = tool(
        client,
        "web_crawl",
        json!({"id": second_id, "cancel": true}),
    )
    .await;
    assert_eq!(cancelled["action"], "cancelled");
    assert_eq!(cancelled["crawl"]["cancel_requested"], true);
    let mut status = Value::Null;
    for _ in 0..300 {
        status = tool(client, "web_crawl", json!({"id": second_id})).await;
        if status["crawl"]["status"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status["crawl"]["status"], "cancelled", "{status}");
    assert!(status["crawl"]["done"].as_u64().unwrap() < (PAGES + 1) as u64);

    // Listed, newest first.
    let listed = tool(client, "web_crawl", json!({})).await;
    let ids: Vec<&str> = listed["crawls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [second_id.as_str(), id.as_str()]);

    // Refusals name the field.
    let both = refused(client, "web_crawl", json!({"url": site.url("/"), "id": id})).await;
    assert!(both.contains("url:"), "{both}");
    let cancel = refused(client, "web_crawl", json!({"cancel": true})).await;
    assert!(cancel.contains("cancel:"), "{cancel}");
    let over = refused(
        client,
        "web_crawl",
        json!({"url": site.url("/"), "limit": 41}),
    )
    .await;
    assert!(over.contains("limit: at most 40"), "{over}");
    let unknown = client
        .call_tool(call("web_crawl", json!({"id": "c-000000000000"})))
        .await
        .unwrap();
    assert_eq!(error_code(&unknown), "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_maps_and_crawls() {
    let world = World::new();
    let (site, other) = (site(), site());
    let client = stdio_client(&world, &["--max-crawl-pages", "40"]).await;
    exercise_map_and_crawl(&client, &site, &other).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_maps_and_crawls() {
    let world = World::new();
    let (site, other) = (site(), site());
    let server = HttpServer::start(&world, &[], &[("TRAWL_MAX_CRAWL_PAGES", "40")]);
    let client = server.client(None).await;
    exercise_map_and_crawl(&client, &site, &other).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawls_beyond_the_servers_bound_are_refused_as_busy() {
    let world = World::new();
    let site = site();
    let client = stdio_client(&world, &["--max-crawls", "1"]).await;
    let first = tool(&client, "web_crawl", json!({"url": site.url("/")})).await;
    assert_eq!(first["crawl"]["status"], "running");
    let second = client
        .call_tool(call("web_crawl", json!({"url": site.url("/")})))
        .await
        .unwrap();
    assert_eq!(error_code(&second), "rate_limited");
    client.cancel().await.unwrap();
}

fn small_page(title: &str, words: &str) -> Reply {
    Reply::html(format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>\
<p>This page about {title} explains one part of the manual in enough words to be read as \
an article by the extractor, with a second sentence about configuration. {words}</p>\
</main></body></html>"
    ))
}

fn small_index(server: &TestServer, pages: &[&str]) {
    let links: String = pages
        .iter()
        .map(|p| format!("<li><a href=\"/{p}\">The {p} page</a></li>"))
        .collect();
    server.route(
        "/",
        Reply::html(format!(
            "<html><head><title>Index</title></head><body><main><h1>Index</h1>\
<p>The pages of this small manual, one subject each.</p><ul>{links}</ul></main></body></html>"
        )),
    );
}

async fn ended(client: &Client, id: &str) -> Value {
    for _ in 0..600 {
        let status = tool(client, "web_crawl", json!({"id": id, "page_size": 50})).await;
        if status["crawl"]["status"] != "running" {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("crawl {id} did not end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_crawl_with_changes_says_how_each_page_changed() {
    let world = World::new();
    let site = TestServer::start();
    small_index(&site, &["steady", "edited", "gone", "orphan"]);
    site.route(
        "/steady",
        Reply::Sequence(vec![
            small_page("Steady", "Still.").with_header("ETag", "\"s1\""),
            Reply::Full {
                status: 304,
                headers: vec![("ETag".into(), "\"s1\"".into())],
                body: Vec::new(),
            },
        ]),
    );
    site.route("/edited", small_page("Edited", "The tide turns at six."));
    site.route("/gone", small_page("Gone", "Soon away."));
    site.route("/orphan", small_page("Orphan", "Soon unlinked."));
    let client = stdio_client(&world, &[]).await;
    let started = tool(&client, "web_crawl", json!({"url": site.url("/")})).await;
    let old = started["crawl"]["id"].as_str().unwrap().to_owned();
    assert_eq!(ended(&client, &old).await["crawl"]["done"], 5);

    small_index(&site, &["steady", "edited", "gone", "fresh"]);
    site.route("/edited", small_page("Edited", "The tide turns at seven."));
    site.route(
        "/gone",
        Reply::Full {
            status: 410,
            headers: Vec::new(),
            body: Vec::new(),
        },
    );
    site.route("/fresh", small_page("Fresh", "New today."));
    // Its options are the old crawl's: giving others is refused, naming the field.
    let limited = refused(&client, "web_crawl", json!({"changes": old, "limit": 3})).await;
    assert!(limited.contains("limit:"), "{limited}");
    let unknown = client
        .call_tool(call("web_crawl", json!({"changes": "c-000000000000"})))
        .await
        .unwrap();
    assert_eq!(error_code(&unknown), "not_found");

    let again = tool(&client, "web_crawl", json!({"changes": old})).await;
    assert_eq!(again["action"], "started");
    let id = again["crawl"]["id"].as_str().unwrap().to_owned();
    assert_ne!(id, old);
    let done = ended(&client, &id).await;
    let c = &done["crawl"]["changes"];
    assert_eq!(c["compared_with"], old.as_str(), "{done}");
    assert_eq!(
        (
            c["new"].as_u64(),
            c["changed"].as_u64(),
            c["same"].as_u64(),
            c["removed"].as_u64()
        ),
        (Some(1), Some(2), Some(1), Some(2)),
        "{done}"
    );
    let mut removed: Vec<String> = c["removed_pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap().to_owned())
        .collect();
    removed.sort();
    assert_eq!(removed, [site.url("/gone"), site.url("/orphan")]);
    let status_of = |path: &str| {
        done["pages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["url"] == site.url(path).as_str())
            .cloned()
            .unwrap_or_else(|| panic!("{path} not in {done}"))
    };
    assert_eq!(status_of("/steady")["change_status"], "same");
    assert_eq!(status_of("/fresh")["change_status"], "new");
    let edited = status_of("/edited");
    assert_eq!(edited["change_status"], "changed", "{edited}");
    assert_eq!(
        (
            edited["lines_added"].as_u64(),
            edited["previous_version"].as_u64()
        ),
        (Some(1), Some(1))
    );
    // The text a model reads says the same.
    let shown = client
        .call_tool(call("web_crawl", json!({"id": id})))
        .await
        .unwrap();
    let shown = super::text(&shown);
    assert!(
        shown.contains(&format!(
            "Since crawl {old}: 1 new, 2 changed, 1 same, 2 removed."
        )),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "- removed: {} (gone from the site",
            site.url("/gone")
        )),
        "{shown}"
    );
    assert!(
        shown.contains("[changed +1 -1, old copy: version 1]"),
        "{shown}"
    );
    // The old copy opens by its version.
    let opened = client
        .call_tool(call(
            "web_open",
            json!({"handle": edited["handle"], "version": 1}),
        ))
        .await
        .unwrap();
    assert!(
        super::text(&opened).contains("turns at six"),
        "{}",
        super::text(&opened)
    );
    client.cancel().await.unwrap();
}
