//! The fault modes `faults.rs` does not cover, served byte for byte by trawl-testkit's
//! loopback server: a reset mid-body or mid-status, 502/503, 429 without Retry-After, 402
//! with a credit message, truncated gzip, a 50 MB body, a never-ending chunked body, a
//! slowloris trickle, a wrong charset, a redirect loop, an empty 200. Each one gives a typed
//! outcome, the healthy engine's ten results survive beside it, and for the big bodies the
//! server's own count of bytes sent proves the client stopped reading at its cap.

use std::io::Write;
use std::time::Duration;

use trawl_search::{EngineOutcome, OutcomeKind, SearchData, SearchRequest};
use trawl_testkit::{Reply, TestServer};

use crate::support::{Reply as FakeReply, fixture, serve};

/// DuckDuckGo serving its real page, plus `name` served by `faulty` (with `keys`, if any).
async fn search_beside(
    name: &str,
    faulty: &TestServer,
    keys: &[String],
    timeout_ms: u64,
) -> SearchData {
    let ddg = serve(|_| FakeReply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let mut cfg = crate::config();
    if !keys.is_empty() {
        cfg.set_keys(name, keys.to_vec());
    }
    cfg.set_base("duckduckgo", ddg.url());
    cfg.set_base(name, url::Url::parse(&faulty.base()).unwrap());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("openclaw");
    req.engines = vec!["duckduckgo".into(), name.into()];
    req.timeout_ms = Some(timeout_ms);
    let data = router.search(&req).await;
    let healthy = outcome(&data, "duckduckgo");
    assert_eq!(healthy.outcome, OutcomeKind::Ok, "{healthy:?}");
    assert_eq!(healthy.count, 10, "{healthy:?}");
    assert!(data.hits.len() >= 10, "{}", data.hits.len());
    assert!(!data.all_failed());
    data
}

fn outcome<'a>(data: &'a SearchData, engine: &str) -> &'a EngineOutcome {
    data.engines.iter().find(|o| o.engine == engine).unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Every route of `server` answers `reply`.
fn serving(reply: Reply) -> TestServer {
    let s = TestServer::start();
    s.route("/", reply.clone());
    // Engines append their own paths; the bare-path fallback of TestServer needs each.
    for p in [
        "/search",
        "/html/",
        "/w/api.php",
        "/api/query",
        "/api/v1/query",
    ] {
        s.route(p, reply.clone());
    }
    s
}

#[tokio::test]
async fn a_connection_reset_mid_body_or_mid_status_is_a_transport_error() {
    for raw in [
        &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n<html><body><div class="[..],
        &b"HTTP/1.1 20"[..],
        &b""[..],
    ] {
        let s = serving(Reply::Raw(raw.to_vec()));
        let data = search_beside("mojeek", &s, &[], 8000).await;
        let o = outcome(&data, "mojeek");
        assert_eq!(o.outcome, OutcomeKind::HttpError, "{o:?}");
        assert_eq!(o.status, None, "{o:?}");
        assert_eq!(s.seen().len(), 2, "a transport error is retried once");
    }
}

#[tokio::test]
async fn bad_gateway_and_unavailable_are_http_errors_with_status() {
    for status in [502u16, 503] {
        let s = serving(Reply::status(status, "<h1>upstream down</h1>"));
        let data = search_beside("mojeek", &s, &[], 8000).await;
        let o = outcome(&data, "mojeek");
        assert_eq!(
            (o.outcome, o.status),
            (OutcomeKind::HttpError, Some(status))
        );
        assert_eq!(s.seen().len(), 2, "{status} is retried once");
    }
}

#[tokio::test]
async fn too_many_requests_without_retry_after_is_rate_limited_once() {
    let s = serving(Reply::status(429, "slow down"));
    let data = search_beside("mojeek", &s, &[], 8000).await;
    let o = outcome(&data, "mojeek");
    assert_eq!(o.outcome, OutcomeKind::RateLimited, "{o:?}");
    assert!(
        !o.detail.as_deref().unwrap_or("").contains("retry after"),
        "{o:?}"
    );
    assert_eq!(s.seen().len(), 1);
}

#[tokio::test]
async fn payment_required_with_a_credit_message_is_quota_exhausted() {
    let s = serving(
        Reply::status(
            402,
            r#"{"error":"You have run out of credits. Top up at https://example.com/billing"}"#,
        )
        .with_header("Content-Type", "application/json"),
    );
    let key = "credit-key-0000aaaa".to_owned();
    let data = search_beside("serper", &s, std::slice::from_ref(&key), 8000).await;
    let o = outcome(&data, "serper");
    assert_eq!(o.outcome, OutcomeKind::QuotaExhausted, "{o:?}");
    assert!(!o.detail.as_deref().unwrap_or("").contains(&key));
    assert_eq!(s.seen().len(), 1, "402 is not retried with the same key");
}

#[tokio::test]
async fn truncated_gzip_is_a_typed_failure() {
    let page = fixture("bing/legacy-2020-bisoncorps-bing.html");
    let mut body = gzip(&page);
    body.truncate(body.len() / 3);
    let s = serving(Reply::html(body).with_header("Content-Encoding", "gzip"));
    let data = search_beside("bing", &s, &[], 8000).await;
    let o = outcome(&data, "bing");
    assert!(
        matches!(o.outcome, OutcomeKind::HttpError | OutcomeKind::ParseError),
        "{o:?}"
    );
}

#[tokio::test]
async fn a_fifty_megabyte_body_is_cut_at_the_cap_and_not_read_further() {
    const FIFTY_MB: usize = 50 * 1024 * 1024;
    // Trickle with no pause: a declared 50 MB body, counted as it is written.
    let s = serving(Reply::Trickle {
        body: vec![b'a'; FIFTY_MB],
        piece: 64 * 1024,
        pause: Duration::ZERO,
    });
    let data = search_beside("mojeek", &s, &[], 8000).await;
    let o = outcome(&data, "mojeek");
    assert!(
        o.outcome == OutcomeKind::ParseError
            && o.detail.as_deref().unwrap_or("").contains("body cut"),
        "{o:?}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The cap is 5 MiB; socket buffers may hold a few MiB more, never the rest.
    let sent = s.body_bytes_sent() as usize;
    assert!(sent < 20 * 1024 * 1024, "{sent} bytes were sent");
}

#[tokio::test]
async fn a_never_ending_chunked_body_is_cut_at_the_cap() {
    let s = serving(Reply::Endless {
        content_type: "text/html".into(),
        // Plain bytes: parsing stays cheap, so the cap (not the deadline) ends it.
        chunk: vec![b'a'; 64 * 1024],
    });
    let data = search_beside("mojeek", &s, &[], 8000).await;
    let o = outcome(&data, "mojeek");
    assert!(
        o.detail.as_deref().unwrap_or("").contains("body cut"),
        "{o:?}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let sent = s.body_bytes_sent() as usize;
    assert!(sent < 20 * 1024 * 1024, "{sent} bytes were sent");
}

#[tokio::test]
async fn a_slowloris_trickle_times_out_at_the_deadline() {
    let s = serving(Reply::Trickle {
        body: fixture("bing/legacy-2020-bisoncorps-bing.html"),
        piece: 16,
        pause: Duration::from_millis(200),
    });
    let data = search_beside("bing", &s, &[], 1500).await;
    let o = outcome(&data, "bing");
    assert_eq!(o.outcome, OutcomeKind::Timeout, "{o:?}");
    assert!(s.body_bytes_sent() < fixture("bing/legacy-2020-bisoncorps-bing.html").len() as u64);
}

#[tokio::test]
async fn a_wrong_charset_gives_a_typed_outcome() {
    // JSON that is not UTF-8 (windows-1251 bytes) although the header says UTF-8.
    let (json, _, _) = encoding_rs::WINDOWS_1251.encode(
        r#"{"batchcomplete":"","query":{"search":[{"title":"Привет","pageid":1,"snippet":"мир"}]}}"#,
    );
    let s = serving(Reply::ok(
        "application/json; charset=utf-8",
        json.into_owned(),
    ));
    let data = search_beside("wikipedia", &s, &[], 8000).await;
    let o = outcome(&data, "wikipedia");
    assert!(
        matches!(
            o.outcome,
            OutcomeKind::ParseError | OutcomeKind::Ok | OutcomeKind::Empty
        ),
        "{o:?}"
    );
    // An HTML page labelled with a charset it is not in: parsed anyway, results kept.
    let s = serving(Reply::ok(
        "text/html; charset=iso-8859-1",
        fixture("bing/legacy-2020-bisoncorps-bing.html"),
    ));
    let data = search_beside("bing", &s, &[], 8000).await;
    let o = outcome(&data, "bing");
    assert_eq!(o.outcome, OutcomeKind::Ok, "{o:?}");
}

#[tokio::test]
async fn a_redirect_loop_is_an_http_error() {
    let s = TestServer::start();
    for p in ["/", "/search"] {
        s.route(p, Reply::redirect(302, "/search?again=1"));
    }
    let data = search_beside("mojeek", &s, &[], 8000).await;
    let o = outcome(&data, "mojeek");
    assert_eq!(o.outcome, OutcomeKind::HttpError, "{o:?}");
    // At most 11 hops per attempt (the test client's default policy), one retry.
    assert!(s.seen().len() <= 22, "the loop was cut: {}", s.seen().len());
}

#[tokio::test]
async fn an_empty_200_is_empty_or_a_parse_error_never_ok() {
    for (engine, ct) in [
        ("mojeek", "text/html"),
        ("wikipedia", "application/json"),
        ("arxiv", "application/atom+xml"),
    ] {
        let s = serving(Reply::ok(ct, Vec::new()));
        let data = search_beside(engine, &s, &[], 8000).await;
        let o = outcome(&data, engine);
        assert!(
            matches!(o.outcome, OutcomeKind::Empty | OutcomeKind::ParseError),
            "{engine}: {o:?}"
        );
        assert_eq!(o.count, 0);
    }
}
