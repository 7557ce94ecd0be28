//! Hosts' back-off across `trawl` processes: a host's `Retry-After` noted by one process
//! (a page read or a search engine's call) holds for the next one on the same store
//! (SQLite or Redis): it waits within its timeout or answers a retryable `rate_limited`
//! naming when, sending nothing meanwhile, and `trawl sites` lists the host.

use std::time::{Duration, Instant};

use trawl_testkit::{RedisServer, Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

fn page() -> Reply {
    Reply::html(format!(
        "<html><body><article><p>{}</p></article></body></html>",
        "A page worth reading. ".repeat(30)
    ))
}

/// Every step on the store `store` names (`--store FILE` or `--redis URL`).
fn held_across_processes(store: &[&str]) {
    let site = TestServer::start();
    site.route(
        "/limited",
        Reply::status(429, "slow down").with_header("Retry-After", "120"),
    );
    site.route("/page", page());
    site.route(
        "/api/query",
        Reply::status(429, "slow down").with_header("Retry-After", "120"),
    );
    let dir = temp_dir();
    let trawl_on = || {
        let mut cmd = trawl(&dir);
        cmd.env("TRAWL_READERS", "none")
            .env("TRAWL_ARXIV_URL", site.base())
            .env("TRAWL_ALLOW_HOSTS", "127.0.0.1")
            .args(store);
        cmd
    };
    let first = run(trawl_on().args(["read", &site.url("/limited"), "--json"]));
    assert_eq!(
        first.json()["error"]["code"],
        "rate_limited",
        "{}",
        first.stdout
    );

    // A second process: not sent (120 s is past the 30 s timeout), retryable, says when.
    let started = Instant::now();
    let second = run(trawl_on().args(["read", &site.url("/page"), "--json"]));
    assert_eq!(second.code, 1, "{}", second.stderr);
    let error = &second.json()["error"];
    assert_eq!(error["code"], "rate_limited", "{error}");
    assert_eq!(error["retryable"], true, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("127.0.0.1 asked to be left alone until") && message.contains("GMT"),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(site.hits("/page"), 0, "sent during the back-off");

    // A search engine on that host holds to it too, and is not sent either.
    let search = run(trawl_on().args(["search", "q", "--engines", "arxiv", "--json"]));
    let engine = &search.json()["meta"]["engines"][0];
    assert_eq!(engine["outcome"], "rate_limited", "{engine}");
    assert!(engine.to_string().contains("not sent"), "{engine}");
    assert_eq!(site.hits("/api/query"), 0);

    // `trawl sites`, a separate process, lists the host and when it may be asked again.
    let sites = run(trawl(&dir).args(store).args(["sites", "--json"]));
    assert_eq!(sites.code, 0, "{}", sites.stderr);
    let hosts = sites.json()["data"]["backing_off"].clone();
    let host = hosts
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == "127.0.0.1")
        .unwrap_or_else(|| panic!("{hosts}"));
    let left = host["seconds_left"].as_u64().unwrap();
    assert!((100..=120).contains(&left), "{host}");
    let until = host["until"].as_str().unwrap();
    assert!(until.ends_with(" GMT"), "{host}");
    // And as a person reads it: the host, until when, and how long from now.
    let human = run(trawl(&dir).args(store).arg("sites"));
    assert_eq!(human.code, 0, "{}", human.stderr);
    let line = human
        .stdout
        .lines()
        .find(|l| l.starts_with("- 127.0.0.1: until "))
        .unwrap_or_else(|| panic!("no back-off line in:\n{}", human.stdout));
    assert!(
        line.contains(" GMT (") && line.ends_with(" s from now)"),
        "{line}"
    );
    assert!(
        human
            .stdout
            .contains("Backing off (requests wait up to half the timeout, or are refused):"),
        "{}",
        human.stdout
    );
}

#[test]
fn a_retry_after_holds_for_the_next_process_on_sqlite() {
    let dir = temp_dir();
    let file = dir.join("store.db");
    held_across_processes(&["--store", file.to_str().unwrap()]);
}

#[test]
fn a_retry_after_holds_for_the_next_process_on_redis() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    held_across_processes(&["--redis", &redis.url()]);
}

#[test]
fn a_search_engines_retry_after_makes_the_next_process_wait_then_read() {
    // The engine's host says 2 s; a page read on the same host a moment later, in another
    // process, waits that out (within its timeout) and then reads.
    let site = TestServer::start();
    site.route(
        "/api/query",
        Reply::status(429, "slow down").with_header("Retry-After", "2"),
    );
    site.route("/page", page());
    let dir = temp_dir();
    let file = dir.join("store.db");
    let trawl_on = || {
        let mut cmd = trawl(&dir);
        cmd.env("TRAWL_READERS", "none")
            .env("TRAWL_ARXIV_URL", site.base())
            .env("TRAWL_ALLOW_HOSTS", "127.0.0.1")
            .args(["--store", file.to_str().unwrap()]);
        cmd
    };
    let search = run(trawl_on().args(["search", "q", "--engines", "arxiv", "--json"]));
    assert_eq!(
        search.json()["meta"]["engines"][0]["outcome"],
        "rate_limited"
    );
    let noted = Instant::now();
    let read = run(trawl_on().args(["read", &site.url("/page"), "--json"]));
    assert_eq!(read.code, 0, "{}", read.stderr);
    assert!(
        noted.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        noted.elapsed()
    );
    assert_eq!(site.hits("/page"), 1);
}
