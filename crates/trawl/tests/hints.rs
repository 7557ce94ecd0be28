//! Hints that point at the cause (issue 42 item 14): `trawl engines` names what SearXNG and
//! Marginalia need; a refused proxy is named as the proxy, not the site; an address given
//! without a scheme to a plain-HTTP server says it was tried as https and what to give.

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

#[test]
fn engines_say_what_searxng_and_marginalia_need() {
    let dir = temp_dir();
    let r = run(trawl(&dir)
        .env_remove("TRAWL_SEARXNG_URL")
        .env_remove("MARGINALIA_API_KEY")
        .arg("engines"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in {}", r.stdout))
            .to_owned()
    };
    assert!(
        line("searxng").contains("needs TRAWL_SEARXNG_URL"),
        "{}",
        line("searxng")
    );
    assert!(
        line("marginalia").contains("public"),
        "{}",
        line("marginalia")
    );
}

#[test]
fn a_refused_proxy_is_named_without_its_credentials() {
    // A port nothing listens on: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = TestServer::start();
    server.route(
        "/page",
        Reply::html("<html><body><p>Hello.</p></body></html>"),
    );
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "read",
        &server.url("/page"),
        "--allow-host",
        "127.0.0.1",
        "--proxy",
        &format!("http://user:hunter2@127.0.0.1:{port}"),
    ]));
    assert_ne!(r.code, 0);
    assert!(
        r.stderr
            .contains(&format!("through the proxy http://127.0.0.1:{port}")),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("hunter2"), "{}", r.stderr);
    assert_eq!(server.hits("/page"), 0);
}

#[test]
fn a_schemeless_address_on_plain_http_says_what_to_give() {
    let server = TestServer::start();
    server.route(
        "/page",
        Reply::html("<html><body><p>Hello.</p></body></html>"),
    );
    let bare = server.url("/page").trim_start_matches("http://").to_owned();
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "--store",
        ":memory:",
        "read",
        &bare,
        "--allow-host",
        "127.0.0.1",
    ]));
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains(&format!("give http://{bare}")),
        "{}",
        r.stderr
    );
}

/// Item 20: a mistyped setting, route or engine is answered with its fix.
#[test]
fn a_typo_is_answered_with_did_you_mean() {
    let dir = temp_dir();
    std::fs::write(dir.join("c.toml"), "serxng_url = \"http://127.0.0.1:1\"\n").unwrap();
    let key = run(trawl(&dir).args(["--config", "c.toml", "config", "show"]));
    assert_eq!(key.code, 2, "{}", key.stderr);
    assert!(
        key.stderr.contains("did you mean `searxng_url`?"),
        "{}",
        key.stderr
    );
    for (flag, typo, fix) in [
        ("--route", "acadmic", "academic"),
        ("--engines", "duckduckgoo", "duckduckgo"),
    ] {
        let r = run(trawl(&dir).args(["--store", ":memory:", "search", "tides", flag, typo]));
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains(&format!("did you mean `{fix}`?")),
            "{}",
            r.stderr
        );
    }
}

/// Item 20: a port another process holds is said as such, not as bad input.
#[test]
fn a_port_in_use_is_named_with_what_to_do() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = held.local_addr().unwrap().to_string();
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["--store", ":memory:", "serve", "--listen", &addr]));
    assert_ne!(r.code, 0);
    assert_ne!(r.code, 2, "not a usage error: {}", r.stderr);
    assert!(r.stderr.contains("error[upstream]"), "{}", r.stderr);
    assert!(
        r.stderr.contains("another process listens there"),
        "{}",
        r.stderr
    );
    drop(held);
}
