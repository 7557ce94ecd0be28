use std::io::Write;
use std::time::Duration;

use trawl_core::ErrorCode;
use trawl_fetch::{Conditional, FetchConfig, Fetcher, GuardPolicy, HostRule, KeptErrorPage};
use trawl_testkit::{Reply, TestNames, TestServer, minimal_pdf};

fn config(allow: &[&str]) -> FetchConfig {
    FetchConfig {
        timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: allow.iter().map(|h| HostRule::parse(h).unwrap()).collect(),
        },
        ..FetchConfig::default()
    }
}

fn fetcher(allow: &[&str]) -> Fetcher {
    Fetcher::new(config(allow)).unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(data).unwrap();
    }
    out
}

const PAGE: &str =
    "<html><head><title>T</title></head><body><p>compressed body text</p></body></html>";

#[tokio::test]
async fn decodes_gzip_and_brotli() {
    let server = TestServer::start();
    server.route(
        "/gz",
        Reply::html(gzip(PAGE.as_bytes())).with_header("Content-Encoding", "gzip"),
    );
    server.route(
        "/br",
        Reply::html(brotli(PAGE.as_bytes())).with_header("Content-Encoding", "br"),
    );
    let f = fetcher(&["127.0.0.1"]);
    for path in ["/gz", "/br"] {
        let page = f.fetch(&server.url(path)).await.unwrap();
        assert_eq!(page.body.as_ref(), PAGE.as_bytes(), "{path}");
        assert_eq!(page.status, 200);
    }
    let seen = server.seen();
    let accept = &seen[0].headers["accept-encoding"];
    assert!(accept.contains("gzip") && accept.contains("br"), "{accept}");
}

#[tokio::test]
async fn stacked_content_codings_are_decoded_in_order_or_refused() {
    let server = TestServer::start();
    let twice = gzip(&gzip(PAGE.as_bytes()));
    server.route(
        "/gz-gz",
        Reply::html(twice.clone()).with_header("Content-Encoding", "gzip, gzip"),
    );
    server.route(
        "/gz-twice",
        Reply::html(twice)
            .with_header("Content-Encoding", "gzip")
            .with_header("Content-Encoding", "gzip"),
    );
    server.route(
        "/br-gz",
        Reply::html(gzip(&brotli(PAGE.as_bytes()))).with_header("Content-Encoding", "br, gzip"),
    );
    let four = gzip(&gzip(&gzip(&gzip(PAGE.as_bytes()))));
    server.route(
        "/gz-x4",
        Reply::html(four).with_header("Content-Encoding", "gzip, gzip, gzip, gzip"),
    );
    server.route(
        "/compress",
        Reply::html(PAGE).with_header("Content-Encoding", "compress"),
    );
    let f = fetcher(&["127.0.0.1"]);
    for path in ["/gz-gz", "/gz-twice", "/br-gz"] {
        let page = f.fetch(&server.url(path)).await.unwrap();
        assert_eq!(page.body.as_ref(), PAGE.as_bytes(), "{path}");
    }
    for path in ["/gz-x4", "/compress"] {
        let err = f.fetch(&server.url(path)).await.unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::UnsupportedContent,
            "{path}: {}",
            err.message
        );
    }
    // A stack of bombs is held to the body cap like one.
    let bomb = gzip(&gzip(&vec![b' '; 64 << 20]));
    server.route(
        "/bomb",
        Reply::html(bomb).with_header("Content-Encoding", "gzip, gzip"),
    );
    let capped = Fetcher::new(FetchConfig {
        max_bytes: 1 << 20,
        ..config(&["127.0.0.1"])
    })
    .unwrap();
    let err = capped.fetch(&server.url("/bomb")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge, "{}", err.message);
}

#[tokio::test]
async fn follows_a_redirect_chain() {
    let server = TestServer::start();
    server.route("/a", Reply::redirect(301, "/b"));
    server.route("/b", Reply::redirect(302, &server.url("/c")));
    server.route("/c", Reply::redirect(307, "d?x=1"));
    server.route("/d", Reply::html(PAGE));
    let page = fetcher(&["127.0.0.1"])
        .fetch(&server.url("/a"))
        .await
        .unwrap();
    assert_eq!(page.final_url.as_str(), server.url("/d?x=1"));
    assert_eq!(page.redirects.len(), 3);
    assert_eq!(page.requested_url.as_str(), server.url("/a"));
}

#[tokio::test]
async fn refuses_a_redirect_loop_after_ten_hops() {
    let server = TestServer::start();
    server.route("/loop", Reply::redirect(302, "/loop"));
    let err = fetcher(&["127.0.0.1"])
        .fetch(&server.url("/loop"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::HttpError);
    assert!(err.message.contains("redirects"), "{}", err.message);
    assert_eq!(server.hits("/loop"), 11);
}

#[tokio::test]
async fn refuses_redirects_into_private_addresses() {
    trawl_testkit::require_isolation!();
    // The page server listens on 127.0.0.2 and only that address is opened; redirects to
    // 127.0.0.1, 169.254.169.254 and 10.0.0.1 must be refused before any connection.
    let server = TestServer::start_on("127.0.0.2");
    let decoy = TestServer::start_on("127.0.0.1");
    decoy.route("/", Reply::html("reached the decoy"));
    server.route("/to-loopback", Reply::redirect(302, &decoy.url("/")));
    server.route(
        "/to-metadata",
        Reply::redirect(301, "http://169.254.169.254/latest/meta-data/"),
    );
    server.route("/to-private", Reply::redirect(307, "http://10.0.0.1/admin"));
    server.route("/to-odd", Reply::redirect(302, "http://0xa9fea9fe/"));
    let f = fetcher(&["127.0.0.2"]);
    for path in ["/to-loopback", "/to-metadata", "/to-private", "/to-odd"] {
        let err = f.fetch(&server.url(path)).await.unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::BlockedByPolicy,
            "{path}: {}",
            err.message
        );
        assert!(err.message.contains("redirect from"), "{}", err.message);
    }
    assert!(decoy.seen().is_empty(), "the decoy must never be reached");
}

#[tokio::test]
async fn a_name_resolving_to_a_private_address_is_refused_at_connect_time() {
    trawl_testkit::require_isolation!();
    // Literal-IP checks cannot catch this one: the refusal happens in the resolver hook.
    let f = Fetcher::with_lookup(
        config(&[]),
        TestNames::table(&[
            ("intranet.test", &["10.0.0.1"]),
            ("mixed.test", &["93.184.216.34", "10.0.0.7"]),
        ])
        .lookup(),
    )
    .unwrap();
    for url in ["http://intranet.test/", "http://mixed.test/"] {
        let err = f.fetch(url).await.unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::BlockedByPolicy,
            "{url}: {}",
            err.message
        );
    }
}

#[tokio::test]
async fn the_connection_goes_to_the_checked_address() {
    // `pinned.test` is looked up once and its checked address (127.0.0.1, opened by CIDR)
    // is where the request lands.
    let server = TestServer::start();
    server.route("/", Reply::html(PAGE));
    let f = Fetcher::with_lookup(
        config(&["127.0.0.0/8"]),
        TestNames::table(&[("pinned.test", &["127.0.0.1"])]).lookup(),
    )
    .unwrap();
    let url = format!("http://pinned.test:{}/", server.addr().port());
    let page = f.fetch(&url).await.unwrap();
    assert_eq!(page.status, 200);
    assert_eq!(
        server.seen()[0].headers["host"],
        format!("pinned.test:{}", server.addr().port())
    );
}

/// A fetcher keeping error pages refuses the status as any fetcher does, and keeps the
/// page `with_error_pages` answers; a rate limit's answer is not a page to keep.
#[tokio::test]
async fn a_refused_error_page_is_kept_when_asked() {
    let server = TestServer::start();
    server.route(
        "/404",
        Reply::status(404, "<html><body><p>The page moved.</p></body></html>"),
    );
    server.route("/429", Reply::status(429, "slow down"));
    let f = fetcher(&["127.0.0.1"]);
    let kept = KeptErrorPage::default();
    let keeping = f.keeping_error_pages(kept.clone());
    let plain = f.fetch(&server.url("/404")).await.unwrap_err();
    let refused = keeping.fetch(&server.url("/404")).await.unwrap_err();
    assert_eq!(
        (refused.code, refused.retryable, &refused.message),
        (plain.code, plain.retryable, &plain.message)
    );
    let page = kept.take().expect("the 404 page is kept");
    assert!(kept.take().is_none(), "a kept page is taken once");
    let answered = f
        .with_error_pages()
        .fetch(&server.url("/404"))
        .await
        .unwrap();
    assert_eq!(
        (page.status, &page.body, &page.content_type, &page.final_url),
        (
            answered.status,
            &answered.body,
            &answered.content_type,
            &answered.final_url
        )
    );
    assert_eq!(server.hits("/404"), 3);
    // Last: a 429 makes the host back off.
    keeping.fetch(&server.url("/429")).await.unwrap_err();
    assert!(kept.take().is_none(), "a rate limit is not kept");
}

#[tokio::test]
async fn maps_statuses_to_error_codes() {
    let server = TestServer::start();
    server.route("/404", Reply::status(404, "nope"));
    server.route("/410", Reply::status(410, "gone"));
    server.route(
        "/429",
        Reply::status(429, "slow down").with_header("Retry-After", "120"),
    );
    server.route("/500", Reply::status(500, "boom"));
    server.route("/451", Reply::status(451, "legal"));
    let f = fetcher(&["127.0.0.1"]);
    let code = |e: trawl_core::TrawlError| (e.code, e.retryable, e.message);
    let (c, _, _) = code(f.fetch(&server.url("/404")).await.unwrap_err());
    assert_eq!(c, ErrorCode::NotFound);
    let (c, _, _) = code(f.fetch(&server.url("/410")).await.unwrap_err());
    assert_eq!(c, ErrorCode::NotFound);
    let (c, retry, _) = code(f.fetch(&server.url("/500")).await.unwrap_err());
    assert_eq!((c, retry), (ErrorCode::HttpError, true));
    let (c, retry, _) = code(f.fetch(&server.url("/451")).await.unwrap_err());
    assert_eq!((c, retry), (ErrorCode::HttpError, false));
    // Last: the host then backs off for 120 s (see the back-off test below).
    let (c, retry, msg) = code(f.fetch(&server.url("/429")).await.unwrap_err());
    assert_eq!(c, ErrorCode::RateLimited);
    assert!(retry && msg.contains("Retry-After: 120"), "{msg}");
}

#[tokio::test]
async fn a_host_that_asked_to_wait_is_waited_for_or_not_asked_again() {
    let server = TestServer::start();
    server.route(
        "/limited",
        Reply::status(429, "slow down").with_header("Retry-After", "1"),
    );
    server.route("/page", Reply::html("<p>hello</p>"));
    let f = fetcher(&["127.0.0.1"]);
    let err = f.fetch(&server.url("/limited")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::RateLimited);
    assert!(
        f.backoff()
            .until("127.0.0.1", std::time::SystemTime::now())
            .await
            .is_some()
    );
    // Within half the 5 s timeout: the next request to the host waits the second out.
    let started = std::time::Instant::now();
    f.fetch(&server.url("/page")).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.hits("/page"), 1);

    // Past the timeout: refused at once, retryable, saying until when; nothing is sent.
    server.route(
        "/long",
        Reply::status(429, "slow down").with_header("Retry-After", "60"),
    );
    f.fetch(&server.url("/long")).await.unwrap_err();
    let started = std::time::Instant::now();
    let err = f.fetch(&server.url("/page")).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!((err.code, err.retryable), (ErrorCode::RateLimited, true));
    assert!(
        err.message
            .contains("127.0.0.1 asked to be left alone until"),
        "{}",
        err.message
    );
    assert_eq!(server.hits("/page"), 1);
    // A clone (a reader's fetcher, a page fetcher with cookies) shares the table.
    let clone = f.with_cookies(std::sync::Arc::new(|_| None));
    assert_eq!(
        clone.fetch(&server.url("/page")).await.unwrap_err().code,
        ErrorCode::RateLimited
    );
}

/// A back-off under the timeout but over half of it (4 s against the test fetcher's 5 s) is
/// refused at once, `rate_limited`, not waited out: the wait counts against the fetch's
/// deadline, and waited out it left the request one second and ended `timeout`.
#[tokio::test]
async fn a_back_off_over_half_the_timeout_is_refused_not_waited_into_a_timeout() {
    let server = TestServer::start();
    server.route(
        "/limited",
        Reply::status(429, "slow down").with_header("Retry-After", "4"),
    );
    server.route("/page", Reply::html("<p>hello</p>"));
    let f = fetcher(&["127.0.0.1"]);
    f.fetch(&server.url("/limited")).await.unwrap_err();
    let started = std::time::Instant::now();
    let err = f.fetch(&server.url("/page")).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1), "{err:?}");
    assert_eq!((err.code, err.retryable), (ErrorCode::RateLimited, true));
    assert!(
        err.message.contains("more than half the"),
        "{}",
        err.message
    );
    assert_eq!(server.hits("/page"), 0);
}

#[tokio::test]
async fn recognises_a_cloudflare_challenge_and_an_imperva_200_block() {
    let server = TestServer::start();
    server.route(
        "/cf",
        Reply::status(
            403,
            "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>\
             <script src=\"/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1\"></script></body></html>",
        )
        .with_header("Server", "cloudflare")
        .with_header("cf-mitigated", "challenge"),
    );
    server.route(
        "/imperva",
        Reply::html("<html><head><META NAME=\"robots\" CONTENT=\"noindex,nofollow\"></head><body><iframe src=\"/_Incapsula_Resource?SWUDNSAI=9\">Request unsuccessful. Incapsula incident ID: 1-2</iframe></body></html>"),
    );
    let f = fetcher(&["127.0.0.1"]);
    let err = f.fetch(&server.url("/cf")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Blocked);
    assert!(err.message.contains("Cloudflare"), "{}", err.message);
    let err = f.fetch(&server.url("/imperva")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Blocked);
    assert!(err.message.contains("Imperva"), "{}", err.message);
}

#[tokio::test]
async fn stops_reading_a_body_over_the_cap() {
    let server = TestServer::start();
    server.route(
        "/endless",
        Reply::Endless {
            content_type: "text/html".into(),
            chunk: vec![b'a'; 64 * 1024],
        },
    );
    let mut cfg = config(&["127.0.0.1"]);
    cfg.max_bytes = 1024 * 1024;
    let err = Fetcher::new(cfg)
        .unwrap()
        .fetch(&server.url("/endless"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
    // Give the server a moment to notice the closed connection, then check it stopped far
    // short of its (64 GiB) stream: the client did not keep reading.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        server.body_bytes_sent() < 64 * 1024 * 1024,
        "{}",
        server.body_bytes_sent()
    );
}

#[tokio::test]
async fn refuses_a_declared_length_over_the_cap_without_reading() {
    let server = TestServer::start();
    server.route("/big", Reply::html(vec![b'x'; 300_000]));
    let mut cfg = config(&["127.0.0.1"]);
    cfg.max_bytes = 100_000;
    let err = Fetcher::new(cfg)
        .unwrap()
        .fetch(&server.url("/big"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
    let mut cfg = config(&["127.0.0.1"]);
    cfg.max_bytes = 0;
    let page = Fetcher::new(cfg)
        .unwrap()
        .fetch(&server.url("/big"))
        .await
        .unwrap();
    assert_eq!(page.body.len(), 300_000, "0 means no cap");
}

#[tokio::test]
async fn times_out_on_a_hung_or_trickling_server() {
    let server = TestServer::start();
    server.route("/hang", Reply::Hang);
    server.route(
        "/trickle",
        Reply::Trickle {
            body: vec![b'z'; 100],
            piece: 1,
            pause: Duration::from_millis(200),
        },
    );
    let mut cfg = config(&["127.0.0.1"]);
    cfg.timeout = Duration::from_millis(700);
    let f = Fetcher::new(cfg).unwrap();
    for path in ["/hang", "/trickle"] {
        let err = f.fetch(&server.url(path)).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Timeout, "{path}");
        assert!(err.retryable);
    }
}

#[tokio::test]
async fn a_dead_proxy_fails_closed() {
    let server = TestServer::start();
    server.route("/", Reply::html(PAGE));
    // A port that was just free: nothing listens there.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    for scheme in ["http", "socks5", "socks5h"] {
        let mut cfg = config(&["127.0.0.1"]);
        cfg.proxy = Some(format!("{scheme}://{dead}"));
        let err = Fetcher::new(cfg)
            .unwrap()
            .fetch(&server.url("/"))
            .await
            .unwrap_err();
        assert!(
            matches!(err.code, ErrorCode::Upstream | ErrorCode::Timeout),
            "{scheme}: {err:?}"
        );
    }
    assert!(
        server.seen().is_empty(),
        "no direct fallback around the proxy"
    );
}

#[tokio::test]
async fn with_a_proxy_literal_private_ips_are_still_refused_and_names_go_to_the_proxy() {
    // A fake HTTP proxy: it sees the absolute-form request, so the name is never resolved
    // locally (the lookup below panics on any name).
    let proxy = TestServer::start();
    proxy.route("http://example.org/page", Reply::html(PAGE));
    let mut cfg = config(&["127.0.0.1"]);
    cfg.proxy = Some(proxy.base());
    let f = Fetcher::with_lookup(cfg, TestNames::table(&[]).lookup()).unwrap();
    let page = f.fetch("http://example.org/page").await.unwrap();
    assert_eq!(page.body.as_ref(), PAGE.as_bytes());
    assert_eq!(proxy.seen()[0].path, "http://example.org/page");
    for url in [
        "http://10.0.0.1/",
        "http://169.254.169.254/",
        "http://[::1]/",
    ] {
        let err = f.fetch(url).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::BlockedByPolicy, "{url}");
    }
    assert_eq!(proxy.seen().len(), 1);
}

#[tokio::test]
async fn conditional_request_gets_304() {
    let server = TestServer::start();
    server.route(
        "/doc",
        Reply::Full {
            status: 304,
            headers: vec![("ETag".into(), "\"v1\"".into())],
            body: Vec::new(),
        },
    );
    let page = fetcher(&["127.0.0.1"])
        .fetch_conditional(
            &server.url("/doc"),
            &Conditional {
                etag: Some("\"v1\"".into()),
                last_modified: None,
            },
        )
        .await
        .unwrap();
    assert!(page.not_modified());
    assert_eq!(server.seen()[0].headers["if-none-match"], "\"v1\"");
}

#[tokio::test]
async fn serves_pdf_bytes_untouched() {
    let server = TestServer::start();
    let pdf = minimal_pdf("Hello PDF");
    server.route("/doc.pdf", Reply::ok("application/pdf", pdf.clone()));
    let page = fetcher(&["127.0.0.1"])
        .fetch(&server.url("/doc.pdf"))
        .await
        .unwrap();
    assert_eq!(page.body.as_ref(), pdf.as_slice());
    assert_eq!(page.content_type.as_deref(), Some("application/pdf"));
}

const CHALLENGE: &str = "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>\
    <script src=\"/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1\"></script></body></html>";

fn challenge() -> Reply {
    Reply::status(403, CHALLENGE)
        .with_header("Server", "cloudflare")
        .with_header("cf-mitigated", "challenge")
}

#[tokio::test]
async fn never_escalates_on_terminal_answers() {
    let server = TestServer::start();
    server.route(
        "/404",
        Reply::status(404, "nope").with_header("Server", "cloudflare"),
    );
    server.route(
        "/429",
        Reply::status(429, "<title>Just a moment...</title> cf-chl")
            .with_header("Server", "cloudflare")
            .with_header("cf-mitigated", "challenge"),
    );
    server.route("/401", Reply::status(401, "auth required"));
    server.route("/403", Reply::status(403, "forbidden"));
    server.route("/451", Reply::status(451, "legal"));
    let f = fetcher(&["127.0.0.1"]);
    for path in ["/404", "/429", "/401", "/403", "/451"] {
        assert!(f.fetch(&server.url(path)).await.is_err(), "{path}");
        assert_eq!(
            server.hits(path),
            1,
            "{path} must not be retried by another tier"
        );
    }
}

#[cfg(not(feature = "impersonate"))]
#[tokio::test]
async fn a_challenge_without_impersonation_says_so() {
    let server = TestServer::start();
    server.route("/cf", challenge());
    let err = fetcher(&["127.0.0.1"])
        .fetch(&server.url("/cf"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Blocked);
    assert!(err.message.contains("Cloudflare"), "{}", err.message);
    assert!(
        err.message.contains("--features impersonate"),
        "{}",
        err.message
    );
    assert_eq!(server.hits("/cf"), 1);
}

#[cfg(feature = "impersonate")]
#[tokio::test]
async fn a_challenge_escalates_to_browser_impersonation() {
    let server = TestServer::start();
    server.route("/cf", Reply::Sequence(vec![challenge(), Reply::html(PAGE)]));
    let page = fetcher(&["127.0.0.1"])
        .fetch(&server.url("/cf"))
        .await
        .unwrap();
    assert_eq!(page.via, trawl_core::FetchedVia::Impersonate);
    assert_eq!(page.body.as_ref(), PAGE.as_bytes());
    let readers: Vec<(&str, &str)> = page
        .attempts
        .iter()
        .map(|a| (a.reader.as_str(), a.outcome.as_str()))
        .collect();
    assert_eq!(readers, [("http", "blocked"), ("impersonate", "ok")]);
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    // The second request carries a Chrome client-hint header that tier 0 never sends.
    assert!(!seen[0].headers.contains_key("sec-ch-ua"));
    assert!(
        seen[1].headers.contains_key("sec-ch-ua"),
        "{:?}",
        seen[1].headers
    );
}

#[cfg(feature = "impersonate")]
#[tokio::test]
async fn impersonation_obeys_the_guard_too() {
    trawl_testkit::require_isolation!();
    // Tier 0 meets a challenge; tier 1 gets a redirect into the metadata address.
    let server = TestServer::start();
    server.route(
        "/cf",
        Reply::Sequence(vec![
            challenge(),
            Reply::redirect(302, "http://169.254.169.254/"),
        ]),
    );
    let err = fetcher(&["127.0.0.1"])
        .fetch(&server.url("/cf"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::BlockedByPolicy, "{}", err.message);
}

#[tokio::test]
async fn an_api_refusal_keeps_the_apis_own_words_and_its_rate_limit_reset() {
    // Built from the documented shapes: GitHub's exhausted rate limit with today's reset
    // header (403, `x-ratelimit-remaining: 0`, `x-ratelimit-reset`, `message`) and Stack
    // Exchange's throttle (400, `error_message`). GitHub's recorded refusals (PyGithub's,
    // without a reset, and its secondary limit) are served to the GitHub reader in
    // trawl-sites' loopback tests.
    let reset = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 600;
    let server = TestServer::start();
    server.route(
        "/repos/a/b",
        Reply::status(
            403,
            r#"{"message":"API rate limit exceeded for 203.0.113.10.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}"#,
        )
        .with_header("Content-Type", "application/json")
        .with_header("x-ratelimit-remaining", "0")
        .with_header("x-ratelimit-reset", &reset.to_string()),
    );
    let f = fetcher(&["127.0.0.1"]);
    let url = url::Url::parse(&server.url("/repos/a/b")).unwrap();
    let err = f
        .fetch_api(&url, reqwest::header::HeaderMap::new())
        .await
        .unwrap_err();
    assert!(
        err.message
            .ends_with(": API rate limit exceeded for 203.0.113.10."),
        "{}",
        err.message
    );
    assert_eq!(err.code, ErrorCode::RateLimited, "{}", err.message);
    let until = f
        .backoff()
        .until("127.0.0.1", std::time::SystemTime::now())
        .await
        .expect("backing off");
    let left = until
        .duration_since(std::time::SystemTime::now())
        .unwrap()
        .as_secs();
    assert!((590..=600).contains(&left), "{left}");

    let server = TestServer::start();
    server.route(
        "/2.3/questions/1",
        Reply::status(
            400,
            r#"{"error_id":502,"error_message":"too many requests from this IP, more requests available in 82089 seconds","error_name":"throttle_violation"}"#,
        )
        .with_header("Content-Type", "application/json; charset=utf-8"),
    );
    let url = url::Url::parse(&server.url("/2.3/questions/1")).unwrap();
    let err = fetcher(&["127.0.0.1"])
        .fetch_api(&url, reqwest::header::HeaderMap::new())
        .await
        .unwrap_err();
    assert!(
        err.message.contains("HTTP 400")
            && err
                .message
                .contains("more requests available in 82089 seconds"),
        "{}",
        err.message
    );
}
