//! Hostile and broken pages `fetch_cases` does not cover, each giving a typed outcome: a
//! reset mid-status or mid-body, 502/503, 429 without Retry-After, 402, truncated gzip, a
//! 50 MB body (cut at the cap; the server's byte count proves reading stopped), garbage
//! bytes, a wrong charset, an empty 200.

use std::io::Write;
use std::time::Duration;

use trawl_core::ErrorCode;
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_testkit::{Reply, TestServer};

fn fetcher(max_bytes: u64) -> Fetcher {
    Fetcher::new(FetchConfig {
        timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        max_bytes,
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.1").unwrap()],
        },
        ..FetchConfig::default()
    })
    .unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[tokio::test]
async fn broken_answers_give_typed_errors() {
    let server = TestServer::start();
    let page = b"<html><body><p>a page that is long enough to matter</p></body></html>".repeat(50);
    let mut truncated = gzip(&page);
    truncated.truncate(truncated.len() / 2);
    let cases: Vec<(&str, Reply, &[ErrorCode])> = vec![
        (
            "/reset-body",
            Reply::Raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9000\r\n\r\n<html><body>".to_vec()),
            &[ErrorCode::Upstream],
        ),
        ("/reset-status", Reply::Raw(b"HTTP/1.1 20".to_vec()), &[ErrorCode::Upstream]),
        ("/reset-nothing", Reply::Raw(Vec::new()), &[ErrorCode::Upstream]),
        ("/502", Reply::status(502, "bad gateway"), &[ErrorCode::HttpError]),
        ("/503", Reply::status(503, "unavailable"), &[ErrorCode::HttpError]),
        ("/429", Reply::status(429, "slow down"), &[ErrorCode::RateLimited]),
        ("/402", Reply::status(402, "out of credits"), &[ErrorCode::HttpError]),
        (
            "/gz-truncated",
            Reply::html(truncated).with_header("Content-Encoding", "gzip"),
            &[ErrorCode::Upstream],
        ),
        (
            "/gz-garbage",
            Reply::html(b"this is not gzip at all".to_vec()).with_header("Content-Encoding", "gzip"),
            &[ErrorCode::Upstream],
        ),
    ];
    let f = fetcher(10 * 1024 * 1024);
    for (path, reply, codes) in cases {
        server.route(path, reply);
        let err = f
            .fetch(&server.url(path))
            .await
            .err()
            .unwrap_or_else(|| panic!("{path} was accepted"));
        assert!(
            codes.contains(&err.code),
            "{path}: {:?} {}",
            err.code,
            err.message
        );
    }
    // 5xx are worth a retry, a 429 too; the rest are not.
    let e = f.fetch(&server.url("/503")).await.unwrap_err();
    assert!(e.retryable);
    let e = f.fetch(&server.url("/429")).await.unwrap_err();
    assert!(
        e.retryable && !e.message.contains("Retry-After"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_fifty_megabyte_body_stops_at_the_cap() {
    let server = TestServer::start();
    server.route(
        "/50mb",
        Reply::Trickle {
            body: vec![b'x'; 50 * 1024 * 1024],
            piece: 64 * 1024,
            pause: Duration::ZERO,
        },
    );
    let err = fetcher(2 * 1024 * 1024)
        .fetch(&server.url("/50mb"))
        .await
        .unwrap_err();
    // The declared length is over the cap: refused before reading.
    assert_eq!(err.code, ErrorCode::TooLarge);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let sent = server.body_bytes_sent();
    assert!(sent < 16 * 1024 * 1024, "{sent} bytes were sent");
}

#[tokio::test]
async fn odd_but_valid_bodies_are_fetched_as_they_are() {
    let server = TestServer::start();
    let garbage: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    // Latin-1 bytes (café crème) under a UTF-8 label.
    let latin1 = b"<p>caf\xe9 cr\xe8me</p>".to_vec();
    server.route("/empty", Reply::html(Vec::new()));
    server.route("/garbage", Reply::html(garbage.clone()));
    server.route(
        "/wrong-charset",
        Reply::ok("text/html; charset=utf-8", latin1),
    );
    let f = fetcher(10 * 1024 * 1024);
    let page = f.fetch(&server.url("/empty")).await.unwrap();
    assert_eq!((page.status, page.body.len()), (200, 0));
    let page = f.fetch(&server.url("/garbage")).await.unwrap();
    assert_eq!(page.body.as_ref(), garbage.as_slice());
    let page = f.fetch(&server.url("/wrong-charset")).await.unwrap();
    assert!(!page.body.is_empty());
}
