//! `trawl serve` rendering app shells: 8 concurrent calls share one browser, and no
//! browser process or tab outlives the calls (renderers) or SIGTERM (anything), counted
//! from /proc.

use super::*;

/// Every process under `root`, with its command line, from /proc.
fn descendants(root: u32) -> Vec<(u32, String)> {
    let mut parent_of = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.first() == Some(&"Z") {
            continue;
        }
        if let Some(ppid) = fields.get(1).and_then(|p| p.parse::<u32>().ok()) {
            parent_of.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    tree.into_iter()
        .skip(1)
        .map(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            (pid, cmd)
        })
        .collect()
}

/// The page renderers still running under `pid`, polled for up to 5 s until at most one is
/// left: the browser's initial about:blank tab may remain. A `--top-chrome-webui` renderer
/// draws the browser's own UI, not a page (some Chromium builds start one), so it is not
/// counted.
async fn tabs_left(pid: u32) -> Vec<(u32, String)> {
    let mut renderers = Vec::new();
    for _ in 0..50 {
        renderers = descendants(pid)
            .into_iter()
            .filter(|(_, cmd)| {
                cmd.contains("--type=renderer") && !cmd.contains("--top-chrome-webui")
            })
            .collect();
        if renderers.len() <= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    renderers
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rfind(')')
                .map(|i| s[i + 1..].trim_start().starts_with('Z'))
        })
        .is_some_and(|zombie| !zombie)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_concurrent_renders_share_a_browser_and_leave_nothing_behind() {
    trawl_testkit::require_isolation!();
    trawl_testkit::require_chromium!();
    let world = World::new();
    let words =
        "Script-built text long enough to be the main content of the page here. ".repeat(12);
    world.pages.route(
        "/app",
        Reply::html(format!(
            r#"<html><head><title>App</title></head><body><div id="root"></div><script>
            setTimeout(function () {{ document.getElementById('root').innerHTML =
              '<article><h1>Rendered app</h1><p>{words}</p></article>'; }}, 50);</script></body></html>"#
        )),
    );
    let server = HttpServer::start(&world, &["--render", "auto"], &[]);
    let client = Arc::new(server.client(None).await);
    let calls = (0..8).map(|i| {
        let client = client.clone();
        let url = world.pages.url(&format!("/app?n={i}"));
        tokio::spawn(async move {
            client
                .call_tool(call("web_fetch", json!({"url": url})))
                .await
                .unwrap()
        })
    });
    for call in futures_util::future::join_all(calls).await {
        let result = call.unwrap();
        let doc = &structured(&result)["results"][0]["document"];
        assert_eq!(doc["fetched_via"], "render", "{doc}");
        assert!(
            doc["markdown"].as_str().unwrap().contains("Rendered app"),
            "{doc}"
        );
    }
    let pid = server.child.id();
    let browsers: Vec<(u32, String)> = descendants(pid)
        .into_iter()
        .filter(|(_, cmd)| cmd.contains("trawl-browser-"))
        .collect();
    let mains = browsers
        .iter()
        .filter(|(_, cmd)| !cmd.contains("--type="))
        .count();
    assert_eq!(mains, 1, "one shared browser: {browsers:#?}");
    // The calls are over: every page's tab (each in its own browser context, so its own
    // renderer process) is gone.
    let renderers = tabs_left(pid).await;
    assert!(
        renderers.len() <= 1,
        "tabs left after the calls: {renderers:#?}"
    );
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut server = server;
    until(async || server.child.try_wait().unwrap().is_some()).await;
    // Polled to a deadline: the browser is reaped, however loaded the machine.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while browsers.iter().any(|(p, _)| alive(*p)) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let left: Vec<&(u32, String)> = browsers.iter().filter(|(p, _)| alive(*p)).collect();
    assert!(
        left.is_empty(),
        "browser processes left after SIGTERM: {left:#?}"
    );
}

/// `web_fetch {actions, screenshot}`: the click's items are read, and the screenshot is an
/// MCP `image` block (PNG of the asked viewport) after the fenced text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_fetch_with_actions_answers_a_screenshot_as_an_image_block() {
    use base64::Engine as _;
    trawl_testkit::require_isolation!();
    trawl_testkit::require_chromium!();
    let world = World::new();
    world.pages.route(
        "/tabs",
        Reply::html(
            r#"<html><head><title>Tabs</title></head><body><button id="t2">Specifications</button>
            <div id="panel">The overview of the otter holt survey.</div><script>
            document.getElementById('t2').onclick = function () {
              document.getElementById('panel').textContent = 'Specifications: the holt is 3 m deep and 12 m long.'; };
            </script></body></html>"#,
        ),
    );
    let server = HttpServer::start(&world, &["--render", "auto"], &[]);
    let client = server.client(None).await;
    let result = client
        .call_tool(call(
            "web_fetch",
            json!({
                "url": world.pages.url("/tabs"),
                "actions": [{"type": "click", "selector": "#t2"}],
                "screenshot": true,
                "viewport": "800x600",
            }),
        ))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    let doc = &structured(&result)["results"][0]["document"];
    assert!(
        doc["markdown"].as_str().unwrap().contains("3 m deep"),
        "{doc}"
    );
    assert_eq!(doc["browser"]["screenshots"][0]["width"], 800, "{doc}");
    let images: Vec<_> = result.content.iter().filter_map(|c| c.as_image()).collect();
    assert_eq!(images.len(), 1, "{:?}", result.content);
    assert_eq!(images[0].mime_type, "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(&images[0].data)
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (800, 600));
    // The call is over: its tab (its own browser context and renderer) is gone.
    let renderers = tabs_left(server.child.id()).await;
    assert!(
        renderers.len() <= 1,
        "tabs left after the call: {renderers:#?}"
    );
    // A script action is refused by name, before any browser work.
    let refused = client
        .call_tool(call(
            "web_fetch",
            json!({
                "url": world.pages.url("/tabs"),
                "actions": [{"type": "executeJavascript", "script": "1"}],
            }),
        ))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("executeJavascript"),
        "{}",
        text(&refused)
    );
}
