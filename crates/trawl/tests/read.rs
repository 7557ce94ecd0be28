use trawl_testkit::{Reply, TestServer, minimal_pdf};

use crate::util::{run, run_with_stdin, temp_dir, trawl};

pub const ARTICLE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Tidal Patterns of the North Sea | Coastal Journal</title>
  <meta name="author" content="Maren Holt">
  <meta name="description" content="How the North Sea's tides are shaped by its basin.">
  <meta property="og:site_name" content="Coastal Journal">
  <meta property="og:type" content="article">
  <meta property="article:published_time" content="2026-03-14T09:00:00Z">
  <link rel="canonical" href="https://coastal.example/tides">
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Tidal Patterns of the North Sea","author":{"@type":"Person","name":"Maren Holt"},"datePublished":"2026-03-14T09:00:00Z"}</script>
</head>
<body>
  <nav><a href="/">Home</a> <a href="/science">Science</a> <a href="/about">About us</a></nav>
  <div class="cookie-banner">We use cookies to improve your experience. Accept all cookies?</div>
  <article>
    <h1>Tidal Patterns of the North Sea</h1>
    <p>The North Sea is a shallow shelf sea whose tides are driven by the Atlantic. Its amphidromic
    points, where the tidal range is nearly zero, organise the rotation of the tidal wave around the basin.</p>
    <h2>Amphidromic systems</h2>
    <p>Three amphidromic systems turn anticlockwise in the North Sea. Along the English coast the tidal
    range grows to several metres, while near the points themselves it almost vanishes.</p>
    <p>Measurements from tide gauges are published by the <a href="/data/gauges">national gauge network</a>
    and can be compared with model runs such as the one below.</p>
    <pre><code class="language-python">def tidal_range(high, low):
    return high - low
</code></pre>
    <table>
      <tr><th>Station</th><th>Range (m)</th></tr>
      <tr><td>Dover</td><td>5.9</td></tr>
      <tr><td>Esbjerg</td><td>1.5</td></tr>
    </table>
    <p>Storm surges add to these ranges and are the main flood risk for the low-lying coasts of the
    Netherlands, Germany and Denmark, which is why forecasting them well matters so much.</p>
  </article>
  <aside class="related"><h3>Related</h3><ul><li><a href="/a">Ten beaches to visit</a></li><li><a href="/b">Quiz: which fish are you?</a></li></ul></aside>
  <footer>Copyright 2026 Coastal Journal. All rights reserved. <a href="/privacy">Privacy</a></footer>
</body>
</html>"#;

fn page_server() -> TestServer {
    let server = TestServer::start();
    server.route("/article.html", Reply::html(ARTICLE));
    server
}

#[test]
fn reads_an_article_as_json() {
    let server = page_server();
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/article.html"),
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let v = r.json();
    assert_eq!(v["ok"], true);
    assert_eq!(v["contract_version"], "1.0");
    let d = &v["data"];
    assert_eq!(d["url"], server.url("/article.html"));
    assert_eq!(d["status"], 200);
    assert_eq!(d["fetched_via"], "http");
    assert!(
        d["handle"].as_str().unwrap().starts_with("127.0.0.1~"),
        "{}",
        d["handle"]
    );
    assert_eq!(d["page"], 1);
    assert_eq!(d["pages"], 1);
    let title = d["title"].as_str().unwrap_or("");
    assert!(
        title.contains("Tidal Patterns of the North Sea"),
        "title: {title}"
    );
    assert_eq!(d["byline"], "Maren Holt");
    assert!(
        d["published"]
            .as_str()
            .unwrap_or("")
            .starts_with("2026-03-14"),
        "{}",
        d["published"]
    );
    assert_eq!(d["language"], "en");
    assert_eq!(d["site_name"], "Coastal Journal");
    assert_eq!(d["page_type"], "article");
    assert!(d["json_ld"].as_array().is_some_and(|a| !a.is_empty()));
    let md = d["markdown"].as_str().unwrap();
    assert!(md.contains("## Amphidromic systems"), "{md}");
    assert!(md.contains("```python"), "{md}");
    assert!(
        md.contains("| Dover | 5.9 |") || md.contains("| Dover |"),
        "{md}"
    );
    assert!(
        md.contains(&server.url("/data/gauges")),
        "links must be absolute: {md}"
    );
    assert!(
        !md.contains("Accept all cookies"),
        "cookie banner kept: {md}"
    );
    assert!(
        !md.contains("which fish are you"),
        "related rail kept: {md}"
    );
    assert!(!md.contains("All rights reserved"), "footer kept: {md}");
    assert!(d["quality_score"].as_f64().unwrap() >= 0.5);
}

#[test]
fn refuses_loopback_without_the_flag() {
    let server = page_server();
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["read", &server.url("/article.html"), "--json"]));
    assert_eq!(r.code, 1);
    assert_eq!(r.json()["error"]["code"], "blocked_by_policy");
    assert!(r.stderr.contains("blocked_by_policy"), "{}", r.stderr);
    assert!(server.seen().is_empty());
}

#[test]
fn refuses_redirects_into_metadata_and_private_ranges_even_with_the_flag() {
    trawl_testkit::require_isolation!();
    let server = page_server();
    server.route(
        "/to-metadata",
        Reply::redirect(302, "http://169.254.169.254/latest/meta-data/"),
    );
    server.route("/to-private", Reply::redirect(301, "http://10.0.0.1/"));
    server.route(
        "/to-loopback-name",
        Reply::redirect(302, "http://localhost/"),
    );
    let dir = temp_dir();
    for path in ["/to-metadata", "/to-private", "/to-loopback-name"] {
        let r = run(trawl(&dir).args([
            "read",
            &server.url(path),
            "--allow-host",
            "127.0.0.1",
            "--json",
        ]));
        assert_eq!(r.code, 1, "{path}: {}", r.stderr);
        assert_eq!(r.json()["error"]["code"], "blocked_by_policy", "{path}");
    }
}

#[test]
fn refuses_a_redirect_into_127_0_0_1_from_another_loopback_host() {
    let server = TestServer::start_on("127.0.0.2");
    let target = page_server();
    server.route("/hop", Reply::redirect(302, &target.url("/article.html")));
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["read", &server.url("/hop"), "--allow-host", "127.0.0.2"]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("blocked_by_policy"), "{}", r.stderr);
    assert!(target.seen().is_empty());
}

#[test]
fn allow_private_hosts_opens_everything_deliberately() {
    // Opening every address is only safe to exercise where nothing but loopback exists.
    trawl_testkit::require_isolation!();
    let server = page_server();
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/article.html"),
        "--allow-private-hosts",
        "-q",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Amphidromic"));
}

#[test]
fn decodes_windows_1251_declared_only_in_meta() {
    let server = TestServer::start();
    let (body, _, _) = encoding_rs::WINDOWS_1251.encode(
        "<html><head><meta charset=\"windows-1251\"><title>Привет</title></head><body><article><p>Съешь же ещё этих мягких французских булок, да выпей чаю. Это проверочный текст для кодировки windows-1251, достаточно длинный для статьи.</p></article></body></html>",
    );
    server.route(
        "/ru.html",
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: body.into_owned(),
        },
    );
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/ru.html"),
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert!(
        v["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("французских булок"),
        "{}",
        v["data"]["markdown"]
    );
    assert_eq!(v["data"]["title"], "Привет");
}

#[test]
fn reads_a_pdf() {
    let server = TestServer::start();
    server.route(
        "/paper.pdf",
        Reply::ok("application/pdf", minimal_pdf("Hello PDF world")),
    );
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/paper.pdf"),
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert!(
        v["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Hello PDF world"),
        "{}",
        v["data"]
    );
    assert_eq!(v["data"]["page_type"], "pdf");
}

#[test]
fn request_errors_exit_1_with_their_code() {
    let server = TestServer::start();
    server.route(
        "/429",
        Reply::status(429, "slow").with_header("Retry-After", "30"),
    );
    server.route(
        "/cf",
        Reply::status(
            403,
            "<title>Just a moment...</title><script src=/cdn-cgi/challenge-platform/x></script>",
        )
        .with_header("Server", "cloudflare"),
    );
    server.route(
        "/binary",
        Reply::ok("application/octet-stream", vec![0u8, 1, 2, 3]),
    );
    let dir = temp_dir();
    // The 429 comes last: its Retry-After puts 127.0.0.1 on back-off in the store these
    // reads share, so a read after it would be refused `rate_limited` instead of meeting
    // its own error.
    for (path, code) in [
        ("/missing", "not_found"),
        ("/cf", "blocked"),
        ("/binary", "unsupported_content"),
        ("/429", "rate_limited"),
    ] {
        let r = run(trawl(&dir).args([
            "read",
            &server.url(path),
            "--allow-host",
            "127.0.0.1",
            "--json",
        ]));
        assert_eq!(r.code, 1, "{path}");
        assert_eq!(r.json()["error"]["code"], code, "{path}");
        assert!(r.stderr.contains(code), "{path}: {}", r.stderr);
    }
}

#[test]
fn too_large_and_timeout_from_flags() {
    let server = TestServer::start();
    server.route("/big", Reply::html(vec![b'a'; 50_000]));
    server.route("/hang", Reply::Hang);
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/big"),
        "--allow-host",
        "127.0.0.1",
        "--max-bytes",
        "1000",
        "--json",
    ]));
    assert_eq!(r.json()["error"]["code"], "too_large");
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/hang"),
        "--allow-host",
        "127.0.0.1",
        "--timeout",
        "0.5",
        "--json",
    ]));
    assert_eq!(r.code, 1);
    assert_eq!(r.json()["error"]["code"], "timeout");
    assert_eq!(r.json()["error"]["retryable"], true);
}

#[test]
fn bad_usage_exits_2() {
    let dir = temp_dir();
    for args in [
        vec!["read"],
        vec!["read", "no such file or url"],
        vec!["read", "http://[::1"],
        vec!["read", "x.html", "--format", "yaml"],
        vec!["read", "http://example.com", "--timeout", "-1"],
        vec!["read", "http://example.com", "--proxy", "ftp://p"],
        vec!["read", "http://example.com", "--allow-host", "bad host!"],
        vec!["frobnicate"],
    ] {
        let r = run(trawl(&dir).args(&args));
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.is_empty());
    }
}

#[test]
fn reads_files_and_stdin_with_a_base_url() {
    let dir = temp_dir();
    std::fs::write(dir.join("page.html"), ARTICLE).unwrap();
    let r = run(trawl(&dir).args([
        "read",
        "page.html",
        "--url",
        "https://coastal.example/tides",
        "--json",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["data"]["fetched_via"], "file");
    assert!(
        v["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("https://coastal.example/data/gauges")
    );
    assert!(
        v["data"]["handle"]
            .as_str()
            .unwrap()
            .starts_with("coastal.example~")
    );

    let r = run_with_stdin(
        trawl(&dir).args(["read", "-", "--quiet", "--url", "https://coastal.example/x"]),
        Some(ARTICLE.as_bytes()),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Amphidromic systems"));
    assert!(
        !r.stdout.starts_with("# Tidal") || r.stdout.contains("Tidal"),
        "quiet prints the body"
    );
    assert!(!r.stdout.contains("handle:"), "--quiet has no header");

    std::fs::write(dir.join("notes.txt"), "plain notes, kept as they are\n").unwrap();
    let r = run(trawl(&dir).args(["read", "notes.txt", "-q", "--format", "text"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("plain notes, kept as they are"));
}

#[test]
fn human_output_has_a_header() {
    let server = page_server();
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/article.html"),
        "--allow-host",
        "127.0.0.1",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The header is trawl's (the handle); the page's title opens the fenced text.
    let first = r.stdout.lines().next().unwrap_or("");
    assert!(first.starts_with("# 127.0.0.1~"), "{first}");
    let fenced = r.stdout.split("TRAWL_UNTRUSTED_BEGIN").nth(1).unwrap_or("");
    let title = fenced.lines().nth(1).unwrap_or("");
    assert!(
        title.starts_with("title: ") && title.contains("Tidal"),
        "{title}"
    );
    assert!(
        r.stdout
            .contains(&format!("url: {}", server.url("/article.html")))
    );
    assert!(r.stdout.contains("words"));
}

/// `trawl sites` without a read: pin, list (JSON and text), a bad tier, reset all.
#[test]
fn sites_pin_list_and_reset() {
    let dir = temp_dir();
    let sites = |args: &[&str]| run(trawl(&dir).arg("sites").args(args));
    let r = sites(&["pin", "https://Docs.RS/serde", "jina", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["data"]["sites"][0]["site"], "docs.rs");
    assert_eq!(sites(&["pin", "example.org", "impersonate"]).code, 0);
    let r = sites(&["--json"]);
    let listed = &r.json()["data"]["sites"];
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(listed[0]["reader"], "jina");
    assert_eq!(listed[0]["pinned"], true);
    let r = sites(&["example.org"]);
    assert_eq!(r.stdout.trim(), "- example.org: impersonate (pinned)");
    let r = sites(&["pin", "example.org", "telnet", "--json"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(r.json()["error"]["code"], "invalid_input");
    let r = sites(&["reset", "--json"]);
    assert_eq!(r.json()["data"]["forgotten"], 2);
    assert_eq!(r.json()["data"]["sites"], serde_json::json!([]));
}

/// Site memory end to end: a read is remembered at the tier that worked; a site pinned to
/// the browser tier goes straight to it (no plain fetch first) and keeps its pin; reset
/// forgets it and reads start at the plain tier again.
#[test]
fn a_pinned_site_goes_straight_to_its_tier() {
    trawl_testkit::require_isolation!();
    trawl_testkit::require_chromium!();
    let server = TestServer::start();
    for path in ["/one.html", "/two.html", "/three.html"] {
        server.route(path, Reply::html(ARTICLE));
    }
    let dir = temp_dir();
    let sites = |args: &[&str]| {
        let r = run(trawl(&dir).arg("sites").args(args).arg("--json"));
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.json()["data"].clone()
    };
    let read = |path: &str| {
        let r = run(trawl(&dir).args([
            "read",
            &server.url(path),
            "--allow-host",
            "127.0.0.1",
            "--json",
        ]));
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.json()["data"].clone()
    };
    let first = read("/one.html");
    assert_eq!(
        first["attempts"][0]["reader"], "http",
        "{}",
        first["attempts"]
    );
    let learned = sites(&[]);
    assert_eq!(learned["sites"][0]["site"], "127.0.0.1", "{learned}");
    assert_eq!(learned["sites"][0]["reader"], "http");
    assert_eq!(learned["sites"][0]["pinned"], false);
    assert_eq!(
        learned["sites"][0]["tiers"],
        serde_json::json!([{"reader": "http", "ok": 1, "failed": 0}])
    );

    sites(&["pin", "127.0.0.1", "render"]);
    let pinned = read("/two.html");
    assert_eq!(pinned["fetched_via"], "render", "{}", pinned["attempts"]);
    assert_eq!(
        pinned["attempts"][0]["reader"], "render",
        "{}",
        pinned["attempts"]
    );
    assert_eq!(
        server.hits("/two.html"),
        1,
        "one request: the browser's, no plain fetch first"
    );
    assert!(pinned["markdown"].as_str().unwrap().contains("amphidromic"));
    let kept = sites(&["127.0.0.1"]);
    assert_eq!(kept["sites"][0]["reader"], "render");
    assert_eq!(kept["sites"][0]["pinned"], true);
    let render = kept["sites"][0]["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["reader"] == "render")
        .cloned();
    assert_eq!(
        render,
        Some(serde_json::json!({"reader": "render", "ok": 1, "failed": 0}))
    );

    assert_eq!(sites(&["reset", "127.0.0.1"])["forgotten"], 1);
    let again = read("/three.html");
    assert_eq!(
        again["attempts"][0]["reader"], "http",
        "{}",
        again["attempts"]
    );
}
