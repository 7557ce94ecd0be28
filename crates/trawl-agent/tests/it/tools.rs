//! The agent tools as a library, against loopback engines, pages and readers.

use std::time::Duration;

use trawl_agent::tools::{
    Agent, AgentConfig, ReaderConfig, ReaderKind, WebCrawlArgs, WebFetchArgs, WebOpenArgs,
    WebSearchArgs, input_schema,
};
use trawl_core::ErrorCode;
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_search::{Router, SearchConfig};
use trawl_store::{SharedStore, SqliteStore, StoreConfig};
use trawl_testkit::{Reply, TestServer};
use url::Url;

const SEARXNG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/serp/searxng/search-python-format-json.json"
);

/// A loopback base URL on which nothing listens (the port was bound, then let go).
fn closed_loopback_base() -> Url {
    let port = trawl_testkit::free_port();
    Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap()
}

/// A search configuration whose every engine points at a closed loopback port: an agent
/// built for reading reaches no engine, even outside the test namespace.
fn closed_search_config() -> SearchConfig {
    let closed = closed_loopback_base();
    let mut search = SearchConfig::default();
    for engine in trawl_search::engines::all() {
        search.set_base(engine.name(), closed.clone());
    }
    search
}

fn agent(searxng: Option<&TestServer>) -> Agent {
    let fetcher = Fetcher::new(FetchConfig {
        timeout: Duration::from_secs(5),
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.1").unwrap()],
        },
        ..FetchConfig::default()
    })
    .unwrap();
    let store = SharedStore::new(SqliteStore::open_in_memory(StoreConfig::default()).unwrap());
    // Every engine points at a closed loopback port, so a call that should have been
    // refused before any request reaches nothing even outside the test namespace.
    let mut search = SearchConfig {
        rate_limits: false,
        ..closed_search_config()
    };
    if let Some(s) = searxng {
        search.set_base("searxng", Url::parse(&s.base()).unwrap());
    }
    let router = Router::builder(search).build();
    Agent::new(
        fetcher,
        store,
        router,
        Vec::new(),
        reqwest::Client::new(),
        AgentConfig::default(),
    )
}

#[tokio::test]
async fn a_complete_search_answer_is_cached() {
    let engine = TestServer::start();
    engine.route(
        "/search",
        Reply::ok("application/json", std::fs::read(SEARXNG).unwrap()),
    );
    let agent = agent(Some(&engine));
    let args = WebSearchArgs {
        query: "python".into(),
        engines: Some(vec!["searxng".into()]),
        ..WebSearchArgs::default()
    };
    let first = agent.web_search(args.clone()).await.unwrap();
    assert!(!first.hits.is_empty());
    assert_eq!(first.hits[0].url, "https://www.python.org/");
    let second = agent
        .web_search(WebSearchArgs {
            query: "PYTHON".into(),
            ..args
        })
        .await
        .unwrap();
    assert_eq!(
        engine.seen().len(),
        1,
        "the second answer came from the cache"
    );
    assert_eq!(second.hits.len(), first.hits.len());
    assert!(
        second.engines[0]
            .detail
            .as_deref()
            .unwrap_or("")
            .contains("search cache")
    );
}

#[tokio::test]
async fn a_failed_search_is_not_cached_and_every_failure_is_an_error() {
    let engine = TestServer::start();
    engine.route(
        "/search",
        Reply::Sequence(vec![
            Reply::status(500, "boom"),
            Reply::status(500, "boom"),
            Reply::ok("application/json", std::fs::read(SEARXNG).unwrap()),
        ]),
    );
    let agent = agent(Some(&engine));
    let args = WebSearchArgs {
        query: "python".into(),
        engines: Some(vec!["searxng".into()]),
        ..WebSearchArgs::default()
    };
    let err = agent.web_search(args.clone()).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert!(err.message.contains("searxng"), "{}", err.message);
    let ok = agent.web_search(args).await.unwrap();
    assert!(!ok.hits.is_empty(), "the failure was not cached");
}

#[tokio::test]
async fn read_top_attaches_handles_and_query_aware_previews() {
    let pages = TestServer::start();
    let body = format!(
        "<html><head><title>Snakes</title></head><body><article><h1>Snakes</h1><p>{}</p><p>{}</p></article></body></html>",
        "Garden snakes eat slugs and live under stones in the garden. ".repeat(30),
        "The python interpreter reads bytecode compiled from source files. ".repeat(10)
    );
    pages.route("/python", Reply::html(body));
    let engine = TestServer::start();
    let answer = serde_json::json!({
        "query": "python interpreter",
        "results": [
            {"url": pages.url("/python"), "title": "Snakes", "content": "a page", "engine": "bing", "engines": ["bing"]},
        ]
    });
    engine.route("/search", Reply::ok("application/json", answer.to_string()));
    let agent = agent(Some(&engine));
    let data = agent
        .web_search(WebSearchArgs {
            query: "python interpreter".into(),
            engines: Some(vec!["searxng".into()]),
            read_top: Some(1),
            ..WebSearchArgs::default()
        })
        .await
        .unwrap();
    let hit = &data.hits[0];
    let handle = hit.handle.clone().expect("a handle after read_top");
    let preview = hit.preview.clone().unwrap();
    assert!(
        preview.contains("interpreter"),
        "the preview matches the query: {preview}"
    );
    assert!(
        !preview.starts_with("Garden snakes"),
        "not the first characters: {preview}"
    );
    let open = agent
        .web_open(WebOpenArgs {
            handle: Some(handle),
            ..WebOpenArgs::default()
        })
        .await
        .unwrap();
    assert!(open.markdown.unwrap().contains("bytecode"));
}

/// `read_max_tokens` turns each read hit's preview into a query-focused read: the matching
/// passages within the budget, with its figures in `extra.focus`.
#[tokio::test]
async fn read_top_with_a_budget_gives_the_matching_passages() {
    let pages = TestServer::start();
    let mut body =
        String::from("<html><head><title>Snakes</title></head><body><article><h1>Snakes</h1>");
    for topic in ["Gardens", "Ponds", "Compilers", "Forests"] {
        body.push_str(&format!("<h2>{topic}</h2>"));
        for i in 0..12 {
            body.push_str(&format!(
                "<p>Note {i} on {topic}: snakes of many kinds live here and there, quietly.</p>"
            ));
        }
        if topic == "Compilers" {
            body.push_str(
                "<p>The python interpreter reads bytecode compiled from source files.</p>",
            );
        }
    }
    body.push_str("</article></body></html>");
    pages.route("/python", Reply::html(body));
    let engine = TestServer::start();
    let answer = serde_json::json!({
        "query": "python interpreter bytecode",
        "results": [
            {"url": pages.url("/python"), "title": "Snakes", "content": "a page", "engine": "bing", "engines": ["bing"]},
        ]
    });
    engine.route("/search", Reply::ok("application/json", answer.to_string()));
    let agent = agent(Some(&engine));
    let args = WebSearchArgs {
        query: "python interpreter bytecode".into(),
        engines: Some(vec!["searxng".into()]),
        read_top: Some(1),
        read_max_tokens: Some(250),
        ..WebSearchArgs::default()
    };
    let data = agent.web_search(args.clone()).await.unwrap();
    let hit = &data.hits[0];
    let preview = hit.preview.clone().unwrap();
    assert!(
        preview.contains("The python interpreter reads bytecode"),
        "{preview}"
    );
    assert!(!preview.contains("on Gardens"), "{preview}");
    let focus = &hit.extra.as_ref().unwrap()["focus"];
    assert!(focus["tokens"].as_u64().unwrap() <= 250, "{focus}");
    assert!(focus["left_out_tokens"].as_u64().unwrap() > 0, "{focus}");
    let err = agent
        .web_search(WebSearchArgs {
            read_top: Some(0),
            ..args
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
}

const CHALLENGE: &str = "<html><head><title>Just a moment...</title></head><body><script src=\"/cdn-cgi/challenge-platform/x\"></script></body></html>";

/// An agent whose page fetches and reader calls all go through `web`, a loopback proxy
/// that answers for public-looking names: hosted readers are only told about public hosts.
fn agent_behind_proxy(web: &TestServer, reader_base: &str) -> Agent {
    let fetcher = Fetcher::new(FetchConfig {
        timeout: Duration::from_secs(5),
        proxy: Some(web.base()),
        ..FetchConfig::default()
    })
    .unwrap();
    let store = SharedStore::new(SqliteStore::open_in_memory(StoreConfig::default()).unwrap());
    let router = Router::builder(closed_search_config()).build();
    let client = reqwest::Client::builder()
        .no_proxy()
        .proxy(reqwest::Proxy::all(web.base()).unwrap())
        .build()
        .unwrap();
    Agent::new(
        fetcher,
        store,
        router,
        vec![ReaderConfig::new(
            ReaderKind::Jina,
            Url::parse(reader_base).unwrap(),
            Vec::new(),
        )],
        client,
        AgentConfig::default(),
    )
}

#[tokio::test]
async fn a_site_where_a_reader_worked_goes_to_that_reader_first() {
    let web = TestServer::start();
    let target = "http://site.trawl-fixture.net/a".to_owned();
    web.route(
        &target,
        Reply::status(403, CHALLENGE)
            .with_header("Server", "cloudflare")
            .with_header("cf-mitigated", "challenge"),
    );
    let reader_base = "http://reader.trawl-fixture.net/";
    let content = serde_json::json!({
        "code": 200,
        "data": {"title": "A", "url": target, "content": "Reader text. ".repeat(60)}
    });
    web.route(
        &format!("{reader_base}{target}"),
        Reply::ok("application/json", content.to_string()),
    );
    let agent = agent_behind_proxy(&web, reader_base);
    let fetch = |fresh| WebFetchArgs {
        url: Some(target.clone()),
        fresh: Some(fresh),
        ..WebFetchArgs::default()
    };
    let first = agent.web_fetch(fetch(false), None).await.unwrap();
    let doc = first.results[0].document.as_ref().unwrap();
    assert_eq!(
        serde_json::to_value(doc.fetched_via).unwrap(),
        serde_json::json!("jina"),
        "{:?}",
        doc.attempts
    );
    assert_eq!(web.hits(&target), 1);
    let second = agent.web_fetch(fetch(true), None).await.unwrap();
    let doc = second.results[0].document.as_ref().unwrap();
    assert_eq!(doc.attempts[0].reader, "jina");
    assert_eq!(
        web.hits(&target),
        1,
        "the remembered reader went first: no doomed request"
    );
}

#[tokio::test]
async fn bad_arguments_name_the_field() {
    let agent = agent(None);
    let cases: Vec<(WebFetchArgs, &str)> = vec![
        (WebFetchArgs::default(), "url"),
        (
            WebFetchArgs {
                url: Some("http://a/".into()),
                handle: Some("a~0123456789ab".into()),
                ..WebFetchArgs::default()
            },
            "url",
        ),
        (
            WebFetchArgs {
                urls: Some((0..21).map(|i| format!("http://x{i}.example/")).collect()),
                ..WebFetchArgs::default()
            },
            "urls",
        ),
        (
            WebFetchArgs {
                handle: Some("nope".into()),
                ..WebFetchArgs::default()
            },
            "handle",
        ),
        (
            WebFetchArgs {
                url: Some(closed_loopback_base().to_string()),
                page: Some(0),
                ..WebFetchArgs::default()
            },
            "page",
        ),
    ];
    for (args, field) in cases {
        let err = agent.web_fetch(args, None).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.contains(field), "{field}: {}", err.message);
    }
    let err = agent
        .web_search(WebSearchArgs {
            query: " ".into(),
            ..WebSearchArgs::default()
        })
        .await
        .unwrap_err();
    assert!(err.message.contains("query"));
    let err = agent
        .web_search(WebSearchArgs {
            query: "x".into(),
            max_results: Some(0),
            ..WebSearchArgs::default()
        })
        .await
        .unwrap_err();
    assert!(err.message.contains("max_results"));
    let err = agent
        .web_search(WebSearchArgs {
            query: "x".into(),
            engines: Some(vec!["altavista".into()]),
            ..WebSearchArgs::default()
        })
        .await
        .unwrap_err();
    assert!(err.message.contains("engines"));
    let err = agent
        .web_open(WebOpenArgs {
            find: Some("x".into()),
            ..WebOpenArgs::default()
        })
        .await
        .unwrap_err();
    assert!(err.message.contains("handle"));
}

/// A site whose page needed the browser goes straight to it next time (site memory), in
/// scripts/test's namespace with Debian's chromium (a failure under CI without it).
#[tokio::test]
async fn a_site_that_needed_rendering_is_remembered() {
    trawl_testkit::require_isolation!();
    trawl_testkit::require_chromium!();
    if !trawl_fetch::RENDER_AVAILABLE {
        assert!(
            !trawl_testkit::in_ci(),
            "CI: rendering must be compiled in (trawl-fetch's `render` feature)"
        );
        eprintln!("skipped: rendering not compiled in");
        return;
    }
    let site = TestServer::start();
    let shell = format!(
        r#"<html><body><div id="root"></div><script>document.getElementById('root').innerHTML =
        '<article><h1>Built by script</h1><p>' + {:?}.repeat(20) + '</p></article>';</script></body></html>"#,
        "Words that only a browser will ever see on this page. "
    );
    site.route("/one", Reply::html(shell.clone()));
    site.route("/two", Reply::html(shell));
    let fetcher = Fetcher::new(FetchConfig {
        timeout: Duration::from_secs(10),
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.1").unwrap()],
        },
        render: trawl_fetch::RenderConfig {
            mode: trawl_fetch::RenderMode::Auto,
            ..trawl_fetch::RenderConfig::default()
        },
        ..FetchConfig::default()
    })
    .unwrap();
    let store = SharedStore::new(SqliteStore::open_in_memory(StoreConfig::default()).unwrap());
    let router = Router::builder(closed_search_config()).build();
    let agent = Agent::new(
        fetcher.clone(),
        store,
        router,
        Vec::new(),
        reqwest::Client::new(),
        AgentConfig::default(),
    );
    let read = |path: &str| WebFetchArgs {
        url: Some(site.url(path)),
        ..WebFetchArgs::default()
    };
    let first = agent.web_fetch(read("/one"), None).await.unwrap();
    let doc = first.results[0].document.as_ref().unwrap();
    let steps: Vec<String> = doc
        .attempts
        .iter()
        .map(|a| format!("{}:{}", a.reader, a.outcome))
        .collect();
    assert_eq!(steps, ["http:app_shell", "render:ok"]);
    assert!(doc.markdown.contains("Built by script"), "{}", doc.markdown);
    let second = agent.web_fetch(read("/two"), None).await.unwrap();
    let doc = second.results[0].document.as_ref().unwrap();
    assert_eq!(doc.attempts[0].reader, "render", "{:?}", doc.attempts);
    assert_eq!(
        site.hits("/two"),
        1,
        "only the browser asked: no doomed tier-0 request"
    );
    fetcher.shutdown().await;
}

#[tokio::test]
async fn a_github_language_too_long_is_refused_by_its_own_name() {
    let agent = agent(None);
    let err = agent
        .github(trawl_agent::tools::GithubArgs {
            query: "async runtime".into(),
            language: Some("r".repeat(600)),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.starts_with("language: "), "{}", err.message);
    let err = agent
        .github(trawl_agent::tools::GithubArgs {
            query: "q".repeat(600),
            language: Some("rust".into()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(err.message.starts_with("query: "), "{}", err.message);
}

/// Pins are never evicted, so their number is bounded: the pin past the limit is refused
/// and says what to do, a site already pinned can be pinned again, and a reset makes room.
#[tokio::test]
async fn pins_are_limited_in_number() {
    use trawl_agent::tools::{SitesAction, SitesArgs};
    let agent = agent(None);
    let pin = |site: String, reader: &str| SitesArgs {
        action: Some(SitesAction::Pin),
        site: Some(site),
        reader: Some(reader.into()),
    };
    for i in 0..trawl_store::MAX_PINNED_SITES {
        agent
            .sites(pin(format!("site{i}.example"), "http"))
            .await
            .unwrap();
    }
    let e = agent
        .sites(pin("one-too-many.example".into(), "http"))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("1000 sites are pinned"), "{}", e.message);
    assert!(e.message.contains("trawl sites reset"), "{}", e.message);
    agent
        .sites(pin("site7.example".into(), "render"))
        .await
        .expect("a pinned site may be pinned again");
    agent
        .sites(SitesArgs {
            action: Some(SitesAction::Reset),
            site: Some("site7.example".into()),
            reader: None,
        })
        .await
        .unwrap();
    agent
        .sites(pin("one-too-many.example".into(), "http"))
        .await
        .expect("a reset makes room");
}

/// The crawl limit `tools/list` publishes for `web_crawl` is the crawler's own bound, so
/// changing one changes the other.
#[test]
fn web_crawl_limit_maximum_is_the_crawlers() {
    let schema = input_schema::<WebCrawlArgs>().to_value();
    let limit = &schema["properties"]["limit"];
    assert_eq!(
        limit["maximum"].as_u64(),
        Some(trawl_crawl::MAX_LIMIT as u64),
        "{limit}"
    );
    assert_eq!(limit["minimum"].as_u64(), Some(1), "{limit}");
}
