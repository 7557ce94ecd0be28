//! Site readers inside the read pipeline: chosen by URL before the generic tiers, pinned
//! back to the generic tiers with `sites pin SITE http`, listed by the `sites` tool; login
//! walls refused as `blocked`. Every host is a loopback server (names mapped to 127.0.0.1
//! by a fake lookup), fed with the saved real API responses of `crates/trawl-sites`.

use std::collections::BTreeMap;
use std::time::Duration;

use trawl_agent::tools::{Agent, AgentConfig, PageOut, SitesAction, SitesArgs, WebFetchArgs};
use trawl_core::{ErrorCode, FetchedVia, Lazy, TrawlError};
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_search::{Router, SearchConfig};
use trawl_sites::SiteConfig;
use trawl_store::{SharedStore, SqliteStore, StoreConfig};
use trawl_testkit::{Reply, TestNames, TestServer};
use url::Url;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../trawl-sites/fixtures/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn agent(api: &TestServer, token: Option<&str>) -> Agent {
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
    let router = Router::builder(closed_search_config()).build();
    let base = Url::parse(&api.url("/api/")).unwrap();
    let sites = SiteConfig {
        bases: trawl_sites::all()
            .iter()
            .map(|s| (s.name.to_owned(), base.clone()))
            .collect::<BTreeMap<_, _>>(),
        ..SiteConfig::default()
    };
    Agent::new(
        fetcher,
        store,
        router,
        Vec::new(),
        reqwest::Client::new(),
        AgentConfig::default(),
    )
    .with_sites(Lazy::ready(sites), Lazy::ready(token.map(str::to_owned)))
}

/// One URL through `web_fetch`, as the CLI and MCP read it.
async fn read(agent: &Agent, url: &str, fresh: bool) -> Result<PageOut, TrawlError> {
    let out = agent
        .web_fetch(
            WebFetchArgs {
                url: Some(url.to_owned()),
                fresh: Some(fresh),
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

const ISSUE: &str = "/api/repos/PyGithub/PyGithub/issues/28";

fn github_api() -> TestServer {
    let api = TestServer::start();
    api.route(
        ISSUE,
        Reply::ok(
            "application/json",
            fixture("github/issue-28-pygithub-2025.json"),
        ),
    );
    api.route(
        &format!("{ISSUE}/comments"),
        Reply::ok(
            "application/json",
            fixture("github/issue-28-comments-pygithub-2012.json"),
        ),
    );
    api
}

#[tokio::test]
async fn a_github_issue_is_read_through_the_api_before_the_generic_tiers() {
    let api = github_api();
    let agent = agent(&api, Some("ghp_SECRET"));
    // The page host itself is never asked: only the API stand-in.
    let url = "https://github.com/PyGithub/PyGithub/issues/28".to_owned();
    let doc = read(&agent, &url, false).await.unwrap();
    assert_eq!(doc.fetched_via, FetchedVia::Site);
    assert_eq!(doc.attempts[0].reader, "github");
    assert_eq!(doc.attempts[0].outcome, "ok");
    assert!(
        doc.markdown
            .contains("### roskakori · 2012-05-04T19:23:57Z")
    );
    assert_eq!(
        doc.title.as_deref(),
        Some("Issue created by PyGithub (#28)")
    );
    assert!(
        api.seen().iter().all(
            |s| s.headers.get("authorization").map(String::as_str) == Some("Bearer ghp_SECRET")
        )
    );
    // The site memory counts the reader, and `sites` lists it with the table.
    let out = agent.sites(SitesArgs::default()).await.unwrap();
    let site = out.sites.iter().find(|s| s.site == "github.com").unwrap();
    assert_eq!(site.reader, "github");
    assert_eq!(site.tiers[0].reader, "github");
    let names: Vec<&str> = out.readers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "github",
            "hackernews",
            "stackexchange",
            "wikipedia",
            "reddit",
            "youtube",
            "x"
        ]
    );
}

#[tokio::test]
async fn pinning_a_site_to_http_reads_it_generically() {
    let api = github_api();
    let page = TestServer::start();
    page.route(
        "/PyGithub/PyGithub/issues/28",
        Reply::html(format!(
            "<html><head><title>Issue page</title></head><body><article><h1>The HTML page</h1><p>{}</p></article></body></html>",
            "This is what the generic tiers read from the page itself. ".repeat(20)
        )),
    );
    let agent = agent(&api, None);
    let host_url = format!(
        "http://github.com:{}/PyGithub/PyGithub/issues/28",
        page.addr().port()
    );
    agent
        .sites(SitesArgs {
            action: Some(SitesAction::Pin),
            site: Some("github.com".into()),
            reader: Some("http".into()),
        })
        .await
        .unwrap();
    let doc = read(&agent, &host_url, false).await.unwrap();
    assert_eq!(doc.fetched_via, FetchedVia::Http);
    assert!(doc.markdown.contains("This is what the generic tiers read"));
    assert_eq!(doc.attempts[0].reader, "github");
    assert_eq!(doc.attempts[0].outcome, "not_sent");
    assert!(api.seen().is_empty(), "the API was not asked");
    // Reset: the reader is back.
    agent
        .sites(SitesArgs {
            action: Some(SitesAction::Reset),
            site: Some("github.com".into()),
            reader: None,
        })
        .await
        .unwrap();
    let doc = read(&agent, &host_url, true).await.unwrap();
    assert_eq!(doc.fetched_via, FetchedVia::Site);
}

#[tokio::test]
async fn a_failing_site_api_falls_back_to_the_generic_tiers() {
    let api = TestServer::start();
    api.route(ISSUE, Reply::status(503, "upstream trouble"));
    let page = TestServer::start();
    page.route(
        "/PyGithub/PyGithub/issues/28",
        Reply::html(format!(
            "<html><body><article><p>{}</p></article></body></html>",
            "Generic text of the issue page. ".repeat(30)
        )),
    );
    let agent = agent(&api, None);
    let url = format!(
        "http://github.com:{}/PyGithub/PyGithub/issues/28",
        page.addr().port()
    );
    let doc = read(&agent, &url, false).await.unwrap();
    assert_eq!(doc.fetched_via, FetchedVia::Http);
    assert_eq!(doc.attempts[0].reader, "github");
    assert_eq!(doc.attempts[0].outcome, "http_error");
}

#[tokio::test]
async fn a_rate_limited_reader_says_why_in_the_header_when_the_page_is_fetched_instead() {
    let api = TestServer::start();
    api.route(
        ISSUE,
        Reply::status(429, "slow down").with_header("Retry-After", "5"),
    );
    let page = TestServer::start();
    page.route(
        "/PyGithub/PyGithub/issues/28",
        Reply::html(format!(
            "<html><body><article><p>{}</p></article></body></html>",
            "Generic text of the issue page. ".repeat(30)
        )),
    );
    let agent = agent(&api, None);
    let url = format!(
        "http://github.com:{}/PyGithub/PyGithub/issues/28",
        page.addr().port()
    );
    let out = agent
        .web_fetch(
            WebFetchArgs {
                url: Some(url),
                ..WebFetchArgs::default()
            },
            None,
        )
        .await
        .unwrap();
    let doc = out.results[0].document.as_ref().unwrap();
    assert_eq!(doc.fetched_via, FetchedVia::Http);
    assert_eq!(doc.attempts[0].outcome, "rate_limited");
    let fence = trawl_agent::fence::Fence::new().unwrap();
    let text = trawl_agent::tools::render::fetch_markdown(&out, &fence);
    let line = text
        .lines()
        .find(|l| l.starts_with("via github reader: "))
        .unwrap_or_else(|| panic!("no reader line in:\n{text}"));
    assert!(
        line.contains("HTTP 429") && line.contains("Retry-After: 5"),
        "{line}"
    );
    assert!(line.ends_with("→ fetched the page instead"), "{line}");
    // The API's host is remembered as backing off, and `sites` says until when.
    let sites = agent
        .sites(SitesArgs {
            action: Some(SitesAction::List),
            site: None,
            reader: None,
        })
        .await
        .unwrap();
    let backing = &sites.backing_off;
    assert_eq!(backing.len(), 1, "{backing:?}");
    assert_eq!(backing[0].host, "127.0.0.1");
    assert!(
        backing[0].seconds_left <= 5 && backing[0].until.ends_with(" GMT"),
        "{backing:?}"
    );
    let listed = trawl_agent::tools::render::sites_markdown(&sites, &fence);
    assert!(
        listed.contains("Backing off") && listed.contains("- 127.0.0.1: until "),
        "{listed}"
    );
}

#[tokio::test]
async fn a_login_page_instead_of_the_api_or_the_page_is_a_login_wall_not_content() {
    // Built in the shape of a login page (no saved one found).
    let login = "<!DOCTYPE html><html><head><title>Log in to continue</title></head><body>\
        <h1>Log in to continue</h1><form action=\"/session\" method=\"post\">\
        <input name=\"login\"><input type=\"password\" name=\"password\">\
        <button>Sign in</button></form></body></html>";
    let api = TestServer::start();
    api.route(ISSUE, Reply::html(login));
    let page = TestServer::start();
    page.route("/PyGithub/PyGithub/issues/28", Reply::html(login));
    let agent = agent(&api, None);
    let url = format!(
        "http://github.com:{}/PyGithub/PyGithub/issues/28",
        page.addr().port()
    );
    let err = read(&agent, &url, false).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Blocked);
    assert!(
        err.message.contains("login wall (sign-in form)"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_reddit_listing_is_refused_as_unsupported() {
    let api = TestServer::start();
    let agent = agent(&api, None);
    let err = read(&agent, "https://www.reddit.com/r/rust/", false)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnsupportedContent);
    assert!(err.message.contains("listings"), "{}", err.message);
    assert!(api.seen().is_empty());
}

#[tokio::test]
async fn a_login_wall_is_blocked_never_content() {
    let page = TestServer::start();
    page.route(
        "/@writer/a-story",
        Reply::html(
            "<html><body><article><h1>A story</h1><p>Member-only story</p>\
             <p>Create an account to read the full story.</p><a href='/m/signin'>Sign up to read</a>\
             </article></body></html>",
        ),
    );
    let api = TestServer::start();
    let agent = agent(&api, None);
    let url = format!("http://medium.com:{}/@writer/a-story", page.addr().port());
    let err = read(&agent, &url, false).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Blocked);
    assert!(
        err.message
            .contains("blocked: login wall (medium member-only story)"),
        "{}",
        err.message
    );
}

/// A search configuration whose every engine points at a closed loopback port (bound, then
/// let go), so this agent reaches no engine even outside the test namespace.
fn closed_search_config() -> SearchConfig {
    let port = trawl_testkit::free_port();
    let closed = url::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
    let mut search = SearchConfig::default();
    for engine in trawl_search::engines::all() {
        search.set_base(engine.name(), closed.clone());
    }
    search
}
