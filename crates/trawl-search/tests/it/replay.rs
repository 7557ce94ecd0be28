//! `--record` saves raw answers without secrets; `--replay` answers from them offline.

use trawl_search::{OutcomeKind, SearchRequest};

use crate::support::{Reply, fixture, serve, temp_dir};

#[tokio::test]
async fn record_then_replay_gives_the_same_answer() {
    let dir = temp_dir("record");
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-OpenAI-news.html"))).await;
    let api = serve(|_| Reply::ok(fixture("tavily/search-test_basic_search.json"))).await;
    let secret = "tvly-SECRET-0123456789";
    let mut cfg = crate::config();
    cfg.set_keys("tavily", crate::keys(secret));
    cfg.set_base("duckduckgo", ddg.url());
    cfg.set_base("tavily", api.url());
    cfg.record_dir = Some(dir.clone());
    let mut req = SearchRequest::new("OpenAI news");
    req.engines = vec!["duckduckgo".into(), "tavily".into()];
    let live = crate::router(cfg).search(&req).await;
    assert!(
        live.engines.iter().all(|o| o.outcome == OutcomeKind::Ok),
        "{:?}",
        live.engines
    );

    // Two engines, a metadata file and a body each; no file mentions the key.
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 4);
    for f in &files {
        let bytes = std::fs::read(f.path()).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(secret),
            "{:?}",
            f.path()
        );
    }

    // Replay with every engine pointed at a closed port: answers come from the files.
    let mut cfg = crate::config();
    cfg.set_keys("tavily", crate::keys(secret));
    let closed = url::Url::parse("http://127.0.0.1:9").unwrap();
    cfg.set_base("duckduckgo", closed.clone());
    cfg.set_base("tavily", closed);
    cfg.replay_dir = Some(dir.clone());
    let replayed = crate::router(cfg).search(&req).await;
    assert_eq!(replayed.hits, live.hits);

    // Replay needs neither the key nor the URLs: the recordings are enough, and a route
    // runs exactly the engines that were recorded.
    let mut cfg = crate::config();
    cfg.replay_dir = Some(dir.clone());
    let router = crate::router(cfg);
    let keyless = router.search(&req).await;
    assert_eq!(keyless.hits, live.hits);
    let mut by_route = req.clone();
    by_route.engines.clear();
    let routed = router.search(&by_route).await;
    let ran: Vec<&str> = routed
        .engines
        .iter()
        .filter(|o| o.outcome == OutcomeKind::Ok)
        .map(|o| o.engine.as_str())
        .collect();
    assert_eq!(ran, ["duckduckgo", "tavily"]);
    let mojeek = routed
        .engines
        .iter()
        .find(|o| o.engine == "mojeek")
        .unwrap();
    assert_eq!(mojeek.outcome, OutcomeKind::NotConfigured);
    assert_eq!(
        mojeek.detail.as_deref(),
        Some("no recording in the replay directory")
    );

    // A query never recorded is reported, not fetched.
    let mut other = req.clone();
    other.query = "something else".into();
    let mut cfg = crate::config();
    cfg.replay_dir = Some(dir.clone());
    let data = crate::router(cfg).search(&other).await;
    let ddg = data
        .engines
        .iter()
        .find(|o| o.engine == "duckduckgo")
        .unwrap();
    assert_eq!(ddg.outcome, OutcomeKind::Skipped);
    assert!(ddg.detail.as_deref().unwrap().contains("no recording"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_engine_echoing_the_key_leaves_no_trace() {
    let dir = temp_dir("echo");
    let secret = "sk-echo/SECRET+42";
    // Echo the request line and headers back, as a misbehaving service might.
    let echo = serve(|r| {
        let auth = r.header("x-api-key").unwrap_or_default().to_owned();
        let body = format!(
            r#"{{"message":"invalid request, we received {} with key {auth}"}}"#,
            r.target
        );
        Reply::status(401, body.into_bytes())
    })
    .await;
    let mut cfg = crate::config();
    cfg.set_keys("serper", crate::keys(secret))
        .set_keys("exa", crate::keys(secret));
    cfg.set_base("serper", echo.url());
    cfg.set_base("exa", echo.url());
    cfg.record_dir = Some(dir.clone());
    let mut req = SearchRequest::new("leak probe");
    req.engines = vec!["serper".into(), "exa".into()];
    let data = crate::router(cfg).search(&req).await;
    let json = serde_json::to_string(&data).unwrap();
    assert!(!json.contains("SECRET"), "{json}");
    assert!(
        data.engines
            .iter()
            .all(|o| o.outcome == OutcomeKind::AuthFailed)
    );
    let mut files = 0;
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
        assert!(!text.contains("SECRET"), "{:?}: {text}", f.path());
        files += 1;
    }
    assert_eq!(files, 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// X's session (the cookie and the csrf token taken from it) never reaches a recording,
/// and the recording replays the real SearchTimeline answer without it.
#[tokio::test]
async fn an_x_session_is_never_recorded() {
    let dir = temp_dir("record-x");
    let body = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/x/search-timeline-2026-07-twscrape.json"
    ))
    .unwrap();
    let x = serve(move |_| Reply::ok(body.clone())).await;
    let cookies = dir.with_extension("cookies.txt");
    std::fs::write(&cookies, "auth_token=tok-secret-9; ct0=csrf-secret-8").unwrap();
    // The binary reads the cookies file; the router gets the session it holds.
    let text = std::fs::read_to_string(&cookies).unwrap();
    let session = trawl_search::engines::x::cookie_key(&text).expect("a session");
    let mut cfg = crate::config();
    cfg.set_keys("x", vec![session]);
    cfg.set_base("x", x.url());
    cfg.record_dir = Some(dir.clone());
    let mut req = SearchRequest::new("tesla");
    req.engines = vec!["x".into()];
    let live = crate::router(cfg).search(&req).await;
    assert_eq!(
        live.engines[0].outcome,
        OutcomeKind::Ok,
        "{:?}",
        live.engines
    );
    assert_eq!(live.hits.len(), 20);
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 2, "a metadata file and a body");
    for f in &files {
        let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
        assert!(
            !text.contains("tok-secret-9") && !text.contains("csrf-secret-8"),
            "{:?}",
            f.path()
        );
    }
    let mut cfg = crate::config();
    cfg.replay_dir = Some(dir.clone());
    assert_eq!(crate::router(cfg).search(&req).await.hits, live.hits);
    let _ = std::fs::remove_file(&cookies);
}
