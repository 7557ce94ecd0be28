//! Issue 25: reads that spend fewer tokens. `trawl read --query` gives the passages that
//! answer within a budget; `trawl read --changes` says whether a page changed since the
//! stored copy, with a diff, and keeps the older copy for `trawl open --version`.

use std::path::Path;

use trawl_testkit::{Reply, TestServer};

use crate::util::{Run, run, temp_dir, trawl};

/// A manual of many sections about the coast; only `answer_in` holds `answer`.
fn manual(title: &str, answer_in: &str, answer: &str) -> String {
    let mut body =
        format!("<html><head><title>{title}</title></head><body><article><h1>{title}</h1>");
    for (i, topic) in [
        "Harbours",
        "Dunes",
        "Cliffs",
        "Tides",
        "Estuaries",
        "Reefs",
        "Storms",
        "Lighthouses",
    ]
    .iter()
    .enumerate()
    {
        body.push_str(&format!("<h2>{topic}</h2>"));
        for j in 0..14 {
            body.push_str(&format!(
                "<p>Paragraph {j} of section {i} is about {} in ordinary words on sand, water, \
                 wind and the people who live along the shore of the northern sea.</p>",
                topic.to_lowercase()
            ));
        }
        if *topic == answer_in {
            body.push_str(&format!("<p>{answer}</p>"));
        }
    }
    body.push_str("</article></body></html>");
    body
}

const TIDES: &str = "Amphidromic points are places where the tidal range is nearly zero, and the tide wave \
     turns around them.";
const LIGHTS: &str =
    "The Eddystone lighthouse flashes twice every ten seconds and is seen from 22 nautical miles.";

fn read(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = trawl(dir);
    cmd.arg("read")
        .args(args)
        .args(["--allow-host", "127.0.0.1"])
        .env("TRAWL_STORE", dir.join("store.db"))
        .env("TRAWL_READERS", "none");
    run(&mut cmd)
}

fn open(dir: &Path, args: &[&str]) -> Run {
    run(trawl(dir)
        .arg("open")
        .args(args)
        .env("TRAWL_STORE", dir.join("store.db")))
}

#[test]
fn a_query_read_gives_the_answering_section_within_its_budget_and_says_what_was_left_out() {
    let server = TestServer::start();
    server.route(
        "/manual",
        Reply::html(manual("Coastal manual", "Tides", TIDES)),
    );
    let dir = temp_dir();
    let url = server.url("/manual");
    let r = read(
        &dir,
        &[
            &url,
            "--query",
            "amphidromic points tidal range",
            "--max-tokens",
            "400",
            "--json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d = &r.json()["data"];
    let md = d["markdown"].as_str().unwrap();
    let focus = &d["focus"];
    assert!(md.contains(TIDES), "{md}");
    assert!(focus["tokens"].as_u64().unwrap() <= 400, "{focus}");
    assert_eq!(focus["max_tokens"], 400);
    assert_eq!(focus["matched"], true);
    assert!(
        !md.contains("about dunes"),
        "another section came along: {md}"
    );
    assert!(md.contains("tokens left out"), "{md}");
    let left_out = focus["left_out_tokens"].as_u64().unwrap();
    let whole = focus["document_tokens"].as_u64().unwrap();
    assert!(
        left_out > 0 && whole > 4 * focus["tokens"].as_u64().unwrap(),
        "{focus}"
    );
    for p in focus["passages"].as_array().unwrap() {
        assert!(p["heading"].as_str().unwrap().ends_with("Tides"), "{p}");
        assert!(p["page"].as_u64().unwrap() >= 1);
    }

    // The whole document is still stored, under the same handle.
    let handle = d["handle"].as_str().unwrap();
    let whole = open(&dir, &[handle, "--page-size-tokens", "0", "--json"]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let all = whole.json()["data"]["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(all.contains("about dunes") && all.contains(TIDES));

    // A person is told what was left out and how to open it.
    let human = read(
        &dir,
        &[&url, "--query", "amphidromic points", "--max-tokens", "400"],
    );
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.contains("Left out: "), "{}", human.stdout);
    assert!(
        human
            .stdout
            .contains(&format!("trawl open {handle} --page N")),
        "{}",
        human.stdout
    );
    // And without --query nothing changes: page 1 as always.
    let plain = read(&dir, &[&url, "--json"]);
    let plain = plain.json();
    assert!(plain["data"].get("focus").is_none());
    assert!(
        plain["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("about harbours")
    );
}

#[test]
fn a_batch_gives_each_document_its_own_budget() {
    let server = TestServer::start();
    server.route("/tides", Reply::html(manual("Tide tables", "Tides", TIDES)));
    server.route(
        "/lights",
        Reply::html(manual("Light list", "Lighthouses", LIGHTS)),
    );
    let dir = temp_dir();
    let r = read(
        &dir,
        &[
            &server.url("/tides"),
            &server.url("/lights"),
            "--query",
            "amphidromic eddystone",
            "--max-tokens",
            "350",
            "--json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let results = r.json()["data"]["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 2);
    for (item, answer) in results.iter().zip([TIDES, LIGHTS]) {
        let d = &item["document"];
        assert!(
            d["focus"]["tokens"].as_u64().unwrap() <= 350,
            "{}",
            d["focus"]
        );
        assert!(d["markdown"].as_str().unwrap().contains(answer), "{d}");
        assert!(d["focus"]["left_out_tokens"].as_u64().unwrap() > 0);
    }
}

fn etagged(body: &str, etag: &str) -> Reply {
    Reply::html(body.to_owned()).with_header("ETag", etag)
}

fn changes(dir: &Path, url: &str) -> serde_json::Value {
    let r = read(dir, &[url, "--changes", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.json()["data"].clone()
}

#[test]
fn changes_says_new_then_same_on_a_304_without_fetching_the_body() {
    let server = TestServer::start();
    let not_modified = Reply::Full {
        status: 304,
        headers: vec![("ETag".into(), "\"v1\"".into())],
        body: Vec::new(),
    };
    server.route(
        "/doc",
        Reply::Sequence(vec![
            etagged(&manual("Coastal manual", "Tides", TIDES), "\"v1\""),
            not_modified,
        ]),
    );
    let dir = temp_dir();
    let url = server.url("/doc");
    let first = changes(&dir, &url);
    assert_eq!(first["changes"]["change_status"], "new");
    assert_eq!(first["changes"]["version"], 1);
    assert!(
        first["markdown"]
            .as_str()
            .unwrap()
            .contains("about harbours")
    );

    let second = changes(&dir, &url);
    assert_eq!(second["changes"]["change_status"], "same", "{second}");
    assert_eq!(second["changes"]["version"], 1);
    assert!(second["changes"]["diff"].is_null());
    assert_eq!(second["attempts"][0]["outcome"], "not_modified");
    let seen = server.seen();
    assert_eq!(
        seen.len(),
        2,
        "one read, then one conditional request and nothing more"
    );
    assert_eq!(
        seen[1].headers.get("if-none-match").map(String::as_str),
        Some("\"v1\"")
    );
    // A person sees the status in the header.
    let human = read(&dir, &[&url, "--changes"]);
    assert!(
        human.stdout.contains("change_status: same"),
        "{}",
        human.stdout
    );
}

#[test]
fn changes_on_an_edited_page_diffs_exactly_the_edit_and_keeps_the_old_copy() {
    let server = TestServer::start();
    let before = manual("Coastal manual", "Tides", TIDES);
    let edited = TIDES.replace("nearly zero", "close to zero");
    let after = manual("Coastal manual", "Tides", &edited);
    server.route(
        "/doc",
        Reply::Sequence(vec![etagged(&before, "\"v1\""), etagged(&after, "\"v2\"")]),
    );
    let dir = temp_dir();
    let url = server.url("/doc");
    assert_eq!(changes(&dir, &url)["changes"]["change_status"], "new");
    let second = changes(&dir, &url);
    let c = &second["changes"];
    assert_eq!(c["change_status"], "changed", "{second}");
    assert_eq!(
        (c["version"].as_u64(), c["previous_version"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        (c["lines_added"].as_u64(), c["lines_removed"].as_u64()),
        (Some(1), Some(1))
    );
    let diff = c["diff"].as_str().unwrap();
    let edits: Vec<&str> = diff
        .lines()
        .filter(|l| !l.starts_with("+++") && !l.starts_with("---"))
        .filter(|l| l.starts_with('+') || l.starts_with('-'))
        .collect();
    assert_eq!(edits, [format!("-{TIDES}"), format!("+{edited}")], "{diff}");
    assert_eq!(second["markdown"], "", "the diff is the news, not the page");
    let seen = server.seen();
    assert_eq!(
        seen.len(),
        2,
        "the conditional request's full answer was used"
    );
    assert_eq!(
        seen[1].headers.get("if-none-match").map(String::as_str),
        Some("\"v1\"")
    );

    // The new copy is the stored one; the old one opens as version 1.
    let handle = second["handle"].as_str().unwrap();
    let now = open(&dir, &[handle, "--page-size-tokens", "0", "--json"]);
    assert!(
        now.json()["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains(&edited)
    );
    let old = open(
        &dir,
        &[
            handle,
            "--version",
            "1",
            "--page-size-tokens",
            "0",
            "--json",
        ],
    );
    assert_eq!(old.code, 0, "{}", old.stderr);
    let old = old.json();
    assert_eq!(old["data"]["version"], 1);
    assert!(old["data"]["markdown"].as_str().unwrap().contains(TIDES));
    let latest = open(
        &dir,
        &[
            handle,
            "--version",
            "2",
            "--page-size-tokens",
            "0",
            "--json",
        ],
    );
    assert!(
        latest.json()["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains(&edited)
    );
    let missing = open(&dir, &[handle, "--version", "7", "--json"]);
    assert_eq!(missing.code, 1);
    let message = missing.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("version 1 is kept") && message.contains("version 2"),
        "{message}"
    );
}

#[test]
fn changes_on_a_page_gone_says_removed_and_keeps_the_stored_copy() {
    let server = TestServer::start();
    server.route(
        "/doc",
        Reply::Sequence(vec![
            etagged(&manual("Coastal manual", "Tides", TIDES), "\"v1\""),
            Reply::status(404, "gone"),
        ]),
    );
    let dir = temp_dir();
    let url = server.url("/doc");
    let first = changes(&dir, &url);
    let second = changes(&dir, &url);
    assert_eq!(second["changes"]["change_status"], "removed", "{second}");
    assert_eq!(second["handle"], first["handle"]);
    let kept = open(&dir, &[second["handle"].as_str().unwrap(), "--json"]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    assert!(
        kept.json()["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("about harbours")
    );
}

#[test]
fn query_and_changes_refuse_what_does_not_go_with_them() {
    let dir = temp_dir();
    let both = read(&dir, &["http://127.0.0.1:9/", "--query", "x", "--changes"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    let budget_alone = read(&dir, &["http://127.0.0.1:9/", "--max-tokens", "300"]);
    assert_eq!(budget_alone.code, 2, "{}", budget_alone.stderr);
    let tiny = read(
        &dir,
        &[
            "http://127.0.0.1:9/",
            "--query",
            "x",
            "--max-tokens",
            "3",
            "--json",
        ],
    );
    assert_eq!(tiny.code, 2, "{}", tiny.stderr);
    assert!(
        tiny.stdout.contains("max_tokens: must be 50-100000"),
        "{}",
        tiny.stdout
    );
}
