//! The SSRF table through the real read path (`Fetcher::fetch`): every case of
//! `trawl_testkit::ssrf` directly, behind each redirect status, through a proxy, and a
//! rebinding resolver. Loopback cases aim at a decoy on 127.0.0.1, so a guard failure is a
//! request the decoy saw, not only a wrong error code; the page server sits on 127.0.0.2,
//! the one address opened.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use trawl_core::{ErrorCode, TrawlError};
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule, Lookup};
use trawl_testkit::{Reply, TestNames, TestServer, ssrf};

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

/// The table's names, plus `allowed.test` pointing at the page server's address.
fn lookup() -> Arc<dyn Lookup> {
    TestNames::table(&[ssrf::NAMES, &[("allowed.test", &["127.0.0.2"])]].concat()).lookup()
}

fn assert_refused(result: Result<trawl_fetch::FetchedPage, TrawlError>, what: &str) {
    match result {
        Ok(page) => panic!("{what} was fetched: {} {}", page.status, page.final_url),
        Err(e) => assert!(
            matches!(e.code, ErrorCode::BlockedByPolicy | ErrorCode::InvalidInput),
            "{what}: refused with the wrong code {:?}: {}",
            e.code,
            e.message
        ),
    }
}

#[tokio::test]
async fn every_table_case_is_refused_directly() {
    trawl_testkit::require_isolation!();
    let decoy = TestServer::start_on("127.0.0.1");
    decoy.route("/", Reply::html("reached the decoy"));
    let f = Fetcher::with_lookup(config(&["127.0.0.2"]), lookup()).unwrap();
    let cases = ssrf::cases(decoy.addr().port());
    for case in &cases {
        let what = format!("[{}] {}", case.class, case.url);
        assert_refused(f.fetch(&case.url).await, &what);
    }
    assert!(decoy.seen().is_empty(), "decoy reached: {:?}", decoy.seen());
    assert!(cases.len() >= 100, "{}", cases.len());
    for class in ["v4", "v6", "spelling", "userinfo", "scheme", "name"] {
        assert!(cases.iter().any(|c| c.class == class), "{class}");
    }
}

#[tokio::test]
async fn the_opened_server_is_reachable_so_refusals_mean_something() {
    let server = TestServer::start_on("127.0.0.2");
    server.route("/", Reply::html("<p>fine</p>"));
    server.route("/rel", Reply::redirect(301, "../"));
    let f = Fetcher::with_lookup(config(&["127.0.0.2"]), lookup()).unwrap();
    let port = server.addr().port();
    for url in [
        server.url("/"),
        server.url("/rel"),
        format!("http://allowed.test:{port}/"),
    ] {
        let page = f
            .fetch(&url)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e:?}"));
        assert_eq!(page.status, 200, "{url}");
    }
}

#[tokio::test]
async fn every_redirect_status_into_every_escape_is_refused_at_the_hop() {
    trawl_testkit::require_isolation!();
    let decoy = TestServer::start_on("127.0.0.1");
    decoy.route("/", Reply::html("reached the decoy"));
    let port = decoy.addr().port();
    let server = TestServer::start_on("127.0.0.2");
    let mut routes = Vec::new();
    for status in [301u16, 302, 303, 307, 308] {
        for (i, target) in ssrf::redirect_targets(port).iter().enumerate() {
            let path = format!("/r{status}/{i}");
            server.route(&path, Reply::redirect(status, target));
            routes.push((path, target.clone()));
        }
    }
    // Every table case, behind a 302.
    for (i, case) in ssrf::cases(port).iter().enumerate() {
        if case.url.starts_with("http:") && !case.url.starts_with("http:/") {
            continue; // `http:host` is a relative path when the base is http, not an escape
        }
        if case.url.starts_with("http:/") && !case.url[6..].starts_with(['/', '\\']) {
            continue; // `http:/host` likewise
        }
        let path = format!("/case/{i}");
        server.route(&path, Reply::redirect(302, &case.url));
        routes.push((path, case.url.clone()));
    }
    // Two hops: a legitimate relative hop first, then the escape.
    server.route("/two", Reply::redirect(307, "/r302/0"));
    routes.push(("/two".into(), "/r302/0".into()));
    let f = Fetcher::with_lookup(config(&["127.0.0.2"]), lookup()).unwrap();
    for (path, target) in &routes {
        let what = format!("{path} -> {target}");
        let result = f.fetch(&server.url(path)).await;
        if let Err(e) = &result {
            // Refused at the hop's check, or (names) by the resolver at connect time.
            assert!(
                e.message.contains("redirect from") || e.message.contains("resolves to"),
                "{what}: {}",
                e.message
            );
        }
        assert_refused(result, &what);
    }
    assert!(decoy.seen().is_empty(), "decoy reached: {:?}", decoy.seen());
    assert!(routes.len() >= 150, "{}", routes.len());
}

#[tokio::test]
async fn with_a_proxy_every_literal_and_scheme_case_is_still_refused() {
    trawl_testkit::require_isolation!();
    // The proxy would forward anything; nothing may reach it. Names of the table are left
    // out: with a proxy they are resolved by the proxy, by design (no local DNS leak).
    let proxy = TestServer::start_on("127.0.0.3");
    proxy.route(
        "http://public.example/hop",
        Reply::redirect(302, "http://10.0.0.1/"),
    );
    proxy.route(
        "http://public.example/hop2",
        Reply::redirect(301, "http://[::ffff:169.254.169.254]/"),
    );
    let decoy = TestServer::start_on("127.0.0.1");
    let mut cfg = config(&[]);
    cfg.proxy = Some(proxy.base());
    let f = Fetcher::with_lookup(cfg, lookup()).unwrap();
    let cases: Vec<_> = ssrf::cases(decoy.addr().port())
        .into_iter()
        .filter(|c| !c.fake_dns)
        .collect();
    for case in &cases {
        assert_refused(
            f.fetch(&case.url).await,
            &format!("via proxy [{}] {}", case.class, case.url),
        );
    }
    assert!(proxy.seen().is_empty(), "proxy asked: {:?}", proxy.seen());
    // A public name goes to the proxy; its redirects into private space are refused.
    for url in ["http://public.example/hop", "http://public.example/hop2"] {
        assert_refused(f.fetch(url).await, url);
    }
    assert_eq!(proxy.seen().len(), 2);
    for socks in ["socks5", "socks5h"] {
        let mut cfg = config(&[]);
        cfg.proxy = Some(format!("{socks}://{}", proxy.addr()));
        let f = Fetcher::with_lookup(cfg, lookup()).unwrap();
        for url in ["http://127.0.0.1/", "http://0x7f.1/", "http://[::1]/"] {
            assert_refused(f.fetch(url).await, &format!("{socks} {url}"));
        }
    }
    assert!(decoy.seen().is_empty());
    assert!(cases.len() >= 90, "{}", cases.len());
}

/// Answers `first` on the first lookup and `then` on every later one, counting lookups.
struct Rebinding {
    calls: AtomicUsize,
    first: IpAddr,
    then: IpAddr,
}

impl Lookup for Rebinding {
    fn lookup(
        &self,
        _host: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<Vec<IpAddr>>> + Send>>
    {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let ip = if n == 0 { self.first } else { self.then };
        Box::pin(async move { Ok(vec![ip]) })
    }
}

/// A page server on 127.0.0.2 and a decoy on 127.0.0.1 listening on the same port.
fn same_port_pair() -> (TestServer, TestServer) {
    for _ in 0..20 {
        let server = TestServer::start_on("127.0.0.2");
        let port = server.addr().port();
        if let Ok(decoy) = TestServer::try_start_at(SocketAddr::from(([127, 0, 0, 1], port))) {
            return (server, decoy);
        }
    }
    panic!("no port free on both 127.0.0.1 and 127.0.0.2");
}

#[tokio::test]
async fn a_rebinding_name_is_looked_up_once_and_connected_where_checked() {
    trawl_testkit::require_isolation!();
    let (server, decoy) = same_port_pair();
    let port = server.addr().port();
    server.route("/", Reply::html("<p>the checked address</p>"));
    server.route(
        "/again",
        Reply::redirect(302, &format!("http://rebind.test:{port}/")),
    );
    decoy.route("/", Reply::html("reached the decoy"));
    let lookup = Arc::new(Rebinding {
        calls: AtomicUsize::new(0),
        first: "127.0.0.2".parse().unwrap(),
        then: "127.0.0.1".parse().unwrap(),
    });
    let f = Fetcher::with_lookup(config(&["127.0.0.2/32"]), lookup.clone()).unwrap();
    let page = f
        .fetch(&format!("http://rebind.test:{port}/"))
        .await
        .unwrap();
    assert_eq!(page.body.as_ref(), b"<p>the checked address</p>");
    assert_eq!(
        lookup.calls.load(Ordering::SeqCst),
        1,
        "one lookup per fetch"
    );
    assert_eq!(server.hits("/"), 1);
    // Later lookups answer the decoy: a new connection must be refused, never made.
    let fresh = Fetcher::with_lookup(config(&["127.0.0.2/32"]), lookup.clone()).unwrap();
    assert_refused(
        fresh.fetch(&format!("http://rebind.test:{port}/")).await,
        "second lookup",
    );
    assert_refused(
        fresh.fetch(&server.url("/again")).await,
        "redirect to the rebound name",
    );
    assert!(decoy.seen().is_empty(), "decoy reached: {:?}", decoy.seen());
    assert_eq!(server.hits("/"), 1);
}

#[tokio::test]
async fn a_raw_utf8_location_is_followed_and_checked() {
    trawl_testkit::require_isolation!();
    // Servers send non-ASCII Location headers unencoded; they were once read as missing.
    let decoy = TestServer::start_on("127.0.0.1");
    let server = TestServer::start_on("127.0.0.2");
    server.route("/to-cafe", Reply::redirect(302, "/café?q=ü"));
    server.route("/caf%C3%A9", Reply::html("<p>café</p>"));
    server.route(
        "/to-fullwidth",
        Reply::redirect(
            302,
            &format!(
                "http://\u{ff11}\u{ff12}\u{ff17}.0.0.1:{}/",
                decoy.addr().port()
            ),
        ),
    );
    let f = Fetcher::with_lookup(config(&["127.0.0.2"]), lookup()).unwrap();
    let page = f.fetch(&server.url("/to-cafe")).await.unwrap();
    assert_eq!(page.final_url.path(), "/caf%C3%A9");
    assert_eq!(page.final_url.query(), Some("q=%C3%BC"));
    let err = f.fetch(&server.url("/to-fullwidth")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::BlockedByPolicy, "{}", err.message);
    assert!(decoy.seen().is_empty());
}
