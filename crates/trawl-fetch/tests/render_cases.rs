//! Tier 2 against Debian's headless chromium, on pages served from 127.0.0.2 (the one
//! address opened with allow-host). Canaries listen where a page's scripts must not reach:
//! another port on 127.0.0.1, and 10.0.0.1 / 169.254.169.254 added to the namespace's
//! loopback device. They run only in scripts/test's loopback-only namespace; without
//! chromium they skip, except under CI where that is a failure.

use std::time::Duration;

use trawl_core::{ErrorCode, FetchedVia};
use trawl_fetch::{
    FetchConfig, FetchedPage, Fetcher, GuardPolicy, HostRule, RenderConfig, RenderMode,
};
use trawl_testkit::{Reply, TestServer};

fn fetcher(mode: RenderMode, page_timeout: Duration) -> Fetcher {
    Fetcher::new(FetchConfig {
        timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.2").unwrap()],
        },
        render: RenderConfig {
            mode,
            tabs: 2,
            page_timeout,
            ..RenderConfig::default()
        },
        ..FetchConfig::default()
    })
    .unwrap()
}

fn auto() -> Fetcher {
    fetcher(RenderMode::Auto, Duration::from_secs(20))
}

fn body(page: &FetchedPage) -> String {
    String::from_utf8_lossy(&page.body).into_owned()
}

fn outcomes(page: &FetchedPage) -> Vec<String> {
    page.attempts
        .iter()
        .map(|a| format!("{}:{}", a.reader, a.outcome))
        .collect()
}

const WORDS: &str = "The rendered paragraph carries enough words to be the page's main text. ";

#[tokio::test]
async fn content_injected_by_script_is_rendered() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    let html = format!(
        r#"<!doctype html><html><head><title>Shell</title></head><body><div id="root"></div>
        <script>document.getElementById('root').innerHTML =
          '<article><h1>Injected title</h1><p>' + {words:?}.repeat(12) + '</p></article>';</script>
        </body></html>"#,
        words = WORDS
    );
    server.route("/", Reply::html(html));
    let f = auto();
    let page = f.fetch(&server.url("/")).await.unwrap();
    f.shutdown().await;
    assert_eq!(page.via, FetchedVia::Render, "{:?}", outcomes(&page));
    assert_eq!(outcomes(&page), ["http:app_shell", "render:ok"]);
    assert!(
        page.attempts[0]
            .detail
            .as_deref()
            .unwrap()
            .contains("#root")
    );
    let html = body(&page);
    assert!(html.contains("Injected title"), "{html}");
    assert!(html.matches("rendered paragraph").count() >= 12);
    assert_eq!(page.final_url.as_str(), server.url("/"));
    assert_eq!(page.status, 200);
    // Nothing but the page's own requests was let through (the browser's background
    // traffic is refused and counted, never listed as the page's).
    let notes = page.attempts[1].detail.clone().unwrap_or_default();
    assert!(!notes.contains("refused www."), "{notes}");
}

#[tokio::test]
async fn content_loaded_by_xhr_from_the_same_origin_is_rendered() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(
            r#"<html><body><div id="app"></div><noscript>You need to enable JavaScript to run this app.</noscript>
            <script>
              var x = new XMLHttpRequest();
              x.open('GET', '/api/article');
              x.onload = function () {
                var d = JSON.parse(x.responseText);
                document.getElementById('app').innerHTML = '<h1>' + d.title + '</h1><p>' + d.text + '</p>';
              };
              x.send();
            </script></body></html>"#,
        ),
    );
    let json = format!(
        r#"{{"title":"Loaded by XHR","text":"{}"}}"#,
        WORDS.repeat(10).trim()
    );
    server.route("/api/article", Reply::ok("application/json", json));
    let f = auto();
    let page = f.fetch(&server.url("/")).await.unwrap();
    f.shutdown().await;
    assert_eq!(page.via, FetchedVia::Render, "{:?}", outcomes(&page));
    assert!(
        body(&page).contains("Loaded by XHR"),
        "{}\nseen: {:?}\nattempts: {:?}",
        body(&page),
        server
            .seen()
            .iter()
            .map(|s| s.path.clone())
            .collect::<Vec<_>>(),
        page.attempts
    );
    assert_eq!(server.hits("/api/article"), 1);
}

#[tokio::test]
async fn next_style_hydration_data_is_rendered() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    let data = format!(
        r#"{{"props":{{"pageProps":{{"title":"Hydrated headline","paragraphs":["{w}","{w}","{w}"]}}}},"page":"/","buildId":"b1"}}"#,
        w = WORDS.repeat(3).trim()
    );
    let html = format!(
        r#"<html><head><title>Next page</title></head><body><div id="__next"></div>
        <script id="__NEXT_DATA__" type="application/json">{data}</script>
        <script>
          var d = JSON.parse(document.getElementById('__NEXT_DATA__').textContent).props.pageProps;
          var root = document.getElementById('__next');
          var h = document.createElement('h1'); h.textContent = d.title; root.appendChild(h);
          d.paragraphs.forEach(function (t) {{ var p = document.createElement('p'); p.textContent = t; root.appendChild(p); }});
        </script></body></html>"#
    );
    server.route("/", Reply::html(html));
    let f = auto();
    let page = f.fetch(&server.url("/")).await.unwrap();
    f.shutdown().await;
    assert_eq!(page.via, FetchedVia::Render, "{:?}", outcomes(&page));
    let detail = page.attempts[0].detail.clone().unwrap_or_default();
    assert!(
        detail.contains("#__next") || detail.contains("__NEXT_DATA__"),
        "{detail}"
    );
    assert!(
        body(&page).contains("<h1>Hydrated headline</h1>"),
        "{}",
        body(&page)
    );
}

/// Adds `ip` to the namespace's loopback device so a canary can listen there.
fn add_loopback_address(ip: &str) -> bool {
    let ok = std::process::Command::new("ip")
        .args(["addr", "add", &format!("{ip}/32"), "dev", "lo"])
        .status()
        .is_ok_and(|s| s.success());
    // Already there from an earlier test of this process also counts.
    ok || std::process::Command::new("ip")
        .args(["addr", "show", "dev", "lo"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(&format!("{ip}/32")))
}

#[tokio::test]
async fn a_page_cannot_reach_private_or_metadata_addresses() {
    require_browser!();
    let mut canaries = vec![TestServer::start_on("127.0.0.1")];
    for ip in ["10.0.0.1", "169.254.169.254"] {
        let bound = add_loopback_address(ip)
            .then(|| TestServer::try_start_at(format!("{ip}:80").parse().unwrap()).ok())
            .flatten();
        match bound {
            Some(server) => canaries.push(server),
            None => {
                assert!(
                    !trawl_testkit::in_ci(),
                    "CI: could not put a canary on {ip}:80 in the test namespace"
                );
                eprintln!("note: no canary on {ip} (needs root in the namespace)");
            }
        }
    }
    let local = canaries[0].addr().port();
    let server = TestServer::start_on("127.0.0.2");
    let html = format!(
        r#"<html><body><div id="root"></div><script>
        document.getElementById('root').innerHTML = '<p>' + {words:?}.repeat(10) + '</p>';
        var targets = ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/admin',
                       'http://127.0.0.1:{local}/steal', 'https://127.0.0.1:{local}/tls'];
        targets.forEach(function (u) {{ fetch(u).catch(function () {{}}); }});
        var i = new Image(); i.src = 'http://10.0.0.1/pixel.gif';
        var s = document.createElement('script'); s.src = 'http://127.0.0.1:{local}/x.js'; document.head.appendChild(s);
        try {{ new WebSocket('ws://127.0.0.1:{local}/ws'); }} catch (e) {{}}
        var f = document.createElement('iframe'); f.src = 'http://169.254.169.254/frame'; document.body.appendChild(f);
        setTimeout(function () {{ location.href = 'http://169.254.169.254/latest/meta-data/iam'; }}, 50);
        </script></body></html>"#,
        words = WORDS
    );
    server.route("/", Reply::html(html));
    let f = auto();
    let page = f.fetch(&server.url("/")).await.unwrap();
    // Give stray requests time to arrive before counting.
    tokio::time::sleep(Duration::from_millis(300)).await;
    f.shutdown().await;
    for canary in &canaries {
        assert!(
            canary.seen().is_empty(),
            "{} was reached: {:?}",
            canary.addr(),
            canary
                .seen()
                .iter()
                .map(|s| s.path.clone())
                .collect::<Vec<_>>()
        );
    }
    assert_eq!(page.via, FetchedVia::Render, "{:?}", outcomes(&page));
    assert_eq!(
        page.final_url.as_str(),
        server.url("/"),
        "the JS redirect went through"
    );
    assert!(body(&page).contains("rendered paragraph"));
    let notes = page
        .attempts
        .last()
        .unwrap()
        .detail
        .clone()
        .unwrap_or_default();
    for refused in ["169.254.169.254", "10.0.0.1", &format!("127.0.0.1:{local}")] {
        assert!(
            notes.contains(refused),
            "{refused} not in the notes: {notes}"
        );
    }
    assert!(
        notes.contains("refused navigation to http://169.254.169.254"),
        "{notes}"
    );
}

#[tokio::test]
async fn an_endless_script_hits_the_deadline_and_the_browser_recovers() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/spin",
        Reply::html(
            r#"<html><body><div id="root"></div><script>while (true) {}</script></body></html>"#,
        ),
    );
    server.route(
        "/fine",
        Reply::html(format!(
            r#"<html><body><div id="root"></div><script>document.getElementById('root').textContent = {:?};</script></body></html>"#,
            WORDS
        )),
    );
    let f = fetcher(RenderMode::Always, Duration::from_secs(3));
    let started = std::time::Instant::now();
    let err = f.fetch(&server.url("/spin")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout, "{}", err.message);
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
    // The same browser serves the next page.
    let page = f.fetch(&server.url("/fine")).await.unwrap();
    assert!(body(&page).contains("rendered paragraph"));
    // In auto, the thin page is kept and the attempt says what happened.
    let f2 = fetcher(RenderMode::Auto, Duration::from_secs(3));
    let page = f2.fetch(&server.url("/spin")).await.unwrap();
    assert_eq!(page.via, FetchedVia::Http);
    assert_eq!(outcomes(&page), ["http:app_shell", "render:timeout"]);
    f.shutdown().await;
    f2.shutdown().await;
}

#[tokio::test]
async fn popups_and_downloads_do_not_happen() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(format!(
            r#"<html><body><div id="root"></div><script>
            document.getElementById('root').innerHTML = '<p>' + {words:?}.repeat(8) + '</p>';
            window.open('/popup');
            var a = document.createElement('a'); a.href = '/file.bin'; a.download = 'file.bin';
            document.body.appendChild(a); a.click();
            setTimeout(function () {{ location.href = '/attachment'; }}, 30);
            </script></body></html>"#,
            words = WORDS
        )),
    );
    server.route("/popup", Reply::html("<p>popup</p>"));
    server.route(
        "/file.bin",
        Reply::ok("application/octet-stream", vec![7u8; 4096]),
    );
    server.route(
        "/attachment",
        Reply::ok("application/octet-stream", vec![7u8; 4096]).with_header(
            "Content-Disposition",
            "attachment; filename=\"attachment.bin\"",
        ),
    );
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let f = auto();
    let page = f.fetch(&server.url("/")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    f.shutdown().await;
    assert_eq!(page.via, FetchedVia::Render);
    assert!(body(&page).contains("rendered paragraph"));
    assert_eq!(server.hits("/popup"), 0, "a popup was opened");
    for dir in [
        home.map(|h| h.join("Downloads")),
        std::env::current_dir().ok(),
    ]
    .into_iter()
    .flatten()
    {
        for name in ["file.bin", "attachment.bin"] {
            assert!(
                !dir.join(name).exists(),
                "{name} was downloaded into {}",
                dir.display()
            );
        }
    }
}

#[tokio::test]
async fn a_plain_article_is_never_rendered_in_auto() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(format!(
            r#"<html><body><div id="root"><article><h1>Plain</h1><p>{}</p></article></div>
            <script src="/analytics.js"></script><noscript>Enable JavaScript for comments.</noscript></body></html>"#,
            WORDS.repeat(30)
        )),
    );
    let f = auto();
    let page = f.fetch(&server.url("/")).await.unwrap();
    assert_eq!(page.via, FetchedVia::Http);
    assert_eq!(outcomes(&page), ["http:ok"]);
    assert_eq!(
        f.renderer().unwrap().launches().await,
        0,
        "a browser was started"
    );
}

#[tokio::test]
async fn render_never_starts_no_browser() {
    trawl_testkit::require_isolation!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(r#"<div id="root"></div><script src="/app.js"></script>"#),
    );
    let f = fetcher(RenderMode::Never, Duration::from_secs(5));
    assert!(f.renderer().is_none());
    let page = f.fetch(&server.url("/")).await.unwrap();
    assert_eq!(page.via, FetchedVia::Http);
    assert_eq!(outcomes(&page), ["http:ok"]);
}

#[tokio::test]
async fn a_missing_browser_is_a_hint_not_a_failure() {
    trawl_testkit::require_isolation!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(r#"<div id="root"></div><script src="/app.js"></script>"#),
    );
    let f = Fetcher::new(FetchConfig {
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.2").unwrap()],
        },
        render: RenderConfig {
            mode: RenderMode::Auto,
            browser: Some("/nonexistent/chromium".into()),
            ..RenderConfig::default()
        },
        ..FetchConfig::default()
    })
    .unwrap();
    for _ in 0..2 {
        let page = f.fetch(&server.url("/")).await.unwrap();
        assert_eq!(page.via, FetchedVia::Http);
        assert_eq!(outcomes(&page), ["http:app_shell", "render:unavailable"]);
        let hint = page.attempts[1].detail.clone().unwrap();
        assert!(hint.contains("TRAWL_BROWSER"), "{hint}");
    }
    assert_eq!(f.renderer().unwrap().launches().await, 0);
}

#[tokio::test]
async fn concurrent_pages_share_one_browser_and_leave_nothing_behind() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(format!(
            r#"<html><body><div id="root"></div><script>setTimeout(function () {{
            document.getElementById('root').textContent = {:?}; }}, 100);</script></body></html>"#,
            WORDS.repeat(4)
        )),
    );
    let f = auto();
    let url = server.url("/");
    let pages = futures_util::future::join_all((0..6).map(|_| f.fetch(&url))).await;
    for page in pages {
        assert_eq!(page.unwrap().via, FetchedVia::Render);
    }
    let renderer = f.renderer().unwrap();
    assert_eq!(renderer.launches().await, 1);
    let pid = renderer.browser_pid().await.unwrap();
    let tree = trawl_fetch::render::process_tree(pid);
    assert!(tree.len() > 1, "{tree:?}");
    f.shutdown().await;
    let left = still_alive_after(&tree, Duration::from_secs(5)).await;
    assert!(left.is_empty(), "browser processes left: {left:?}");
}

#[tokio::test]
async fn a_browser_past_its_memory_cap_is_replaced() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(format!(
            r#"<html><body><div id="root"></div><script>document.getElementById('root').textContent = {WORDS:?};</script></body></html>"#
        )),
    );
    let f = Fetcher::new(FetchConfig {
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.2").unwrap()],
        },
        render: RenderConfig {
            mode: RenderMode::Auto,
            // Any browser is over one byte: each page finds the last one over the cap.
            memory_cap: 1,
            ..RenderConfig::default()
        },
        ..FetchConfig::default()
    })
    .unwrap();
    let renderer = f.renderer().unwrap();
    assert_eq!(
        f.fetch(&server.url("/")).await.unwrap().via,
        FetchedVia::Render
    );
    let first = renderer.browser_pid().await.unwrap();
    assert_eq!(
        f.fetch(&server.url("/")).await.unwrap().via,
        FetchedVia::Render
    );
    let second = renderer.browser_pid().await.unwrap();
    assert_ne!(first, second);
    assert_eq!(renderer.launches().await, 2);
    assert!(
        still_alive_after(&[first], Duration::from_secs(5))
            .await
            .is_empty(),
        "the old browser still runs"
    );
    f.shutdown().await;
}

/// The processes of `pids` still alive once they all ended or `deadline` passed, polled
/// every 20 ms: a loaded machine gets time, and a leak still fails.
async fn still_alive_after(pids: &[u32], deadline: Duration) -> Vec<u32> {
    let until = std::time::Instant::now() + deadline;
    loop {
        let alive: Vec<u32> = pids
            .iter()
            .copied()
            .filter(|p| trawl_fetch::render::process_alive(*p))
            .collect();
        if alive.is_empty() || std::time::Instant::now() >= until {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
