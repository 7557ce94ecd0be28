//! `Fetcher::browse` in Debian's headless chromium: screenshots (decoded and measured),
//! actions on pages that need them (load more, infinite scroll, a form, tabs), the guard
//! on clicks that navigate, bounds on hostile pages, and a clear error with no browser.
//! Pages are served from 127.0.0.2; canaries on 127.0.0.1 must see nothing.

use std::time::Duration;

use trawl_core::ErrorCode;
use trawl_fetch::browse::{
    Action, BrowseTask, FULL_PAGE_MAX_HEIGHT, ScreenshotKind, ScrollAmount, Viewport, WaitFor,
};
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule, RenderConfig, RenderMode};
use trawl_testkit::{Reply, TestServer};

fn fetcher_with(render: RenderConfig) -> Fetcher {
    Fetcher::new(FetchConfig {
        timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.2").unwrap()],
        },
        render,
        ..FetchConfig::default()
    })
    .unwrap()
}

fn fetcher() -> Fetcher {
    fetcher_with(RenderConfig {
        mode: RenderMode::Auto,
        tabs: 2,
        ..RenderConfig::default()
    })
}

fn task(actions: Vec<Action>) -> BrowseTask {
    BrowseTask {
        actions,
        budget: Duration::from_secs(40),
        ..BrowseTask::default()
    }
}

fn text(page: &trawl_fetch::FetchedPage) -> String {
    String::from_utf8_lossy(&page.body).into_owned()
}

/// Decode a PNG: its size and the RGBA colour at (x, y).
fn pixel(png: &[u8], x: u32, y: u32) -> ((u32, u32), [u8; 4]) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    let channels = info.color_type.samples();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let at = (y as usize * info.line_size) + x as usize * channels;
    let px = &buf[at..at + channels];
    let rgba = match channels {
        3 => [px[0], px[1], px[2], 255],
        4 => [px[0], px[1], px[2], px[3]],
        n => panic!("{n} channels"),
    };
    ((info.width, info.height), rgba)
}

#[tokio::test]
async fn a_screenshot_is_a_png_of_the_asked_viewport() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(
            r#"<html><body style="margin:0;background:#ff0000">
            <div style="position:absolute;left:0;top:0;width:100px;height:100px;background:#0000ff"></div>
            <p style="margin-top:200px">A red page with a blue square.</p></body></html>"#,
        ),
    );
    let f = fetcher();
    let browsed = f
        .browse(
            &server.url("/"),
            &BrowseTask {
                viewport: Viewport::new(800, 600).unwrap(),
                screenshot: Some(ScreenshotKind { full_page: false }),
                ..BrowseTask::default()
            },
        )
        .await
        .unwrap();
    f.shutdown().await;
    assert_eq!(browsed.extras.screenshots.len(), 1);
    let shot = &browsed.extras.screenshots[0];
    assert_eq!((shot.width, shot.height), (800, 600));
    let (size, red) = pixel(&shot.png, 400, 300);
    assert_eq!(size, (800, 600));
    assert_eq!(&red[..3], &[255, 0, 0], "the page's background");
    let (_, blue) = pixel(&shot.png, 50, 50);
    assert_eq!(&blue[..3], &[0, 0, 255], "the square");
    assert!(text(&browsed.page).contains("blue square"));
}

#[tokio::test]
async fn a_full_page_screenshot_is_taller_and_cut_where_documented() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/long",
        Reply::html(r#"<html><body style="margin:0"><div style="height:2000px;background:#00ff00">Long</div></body></html>"#),
    );
    server.route(
        "/endless",
        Reply::html(r#"<html><body style="margin:0"><div style="height:30000px;background:#00ff00">Endless</div></body></html>"#),
    );
    let f = fetcher();
    let full = BrowseTask {
        viewport: Viewport::new(640, 480).unwrap(),
        screenshot: Some(ScreenshotKind { full_page: true }),
        ..BrowseTask::default()
    };
    let long = f.browse(&server.url("/long"), &full).await.unwrap();
    let shot = &long.extras.screenshots[0];
    assert_eq!((shot.width, shot.height), (640, 2000));
    assert_eq!(shot.cut_from, None);
    let (_, green) = pixel(&shot.png, 10, 1990);
    assert_eq!(&green[..3], &[0, 255, 0], "painted to the bottom");
    let endless = f.browse(&server.url("/endless"), &full).await.unwrap();
    let shot = &endless.extras.screenshots[0];
    assert_eq!(shot.height, FULL_PAGE_MAX_HEIGHT);
    assert_eq!(shot.cut_from, Some(30_000));
    f.shutdown().await;
}

#[tokio::test]
async fn load_more_clicks_bring_every_item() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(
            r#"<html><body><ul id="list"><li>Item 1</li><li>Item 2</li></ul>
            <button id="more">Load more</button><script>
            var n = 2;
            document.getElementById('more').addEventListener('click', function () {
              setTimeout(function () {
                for (var i = 0; i < 2; i++) { n++; var li = document.createElement('li');
                  li.textContent = 'Item ' + n; li.className = 'item-' + n;
                  document.getElementById('list').appendChild(li); }
              }, 150);
            });
            </script></body></html>"#,
        ),
    );
    let f = fetcher();
    let click = || Action::Click {
        selector: "#more".into(),
        all: false,
    };
    let browsed = f
        .browse(
            &server.url("/"),
            &task(vec![
                click(),
                click(),
                click(),
                Action::Wait(WaitFor::Selector(".item-8".into())),
            ]),
        )
        .await
        .unwrap();
    f.shutdown().await;
    let html = text(&browsed.page);
    for i in 1..=8 {
        assert!(html.contains(&format!("Item {i}<")), "item {i} missing");
    }
    assert_eq!(browsed.extras.done.len(), 4, "{:?}", browsed.extras.done);
}

#[tokio::test]
async fn scrolling_an_infinite_page_loads_more_than_the_first_screen() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(
            r#"<html><body style="margin:0"><div id="feed"></div><script>
            var n = 0, feed = document.getElementById('feed');
            function page() { for (var i = 0; i < 10; i++) { n++; var d = document.createElement('div');
              d.style.height = '200px'; d.textContent = 'Post ' + n; feed.appendChild(d); } }
            page();
            window.addEventListener('scroll', function () {
              if (n < 60 && window.innerHeight + window.scrollY >= document.body.scrollHeight - 50) page();
            });
            </script></body></html>"#,
        ),
    );
    let f = fetcher();
    let first = f.browse(&server.url("/"), &task(vec![])).await.unwrap();
    assert!(!text(&first.page).contains("Post 11<"));
    let browsed = f
        .browse(
            &server.url("/"),
            &task(vec![Action::Scroll {
                down: true,
                amount: ScrollAmount::ToEnd,
            }]),
        )
        .await
        .unwrap();
    f.shutdown().await;
    let html = text(&browsed.page);
    assert!(
        html.contains("Post 30<"),
        "only the first screens were read"
    );
}

#[tokio::test]
async fn a_form_is_filled_and_submitted_with_enter() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(
            r#"<html><body><form action="/result" method="get">
            <input id="q" name="q" type="text"></form></body></html>"#,
        ),
    );
    server.route(
        "/result",
        Reply::html("<html><body><h1>Results page</h1><p>What was asked is in the address.</p></body></html>"),
    );
    let f = fetcher();
    let browsed = f
        .browse(
            &server.url("/"),
            &task(vec![
                Action::Write {
                    text: "river otters".into(),
                    selector: Some("#q".into()),
                },
                Action::Press {
                    key: "Enter".into(),
                },
                Action::Wait(WaitFor::Selector("h1".into())),
            ]),
        )
        .await
        .unwrap();
    f.shutdown().await;
    assert!(text(&browsed.page).contains("Results page"));
    assert!(
        browsed.page.final_url.as_str().contains("q=river+otters"),
        "{}",
        browsed.page.final_url
    );
    let asked: Vec<String> = server.seen().iter().map(|r| r.path.clone()).collect();
    assert!(
        asked.iter().any(|p| p == "/result?q=river+otters"),
        "{asked:?}"
    );
}

#[tokio::test]
async fn a_tab_panel_revealed_by_a_click_is_read() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html(
            r#"<html><body><div role="tablist"><button id="t1">Overview</button>
            <button id="t2">Specifications</button></div><div id="panel">The overview text.</div>
            <script>document.getElementById('t2').onclick = function () {
              document.getElementById('panel').textContent = 'Weight 12 kg, length 1.2 m.'; };</script>
            </body></html>"#,
        ),
    );
    let f = fetcher();
    let browsed = f
        .browse(
            &server.url("/"),
            &task(vec![
                Action::Click {
                    selector: "#t2".into(),
                    all: false,
                },
                Action::Scrape,
            ]),
        )
        .await
        .unwrap();
    f.shutdown().await;
    assert!(text(&browsed.page).contains("Weight 12 kg"));
    assert_eq!(browsed.extras.scrapes.len(), 1);
    assert!(browsed.extras.scrapes[0].html.contains("Weight 12 kg"));
}

#[tokio::test]
async fn a_click_that_navigates_to_a_forbidden_host_is_refused() {
    require_browser!();
    let canary = TestServer::start_on("127.0.0.1");
    let server = TestServer::start_on("127.0.0.2");
    let port = canary.addr().port();
    server.route(
        "/",
        Reply::html(format!(
            r#"<html><body><p>Stay here.</p><a id="go" href="http://127.0.0.1:{port}/steal">go</a>
            <button id="js" onclick="location.href='http://127.0.0.1:{port}/js'">js</button></body></html>"#
        )),
    );
    let f = fetcher();
    let browsed = f
        .browse(
            &server.url("/"),
            &task(vec![
                Action::Click {
                    selector: "#go".into(),
                    all: false,
                },
                Action::Click {
                    selector: "#js".into(),
                    all: false,
                },
            ]),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    f.shutdown().await;
    assert!(canary.seen().is_empty(), "the canary was reached");
    assert_eq!(browsed.page.final_url.as_str(), server.url("/"));
    let notes = browsed
        .page
        .attempts
        .last()
        .and_then(|a| a.detail.clone())
        .unwrap_or_default();
    assert!(notes.contains("refused navigation"), "{notes}");
}

#[tokio::test]
async fn a_selector_that_never_appears_is_a_timeout_naming_it() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/",
        Reply::html("<html><body><p>Nothing comes.</p></body></html>"),
    );
    let f = fetcher();
    let started = std::time::Instant::now();
    let err = f
        .browse(
            &server.url("/"),
            &BrowseTask {
                actions: vec![Action::Wait(WaitFor::Selector(".never".into()))],
                budget: Duration::from_secs(4),
                ..BrowseTask::default()
            },
        )
        .await
        .unwrap_err();
    f.shutdown().await;
    assert_eq!(err.code, ErrorCode::Timeout, "{}", err.message);
    assert!(err.message.contains(".never"), "{}", err.message);
    assert!(started.elapsed() < Duration::from_secs(15));
}

#[tokio::test]
async fn popup_storms_and_navigation_loops_end_within_the_budget() {
    require_browser!();
    let server = TestServer::start_on("127.0.0.2");
    server.route(
        "/popups",
        Reply::html(
            r#"<html><body><p>Popups.</p><button id="b">b</button><script>
            document.getElementById('b').onclick = function () { for (var i = 0; i < 1000; i++) window.open('/p' + i); };
            </script></body></html>"#,
        ),
    );
    server.route(
        "/loop",
        Reply::html(r#"<html><body><p>Again.</p><script>setTimeout(function () { location.href = '/loop?' + Math.random(); }, 10);</script></body></html>"#),
    );
    let f = fetcher();
    let budget = Duration::from_secs(6);
    for (path, actions) in [
        (
            "/popups",
            vec![Action::Click {
                selector: "#b".into(),
                all: false,
            }],
        ),
        ("/loop", vec![Action::Wait(WaitFor::Millis(3_000))]),
    ] {
        let started = std::time::Instant::now();
        let _ = f
            .browse(
                &server.url(path),
                &BrowseTask {
                    actions,
                    budget,
                    ..BrowseTask::default()
                },
            )
            .await;
        assert!(
            started.elapsed() < budget + Duration::from_secs(5),
            "{path} took {:?}",
            started.elapsed()
        );
    }
    let pid = f.renderer().unwrap().browser_pid().await;
    let tree = pid
        .map(trawl_fetch::render::process_tree)
        .unwrap_or_default();
    f.shutdown().await;
    let popups = server
        .seen()
        .iter()
        .filter(|r| {
            r.path
                .strip_prefix("/p")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .count();
    assert_eq!(popups, 0, "a popup was opened");
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while tree.iter().any(|p| trawl_fetch::render::process_alive(*p)) {
        assert!(
            std::time::Instant::now() < until,
            "browser processes outlived shutdown"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn with_no_usable_browser_the_error_says_what_is_missing() {
    trawl_testkit::require_isolation!();
    let server = TestServer::start_on("127.0.0.2");
    server.route("/", Reply::html("<p>x</p>"));
    let shot = BrowseTask {
        screenshot: Some(ScreenshotKind { full_page: false }),
        ..BrowseTask::default()
    };
    let missing = fetcher_with(RenderConfig {
        mode: RenderMode::Auto,
        browser: Some("/nonexistent/chromium".into()),
        ..RenderConfig::default()
    });
    let err = missing.browse(&server.url("/"), &shot).await.unwrap_err();
    assert!(err.message.contains("needs a browser"), "{}", err.message);
    assert!(err.message.contains("chromium"), "{}", err.message);
    assert!(!err.retryable);
    let off = fetcher_with(RenderConfig {
        mode: RenderMode::Never,
        ..RenderConfig::default()
    });
    let err = off.browse(&server.url("/"), &shot).await.unwrap_err();
    assert!(err.message.contains("rendering is off"), "{}", err.message);
    assert_eq!(
        server.hits("/"),
        0,
        "nothing was fetched without the browser"
    );
}
