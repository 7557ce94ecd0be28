//! Each fault leaves the healthy engine's results intact, and the call returns.

use trawl_search::{EngineOutcome, OutcomeKind, SearchData, SearchRequest};

use crate::support::{Fake, Reply, fixture, serve};

/// DuckDuckGo serving its real page, plus `faulty` as engine `name`.
async fn search_with(name: &str, faulty: &Fake, timeout_ms: u64) -> SearchData {
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", ddg.url());
    cfg.set_base(name, faulty.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("openclaw");
    req.engines = vec!["duckduckgo".into(), name.into()];
    req.timeout_ms = Some(timeout_ms);
    let data = router.search(&req).await;
    let healthy = outcome(&data, "duckduckgo");
    assert_eq!(healthy.outcome, OutcomeKind::Ok, "{healthy:?}");
    assert_eq!(healthy.count, 10);
    let ddg_urls: Vec<String> =
        trawl_search::engines::duckduckgo::parse(&fixture("duckduckgo/html-openclaw.html"))
            .unwrap()
            .into_iter()
            .map(|i| i.url)
            .collect();
    for u in &ddg_urls {
        assert!(data.hits.iter().any(|h| &h.url == u), "{u} missing");
    }
    assert!(!data.all_failed());
    data
}

fn outcome<'a>(data: &'a SearchData, engine: &str) -> &'a EngineOutcome {
    data.engines.iter().find(|o| o.engine == engine).unwrap()
}

#[tokio::test]
async fn hung_engine_times_out() {
    let hung = serve(|_| Reply::Hang).await;
    let data = search_with("mojeek", &hung, 1500).await;
    let o = outcome(&data, "mojeek");
    assert_eq!(o.outcome, OutcomeKind::Timeout);
    assert!(o.detail.as_deref().unwrap().contains("1500 ms"));
}

#[tokio::test]
async fn server_error_is_retried_once_then_reported() {
    let broken = serve(|_| Reply::status(500, b"oops".to_vec())).await;
    let data = search_with("mojeek", &broken, 8000).await;
    let o = outcome(&data, "mojeek");
    assert_eq!(o.outcome, OutcomeKind::HttpError);
    assert_eq!(o.status, Some(500));
    assert_eq!(broken.hits(), 2);
}

#[tokio::test]
async fn a_5xx_then_success_recovers_on_retry() {
    let n = std::sync::atomic::AtomicUsize::new(0);
    let flaky = serve(move |_| {
        if n.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            Reply::status(503, Vec::new())
        } else {
            Reply::ok(fixture(
                "arxiv/query-electron-proton-2025-08-old-format.xml",
            ))
        }
    })
    .await;
    let data = search_with("arxiv", &flaky, 8000).await;
    assert_eq!(outcome(&data, "arxiv").count, 10);
    assert_eq!(data.hits.len(), 20);
}

#[tokio::test]
async fn too_many_requests_with_retry_after() {
    let limited =
        serve(|_| Reply::status(429, b"slow down".to_vec()).with_header("Retry-After", "120"))
            .await;
    let data = search_with("mojeek", &limited, 8000).await;
    let o = outcome(&data, "mojeek");
    assert_eq!(o.outcome, OutcomeKind::RateLimited);
    assert!(
        o.detail.as_deref().unwrap().contains("retry after 120 s"),
        "{o:?}"
    );
    assert_eq!(limited.hits(), 1, "a 429 is not retried");
}

#[tokio::test]
async fn captcha_page_is_blocked() {
    let captcha = serve(|_| {
        Reply::ok(
            br#"<html><head><title>DuckDuckGo</title></head><body><form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html">
            <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div></form></body></html>"#
                .to_vec(),
        )
    })
    .await;
    // The captcha is served as Bing's page; same markers, same outcome.
    let data = search_with("bing", &captcha, 8000).await;
    assert_eq!(outcome(&data, "bing").outcome, OutcomeKind::Blocked);
}

#[tokio::test]
async fn duckduckgo_202_is_rate_limited() {
    let anomaly = serve(|_| Reply::status(202, b"<html></html>".to_vec())).await;
    let moj =
        serve(|_| Reply::ok(b"<html><body><p>No pages found matching</p></body></html>".to_vec()))
            .await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", anomaly.url());
    cfg.set_base("mojeek", moj.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("x");
    req.engines = vec!["duckduckgo".into(), "mojeek".into()];
    let data = router.search(&req).await;
    assert_eq!(
        outcome(&data, "duckduckgo").outcome,
        OutcomeKind::RateLimited
    );
    assert_eq!(outcome(&data, "mojeek").outcome, OutcomeKind::Empty);
    assert!(!data.all_failed(), "an empty answer is an answer");
}

#[tokio::test]
async fn garbage_bytes_are_a_parse_error() {
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let junk = serve(move |_| Reply::ok(garbage.clone())).await;
    let mut cfg_name = "searxng";
    let data = search_with(cfg_name, &junk, 8000).await;
    assert_eq!(outcome(&data, cfg_name).outcome, OutcomeKind::ParseError);
    cfg_name = "arxiv";
    let data = search_with(cfg_name, &junk, 8000).await;
    assert_eq!(outcome(&data, cfg_name).outcome, OutcomeKind::ParseError);
}

#[tokio::test]
async fn twenty_megabyte_body_is_cut_not_buffered() {
    let huge = serve(|_| Reply::Huge(20 * 1024 * 1024)).await;
    let data = search_with("mojeek", &huge, 8000).await;
    let o = outcome(&data, "mojeek");
    assert_eq!(o.outcome, OutcomeKind::ParseError);
    assert!(
        o.detail
            .as_deref()
            .unwrap()
            .contains("body cut at 5242880 bytes"),
        "{o:?}"
    );
}

#[tokio::test]
async fn connection_refused_is_an_http_error_without_status() {
    // Bind then drop a listener so the port is (almost certainly) closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", ddg.url());
    cfg.set_base(
        "mojeek",
        url::Url::parse(&format!("http://127.0.0.1:{port}")).unwrap(),
    );
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("x");
    req.engines = vec!["duckduckgo".into(), "mojeek".into()];
    let data = router.search(&req).await;
    let o = outcome(&data, "mojeek");
    assert_eq!(o.outcome, OutcomeKind::HttpError);
    assert_eq!(o.status, None);
    assert_eq!(data.hits.len(), 10);
}

#[tokio::test]
async fn unconfigured_and_unknown_engines_are_listed() {
    let router = crate::router(crate::config());
    let mut req = SearchRequest::new("x");
    req.engines = vec!["searxng".into(), "exa".into(), "nosuch".into()];
    let data = router.search(&req).await;
    assert_eq!(
        outcome(&data, "searxng").outcome,
        OutcomeKind::NotConfigured
    );
    assert_eq!(
        outcome(&data, "searxng").detail.as_deref(),
        Some("set TRAWL_SEARXNG_URL")
    );
    assert_eq!(
        outcome(&data, "exa").detail.as_deref(),
        Some("set EXA_API_KEY")
    );
    assert_eq!(outcome(&data, "nosuch").outcome, OutcomeKind::Skipped);
    assert!(data.all_failed());
    assert!(data.hits.is_empty());
}

#[tokio::test]
async fn busy_rate_limit_slot_skips_instead_of_queueing() {
    let ax = serve(|_| Reply::ok(fixture("arxiv/query-missing-id-2025-11-new-format.xml"))).await;
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let mut cfg = crate::config();
    cfg.rate_limits = true;
    cfg.set_base("arxiv", ax.url());
    cfg.set_base("duckduckgo", ddg.url());
    let router = crate::router(cfg);
    // Two fan-outs at once: the one that finds arXiv's slot taken skips it, not queues
    // (an engine asked alone waits instead: answering::a_spaced_engine_asked_alone_…).
    let mut a = SearchRequest::new("a");
    a.engines = vec!["arxiv".into(), "duckduckgo".into()];
    let mut b = SearchRequest::new("b");
    b.engines = vec!["arxiv".into(), "duckduckgo".into()];
    let (first, second) = tokio::join!(router.search(&a), router.search(&b));
    let kinds: Vec<_> = first
        .engines
        .iter()
        .chain(&second.engines)
        .filter(|o| o.engine == "arxiv")
        .map(|o| o.outcome)
        .collect();
    assert!(kinds.contains(&OutcomeKind::Ok), "{kinds:?}");
    assert!(kinds.contains(&OutcomeKind::Skipped), "{kinds:?}");
    assert_eq!(ax.hits(), 1);
}

/// `--expand`'s second phrasing is the same request: it waits for the slot its first
/// phrasing holds (keeping the engine's spacing) instead of being skipped as busy.
#[tokio::test]
async fn an_expanded_phrasing_waits_for_its_own_requests_slot() {
    let ax = serve(|_| Reply::ok(fixture("arxiv/query-missing-id-2025-11-new-format.xml"))).await;
    let mut cfg = crate::config();
    cfg.rate_limits = true;
    cfg.set_base("arxiv", ax.url());
    let spacing = std::time::Duration::from_millis(400);
    cfg.set_min_interval("arxiv", spacing);
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("a");
    req.expand = vec!["b".into()];
    req.engines = vec!["arxiv".into()];
    let started = std::time::Instant::now();
    let data = router.search(&req).await;
    let kinds: Vec<_> = data.engines.iter().map(|o| o.outcome).collect();
    assert_eq!(
        kinds,
        [OutcomeKind::Ok, OutcomeKind::Ok],
        "{:?}",
        data.engines
    );
    assert_eq!(ax.hits(), 2);
    assert!(started.elapsed() >= spacing, "the spacing was kept");
}

#[tokio::test]
async fn doctor_finishes_offline_and_explains_each_failure() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = url::Url::parse(&format!("http://127.0.0.1:{port}")).unwrap();
    let captcha =
        serve(|_| Reply::ok(br#"<html><body><div id="b_captcha"></div></body></html>"#.to_vec()))
            .await;
    let hung = serve(|_| Reply::Hang).await;
    let mut cfg = crate::config();
    for e in trawl_search::engines::all() {
        cfg.set_base(e.name(), closed.clone());
    }
    cfg.set_base("duckduckgo", captcha.url());
    cfg.set_base("mojeek", hung.url());
    let router = crate::router(cfg);
    let checks = router
        .check(&[], std::time::Duration::from_millis(1500))
        .await;
    let by = |n: &str| checks.iter().find(|c| c.engine == n).unwrap();
    assert_eq!(by("duckduckgo").outcome.outcome, OutcomeKind::Blocked);
    assert!(
        by("duckduckgo")
            .hint
            .as_deref()
            .unwrap()
            .contains("captcha")
    );
    assert_eq!(by("mojeek").outcome.outcome, OutcomeKind::Timeout);
    assert!(
        by("brave")
            .hint
            .as_deref()
            .unwrap()
            .contains("cannot connect")
    );
    assert!(by("brave").default_route);
    assert_eq!(by("exa").outcome.outcome, OutcomeKind::NotConfigured);
    assert_eq!(by("exa").hint.as_deref(), Some("set EXA_API_KEY"));
    assert!(checks.iter().all(|c| !c.healthy()));
}

#[tokio::test]
async fn zero_timeout_means_no_deadline() {
    let slow = serve(|_| Reply::ok(fixture("arxiv/query-missing-id-2025-11-new-format.xml"))).await;
    let data = search_with("arxiv", &slow, 0).await;
    assert_eq!(outcome(&data, "arxiv").outcome, OutcomeKind::Ok);
}

/// The engines added with the table fail like the others, through the router: a 429 is
/// rate limiting (not retried), Yandex's captcha page is a block, a SOV2EX answer that is
/// not its JSON is a parse error; the healthy engine's results stay.
#[tokio::test]
async fn new_engines_report_rate_limits_captchas_and_bad_bodies() {
    for name in ["yandex", "sov2ex"] {
        let limited = serve(|_| Reply::status(429, b"slow down".to_vec())).await;
        let data = search_with(name, &limited, 8000).await;
        assert_eq!(
            outcome(&data, name).outcome,
            OutcomeKind::RateLimited,
            "{name}"
        );
        assert_eq!(limited.hits(), 1, "{name}: a 429 is not retried");
    }
    let captcha = serve(|_| {
        Reply::ok(
            br#"<html><head><title>Oops!</title></head><body><form action="/checkcaptcha" method="post">
            <div class="CheckboxCaptcha"><input type="checkbox"></div></form></body></html>"#
                .to_vec(),
        )
        .with_header("x-yandex-captcha", "captcha")
    })
    .await;
    let data = search_with("yandex", &captcha, 8000).await;
    assert_eq!(outcome(&data, "yandex").outcome, OutcomeKind::Blocked);
    let html = serve(|_| Reply::ok(b"<html><body>maintenance</body></html>".to_vec())).await;
    let data = search_with("sov2ex", &html, 8000).await;
    assert_eq!(outcome(&data, "sov2ex").outcome, OutcomeKind::ParseError);
}

/// Parallel and Baidu AI Search (keyed): a refused key is an `auth` failure that marks the
/// key, a 429 is rate limiting, and Baidu's error inside a 200 body is typed the same way;
/// the key never shows in the outcome.
#[tokio::test]
async fn keyed_engines_report_auth_and_rate_limits() {
    let cases: [(&str, &str, u16, &[u8], OutcomeKind); 6] = [
        (
            "parallel",
            "PARALLEL_API_KEY",
            401,
            br#"{"error":{"message":"no"}}"#,
            OutcomeKind::AuthFailed,
        ),
        (
            "parallel",
            "PARALLEL_API_KEY",
            429,
            br#"{"error":{"message":"no"}}"#,
            OutcomeKind::RateLimited,
        ),
        (
            "baidu",
            "BAIDU_API_KEY",
            401,
            br#"{"code":"Unauthorized","message":"no"}"#,
            OutcomeKind::AuthFailed,
        ),
        (
            "baidu",
            "BAIDU_API_KEY",
            429,
            br#"{"code":429,"message":"slow down"}"#,
            OutcomeKind::RateLimited,
        ),
        (
            "baidu",
            "BAIDU_API_KEY",
            200,
            br#"{"request_id":"r","code":"InvalidApiKey","message":"invalid api key"}"#,
            OutcomeKind::AuthFailed,
        ),
        (
            "baidu",
            "BAIDU_API_KEY",
            200,
            br#"{"request_id":"r","code":18,"message":"QPS limit reached"}"#,
            OutcomeKind::RateLimited,
        ),
    ];
    for (engine, var, status, body, kind) in cases {
        let fake = serve(move |_| Reply::status(status, body.to_vec())).await;
        let declared = trawl_search::engines::all()
            .into_iter()
            .find(|e| e.name() == engine)
            .and_then(|e| e.key_env());
        assert_eq!(declared, Some(var), "{engine}'s key variable");
        let mut cfg = crate::config();
        cfg.set_keys(engine, crate::keys("key-secret-1"));
        cfg.set_base(engine, fake.url());
        let router = crate::router(cfg);
        let mut req = SearchRequest::new("q");
        req.engines = vec![engine.into()];
        let data = router.search(&req).await;
        let o = outcome(&data, engine);
        assert_eq!(o.outcome, kind, "{engine} {status}: {o:?}");
        assert!(!format!("{o:?}").contains("key-secret-1"));
        assert_eq!(fake.hits(), 1);
    }
}

/// X on a session from a cookies file: an expired session (401, or X's own error inside a
/// 200) is an `auth` failure, a 429 rate limiting; neither the session cookie nor the csrf
/// token shows in the outcome.
#[tokio::test]
async fn x_reports_an_expired_session_as_auth() {
    let cookies = std::env::temp_dir().join(format!("trawl-x-cookies-{}.txt", std::process::id()));
    std::fs::write(&cookies, "auth_token=tok-secret-9; ct0=csrf-secret-8\n").unwrap();
    let expired: &[u8] = br#"{"errors":[{"code":32,"message":"Could not authenticate you."}]}"#;
    let cases: [(u16, &[u8], OutcomeKind); 3] = [
        (401, expired, OutcomeKind::AuthFailed),
        (200, expired, OutcomeKind::AuthFailed),
        (
            429,
            br#"{"errors":[{"message":"Rate limit exceeded"}]}"#,
            OutcomeKind::RateLimited,
        ),
    ];
    for (status, body, kind) in cases {
        let fake = serve(move |_| Reply::status(status, body.to_vec())).await;
        // The binary reads the cookies file; the router gets the session it holds.
        let text = std::fs::read_to_string(&cookies).unwrap();
        let session = trawl_search::engines::x::cookie_key(&text).expect("a session");
        let mut cfg = crate::config();
        cfg.set_keys("x", vec![session]);
        cfg.set_base("x", fake.url());
        let router = crate::router(cfg);
        let mut req = SearchRequest::new("q");
        req.engines = vec!["x".into()];
        let data = router.search(&req).await;
        let o = outcome(&data, "x");
        assert_eq!(o.outcome, kind, "{status}: {o:?}");
        let shown = format!("{o:?}");
        assert!(!shown.contains("tok-secret-9") && !shown.contains("csrf-secret-8"));
        assert_eq!(fake.hits(), 1);
    }
    let _ = std::fs::remove_file(&cookies);
}
