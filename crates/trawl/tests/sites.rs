//! Site readers through the binary: `trawl read` of a URL a reader knows goes to the
//! site's API (moved to loopback with `TRAWL_SITE_<NAME>_URL`), `trawl sites` lists the
//! readers, and a `.env` cannot move a reader's API (nor send GitHub's token elsewhere).

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../trawl-sites/fixtures/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn a_hacker_news_item_is_read_through_its_api() {
    let api = TestServer::start();
    api.route(
        "/api/v1/items/17",
        Reply::ok("application/json", fixture("hackernews/item-17-2014.json")),
    );
    let dir = temp_dir();
    let out = run(trawl(&dir)
        .env("TRAWL_SITE_HACKERNEWS_URL", api.base())
        .args(["read", "https://news.ycombinator.com/item?id=17", "--json"])
        .args(["--allow-host", "127.0.0.1", "--store", ":memory:"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = &out.json()["data"];
    assert_eq!(doc["fetched_via"], "site", "{doc}");
    assert_eq!(doc["attempts"][0]["reader"], "hackernews");
    assert!(doc["markdown"].as_str().unwrap().contains("**dmon**"));
    assert_eq!(api.hits("/api/v1/items/17"), 1);
}

#[test]
fn trawl_sites_lists_the_site_readers() {
    let dir = temp_dir();
    let out = run(trawl(&dir).args(["sites", "--json", "--store", ":memory:"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let readers: Vec<String> = out.json()["data"]["readers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        readers,
        [
            "github",
            "hackernews",
            "stackexchange",
            "wikipedia",
            "reddit",
            "youtube",
            "x"
        ]
    );
    // Without TRAWL_X_COOKIES_FILE the X reader is listed as skipped.
    let x = &out.json()["data"]["readers"][6];
    assert!(
        x["needs"].as_str().unwrap().contains("not set: skipped"),
        "{x}"
    );
    let human = run(trawl(&dir).args(["sites", "--store", ":memory:"]));
    assert!(
        human.stdout.contains("- github: github.com/OWNER/REPO"),
        "{}",
        human.stdout
    );
}

#[test]
fn a_dotenv_cannot_move_a_site_reader_or_its_token() {
    // The real environment points GitHub's reader at `api`; a cloned repository's `.env`
    // tries to point it at `canary` (and plants a token). The canary sees nothing; the
    // token a `.env` may give (an API key) goes to GitHub's reader at the trusted base.
    let api = TestServer::start();
    let canary = TestServer::start_on("127.0.0.2");
    for server in [&api, &canary] {
        server.route(
            "/repos/PyGithub/PyGithub/issues/28",
            Reply::ok(
                "application/json",
                fixture("github/issue-28-pygithub-2025.json"),
            ),
        );
        server.route(
            "/repos/PyGithub/PyGithub/issues/28/comments",
            Reply::ok(
                "application/json",
                fixture("github/issue-28-comments-pygithub-2012.json"),
            ),
        );
    }
    let dir = temp_dir();
    std::fs::write(
        dir.join(".env"),
        format!(
            "TRAWL_SITE_GITHUB_URL={}\nGITHUB_TOKEN=ghp_FROM_DOTENV\n",
            canary.base()
        ),
    )
    .unwrap();
    let out = run(trawl(&dir)
        .env("TRAWL_SITE_GITHUB_URL", api.base())
        .args([
            "read",
            "https://github.com/PyGithub/PyGithub/issues/28",
            "-q",
        ])
        .args(["--allow-host", "127.0.0.0/8", "--store", ":memory:"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("roskakori"));
    assert!(
        canary.seen().is_empty(),
        "the .env moved the reader: {:?}",
        canary.seen()
    );
    assert!(!out.stdout.contains("ghp_FROM_DOTENV") && !out.stderr.contains("ghp_FROM_DOTENV"));
}

#[test]
fn read_cookies_go_to_their_host_only_never_after_a_redirect_elsewhere() {
    // Two host names for loopback: the cookie is for 127.0.0.1, the redirect goes to
    // `localhost`, the canary standing for another host.
    let canary = TestServer::start();
    canary.route(
        "/landed",
        Reply::html(format!(
            "<html><body><article><p>{}</p></article></body></html>",
            "The other host's page. ".repeat(30)
        )),
    );
    let site = TestServer::start();
    let elsewhere = format!("http://localhost:{}/landed", canary.addr().port());
    site.route("/away", Reply::redirect(302, &elsewhere));
    let dir = temp_dir();
    let file = dir.join("cookies.txt");
    std::fs::write(
        &file,
        "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tS3CRET-SID\n",
    )
    .unwrap();
    let out = run(trawl(&dir)
        .args(["read", &site.url("/away"), "--json", "--store", ":memory:"])
        .args(["--allow-host", "127.0.0.1", "--allow-host", "localhost"])
        .arg("--cookies")
        .arg(&file));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("The other host"), "{}", out.stdout);
    let sent = |server: &TestServer, path: &str| {
        server
            .seen()
            .into_iter()
            .find(|s| s.path == path)
            .map(|s| s.headers.get("cookie").cloned())
    };
    assert_eq!(
        sent(&site, "/away"),
        Some(Some("sid=S3CRET-SID".to_owned()))
    );
    assert_eq!(
        sent(&canary, "/landed"),
        Some(None),
        "the canary got a cookie"
    );
    assert!(!out.stdout.contains("S3CRET") && !out.stderr.contains("S3CRET"));
    // A file that is not cookies fails the command, naming the line, not the content.
    std::fs::write(&file, "not\ta cookie S3CRET\n").unwrap();
    let bad = run(trawl(&dir)
        .args(["read", &site.url("/away"), "--store", ":memory:"])
        .arg("--cookies")
        .arg(&file));
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.contains("line 1"), "{}", bad.stderr);
    assert!(!bad.stderr.contains("S3CRET"), "{}", bad.stderr);
}

#[test]
fn a_failed_site_reader_stays_a_cause_when_the_page_fetch_fails_too() {
    // GitHub's reader (its base moved behind a loopback proxy) is sent on to a signed URL
    // that rate-limits it, then the page itself answers 503: the error is the page fetch's,
    // and the reader's failure is kept as its cause, the signature's token masked.
    let web = TestServer::start();
    let page = "http://github.com/PyGithub/PyGithub/issues/28";
    web.route(page, Reply::status(503, "page trouble"));
    let limited = "http://api.trawl-fixture.net/limited?access_token=S3CRET-T0KEN-77";
    web.route(
        "http://api.trawl-fixture.net/api/repos/PyGithub/PyGithub/issues/28",
        Reply::redirect(302, limited),
    );
    web.route(limited, Reply::status(429, "slow down"));
    let dir = temp_dir();
    let read = |json: bool| {
        let mut cmd = trawl(&dir);
        cmd.env("TRAWL_SITE_GITHUB_URL", "http://api.trawl-fixture.net/api/")
            .env("TRAWL_READERS", "none")
            .args(["read", page, "--proxy", &web.base(), "--store", ":memory:"]);
        if json {
            cmd.arg("--json");
        }
        run(&mut cmd)
    };
    let reader_failed = "site reader `github` failed: rate_limited: HTTP 429";
    let human = read(false);
    assert_eq!(human.code, 1, "{}", human.stderr);
    assert!(
        human
            .stderr
            .starts_with("error[http_error]: HTTP 503 from http://github.com/"),
        "{}",
        human.stderr
    );
    assert!(
        human
            .stderr
            .contains(&format!("\n  caused by: {reader_failed}")),
        "{}",
        human.stderr
    );
    let out = read(true);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let error = &out.json()["error"];
    assert_eq!(error["code"], "http_error", "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("HTTP 503"),
        "{error}"
    );
    let causes = error["causes"].as_array().expect("causes");
    assert_eq!(causes.len(), 1, "{error}");
    let cause = causes[0].as_str().unwrap();
    assert!(cause.starts_with(reader_failed), "{cause}");
    assert!(
        cause.contains("http://api.trawl-fixture.net/limited?access_token=****"),
        "{cause}"
    );
    for shown in [&human.stderr, &out.stdout, &out.stderr] {
        assert!(!shown.contains("S3CRET-T0KEN-77"), "{shown}");
    }
}

#[test]
fn a_401_or_403_sign_in_page_is_a_login_wall_and_a_plain_403_stays_an_http_error() {
    // A sign-in page sent with a refusal status: the fetch used to drop it, leaving only
    // "HTTP 401 from …". Shaped like a login page served to a signed-out client (a form
    // posting to /session with a password field, little text).
    let login = "<!DOCTYPE html><html><head><title>Sign in</title></head><body>\
        <h1>Sign in to continue</h1><form action=\"/session\" method=\"post\">\
        <input name=\"login\"><input type=\"password\" name=\"password\">\
        <button>Sign in</button></form></body></html>";
    let site = TestServer::start();
    for (path, status) in [("/members/401", 401), ("/members/403", 403)] {
        site.route(path, Reply::status(status, login));
    }
    site.route(
        "/forbidden",
        Reply::status(403, "<html><body><h1>Forbidden</h1></body></html>"),
    );
    let dir = temp_dir();
    let read = |path: &str| {
        run(trawl(&dir)
            .env("TRAWL_READERS", "none")
            .args(["read", &site.url(path), "--json", "--store", ":memory:"])
            .args(["--allow-host", "127.0.0.1"]))
    };
    for (path, status) in [("/members/401", 401), ("/members/403", 403)] {
        let out = read(path);
        assert_eq!(out.code, 1, "{}", out.stderr);
        let error = &out.json()["error"];
        assert_eq!(error["code"], "blocked", "{error}");
        assert_eq!(error["retryable"], false, "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("login wall (sign-in form)")
                && message.contains(&site.url(path))
                && message.contains(&format!("HTTP {status}")),
            "{message}"
        );
    }
    let plain = read("/forbidden");
    assert_eq!(plain.code, 1, "{}", plain.stderr);
    let error = &plain.json()["error"];
    assert_eq!(error["code"], "http_error", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("HTTP 403 from "),
        "{error}"
    );
}
