//! Search that keeps answering: DuckDuckGo's lite endpoint asked when the html endpoint
//! refuses, and a spaced engine asked alone waited for rather than skipped.

use trawl_search::{OutcomeKind, SearchRequest};

use crate::support::{Reply, fixture, serve};

/// A saved page vendored in this crate (tests/fixtures/duckduckgo, PROVENANCE.md there).
fn vendored(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/duckduckgo/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn ddg_only() -> SearchRequest {
    let mut req = SearchRequest::new("zeta");
    req.engines = vec!["duckduckgo".into()];
    req
}

/// The real challenge page on the html endpoint is `blocked`; the same search then asks
/// the lite endpoint, whose real page gives its ten results; the refusal is remembered,
/// so the next search goes to lite alone.
#[tokio::test]
async fn a_challenge_sends_the_search_to_the_lite_endpoint() {
    let html = serve(|_| Reply::ok(vendored("html-anomaly-challenge-2026-09.html"))).await;
    let lite = serve(|_| Reply::ok(vendored("lite-zeta-2026.html"))).await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", html.url());
    cfg.set_base("duckduckgo_lite", lite.url());
    let router = crate::router(cfg);
    let before = router.engines_info();
    let ddg = |i: &[trawl_search::EngineInfo]| {
        i.iter().find(|e| e.name == "duckduckgo").unwrap().transport
    };
    assert_eq!(ddg(&before), Some("html"));
    let data = router.search(&ddg_only()).await;
    let o = &data.engines[0];
    assert_eq!(o.outcome, OutcomeKind::Ok, "{o:?}");
    assert_eq!(o.count, 10);
    let detail = o.detail.as_deref().unwrap();
    assert!(
        detail.contains("blocked") || detail.contains("captcha"),
        "{detail}"
    );
    assert!(detail.contains("duckduckgo_lite"), "{detail}");
    assert_eq!((html.hits(), lite.hits()), (1, 1));
    assert_eq!(
        ddg(&router.engines_info()),
        Some("lite (html refused recently)")
    );
    let again = router.search(&ddg_only()).await;
    assert_eq!(again.engines[0].outcome, OutcomeKind::Ok);
    assert_eq!((html.hits(), lite.hits()), (1, 2), "lite was asked first");
}

/// A 202 with an empty body (DuckDuckGo's rate limit) also falls back to lite.
#[tokio::test]
async fn an_empty_202_sends_the_search_to_the_lite_endpoint() {
    let html = serve(|_| Reply::status(202, Vec::new())).await;
    let lite = serve(|_| Reply::ok(vendored("lite-zeta-2026.html"))).await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", html.url());
    cfg.set_base("duckduckgo_lite", lite.url());
    let data = crate::router(cfg).search(&ddg_only()).await;
    assert_eq!(
        data.engines[0].outcome,
        OutcomeKind::Ok,
        "{:?}",
        data.engines
    );
    assert_eq!(data.hits.len(), 10);
}

/// A results page still answers from the html endpoint; lite is never asked.
#[tokio::test]
async fn results_from_the_html_endpoint_need_no_fallback() {
    let html = serve(|_| Reply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let lite = serve(|_| Reply::ok(vendored("lite-zeta-2026.html"))).await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", html.url());
    cfg.set_base("duckduckgo_lite", lite.url());
    let data = crate::router(cfg).search(&ddg_only()).await;
    assert_eq!(data.engines[0].outcome, OutcomeKind::Ok);
    assert_eq!(lite.hits(), 0);
}

/// Ten quick searches asking only for an engine spaced at 200 ms (not the 1 s, to
/// keep the test short) all answer, each after waiting for its slot; speed is not
/// asserted, only that all answered and the outcome says it waited.
#[tokio::test]
async fn a_spaced_engine_asked_alone_is_waited_for() {
    let ax = serve(|_| Reply::ok(fixture("arxiv/query-missing-id-2025-11-new-format.xml"))).await;
    let mut cfg = crate::config();
    cfg.rate_limits = true;
    cfg.set_base("arxiv", ax.url());
    cfg.set_min_interval("arxiv", std::time::Duration::from_millis(200));
    cfg.timeout = std::time::Duration::from_secs(30);
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("q");
    req.engines = vec!["arxiv".into()];
    let searches = (0..10).map(|_| router.search(&req));
    let all = futures_util::future::join_all(searches).await;
    let outcomes: Vec<_> = all.iter().map(|d| d.engines[0].clone()).collect();
    assert!(
        outcomes.iter().all(|o| o.outcome == OutcomeKind::Ok),
        "{outcomes:?}"
    );
    assert_eq!(ax.hits(), 10);
    let waited = outcomes
        .iter()
        .filter(|o| o.detail.as_deref().is_some_and(|d| d.contains("waited")))
        .count();
    assert!(waited >= 9, "{outcomes:?}");
}

/// In a fan-out the spaced engine is still skipped, and named, while the others answer.
#[tokio::test]
async fn a_spaced_engine_in_a_fan_out_is_skipped_and_named() {
    let ax = serve(|_| Reply::ok(fixture("arxiv/query-missing-id-2025-11-new-format.xml"))).await;
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let mut cfg = crate::config();
    cfg.rate_limits = true;
    cfg.set_base("arxiv", ax.url());
    cfg.set_base("duckduckgo", ddg.url());
    cfg.set_min_interval("arxiv", std::time::Duration::from_secs(60));
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("q");
    req.engines = vec!["arxiv".into(), "duckduckgo".into()];
    let first = router.search(&req).await;
    let second = router.search(&req).await;
    assert!(first.engines.iter().all(|o| o.outcome == OutcomeKind::Ok));
    let arxiv = second.engines.iter().find(|o| o.engine == "arxiv").unwrap();
    assert_eq!(arxiv.outcome, OutcomeKind::Skipped, "{arxiv:?}");
    assert!(arxiv.detail.as_deref().unwrap().contains("rate-limit"));
    assert_eq!(ax.hits(), 1);
}

/// In a fan-out whose other engines all fail, the spaced engine skipped as busy is the
/// only way left to answer: it is asked again, waiting for its slot within the deadline.
#[tokio::test]
async fn a_spaced_engine_is_waited_for_when_every_other_engine_failed() {
    let ax = serve(|_| Reply::ok(fixture("arxiv/query-missing-id-2025-11-new-format.xml"))).await;
    let ddg = serve(|_| Reply::status(503, b"down".to_vec())).await;
    let mut cfg = crate::config();
    cfg.rate_limits = true;
    cfg.set_base("arxiv", ax.url());
    cfg.set_base("duckduckgo", ddg.url());
    cfg.set_base("duckduckgo_lite", ddg.url());
    cfg.set_min_interval("arxiv", std::time::Duration::from_millis(300));
    cfg.timeout = std::time::Duration::from_secs(30);
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("q");
    req.engines = vec!["arxiv".into(), "duckduckgo".into()];
    let first = router.search(&req).await;
    let second = router.search(&req).await;
    let ddg_outcome = second
        .engines
        .iter()
        .find(|o| o.engine == "duckduckgo")
        .unwrap();
    assert_ne!(ddg_outcome.outcome, OutcomeKind::Ok, "{ddg_outcome:?}");
    let arxiv = second.engines.iter().find(|o| o.engine == "arxiv").unwrap();
    assert_eq!(arxiv.outcome, OutcomeKind::Ok, "{arxiv:?}");
    let detail = arxiv.detail.as_deref().unwrap_or_default();
    assert!(detail.contains("asked again"), "{detail}");
    assert!(detail.contains("waited"), "{detail}");
    assert!(!second.hits.is_empty());
    assert_eq!(ax.hits(), 2, "{:?}", first.engines);
}
