//! Crawls across `trawl serve` replicas on one Redis (a private `redis-server` each test
//! starts): a crawl started through one replica is worked on by both, each page fetched
//! once in total; a replica killed with SIGKILL mid-crawl loses nothing — the other
//! finishes it and no page stored before the kill is fetched again; a cancel through
//! either replica stops the crawl on both. Which replica fetched a page is told by the
//! User-Agent each sends.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use serde_json::{Value, json};
use trawl_testkit::{RedisServer, Reply, TestServer};

use super::{Client, HttpServer, World, call, structured};

const PAGES: usize = 60;

/// A site of `PAGES` slow pages (four pieces, `pause` before each) linked from `/` and
/// listed in its sitemap.
fn site(pause: Duration) -> TestServer {
    site_with(pause, "")
}

/// [`site`] with `extra` lines in robots.txt.
fn site_with(pause: Duration, extra: &str) -> TestServer {
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
    server.route(
        "/robots.txt",
        Reply::ok(
            "text/plain",
            format!(
                "User-agent: *\n{extra}Sitemap: {}\n",
                server.url("/sitemap.xml")
            ),
        ),
    );
    let sitemap: String = (0..PAGES)
        .map(|i| format!("<url><loc>{}</loc></url>", server.url(&format!("/p/{i}"))))
        .collect();
    server.route(
        "/sitemap.xml",
        Reply::ok(
            "application/xml",
            format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{sitemap}</urlset>"
            ),
        ),
    );
    for i in 0..PAGES {
        let body = format!(
            "<html><head><title>Page {i}</title></head><body><main><h1>Page {i}</h1>\
<p>This page number {i} explains one part of the manual in enough words to be read as an \
article by the extractor, with a second sentence about configuration and a third about \
the command line of replica number {i}.</p></main></body></html>"
        );
        server.route(
            &format!("/p/{i}"),
            Reply::Trickle {
                body: body.into_bytes(),
                piece: 128,
                pause,
            },
        );
    }
    server
}

/// Two replicas on `redis`, told apart by their User-Agent (`replica-a`, `replica-b`).
fn two_replicas(world: &World, redis: &RedisServer, extra: &[(&str, &str)]) -> Vec<HttpServer> {
    let url = redis.url();
    ["replica-a", "replica-b"]
        .into_iter()
        .map(|agent| {
            let ua = format!("trawl-test {agent}");
            let mut env = vec![
                ("TRAWL_REDIS_URL", url.as_str()),
                ("TRAWL_CRAWL_USER_AGENT", ua.as_str()),
            ];
            env.extend_from_slice(extra);
            HttpServer::start(world, &[], &env)
        })
        .collect()
}

async fn tool(client: &Client, args: Value) -> Value {
    let result = client.call_tool(call("web_crawl", args)).await.unwrap();
    structured(&result).clone()
}

/// Waits (up to 60 s) until the crawl's status, asked through `client`, is not running.
async fn until_ended(client: &Client, id: &str) -> Value {
    for _ in 0..600 {
        let status = tool(client, json!({"id": id})).await;
        if status["crawl"]["status"] != "running" {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("crawl {id} did not end within 60 s");
}

/// Requests for each page path, and which replicas sent them.
fn page_requests(site: &TestServer) -> (HashMap<String, usize>, BTreeSet<String>) {
    let mut counts = HashMap::new();
    let mut agents = BTreeSet::new();
    for s in site.seen() {
        if s.path.starts_with("/p/") {
            *counts.entry(s.path.clone()).or_insert(0) += 1;
            if let Some(ua) = s.headers.get("user-agent") {
                agents.insert(ua.clone());
            }
        }
    }
    (counts, agents)
}

/// The URLs of a crawl's stored pages, paged through `client`; once it has ended, each
/// comes once (while it runs, pages found earlier can land before the offset and shift
/// the pages).
async fn stored_urls(client: &Client, id: &str, ended: bool) -> BTreeSet<String> {
    let mut urls = BTreeSet::new();
    let mut offset = 0;
    loop {
        let page = tool(client, json!({"id": id, "offset": offset, "page_size": 25})).await;
        for p in page["pages"].as_array().unwrap() {
            let new = urls.insert(p["url"].as_str().unwrap().to_owned());
            assert!(new || !ended, "{page}");
        }
        match page["next_offset"].as_u64() {
            Some(next) => offset = next as usize,
            None => return urls,
        }
    }
}

async fn start_crawl(client: &Client, site: &TestServer) -> String {
    let started = tool(client, json!({"url": site.url("/"), "limit": 200})).await;
    assert_eq!(started["action"], "started", "{started}");
    started["crawl"]["id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_a_crawl_and_fetch_each_page_once_in_total() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let world = World::new();
    let site = site(Duration::from_millis(30));
    let servers = two_replicas(&world, &redis, &[]);
    let (a, b) = (servers[0].client(None).await, servers[1].client(None).await);
    let id = start_crawl(&a, &site).await;
    // Asked through the other replica: the same crawl, and it ends once, done.
    let end = until_ended(&b, &id).await;
    assert_eq!(end["crawl"]["status"], "done", "{end}");
    assert_eq!(end["crawl"]["done"], (PAGES + 1) as u64, "{end}");
    let (counts, agents) = page_requests(&site);
    for i in 0..PAGES {
        assert_eq!(
            counts.get(&format!("/p/{i}")),
            Some(&1),
            "/p/{i}: {counts:?}"
        );
    }
    assert_eq!(
        agents,
        BTreeSet::from(["trawl-test replica-a".into(), "trawl-test replica-b".into()]),
        "both replicas fetched pages"
    );
    assert_eq!(stored_urls(&a, &id, true).await.len(), PAGES + 1);
    for client in [a, b] {
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_crawl_loses_nothing_and_the_other_finishes_it() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let world = World::new();
    let site = site(Duration::from_millis(60));
    // Leases run out within 2 s of the kill (live replicas renew them every 2/3 s).
    let mut servers = two_replicas(&world, &redis, &[("TRAWL_CRAWL_LEASE", "2")]);
    let (a, b) = (servers[0].client(None).await, servers[1].client(None).await);
    let id = start_crawl(&a, &site).await;
    for _ in 0..600 {
        let status = tool(&b, json!({"id": id})).await;
        if status["crawl"]["done"].as_u64().unwrap_or(0) >= 10 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    servers[0].child.kill().unwrap(); // SIGKILL
    servers[0].child.wait().unwrap();
    let stored_at_kill = stored_urls(&b, &id, false).await;
    assert!(
        stored_at_kill.len() < PAGES,
        "the kill came mid-crawl ({} stored)",
        stored_at_kill.len()
    );
    let end = until_ended(&b, &id).await;
    assert_eq!(end["crawl"]["status"], "done", "{end}");
    assert_eq!(end["crawl"]["done"], (PAGES + 1) as u64, "{end}");
    let stored = stored_urls(&b, &id, true).await;
    for i in 0..PAGES {
        assert!(
            stored.contains(&site.url(&format!("/p/{i}"))),
            "/p/{i} lost"
        );
    }
    // Fetched twice: only pages the killed replica had in flight (2 at once per host),
    // and none that was stored before the kill.
    let (counts, _) = page_requests(&site);
    let twice: Vec<&String> = counts
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(p, _)| p)
        .collect();
    assert!(twice.len() <= 2, "asked twice: {twice:?}");
    for p in twice {
        assert!(
            !stored_at_kill.contains(&site.url(p)),
            "{p} was stored before the kill and fetched again"
        );
    }
    b.cancel().await.unwrap();
    drop(a);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_through_either_replica_stops_the_crawl_on_both() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let world = World::new();
    let site = site(Duration::from_millis(100));
    let servers = two_replicas(&world, &redis, &[]);
    let (a, b) = (servers[0].client(None).await, servers[1].client(None).await);
    let id = start_crawl(&a, &site).await;
    // Both are fetching before the cancel.
    for _ in 0..600 {
        if page_requests(&site).1.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(page_requests(&site).1.len(), 2, "both replicas joined");
    let cancelled = tool(&b, json!({"id": id, "cancel": true})).await;
    assert_eq!(cancelled["action"], "cancelled", "{cancelled}");
    let end = until_ended(&a, &id).await;
    assert_eq!(end["crawl"]["status"], "cancelled", "{end}");
    // Stopped on both: after the pages in flight, no replica asks for more.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let settled: usize = page_requests(&site).0.values().sum();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let later: usize = page_requests(&site).0.values().sum();
    assert_eq!(settled, later, "no page asked for after the cancel settled");
    assert!(
        later < PAGES,
        "stopped before the end ({later} pages asked)"
    );
    for client in [a, b] {
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crawl_delay_holds_across_replicas() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let world = World::new();
    let site = site_with(Duration::ZERO, "Crawl-delay: 0.3\n");
    let servers = two_replicas(&world, &redis, &[]);
    let (a, b) = (servers[0].client(None).await, servers[1].client(None).await);
    let started = tool(&a, json!({"url": site.url("/"), "limit": 14})).await;
    let id = started["crawl"]["id"].as_str().unwrap().to_owned();
    let end = until_ended(&b, &id).await;
    assert_eq!(end["crawl"]["status"], "done", "{end}");
    // Every request but robots.txt (each replica reads it once, before it knows the
    // delay), whichever replica sent it: arrivals at least the delay apart.
    let seen: Vec<_> = site
        .seen()
        .into_iter()
        .filter(|s| s.path != "/robots.txt")
        .collect();
    assert!(seen.len() >= 14, "{} requests", seen.len());
    for pair in seen.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(
            gap >= Duration::from_millis(300),
            "{gap:?} between {} and {}",
            pair[0].path,
            pair[1].path
        );
    }
    let (_, agents) = page_requests(&site);
    assert_eq!(agents.len(), 2, "both replicas fetched pages: {agents:?}");
    for client in [a, b] {
        client.cancel().await.unwrap();
    }
}
