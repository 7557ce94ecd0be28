//! `trawl crawl --changes ID` on a site where two URLs carry one page (`/` and
//! `/index.html`, issue 42 item 3): which of the two is stored and which is its duplicate
//! depends on which answers first, and flips between the crawls here. Nothing changed, so
//! nothing is new or removed: a page that is a duplicate in both crawls is `same`.

use std::time::Duration;

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

fn home() -> String {
    "<html><head><title>Home</title></head><body><main><h1>Home</h1>\
<p>The front page of a small manual, with a link to itself under its other name and to \
its one chapter, in enough words to be read as an article.</p>\
<ul><li><a href=\"/index.html\">Home</a></li><li><a href=\"/chapter\">Chapter</a></li></ul>\
</main></body></html>"
        .to_owned()
}

fn chapter() -> String {
    "<html><head><title>Chapter</title></head><body><main><h1>Chapter</h1>\
<p>The one chapter of the manual, about configuration and the command line, long enough \
to be read as an article by the extractor.</p><p><a href=\"/\">Back home</a></p>\
</main></body></html>"
        .to_owned()
}

fn slow(body: String) -> Reply {
    Reply::Trickle {
        body: body.into_bytes(),
        piece: 64,
        pause: Duration::from_millis(60),
    }
}

/// The home page under both names, `slow_path` the one that answers last; the sitemap lists
/// `/index.html`, so both are asked for at once.
fn serve(server: &TestServer, slow_path: &str) {
    for path in ["/", "/index.html"] {
        let reply = if path == slow_path {
            slow(home())
        } else {
            Reply::html(home())
        };
        server.route(path, reply);
    }
}

#[test]
fn a_page_under_two_urls_is_same_not_removed_and_new() {
    let server = TestServer::start();
    server.route(
        "/robots.txt",
        Reply::ok(
            "text/plain",
            format!("User-agent: *\nSitemap: {}\n", server.url("/sitemap.xml")),
        ),
    );
    server.route(
        "/sitemap.xml",
        Reply::ok(
            "application/xml",
            format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
<url><loc>{}</loc></url><url><loc>{}</loc></url></urlset>",
                server.url("/index.html"),
                server.url("/chapter")
            ),
        ),
    );
    server.route("/chapter", Reply::html(chapter()));
    let dir = temp_dir();
    let crawl = |args: &[&str]| {
        run(trawl(&dir)
            .arg("crawl")
            .args(args)
            .args(["--allow-host", "127.0.0.1"]))
    };
    // First `/index.html` is stored and `/` is its duplicate...
    serve(&server, "/");
    let first = crawl(&[&server.url("/"), "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let summary = &first.json()["data"]["summary"];
    assert_eq!(summary["progress"]["duplicates"], 1, "{summary}");
    assert_eq!(summary["progress"]["done"], 2, "{summary}");
    let id = summary["id"].as_str().unwrap().to_owned();

    // ...then `/` is, and `/index.html` is the duplicate.
    serve(&server, "/index.html");
    let again = crawl(&["--changes", &id, "--jsonl"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let lines: Vec<serde_json::Value> = again
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (summary, pages) = lines.split_last().unwrap();
    let c = &summary["summary"]["changes"];
    assert_eq!(
        (
            c["new"].as_u64(),
            c["changed"].as_u64(),
            c["same"].as_u64(),
            c["removed"].as_u64()
        ),
        (Some(0), Some(0), Some(3), Some(0)),
        "{}",
        again.stdout
    );
    assert_eq!(pages.len(), 3, "{}", again.stdout);
    for page in pages {
        assert_eq!(page["change_status"], "same", "{page}");
    }
}
