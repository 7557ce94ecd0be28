//! A finished crawl can be listed, exported and extended (issue 42 items 8, 9, 13), and a
//! pipe reads a page's title first (item 11): through the binary, against a loopback site.

use std::time::{Duration, Instant};

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

/// `trawl crawl ARGS` allowed to reach the loopback site.
fn crawl(dir: &std::path::Path, args: &[&str]) -> crate::util::Run {
    run(trawl(dir)
        .arg("crawl")
        .args(args)
        .args(["--allow-host", "127.0.0.1"]))
}

fn article(title: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>\
<p>This page about {title} explains one part of the guide in enough words to be read as \
an article by the extractor, with a second sentence about its settings.</p></main></body></html>"
    )
}

/// `/guide/` links six chapters.
fn site() -> TestServer {
    let server = TestServer::start();
    let links: String = (0..6)
        .map(|i| format!("<li><a href=\"/guide/ch{i}.html\">Chapter {i}</a></li>"))
        .collect();
    server.route(
        "/guide/",
        Reply::html(format!(
            "<html><head><title>Guide</title></head><body><main><h1>Guide</h1>\
<p>The guide has six chapters, each about one part of the tool and how to set it up.</p>\
<ul>{links}</ul></main></body></html>"
        )),
    );
    for i in 0..6 {
        server.route(
            &format!("/guide/ch{i}.html"),
            Reply::html(article(&format!("Chapter {i}"))),
        );
    }
    server
}

fn crawl_id(r: &crate::util::Run) -> String {
    r.json()["data"]["summary"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn a_crawl_at_its_limit_goes_on_with_a_higher_limit() {
    let server = site();
    let dir = temp_dir();
    let start = server.url("/guide/");
    let first = crawl(&dir, &[&start, "--limit", "3", "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let id = crawl_id(&first);
    assert_eq!(first.json()["data"]["summary"]["progress"]["done"], 3);

    // Ended at its limit: a plain resume says how to go on, and fetches nothing.
    let hits = server.seen().len();
    let again = crawl(&dir, &["--resume", &id]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("--limit N"), "{}", again.stderr);
    assert_eq!(server.seen().len(), hits);

    // A higher limit goes on from the URLs it left queued; nothing stored is fetched again.
    let more = crawl(&dir, &["--resume", &id, "--limit", "7", "--json"]);
    assert_eq!(more.code, 0, "{}", more.stderr);
    assert_eq!(
        more.json()["data"]["summary"]["progress"]["done"],
        7,
        "{}",
        more.stdout
    );
    assert_eq!(server.hits("/guide/"), 1);
    for i in 0..6 {
        assert!(server.hits(&format!("/guide/ch{i}.html")) <= 1);
    }
    // And a lower one is refused.
    let lower = crawl(&dir, &["--resume", &id, "--limit", "2"]);
    assert_ne!(lower.code, 0, "{}", lower.stderr);
}

#[test]
fn a_crawl_is_listed_and_exported_as_files_and_lines() {
    let server = site();
    let dir = temp_dir();
    let start = server.url("/guide/");
    let crawled = crawl(&dir, &[&start, "--json"]);
    assert_eq!(crawled.code, 0, "{}", crawled.stderr);
    let id = crawl_id(&crawled);

    let status = run(trawl(&dir).args(["crawl", "status", &id, "--json"]));
    assert_eq!(status.code, 0, "{}", status.stderr);
    let pages = status.json()["data"]["pages"].as_array().unwrap().clone();
    assert_eq!(pages.len(), 7, "{pages:?}");
    assert!(pages.iter().all(|p| p["handle"].is_string()), "{pages:?}");
    let human = run(trawl(&dir).args(["crawl", "status", &id]));
    assert!(human.stdout.contains("/guide/ch5.html"), "{}", human.stdout);

    let out = dir.join("export");
    let export = run(trawl(&dir).args(["crawl", "export", &id, "--out", out.to_str().unwrap()]));
    assert_eq!(export.code, 0, "{}", export.stderr);
    let host = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.path().is_dir())
        .unwrap()
        .path();
    let chapter = std::fs::read_to_string(host.join("guide/ch2.md")).unwrap();
    assert!(chapter.starts_with("# Chapter 2\n"), "{chapter}");
    assert!(host.join("guide/index.md").is_file());
    let index = std::fs::read_to_string(out.join("index.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = index
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 7, "{index}");
    for line in &lines {
        for key in ["url", "title", "handle", "status", "fetched_at", "file"] {
            assert!(!line[key].is_null(), "{key} in {line}");
        }
    }
    // An export never writes over files.
    let twice = run(trawl(&dir).args(["crawl", "export", &id, "--out", out.to_str().unwrap()]));
    assert_eq!(twice.code, 2, "{}", twice.stderr);

    let jsonl = run(trawl(&dir).args(["crawl", "export", &id, "--jsonl"]));
    assert_eq!(jsonl.code, 0, "{}", jsonl.stderr);
    let pages: Vec<serde_json::Value> = jsonl
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(pages.len(), 7);
    assert!(pages.iter().any(|p| {
        p["markdown"]
            .as_str()
            .is_some_and(|m| m.contains("Chapter 4"))
    }));
}

#[test]
fn a_pipe_reads_the_title_first() {
    let dir = temp_dir();
    std::fs::write(dir.join("page.html"), article("Tide tables")).unwrap();
    let r = run(trawl(&dir).args(["read", "page.html", "-q"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("# Tide tables\n"), "{}", r.stdout);
}

#[test]
fn ctrl_c_stops_a_crawl_with_130_and_says_how_to_resume() {
    let server = TestServer::start();
    let links: String = (0..20)
        .map(|i| format!("<li><a href=\"/slow/{i}\">Slow {i}</a></li>"))
        .collect();
    server.route(
        "/",
        Reply::html(format!(
            "<html><body><main><ul>{links}</ul></main></body></html>"
        )),
    );
    for i in 0..20 {
        server.route(
            &format!("/slow/{i}"),
            Reply::Trickle {
                body: article(&format!("Slow {i}")).into_bytes(),
                piece: 64,
                pause: Duration::from_millis(100),
            },
        );
    }
    let dir = temp_dir();
    let child = trawl(&dir)
        .args(["crawl", &server.url("/"), "--allow-host", "127.0.0.1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.hits("/slow/0") == 0 {
        assert!(Instant::now() < deadline, "the crawl did not get going");
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
}

/// Item 17: a crawl names itself (robots.txt included); a read keeps the browser-like
/// default; both can be set.
#[test]
fn a_crawl_names_itself_and_a_read_does_not() {
    let server = site();
    let dir = temp_dir();
    let crawled = crawl(&dir, &[&server.url("/guide/"), "--limit", "2", "--json"]);
    assert_eq!(crawled.code, 0, "{}", crawled.stderr);
    let agents: Vec<String> = server
        .seen()
        .iter()
        .map(|s| s.headers.get("user-agent").cloned().unwrap_or_default())
        .collect();
    assert!(agents.len() >= 3, "{agents:?}");
    assert!(
        agents
            .iter()
            .all(|a| a.starts_with("trawl/") && a.contains("(+https://")),
        "{agents:?}"
    );
    let before = server.seen().len();
    let read = run(trawl(&dir).args([
        "read",
        &server.url("/guide/ch5.html"),
        "--allow-host",
        "127.0.0.1",
    ]));
    assert_eq!(read.code, 0, "{}", read.stderr);
    let read_agent = server.seen()[before].headers["user-agent"].clone();
    assert!(read_agent.starts_with("Mozilla/5.0"), "{read_agent}");

    let dir = temp_dir();
    let set = run(trawl(&dir)
        .env("TRAWL_CRAWL_USER_AGENT", "examplebot/2.0")
        .args(["crawl", &server.url("/guide/"), "--limit", "1"])
        .args(["--allow-host", "127.0.0.1"]));
    assert_eq!(set.code, 0, "{}", set.stderr);
    let last = server.seen().last().unwrap().headers["user-agent"].clone();
    assert_eq!(last, "examplebot/2.0");
}

/// Item 12: a passage found names its document by URL and title, and a search of one
/// crawl says so.
#[test]
fn found_passages_name_their_page_and_the_crawl() {
    let server = site();
    let dir = temp_dir();
    let crawled = crawl(&dir, &[&server.url("/guide/"), "--json"]);
    let id = crawl_id(&crawled);
    let found = run(trawl(&dir).args(["open", "--find", "settings", "--crawl", &id, "--json"]));
    assert_eq!(found.code, 0, "{}", found.stderr);
    let passages = found.json()["data"]["passages"].as_array().unwrap().clone();
    assert!(!passages.is_empty());
    for p in &passages {
        assert!(p["url"].as_str().unwrap().contains("/guide/"), "{p}");
        assert!(!p["title"].as_str().unwrap().is_empty(), "{p}");
    }
    assert!(passages.iter().any(|p| {
        p["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("Chapter "))
    }));
    assert_eq!(found.json()["data"]["crawl"], id.as_str());
    let human = run(trawl(&dir).args(["open", "--find", "settings", "--crawl", &id]));
    assert!(
        human
            .stdout
            .contains(&format!("in the pages of crawl {id}")),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("/guide/ch"), "{}", human.stdout);
    assert!(human.stdout.contains("Chapter "), "{}", human.stdout);
}

/// Item 18: a print view met first gives way to the article it names as canonical: the
/// article is read and stored, the print view is its duplicate.
#[test]
fn a_print_view_gives_way_to_its_canonical_article() {
    let server = TestServer::start();
    let body = "<p>The tide tables list the times of high and low water at each harbour of \
the coast for every day of the year, with the height of each tide in metres above chart \
datum and notes on the effect of the wind and the pressure on the water level.</p>";
    server.route(
        "/",
        Reply::html("<html><body><main><h1>Home</h1><p>Welcome to the harbour office pages, \
with tide tables and notices.</p><a href=\"/print/tides\">Tide tables (print)</a></main></body></html>"),
    );
    let article = |canonical: &str| {
        format!(
            "<html><head><title>Tide tables</title><link rel=\"canonical\" href=\"{canonical}\">\
</head><body><main><h1>Tide tables</h1>{body}</main></body></html>"
        )
    };
    server.route("/print/tides", Reply::html(article("/tides")));
    server.route("/tides", Reply::html(article("/tides")));
    let dir = temp_dir();
    let r = crawl(&dir, &[&server.url("/"), "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let pages = r.json()["data"]["pages"].as_array().unwrap().clone();
    let by_path = |p: &str| {
        pages
            .iter()
            .find(|x| x["url"] == server.url(p).as_str())
            .unwrap_or_else(|| panic!("{p} in {pages:?}"))
            .clone()
    };
    assert_eq!(by_path("/tides")["status"], "done", "{pages:?}");
    let print = by_path("/print/tides");
    assert_eq!(print["status"], "skipped", "{print}");
    assert!(
        print["detail"]
            .as_str()
            .unwrap()
            .contains("its canonical page"),
        "{print}"
    );
    assert_eq!(server.hits("/tides"), 1);
}

/// Item 16: `cache clear` forgets kept crawls too and gives the file's space back.
#[test]
fn cache_clear_forgets_crawls_and_shrinks_the_file() {
    let server = site();
    let dir = temp_dir();
    let store = dir.join("store.db");
    let s = store.to_str().unwrap();
    let crawled = crawl(&dir, &["--store", s, &server.url("/guide/"), "--json"]);
    assert_eq!(crawled.code, 0, "{}", crawled.stderr);
    // Some weight, so that the space given back shows.
    for i in 0..40 {
        let page = dir.join(format!("p{i}.md"));
        std::fs::write(
            &page,
            format!("# Page {i}\n\n{}\n", "A line of filler text. ".repeat(2000)),
        )
        .unwrap();
        let r = run(trawl(&dir).args(["--store", s, "read", page.to_str().unwrap(), "--json"]));
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let wal = dir.join("store.db-wal");
    let before = size(&store) + size(&wal);
    let cleared = run(trawl(&dir).args(["--store", s, "cache", "clear", "--yes"]));
    assert_eq!(cleared.code, 0, "{}", cleared.stderr);
    let listed = run(trawl(&dir).args(["--store", s, "crawl", "list", "--json"]));
    assert_eq!(
        listed.json()["data"],
        serde_json::json!([]),
        "{}",
        listed.stdout
    );
    let after = size(&store) + size(&wal);
    assert!(after * 4 < before, "{before} bytes before, {after} after");
}

/// Item 16: a corrupt store does not stop a local file from being read (answered, not
/// kept), and `cache doctor` says what to do instead of sending you to itself.
#[test]
fn a_corrupt_store_still_reads_and_the_doctor_says_what_to_do() {
    let dir = temp_dir();
    let store = dir.join("bad.db");
    std::fs::write(&store, vec![0x5a_u8; 16 * 1024]).unwrap();
    std::fs::write(dir.join("note.md"), "# Note\n\nThe tide turns at noon.\n").unwrap();
    let s = store.to_str().unwrap();
    let r = run(trawl(&dir).args(["--store", s, "read", "note.md", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.json()["meta"]["not_stored"]["reason"],
        "corrupt",
        "{}",
        r.stdout
    );
    let doctor = run(trawl(&dir).args(["--store", s, "cache", "doctor"]));
    assert_ne!(doctor.code, 0);
    assert!(
        doctor.stdout.contains(&format!("mv {s} {s}.corrupt")),
        "{}",
        doctor.stdout
    );
    assert!(!doctor.stdout.contains("cache doctor"), "{}", doctor.stdout);
    assert!(
        doctor.stderr.contains("error[store_unavailable]"),
        "{}",
        doctor.stderr
    );
}

/// Item 9: a new crawl of a site crawled before asks for the pages the earlier crawl
/// stored with their validators; a 304 is not downloaded again, and the crawl says so.
#[test]
fn a_new_crawl_of_a_site_crawled_before_asks_conditionally() {
    let server = TestServer::start();
    server.route(
        "/docs/",
        Reply::html(
            "<html><head><title>Docs</title></head><body><main><h1>Docs</h1><p>The manual \
has one page about the tides, linked below, with more to come in the spring.</p>\
<a href=\"/docs/tides\">Tides</a></main></body></html>",
        ),
    );
    let tides = "<html><head><title>Tides</title></head><body><main><h1>Tides</h1><p>The tide \
tables list the times of high and low water at each harbour of the coast for every day of \
the year, with the height of each tide in metres above chart datum.</p>\
<a href=\"/docs/ebb\">Ebb</a></main></body></html>";
    server.route(
        "/docs/tides",
        Reply::Sequence(vec![
            Reply::html(tides).with_header("ETag", "\"t1\""),
            Reply::Full {
                status: 304,
                headers: vec![("ETag".into(), "\"t1\"".into())],
                body: Vec::new(),
            },
        ]),
    );
    server.route("/docs/ebb", Reply::html(article("Ebb")));
    let dir = temp_dir();
    let first = crawl(&dir, &[&server.url("/docs/"), "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let first_id = crawl_id(&first);
    let second = crawl(&dir, &[&server.url("/docs/"), "--json"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_ne!(crawl_id(&second), first_id, "a new crawl, not a resume");
    let summary = &second.json()["data"]["summary"];
    assert_eq!(summary["progress"]["done"], 3, "{summary}");
    let notes = summary["notes"].to_string();
    assert!(
        notes.contains(&format!("1 pages had not changed since crawl {first_id}")),
        "{notes}"
    );
    let asked: Vec<_> = server
        .seen()
        .into_iter()
        .filter(|s| s.path == "/docs/tides")
        .collect();
    assert_eq!(asked.len(), 2);
    assert_eq!(
        asked[1].headers.get("if-none-match").map(String::as_str),
        Some("\"t1\"")
    );
    // The page answered 304 still led to the page it links (its links were kept).
    assert_eq!(server.hits("/docs/ebb"), 2);
}

/// Item 18: in a batch, the copy kept of a page read twice is the cleaner address, not the
/// first given (a print view first, the article second).
#[test]
fn a_batch_keeps_the_article_over_its_print_view() {
    let server = TestServer::start();
    let page = format!(
        "<html><head><title>Tide tables</title></head><body><main><h1>Tide tables</h1>{}</main></body></html>",
        "<p>The tide tables list the times of high and low water at each harbour of the coast for \
every day of the year, with the height of each tide in metres above chart datum and notes on \
the wind.</p>"
            .repeat(3)
    );
    server.route("/print/tides", Reply::html(page.clone()));
    server.route("/tides", Reply::html(page));
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "read",
        &server.url("/print/tides"),
        &server.url("/tides"),
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let folded = r.json()["data"]["folded"].clone();
    assert_eq!(folded[0]["url"], server.url("/print/tides"), "{folded}");
    assert_eq!(folded[0]["into"], server.url("/tides"), "{folded}");
}

/// Item 18: of two copies of a page a crawl meets at one depth, without a canonical link,
/// the clean address is read first and kept; the print view is its duplicate.
#[test]
fn a_crawl_keeps_the_clean_address_over_a_print_view() {
    let server = TestServer::start();
    let page = format!(
        "<html><head><title>Tide tables</title></head><body><main><h1>Tide tables</h1>{}</main></body></html>",
        "<p>The tide tables list the times of high and low water at each harbour of the coast for \
every day of the year, with the height of each tide in metres above chart datum and notes on \
the wind.</p>"
            .repeat(3)
    );
    server.route(
        "/",
        Reply::html(
            "<html><body><main><h1>Home</h1><p>Welcome to the harbour office pages, \
with tide tables and notices for every boat.</p><a href=\"/print/tides\">Print</a> \
<a href=\"/tides\">Tides</a></main></body></html>",
        ),
    );
    server.route("/print/tides", Reply::html(page.clone()));
    server.route("/tides", Reply::html(page));
    let dir = temp_dir();
    let r = crawl(&dir, &[&server.url("/"), "--concurrency", "1", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let pages = r.json()["data"]["pages"].as_array().unwrap().clone();
    let status = |p: &str| {
        pages
            .iter()
            .find(|x| x["url"] == server.url(p).as_str())
            .map(|x| x["status"].clone())
            .unwrap_or_else(|| panic!("{p} in {pages:?}"))
    };
    assert_eq!(status("/tides"), "done", "{pages:?}");
    assert_eq!(status("/print/tides"), "skipped", "{pages:?}");
}
