//! The site readers through the real HTTP path: trawl-fetch's guarded fetcher against a
//! loopback server standing in for each API, fed with the saved real responses.

use std::collections::BTreeMap;

use trawl_core::ErrorCode;
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_sites::{SiteClient, SiteConfig, Target, choose, read};
use trawl_testkit::{Reply, TestServer};
use url::Url;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn json(path: &str) -> Reply {
    Reply::ok("application/json; charset=utf-8", fixture(path))
}

/// A fetcher that may reach 127.0.0.0/8 only (the stand-ins), as a user's
/// `--allow-host 127.0.0.0/8` would.
fn fetcher() -> Fetcher {
    Fetcher::new(FetchConfig {
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.0/8").unwrap()],
        },
        ..FetchConfig::default()
    })
    .unwrap()
}

fn config(site: &str, server: &TestServer, token: Option<&str>) -> SiteConfig {
    SiteConfig {
        bases: BTreeMap::from([(site.to_owned(), Url::parse(&server.url("/api/")).unwrap())]),
        github_token: token.map(str::to_owned),
        ..SiteConfig::default()
    }
}

fn target(raw: &str) -> Target {
    choose(&Url::parse(raw).unwrap()).unwrap().1.unwrap()
}

#[tokio::test]
async fn a_github_issue_is_read_with_its_comments_and_the_token_goes_to_the_api_only() {
    let api = TestServer::start();
    api.route(
        "/api/repos/PyGithub/PyGithub/issues/28",
        json("github/issue-28-pygithub-2025.json"),
    );
    api.route(
        "/api/repos/PyGithub/PyGithub/issues/28/comments",
        json("github/issue-28-comments-pygithub-2012.json"),
    );
    let fetcher = fetcher();
    let config = config("github", &api, Some("ghp_SECRET"));
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let page = read(
        &client,
        &target("https://github.com/PyGithub/PyGithub/issues/28"),
    )
    .await
    .unwrap();
    assert!(
        page.markdown
            .contains("### roskakori · 2012-05-04T19:23:57Z")
    );
    let seen = api.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1].path,
        "/api/repos/PyGithub/PyGithub/issues/28/comments?per_page=100&page=1"
    );
    for s in &seen {
        assert_eq!(
            s.headers.get("authorization").map(String::as_str),
            Some("Bearer ghp_SECRET")
        );
        assert_eq!(
            s.headers.get("accept").map(String::as_str),
            Some("application/vnd.github+json")
        );
    }
}

#[tokio::test]
async fn a_redirect_to_another_host_carries_no_token() {
    // The API stand-in redirects to a canary on another address: the guard lets the hop
    // through (the canary is allowed too), but the token stays with the API's origin.
    let api = TestServer::start();
    let canary = TestServer::start_on("127.0.0.2");
    api.route(
        "/api/repos/o/r/issues/1",
        Reply::redirect(302, &canary.url("/elsewhere")),
    );
    canary.route("/elsewhere", json("github/issue-28-pygithub-2025.json"));
    canary.route(
        "/api/repos/o/r/issues/1/comments",
        json("github/issue-28-comments-pygithub-2012.json"),
    );
    api.route(
        "/api/repos/o/r/issues/1/comments",
        json("github/issue-28-comments-pygithub-2012.json"),
    );
    let fetcher = fetcher();
    let config = config("github", &api, Some("ghp_SECRET"));
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    read(&client, &target("https://github.com/o/r/issues/1"))
        .await
        .unwrap();
    let canary_seen = canary.seen();
    assert_eq!(canary_seen.len(), 1);
    assert!(
        !canary_seen[0].headers.contains_key("authorization"),
        "{:?}",
        canary_seen[0].headers
    );
    assert!(
        api.seen()
            .iter()
            .all(|s| s.headers.contains_key("authorization"))
    );
}

#[tokio::test]
async fn a_repository_root_and_a_blob_through_the_api() {
    let api = TestServer::start();
    api.route(
        "/api/repos/PyGithub/PyGithub",
        json("github/repo-pygithub-2025.json"),
    );
    api.route(
        "/api/repos/PyGithub/PyGithub/readme",
        json("github/readme-pygithub-2025.json"),
    );
    api.route(
        "/api/repos/PyGithub/PyGithub/contents/README.md?ref=main",
        Reply::ok(
            "application/vnd.github.raw",
            fixture("github/raw-readme-pygithub-2025.md"),
        ),
    );
    let fetcher = fetcher();
    let config = config("github", &api, None);
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let repo = read(&client, &target("https://github.com/PyGithub/PyGithub"))
        .await
        .unwrap();
    assert!(
        repo.markdown.contains("7126 stars · Python")
            && repo.markdown.contains("pip install PyGithub")
    );
    let blob = read(
        &client,
        &target("https://github.com/PyGithub/PyGithub/blob/main/README.md"),
    )
    .await
    .unwrap();
    assert!(blob.markdown.starts_with("# PyGitHub"));
    let raw_seen = api
        .seen()
        .into_iter()
        .find(|s| s.path.contains("contents"))
        .unwrap();
    assert_eq!(
        raw_seen.headers.get("accept").map(String::as_str),
        Some("application/vnd.github.raw")
    );
    assert!(
        api.seen()
            .iter()
            .all(|s| !s.headers.contains_key("authorization"))
    );
}

#[tokio::test]
async fn hacker_news_stack_exchange_wikipedia_and_reddit_through_their_apis() {
    let api = TestServer::start();
    api.route("/api/api/v1/items/17", json("hackernews/item-17-2014.json"));
    api.route(
        "/api/questions/1001?site=stackoverflow&filter=withbody",
        json("stackexchange/question-built.json"),
    );
    api.route(
        "/api/questions/1001/answers?site=stackoverflow&filter=withbody&sort=votes&order=desc&pagesize=100",
        json("stackexchange/answers-built.json"),
    );
    api.route(
        "/api/posts/1001;3001;3002;3003/comments?site=stackoverflow&filter=withbody&sort=creation&order=asc&pagesize=100",
        json("stackexchange/comments-built.json"),
    );
    api.route("/api/w/api.php", json("wikipedia/parse-built.json"));
    api.route(
        "/api/r/crafts/comments/13opkyi/an_outfit/.json?raw_json=1&limit=100&depth=8",
        json("reddit/thread-gallery-39-2023.json"),
    );
    let fetcher = fetcher();
    let mut config = config("hackernews", &api, None);
    for site in ["stackexchange", "wikipedia", "reddit"] {
        config
            .bases
            .insert(site.into(), Url::parse(&api.url("/api/")).unwrap());
    }
    let plain = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let hn = read(&plain, &target("https://news.ycombinator.com/item?id=17"))
        .await
        .unwrap();
    assert!(hn.markdown.contains("- **dmon**"));
    let se = read(
        &plain,
        &target("https://stackoverflow.com/questions/1001/x"),
    )
    .await
    .unwrap();
    assert!(se.markdown.find("Accepted answer").unwrap() < se.markdown.find("Top Voter").unwrap());
    assert!(!se.markdown.contains("Comments:"));
    let with_comments = SiteClient {
        comments: true,
        ..plain
    };
    let se = read(
        &with_comments,
        &target("https://stackoverflow.com/questions/1001/x"),
    )
    .await
    .unwrap();
    assert!(se.markdown.contains("This fixed it for me"));
    let wiki = read(
        &plain,
        &target("https://en.wikipedia.org/wiki/Ada_Lovelace"),
    )
    .await
    .unwrap();
    assert!(wiki.markdown.contains("| Born |"));
    let wiki_seen = api
        .seen()
        .into_iter()
        .find(|s| s.path.starts_with("/api/w/api.php"))
        .unwrap();
    assert!(
        wiki_seen.path.contains("action=parse") && wiki_seen.path.contains("page=Ada%5FLovelace"),
        "{}",
        wiki_seen.path
    );
    let reddit = read(
        &plain,
        &target("https://www.reddit.com/r/crafts/comments/13opkyi/an_outfit/"),
    )
    .await
    .unwrap();
    assert_eq!(reddit.markdown.matches("- **u/").count(), 39);
}

#[tokio::test]
async fn an_api_error_keeps_its_code() {
    let api = TestServer::start();
    api.route("/api/api/v1/items/5", Reply::status(404, "{}"));
    let fetcher = fetcher();
    let config = config("hackernews", &api, None);
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let err = read(&client, &target("https://news.ycombinator.com/item?id=5"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn stack_exchanges_backoff_is_remembered_for_its_host() {
    // The built question answer with the wrapper's documented `backoff` (seconds) added.
    let mut question: serde_json::Value = serde_json::from_slice(
        &std::fs::read(format!(
            "{}/fixtures/stackexchange/question-built.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    question["backoff"] = serde_json::json!(60);
    let api = TestServer::start();
    api.route(
        "/api/questions/1001?site=stackoverflow&filter=withbody",
        Reply::ok("application/json", question.to_string()),
    );
    api.route(
        "/api/questions/1001/answers?site=stackoverflow&filter=withbody&sort=votes&order=desc&pagesize=100",
        json("stackexchange/answers-built.json"),
    );
    let fetcher = fetcher();
    let config = config("stackexchange", &api, None);
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let started = std::time::Instant::now();
    let err = read(
        &client,
        &target("https://stackoverflow.com/questions/1001/x"),
    )
    .await
    .unwrap_err();
    // The answers call comes after the question's `backoff: 60`, past the fetcher's 30 s
    // timeout: refused at once, retryable, not sent.
    assert_eq!(err.code, ErrorCode::RateLimited, "{}", err.message);
    assert!(err.retryable);
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    assert_eq!(api.seen().len(), 1);
    assert!(
        fetcher
            .backoff()
            .until("127.0.0.1", std::time::SystemTime::now())
            .await
            .is_some()
    );
}

fn client_for<'a>(fetcher: &'a Fetcher, config: &'a SiteConfig) -> SiteClient<'a> {
    SiteClient {
        fetcher,
        config,
        comments: false,
    }
}

/// Seconds left of the back-off the fetcher keeps for the loopback host.
async fn backoff_left(fetcher: &Fetcher) -> u64 {
    let now = std::time::SystemTime::now();
    let until = fetcher
        .backoff()
        .until("127.0.0.1", now)
        .await
        .expect("the host is backing off");
    until.duration_since(now).unwrap().as_secs()
}

#[tokio::test]
async fn githubs_real_rate_limit_refusals_are_rate_limited_in_its_words_and_held_to() {
    // PyGithub's recorded 403 for an exhausted limit (2013): `x-ratelimit-remaining: 0`
    // and no reset header (GitHub sent none then), served with the headers recorded.
    let api = TestServer::start();
    api.route(
        "/api/repos/o/r/issues/1",
        Reply::status(403, fixture("github/rate-limit-403-pygithub-2013.json"))
            .with_header("Content-Type", "application/json; charset=utf-8")
            .with_header("x-ratelimit-limit", "60")
            .with_header("x-ratelimit-remaining", "0"),
    );
    let fetcher = fetcher();
    let config = config("github", &api, None);
    let client = client_for(&fetcher, &config);
    let issue = target("https://github.com/o/r/issues/1");
    let err = read(&client, &issue).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::RateLimited, "{}", err.message);
    assert!(err.retryable);
    assert!(
        err.message
            .ends_with("a rate limit: API Rate Limit Exceeded for 92.104.200.119"),
        "{}",
        err.message
    );
    // No reset named: a minute, past the 30 s timeout, so the next read is not sent.
    assert!((55..=60).contains(&backoff_left(&fetcher).await));
    let again = read(&client, &issue).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::RateLimited, "{}", again.message);
    assert_eq!(api.seen().len(), 1);

    // PyGithub's recorded secondary ("abuse") limit (2018): a 403 with `Retry-After: 60`.
    let api = TestServer::start();
    api.route(
        "/api/repos/o/r/issues/1",
        Reply::status(
            403,
            fixture("github/secondary-limit-403-pygithub-2018.json"),
        )
        .with_header("Content-Type", "application/json; charset=utf-8")
        .with_header("Retry-After", "60"),
    );
    let fetcher = self::fetcher();
    let config = self::config("github", &api, None);
    let err = read(&client_for(&fetcher, &config), &issue)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::RateLimited, "{}", err.message);
    assert!(
        err.message.contains("(Retry-After: 60)")
            && err
                .message
                .ends_with("You have triggered an abuse detection mechanism. Please wait a few minutes before you try again."),
        "{}",
        err.message
    );
    assert!((55..=60).contains(&backoff_left(&fetcher).await));
}

#[tokio::test]
async fn stack_exchanges_throttle_violation_is_rate_limited_and_its_wait_is_held_to() {
    // Built (no saved file found): the throttle answer in the shape and words public code
    // quotes from live captures: HTTP 400, `error_id` 502, `throttle_violation`.
    let api = TestServer::start();
    api.route(
        "/api/questions/1001?site=stackoverflow&filter=withbody",
        Reply::status(400, fixture("stackexchange/throttle-violation-built.json"))
            .with_header("Content-Type", "application/json; charset=utf-8"),
    );
    let fetcher = fetcher();
    let config = config("stackexchange", &api, None);
    let client = client_for(&fetcher, &config);
    let question = target("https://stackoverflow.com/questions/1001/x");
    let err = read(&client, &question).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::RateLimited, "{}", err.message);
    assert!(err.retryable);
    assert!(
        err.message.ends_with(
            "a rate limit: too many requests from this IP, more requests available in 82089 seconds"
        ),
        "{}",
        err.message
    );
    // The 82,089 seconds it names, capped at an hour; nothing more is sent meanwhile.
    assert!((3590..=3600).contains(&backoff_left(&fetcher).await));
    read(&client, &question).await.unwrap_err();
    assert_eq!(api.seen().len(), 1);
}
