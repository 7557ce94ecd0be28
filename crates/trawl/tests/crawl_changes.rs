//! `trawl crawl --changes ID` end to end, on SQLite and on Redis: a small site is crawled,
//! then one page is edited, one deleted (404), one unlinked and one added; the changes-crawl
//! says exactly that, asks for the unchanged pages with their validators (and gets 304s),
//! and keeps the edited page's old copy as version 1. Bad ids and URLs are refused.

use std::path::Path;
use std::time::{Duration, Instant};

use trawl_testkit::{RedisServer, Reply, TestServer};

use crate::util::{Run, run, temp_dir, trawl};

fn article(title: &str, words: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>\
<p>This page about {title} explains one part of the manual in enough words to be read as \
an article by the extractor, with a second sentence about configuration and a third about \
the command line. {words}</p></main></body></html>"
    )
}

fn index(pages: &[&str]) -> String {
    let links: String = pages
        .iter()
        .map(|p| format!("<li><a href=\"/{p}\">The {p} page</a></li>"))
        .collect();
    format!(
        "<html><head><title>Index</title></head><body><main><h1>Index</h1>\
<p>The pages of this small manual, each on one subject of its own.</p><ul>{links}</ul>\
</main></body></html>"
    )
}

fn not_modified(header: &str, value: &str) -> Reply {
    Reply::Full {
        status: 304,
        headers: vec![(header.into(), value.into())],
        body: Vec::new(),
    }
}

/// `/steady` (an ETag) and `/dated` (a Last-Modified) answer in full once, then 304.
fn site() -> TestServer {
    let server = TestServer::start();
    server.route(
        "/",
        Reply::html(index(&[
            "steady", "dated", "edited", "gone", "orphan", "broken",
        ])),
    );
    server.route(
        "/steady",
        Reply::Sequence(vec![
            Reply::html(article("Steady", "Nothing here moves.")).with_header("ETag", "\"s1\""),
            not_modified("ETag", "\"s1\""),
        ]),
    );
    let dated = "Tue, 01 Dec 2026 10:00:00 GMT";
    server.route(
        "/dated",
        Reply::Sequence(vec![
            Reply::html(article("Dated", "Written once.")).with_header("Last-Modified", dated),
            not_modified("Last-Modified", dated),
        ]),
    );
    server.route(
        "/edited",
        Reply::html(article("Edited", "The ferry leaves at nine.")).with_header("ETag", "\"e1\""),
    );
    server.route("/gone", Reply::html(article("Gone", "Soon to vanish.")));
    server.route("/orphan", Reply::html(article("Orphan", "Soon unlinked.")));
    server.route("/broken", Reply::html(article("Broken", "Soon failing.")));
    server
}

/// The site a day later.
fn edit(server: &TestServer) {
    server.route(
        "/",
        Reply::html(index(&[
            "steady", "dated", "edited", "gone", "fresh", "broken",
        ])),
    );
    server.route(
        "/edited",
        Reply::html(article("Edited", "The ferry leaves at ten.")).with_header("ETag", "\"e2\""),
    );
    server.route(
        "/gone",
        Reply::Full {
            status: 404,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: b"<html><body>Not here</body></html>".to_vec(),
        },
    );
    server.route("/fresh", Reply::html(article("Fresh", "Just written.")));
    // A server error is not a removal: how that page changed is not known.
    server.route(
        "/broken",
        Reply::Full {
            status: 500,
            headers: Vec::new(),
            body: b"oops".to_vec(),
        },
    );
}

fn crawl(dir: &Path, store: &[&str], args: &[&str]) -> Run {
    run(trawl(dir)
        .args(store)
        .arg("crawl")
        .args(args)
        .args(["--allow-host", "127.0.0.1"]))
}

fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/').map_or("/", |i| &rest[i..])
}

/// Crawls the site, edits it, crawls it with `--changes`: checks every status, the
/// conditional requests, the old copy and the summary on every face.
fn crawl_edit_compare(store: &[&str]) {
    let server = site();
    let dir = temp_dir();
    let first = crawl(&dir, store, &[&server.url("/"), "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let old = first.json()["data"]["summary"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(first.json()["data"]["summary"]["progress"]["done"], 7);
    edit(&server);
    let before = server.seen().len();

    let again = crawl(&dir, store, &["--changes", &old, "--jsonl"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let lines: Vec<serde_json::Value> = again
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (summary, pages) = lines.split_last().unwrap();
    let summary = &summary["summary"];
    assert_ne!(summary["id"], old.as_str(), "a new crawl");
    assert_eq!(summary["changes"]["compared_with"], old.as_str());
    let mut statuses: Vec<(String, String)> = pages
        .iter()
        .map(|p| {
            (
                path_of(p["url"].as_str().unwrap()).to_owned(),
                p["change_status"].as_str().unwrap_or("none").to_owned(),
            )
        })
        .collect();
    statuses.sort();
    let expected = [
        ("/", "changed"),
        ("/broken", "none"),
        ("/dated", "same"),
        ("/edited", "changed"),
        ("/fresh", "new"),
        ("/gone", "removed"),
        ("/orphan", "removed"),
        ("/steady", "same"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(p, s)| ((*p).to_owned(), (*s).to_owned()))
        .collect();
    assert_eq!(statuses, expected, "{}", again.stdout);
    let c = &summary["changes"];
    assert_eq!(
        (
            c["new"].as_u64(),
            c["changed"].as_u64(),
            c["same"].as_u64(),
            c["removed"].as_u64()
        ),
        (Some(1), Some(2), Some(2), Some(2)),
        "{summary}"
    );
    assert_eq!(c["unknown"], 1, "{summary}");
    let page = |path: &str| {
        pages
            .iter()
            .find(|p| path_of(p["url"].as_str().unwrap()) == path)
            .unwrap()
    };
    // Removed says which: gone from the site, or no longer linked; both keep their copy.
    let gone = page("/gone");
    assert!(gone["why"].as_str().unwrap().contains("HTTP 404"), "{gone}");
    assert!(gone["handle"].is_string(), "{gone}");
    let orphan = page("/orphan");
    assert!(
        orphan["why"].as_str().unwrap().contains("no longer linked"),
        "{orphan}"
    );
    assert_eq!(
        server.hits("/orphan"),
        1,
        "an unlinked page is not asked for"
    );
    // The edit, exactly, with the old copy kept as version 1.
    let edited = page("/edited");
    assert_eq!(
        (
            edited["lines_added"].as_u64(),
            edited["lines_removed"].as_u64()
        ),
        (Some(1), Some(1)),
        "{edited}"
    );
    assert_eq!(edited["previous_version"], 1);
    let diff = edited["diff"].as_str().unwrap();
    assert!(
        diff.lines()
            .any(|l| l.starts_with('-') && l.contains("at nine")),
        "{diff}"
    );
    assert!(
        diff.lines()
            .any(|l| l.starts_with('+') && l.contains("at ten")),
        "{diff}"
    );

    // The unchanged pages were asked for with their validators and answered 304 (the
    // routes answer 304 on the second request): no body fetched again.
    let seen = server.seen();
    let asked = |path: &str| seen[before..].iter().find(|s| s.path == path).unwrap();
    assert_eq!(
        asked("/steady")
            .headers
            .get("if-none-match")
            .map(String::as_str),
        Some("\"s1\"")
    );
    assert_eq!(
        asked("/dated")
            .headers
            .get("if-modified-since")
            .map(String::as_str),
        Some("Tue, 01 Dec 2026 10:00:00 GMT")
    );
    assert_eq!(
        asked("/edited")
            .headers
            .get("if-none-match")
            .map(String::as_str),
        Some("\"e1\"")
    );
    assert_eq!((server.hits("/steady"), server.hits("/dated")), (2, 2));

    // The old text opens as version 1, the new one is the stored copy.
    let handle = edited["handle"].as_str().unwrap();
    let open = |extra: &[&str]| {
        run(trawl(&dir)
            .args(store)
            .args(["open", handle, "--page-size-tokens", "0", "--json"])
            .args(extra))
    };
    let v1 = open(&["--version", "1"]);
    assert_eq!(v1.code, 0, "{}", v1.stderr);
    let v1 = v1.json()["data"]["markdown"].as_str().unwrap().to_owned();
    assert!(v1.contains("at nine") && !v1.contains("at ten"), "{v1}");
    let now = open(&[]).json()["data"]["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(now.contains("at ten"), "{now}");
    // The removed page's stored copy is still there.
    let kept =
        run(trawl(&dir)
            .args(store)
            .args(["open", gone["handle"].as_str().unwrap(), "--json"]));
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    assert!(kept.stdout.contains("Soon to vanish"));

    // A person reads the counts, then the changed and removed URLs.
    let id = summary["id"].as_str().unwrap();
    let status = run(trawl(&dir).args(store).args(["crawl", "status", id]));
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert!(
        status.stdout.contains(&format!(
            "since crawl {old}: 1 new, 2 changed, 2 same, 2 removed"
        )),
        "{}",
        status.stdout
    );
    assert!(
        status
            .stdout
            .contains(&format!("changed: {}", server.url("/edited")))
    );
    assert!(
        status
            .stdout
            .contains(&format!("removed: {}", server.url("/orphan")))
    );
    // And the Envelope has the same counts, with change_status on each page.
    let json = run(trawl(&dir)
        .args(store)
        .args(["crawl", "status", id, "--json"]));
    assert_eq!(json.json()["data"]["summary"]["changes"]["removed"], 2);
}

#[test]
fn a_changes_crawl_reports_new_same_changed_and_removed_pages() {
    let dir = temp_dir();
    let db = dir.join("trawl.db");
    crawl_edit_compare(&["--store", db.to_str().unwrap()]);
}

#[test]
fn a_changes_crawl_on_redis_reports_the_same() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    crawl_edit_compare(&["--redis", &redis.url()]);
}

#[test]
fn the_human_summary_and_the_json_envelope_carry_the_changes() {
    let server = site();
    let dir = temp_dir();
    let db = dir.join("trawl.db");
    let store = ["--store", db.to_str().unwrap()];
    let first = crawl(&dir, &store, &[&server.url("/"), "--json"]);
    let old = first.json()["data"]["summary"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    edit(&server);
    // A URL may be given: it must be the old crawl's start.
    let human = crawl(&dir, &store, &[&server.url("/"), "--changes", &old]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human.stdout.contains(&format!(
            "since crawl {old}: 1 new, 2 changed, 2 same, 2 removed"
        )),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains(&format!(
            "removed: {} (gone from the site",
            server.url("/gone")
        )),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains("1 pages of that crawl could not be read now (not a 404/410)"),
        "{}",
        human.stdout
    );
    // Compared with that changes-crawl, nothing changed: every page it stored is the same
    // (the 404 was never one of its pages, so it is only a failure now).
    let newer = human.stdout.split_whitespace().nth(1).unwrap().to_owned();
    let json = crawl(&dir, &store, &["--changes", &newer, "--json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let data = &json.json()["data"];
    let c = &data["summary"]["changes"];
    assert_eq!(
        (
            c["new"].as_u64(),
            c["changed"].as_u64(),
            c["removed"].as_u64()
        ),
        (Some(0), Some(0), Some(0)),
        "{data}"
    );
    assert_eq!(c["same"], 5, "{data}");
    for p in data["pages"].as_array().unwrap() {
        if ["/gone", "/broken"].contains(&path_of(p["url"].as_str().unwrap())) {
            assert_eq!(
                (&p["status"], &p["change_status"]),
                (&"failed".into(), &serde_json::Value::Null),
                "{p}"
            );
        } else {
            assert_eq!(p["change_status"], "same", "{p}");
        }
    }
}

#[test]
fn bad_ids_and_urls_are_refused_with_a_clear_error() {
    let server = site();
    let dir = temp_dir();
    let db = dir.join("trawl.db");
    let store = ["--store", db.to_str().unwrap()];
    let unknown = crawl(&dir, &store, &["--changes", "c-000000000000", "--json"]);
    assert_eq!(unknown.code, 1);
    let message = unknown.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("no crawl with id"), "{message}");

    let first = crawl(&dir, &store, &[&server.url("/"), "--json"]);
    let old = first.json()["data"]["summary"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let elsewhere = crawl(
        &dir,
        &store,
        &[&server.url("/steady"), "--changes", &old, "--json"],
    );
    assert_eq!(elsewhere.code, 2, "bad input");
    let message = elsewhere.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("started at"), "{message}");
    // Options come from the old crawl.
    let limited = crawl(&dir, &store, &["--changes", &old, "--limit", "3"]);
    assert_ne!(limited.code, 0);
    assert!(limited.stderr.contains("--limit"), "{}", limited.stderr);

    // A crawl still running (here: one whose page never answers) is refused.
    let hanging = TestServer::start();
    hanging.route("/", Reply::Hang);
    let mut child = trawl(&dir)
        .args(store)
        .args(["crawl", &hanging.url("/"), "--allow-host", "127.0.0.1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let running = loop {
        let listed = run(trawl(&dir).args(store).args(["crawl", "list", "--json"]));
        let list = listed.json();
        let found = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["status"] == "running")
            .map(|c| c["id"].as_str().unwrap().to_owned());
        if let Some(id) = found {
            break id;
        }
        assert!(Instant::now() < deadline, "the crawl did not start");
        std::thread::sleep(Duration::from_millis(50));
    };
    let refused = crawl(&dir, &store, &["--changes", &running, "--json"]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(refused.code, 2, "bad input");
    let message = refused.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("has not ended"), "{message}");
}

#[test]
fn a_changes_crawl_killed_mid_way_resumes_still_comparing() {
    const PAGES: usize = 16;
    let server = TestServer::start();
    let names: Vec<String> = (0..PAGES).map(|i| format!("p{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    server.route("/", Reply::html(index(&refs)));
    let body = |i: usize, edited: bool| {
        let when = if edited && i == 3 { "ten" } else { "nine" };
        article(&format!("Part {i}"), &format!("It opens at {when}."))
    };
    for i in 0..PAGES {
        server.route(&format!("/p{i}"), Reply::html(body(i, false)));
    }
    let dir = temp_dir();
    let db = dir.join("trawl.db");
    let store = ["--store", db.to_str().unwrap()];
    let first = crawl(&dir, &store, &[&server.url("/"), "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let old = first.json()["data"]["summary"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The same pages, slowly (so that the crawl is still going when it is killed), one
    // edited.
    for i in 0..PAGES {
        server.route(
            &format!("/p{i}"),
            Reply::Trickle {
                body: body(i, true).into_bytes(),
                piece: 128,
                pause: Duration::from_millis(40),
            },
        );
    }
    let before = server.seen().len();
    let mut child = trawl(&dir)
        .args(store)
        .args(["crawl", "--changes", &old, "--allow-host", "127.0.0.1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.seen()[before..]
        .iter()
        .filter(|s| s.path.starts_with("/p"))
        .count()
        < 6
    {
        assert!(
            Instant::now() < deadline,
            "the changes-crawl did not get going"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let listed = run(trawl(&dir).args(store).args(["crawl", "list", "--json"]));
    let newer = listed.json()["data"][0]["id"].as_str().unwrap().to_owned();
    assert_ne!(newer, old);
    assert_eq!(
        listed.json()["data"][0]["status"],
        "interrupted",
        "killed before its end: its process is gone"
    );

    let resumed = crawl(&dir, &store, &["--resume", &newer, "--json"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let summary = &resumed.json()["data"]["summary"];
    assert_eq!(summary["status"], "done", "{summary}");
    let c = &summary["changes"];
    assert_eq!(c["compared_with"], old.as_str(), "{summary}");
    assert_eq!(
        (
            c["new"].as_u64(),
            c["changed"].as_u64(),
            c["same"].as_u64(),
            c["removed"].as_u64()
        ),
        (Some(0), Some(1), Some(PAGES as u64), Some(0)),
        "{summary}"
    );
    assert_eq!(c["changed_urls"][0], server.url("/p3").as_str());
}
