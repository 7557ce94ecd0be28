//! The user's cookies and X's session inside the read pipeline: a cookies file's cookies
//! go with a page read to their site only (a redirect to another host carries none: the
//! loopback canary standing for it sees no `Cookie`), and without an X session the X
//! reader is skipped and the generic tiers read the post's page. Every host is a loopback
//! server (names mapped to 127.0.0.1 by a fake lookup).

use std::time::Duration;

use trawl_agent::tools::{Agent, AgentConfig, PageOut, WebFetchArgs};
use trawl_core::{FetchedVia, Lazy, TrawlError};
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_search::{Router, SearchConfig};
use trawl_sites::{CookieJar, SiteConfig};
use trawl_store::{SharedStore, SqliteStore, StoreConfig};
use trawl_testkit::{Reply, TestNames, TestServer};

fn agent(sites: SiteConfig) -> Agent {
    let fetcher = Fetcher::with_lookup(
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
    let store = SharedStore::new(SqliteStore::open_in_memory(StoreConfig::default()).unwrap());
    let router = Router::builder(SearchConfig::default()).build();
    Agent::new(
        fetcher,
        store,
        router,
        Vec::new(),
        reqwest::Client::new(),
        AgentConfig::default(),
    )
    .with_sites(Lazy::ready(sites), Lazy::ready(None))
}

async fn read(agent: &Agent, url: &str) -> Result<PageOut, TrawlError> {
    let out = agent
        .web_fetch(
            WebFetchArgs {
                url: Some(url.to_owned()),
                fresh: Some(true),
                ..WebFetchArgs::default()
            },
            None,
        )
        .await?;
    let item = out.results.into_iter().next().expect("one result");
    match (item.document, item.error) {
        (Some(doc), _) => Ok(doc),
        (None, Some(e)) => Err(TrawlError::new(e.code, e.message)),
        (None, None) => panic!("neither a document nor an error"),
    }
}

fn article(words: &str) -> Reply {
    Reply::html(format!(
        "<html><head><title>Page</title></head><body><article><h1>Page</h1><p>{}</p></article></body></html>",
        words.repeat(30)
    ))
}

#[tokio::test]
async fn a_cookies_file_goes_to_its_site_and_never_follows_a_redirect_elsewhere() {
    let canary = TestServer::start();
    canary.route("/landed", article("The other host's page. "));
    let site = TestServer::start();
    site.route(
        "/own",
        article("The site's own page, read with the user's cookie. "),
    );
    let elsewhere = format!("http://elsewhere.example:{}/landed", canary.addr().port());
    site.route("/away", Reply::redirect(302, &elsewhere));
    let file = ".site.example\tTRUE\t/\tFALSE\t0\tsession\tS3CRET-SESSION\n";
    let agent = agent(SiteConfig {
        cookies: vec![CookieJar::parse(file, Some("site.example")).unwrap()],
        ..SiteConfig::default()
    });
    let port = site.addr().port();
    let doc = read(&agent, &format!("http://site.example:{port}/own"))
        .await
        .unwrap();
    assert!(doc.markdown.contains("read with the user's cookie"));
    let doc = read(&agent, &format!("http://www.site.example:{port}/away"))
        .await
        .unwrap();
    assert!(doc.markdown.contains("The other host's page"));
    let cookie_on = |server: &TestServer, path: &str| {
        server
            .seen()
            .into_iter()
            .filter(|s| s.path == path)
            .map(|s| s.headers.get("cookie").cloned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        cookie_on(&site, "/own"),
        [Some("session=S3CRET-SESSION".to_owned())]
    );
    assert_eq!(
        cookie_on(&site, "/away"),
        [Some("session=S3CRET-SESSION".to_owned())]
    );
    let landed = cookie_on(&canary, "/landed");
    assert!(!landed.is_empty(), "the canary was reached");
    assert!(
        landed.iter().all(Option::is_none),
        "the other host got a cookie: {landed:?}"
    );
    // Nothing of the cookie is in the answer.
    assert!(!format!("{doc:?}").contains("S3CRET"));
}

#[tokio::test]
async fn without_an_x_session_the_x_reader_is_skipped_and_the_page_read_generically() {
    let page = TestServer::start();
    page.route(
        "/XDevelopers/status/1649191520250245121",
        article("The post's page as the generic tiers read it. "),
    );
    let agent = agent(SiteConfig::default());
    let url = format!(
        "http://x.com:{}/XDevelopers/status/1649191520250245121",
        page.addr().port()
    );
    let doc = read(&agent, &url).await.unwrap();
    assert_eq!(doc.fetched_via, FetchedVia::Http);
    assert_eq!(doc.attempts[0].reader, "x");
    assert_eq!(doc.attempts[0].outcome, "not_sent");
    assert!(
        doc.attempts[0]
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("TRAWL_X_COOKIES_FILE")),
        "{:?}",
        doc.attempts
    );
}
