//! `trawl map` and `trawl crawl` end to end: a crawl killed with SIGKILL mid-way resumes
//! with `--resume ID` without asking for a stored page again, and `open --find` finds a
//! marker from a crawled page.

use std::time::{Duration, Instant};

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

const PAGES: usize = 40;

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
    server.route(
        "/robots.txt",
        Reply::ok("text/plain", "User-agent: *\nDisallow: /private/\n"),
    );
    for i in 0..PAGES {
        let marker = if i == 29 {
            " The word of the day is quillwort."
        } else {
            ""
        };
        let body = format!(
            "<html><head><title>Page {i}</title></head><body><main><h1>Page {i}</h1>\
<p>This page number {i} explains one part of the manual in enough words to be read as an \
article by the extractor, with a second sentence about configuration and a third about \
the command line.{marker}</p><p><a href=\"/private/{i}\">admin</a></p></main></body></html>"
        );
        // Slow pages, so that the crawl is still going when the test kills it.
        server.route(
            &format!("/p/{i}"),
            Reply::Trickle {
                body: body.into_bytes(),
                piece: 256,
                pause: Duration::from_millis(40),
            },
        );
    }
    server
}

#[test]
fn crawl_killed_mid_way_resumes_without_asking_again_and_open_finds_a_marker() {
    let server = site();
    let dir = temp_dir();
    let store = dir.join("trawl.db");
    let store = store.to_str().unwrap();
    let mut child = trawl(&dir)
        .args([
            "--store",
            store,
            "crawl",
            &server.url("/"),
            "--allow-host",
            "127.0.0.1",
        ])
        .args(["--limit", "100", "--jsonl"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server
        .seen()
        .iter()
        .filter(|s| s.path.starts_with("/p/"))
        .count()
        < 12
    {
        assert!(Instant::now() < deadline, "the crawl did not get going");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL: no chance to write anything more.
    child.kill().unwrap();
    child.wait().unwrap();
    let listed = run(trawl(&dir).args(["--store", store, "crawl", "list", "--json"]));
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let list = listed.json();
    let id = list["data"][0]["id"].as_str().unwrap().to_owned();
    let before: usize = list["data"][0]["urls"]["done"].as_u64().unwrap_or(0) as usize;
    assert!(before < PAGES + 1, "the crawl had finished before the kill");

    let resumed = run(trawl(&dir).args([
        "--store",
        store,
        "crawl",
        "--resume",
        &id,
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let out = resumed.json();
    assert_eq!(out["data"]["summary"]["status"], "done");
    assert_eq!(out["data"]["summary"]["robots"], "obeyed");
    // Every page there at the end.
    let status = run(trawl(&dir).args(["--store", store, "crawl", "status", &id, "--json"]));
    assert_eq!(status.json()["data"]["urls"]["done"], (PAGES + 1) as u64);
    // No page asked twice, except the two in flight at the kill (per-host concurrency 2).
    let mut twice = Vec::new();
    for i in 0..PAGES {
        let n = server.hits(&format!("/p/{i}"));
        assert!(n >= 1, "/p/{i} never fetched");
        if n > 1 {
            twice.push(i);
        }
    }
    assert!(twice.len() <= 2, "asked again: {twice:?}");
    assert_eq!(
        server.hits("/"),
        1,
        "the start page was stored before the kill"
    );
    assert!(
        server
            .seen()
            .iter()
            .all(|s| !s.path.starts_with("/private/"))
    );

    // `open --find quillwort` over `scope`: the passages it answers.
    let find = |scope: &[&str]| -> Vec<serde_json::Value> {
        let found = run(trawl(&dir)
            .args(["--store", store, "open", "--find", "quillwort"])
            .args(scope)
            .arg("--json"));
        assert_eq!(found.code, 0, "{}", found.stderr);
        found.json()["data"]["passages"].as_array().unwrap().clone()
    };
    let passages = find(&["--all"]);
    assert_eq!(passages.len(), 1, "{passages:?}");
    assert!(passages[0]["text"].as_str().unwrap().contains("quillwort"));

    // The same, inside this one crawl; an unknown crawl is refused.
    let passages = find(&["--crawl", &id]);
    assert_eq!(passages.len(), 1, "{passages:?}");
    assert!(passages[0]["text"].as_str().unwrap().contains("quillwort"));
    // A page read outside the crawl that says the word more, in more passages than the
    // store's best hits looked through first: the crawl's own passage is still found.
    let other = dir.join("other.md");
    let section = "## Quillwort\n\nQuillwort quillwort quillwort grows by the pond.\n\n";
    std::fs::write(&other, section.repeat(40)).unwrap();
    let read_other = run(trawl(&dir).args([
        "--store",
        store,
        "read",
        other.to_str().unwrap(),
        "--url",
        "https://elsewhere.example/quillwort",
        "--json",
    ]));
    assert_eq!(read_other.code, 0, "{}", read_other.stderr);
    let passages = find(&["--crawl", &id, "--limit", "1"]);
    assert_eq!(passages.len(), 1, "{passages:?}");
    assert!(
        !passages[0]["text"]
            .as_str()
            .unwrap()
            .contains("by the pond"),
        "{passages:?}"
    );
    let unknown = run(trawl(&dir).args([
        "--store",
        store,
        "open",
        "--find",
        "quillwort",
        "--crawl",
        "c-000000000000",
        "--json",
    ]));
    assert_ne!(unknown.code, 0);
    assert_eq!(unknown.json()["error"]["code"], "not_found");
}

#[test]
fn map_lists_the_start_pages_links_and_refuses_a_bad_limit() {
    let server = site();
    let dir = temp_dir();
    let out = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "map",
        &server.url("/"),
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let urls = out.json()["data"]["urls"].as_array().unwrap().len();
    assert_eq!(urls, PAGES + 1);
    assert!(
        server.seen().iter().all(|s| !s.path.starts_with("/p/")),
        "map read a page"
    );
    let bad = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "map",
        &server.url("/"),
        "--limit",
        "0",
    ]));
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn a_second_map_answers_from_the_store_and_fresh_maps_again() {
    let server = site();
    let dir = temp_dir();
    let store = dir.join("trawl.db");
    let store = store.to_str().unwrap();
    let url = server.url("/");
    let map = |extra: &[&str]| {
        let mut args = vec!["--store", store, "map", &url, "--allow-host", "127.0.0.1"];
        args.extend_from_slice(extra);
        run(trawl(&dir).args(&args))
    };
    let first = map(&["--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(first.json()["data"]["from_store"], false);
    let asked = server.seen().len();
    assert!(asked >= 2, "{:?}", server.seen());

    let second = map(&["--json"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(second.json()["data"]["from_store"], true);
    assert!(second.json()["data"]["age_s"].is_u64());
    assert_eq!(second.json()["data"]["requests"], 0);
    assert_eq!(second.json()["data"]["urls"], first.json()["data"]["urls"]);
    assert_eq!(server.seen().len(), asked, "the kept map asked the site");
    let human = map(&[]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human.stdout.contains("from the store, mapped"),
        "{}",
        human.stdout
    );
    assert_eq!(server.seen().len(), asked);

    let fresh = map(&["--fresh", "--json"]);
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    assert_eq!(fresh.json()["data"]["from_store"], false);
    assert_eq!(server.seen().len(), 2 * asked);
}

/// A crawl and a map of one port never reach another port of the same host, whichever way
/// it is offered: a robots `Sitemap:` line, a sitemap entry, llms.txt, a link, a redirect.
#[test]
fn a_crawl_and_a_map_keep_to_the_start_port() {
    trawl_testkit::require_isolation!();
    let canary = TestServer::start_on("127.0.0.2");
    let other = canary.base();
    let server = TestServer::start_on("127.0.0.2");
    let page = |links: &str| {
        Reply::html(format!(
            "<html><head><title>Port</title></head><body><article><h1>Port</h1>\
             <p>Harbour seals rest on the sandbanks at low tide and hunt fish.</p>{links}\
             </article></body></html>"
        ))
    };
    server.route(
        "/robots.txt",
        Reply::ok(
            "text/plain",
            format!("User-agent: *\nAllow: /\nSitemap: {other}/sitemap.xml\n"),
        ),
    );
    server.route(
        "/sitemap.xml",
        Reply::ok(
            "application/xml",
            format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                 <url><loc>{}</loc></url><url><loc>{other}/from-sitemap</loc></url></urlset>",
                server.url("/a")
            ),
        ),
    );
    server.route(
        "/llms.txt",
        Reply::ok(
            "text/plain",
            format!("# Port\n\n- [Other]({other}/from-llms)\n"),
        ),
    );
    server.route(
        "/",
        page(&format!(
            "<a href=\"/a\">a</a><a href=\"/moved\">moved</a><a href=\"{other}/from-link\">other</a>"
        )),
    );
    server.route("/a", page(""));
    server.route(
        "/moved",
        Reply::status(302, "").with_header("Location", &format!("{other}/from-redirect")),
    );
    let dir = temp_dir();
    let crawl = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "crawl",
        &server.url("/"),
        "--allow-host",
        "127.0.0.2",
        "--limit",
        "20",
        "--json",
    ]));
    assert_eq!(crawl.code, 0, "{}", crawl.stderr);
    let map = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "map",
        &server.url("/"),
        "--allow-host",
        "127.0.0.2",
        "--json",
    ]));
    assert_eq!(map.code, 0, "{}", map.stderr);
    assert!(server.hits("/a") >= 1, "the crawl ran");
    let reached: Vec<String> = canary.seen().iter().map(|r| r.path.clone()).collect();
    assert!(reached.is_empty(), "another port was reached: {reached:?}");

    // `--allow-port` widens the site to that port of the same host, for a crawl and a map.
    canary.route("/from-link", page(""));
    let port = canary.addr().port().to_string();
    let crawl = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "crawl",
        &server.url("/"),
        "--allow-host",
        "127.0.0.2",
        "--allow-port",
        &port,
        "--limit",
        "20",
        "--json",
    ]));
    assert_eq!(crawl.code, 0, "{}", crawl.stderr);
    assert!(
        canary.hits("/from-link") >= 1,
        "--allow-port: the link was followed"
    );
    let map = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "map",
        &server.url("/"),
        "--allow-host",
        "127.0.0.2",
        "--allow-port",
        &port,
        "--json",
    ]));
    assert_eq!(map.code, 0, "{}", map.stderr);
    assert!(
        map.stdout.contains(&format!("{other}/from-link")),
        "{}",
        map.stdout
    );
}

/// `map` refuses a sitemap's redirect off the site before it is sent, as a crawl does, even
/// when the guard would allow the other host.
#[test]
fn a_map_does_not_follow_a_sitemap_redirect_off_the_site() {
    trawl_testkit::require_isolation!();
    let canary = TestServer::start_on("127.0.0.3");
    canary.route(
        "/sitemap.xml",
        Reply::ok(
            "application/xml",
            "<?xml version=\"1.0\"?><urlset><url><loc>http://127.0.0.3/x</loc></url></urlset>",
        ),
    );
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/robots.txt",
        Reply::ok(
            "text/plain",
            format!("User-agent: *\nSitemap: {}\n", server.url("/sitemap.xml")),
        ),
    );
    server.route(
        "/sitemap.xml",
        Reply::status(302, "").with_header("Location", &canary.url("/sitemap.xml")),
    );
    server.route(
        "/",
        Reply::html("<html><head><title>Home</title></head><body><p>Home.</p></body></html>"),
    );
    let dir = temp_dir();
    let map = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "map",
        &server.url("/"),
        "--allow-host",
        "127.0.0.2,127.0.0.3",
        "--json",
    ]));
    assert_eq!(map.code, 0, "{}", map.stderr);
    assert_eq!(server.hits("/sitemap.xml"), 1);
    let reached: Vec<String> = canary.seen().iter().map(|r| r.path.clone()).collect();
    assert!(reached.is_empty(), "the redirect was followed: {reached:?}");
    let notes = map.json()["data"]["notes"].to_string();
    assert!(notes.contains("leaves the site"), "{notes}");
}

/// A crawl keeps rows for at most `url_budget(limit)` URLs (10,000 for a small crawl): a
/// page with 12,000 links leaves the rest out and says so, so the crawl's own rows in the
/// store do not grow with what its pages link to.
#[test]
fn a_crawl_keeps_rows_for_a_bounded_number_of_urls() {
    let server = TestServer::start();
    let links: String = (0..12_000)
        .map(|i| format!("<a href=\"/l/{i}\">{i}</a>"))
        .collect();
    server.route(
        "/",
        Reply::html(format!(
            "<html><head><title>Links</title></head><body><article><h1>Links</h1>\
             <p>Harbour seals rest on the sandbanks at low tide and hunt fish.</p>{links}\
             </article></body></html>"
        )),
    );
    let dir = temp_dir();
    let store = dir.join("store.db");
    let crawl = run(trawl(&dir).args([
        "--store",
        store.to_str().unwrap(),
        "crawl",
        &server.url("/"),
        "--allow-host",
        "127.0.0.1",
        "--limit",
        "1",
        "--no-sitemap",
        "--json",
    ]));
    assert_eq!(crawl.code, 0, "{}", crawl.stderr);
    let summary = &crawl.json()["data"]["summary"];
    assert_eq!(
        summary["over_budget"].as_u64(),
        Some(12_000 + 1 - trawl_crawl::url_budget(1) as u64),
        "{summary}"
    );
    assert!(
        summary["notes"]
            .to_string()
            .contains("stopped keeping new URLs at 10000"),
        "{summary}"
    );
}

/// A start URL with a path crawls and maps under it, as Firecrawl does; `--whole-site`
/// takes the whole site.
#[test]
fn a_crawl_of_a_section_keeps_to_it_unless_whole_site() {
    let server = TestServer::start();
    let page = |links: &str| {
        Reply::html(format!(
            "<html><head><title>S</title></head><body><article><h1>S</h1>\
             <p>Harbour seals rest on the sandbanks at low tide and hunt fish.</p>{links}\
             </article></body></html>"
        ))
    };
    server.route(
        "/docs/",
        page("<a href=\"/docs/a\">a</a><a href=\"/blog/b\">b</a>"),
    );
    server.route("/docs/a", page(""));
    server.route("/blog/b", page(""));
    let dir = temp_dir();
    let crawl = |extra: &[&str]| {
        let mut args = vec![
            "--store",
            ":memory:",
            "crawl",
            "--allow-host",
            "127.0.0.1",
            "--json",
        ];
        args.extend_from_slice(extra);
        let url = server.url("/docs/");
        args.push(&url);
        let r = run(trawl(&dir).args(&args));
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let section = crawl(&[]);
    assert!(section.contains("/docs/a"), "{section}");
    assert!(!section.contains("/blog/b\",\"depth"), "{section}");
    assert_eq!(server.hits("/blog/b"), 0);
    let whole = crawl(&["--whole-site"]);
    assert!(whole.contains("/blog/b"), "{whole}");
    assert_eq!(server.hits("/blog/b"), 1);
}
