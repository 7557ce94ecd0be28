//! A user's cookie file goes to its site's hosts only: a page on the site that redirects
//! to another host sends the cookie on the first hop, and the loopback canary standing
//! for the other host sees no `Cookie` header. Names map to 127.0.0.1 by a fake lookup,
//! so `site.example` and `elsewhere.example` are two loopback servers.

use std::sync::Arc;
use std::time::Duration;

use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_sites::CookieJar;
use trawl_testkit::{Reply, TestNames, TestServer};

const FILE: &str = "# Netscape HTTP Cookie File\n\
    .site.example\tTRUE\t/\tFALSE\t0\tsession\tS3CRET-SESSION\n\
    elsewhere.example\tFALSE\t/\tFALSE\t0\tforeign\tNOT-FOR-SITE\n";

fn fetcher(jar: CookieJar) -> Fetcher {
    let base = Fetcher::with_lookup(
        FetchConfig {
            timeout: Duration::from_secs(5),
            policy: GuardPolicy {
                allow_private_hosts: false,
                allow_hosts: vec![HostRule::parse("127.0.0.1").unwrap()],
            },
            ..FetchConfig::default()
        },
        TestNames::loopback().lookup(),
    )
    .unwrap();
    let jars = vec![jar];
    base.with_cookies(Arc::new(move |url| trawl_sites::cookie_header(&jars, url)))
}

fn cookie(server: &TestServer, path: &str) -> Option<String> {
    server
        .seen()
        .into_iter()
        .find(|s| s.path == path)
        .unwrap_or_else(|| panic!("{path} was not asked for"))
        .headers
        .get("cookie")
        .cloned()
}

#[tokio::test]
async fn a_cookie_file_is_never_sent_to_another_host() {
    let canary = TestServer::start();
    canary.route(
        "/landed",
        Reply::html("<html><body>elsewhere</body></html>"),
    );
    let site = TestServer::start();
    let elsewhere = format!("http://elsewhere.example:{}/landed", canary.addr().port());
    site.route("/page", Reply::redirect(302, &elsewhere));
    // A per-site file: the cookie for elsewhere.example in it is dropped too.
    let jar = CookieJar::parse(FILE, Some("site.example")).unwrap();
    let page = fetcher(jar)
        .fetch(&format!(
            "http://www.site.example:{}/page",
            site.addr().port()
        ))
        .await
        .unwrap();
    assert_eq!(page.final_url.as_str(), elsewhere);
    assert_eq!(
        cookie(&site, "/page").as_deref(),
        Some("session=S3CRET-SESSION")
    );
    assert_eq!(
        cookie(&canary, "/landed"),
        None,
        "the other host got a cookie"
    );
}

#[tokio::test]
async fn a_file_given_without_a_site_still_sends_each_cookie_to_its_own_domain_only() {
    let canary = TestServer::start();
    canary.route(
        "/landed",
        Reply::html("<html><body>elsewhere</body></html>"),
    );
    let site = TestServer::start();
    let third = format!("http://third.example:{}/landed", canary.addr().port());
    site.route("/page", Reply::redirect(302, &third));
    let jar = CookieJar::parse(FILE, None).unwrap();
    fetcher(jar)
        .fetch(&format!("http://site.example:{}/page", site.addr().port()))
        .await
        .unwrap();
    assert_eq!(
        cookie(&site, "/page").as_deref(),
        Some("session=S3CRET-SESSION")
    );
    assert_eq!(cookie(&canary, "/landed"), None);
}
