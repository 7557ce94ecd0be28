//! YouTube and X through the real HTTP path: trawl-fetch's guarded fetcher against a
//! loopback server standing in for each site, fed with the saved real responses.

use std::collections::BTreeMap;

use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_sites::{SiteClient, SiteConfig, Target, choose, read};
use trawl_testkit::{Reply, TestServer};
use url::Url;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

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

fn config(site: &str, server: &TestServer) -> SiteConfig {
    SiteConfig {
        bases: BTreeMap::from([(site.to_owned(), Url::parse(&server.url("/site/")).unwrap())]),
        ..SiteConfig::default()
    }
}

fn target(raw: &str) -> Target {
    choose(&Url::parse(raw).unwrap()).unwrap().1.unwrap()
}

#[tokio::test]
async fn a_youtube_video_with_captions_reads_its_transcript() {
    let site = TestServer::start();
    site.route(
        "/site/watch",
        Reply::html(fixture("youtube/watch-GJLlxj_dtq8-captions-2025.html")),
    );
    site.route(
        "/site/api/timedtext",
        Reply::ok(
            "text/xml; charset=UTF-8",
            fixture("youtube/timedtext-test-transcript.xml"),
        ),
    );
    let fetcher = fetcher();
    let config = config("youtube", &site);
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let page = read(&client, &target("https://youtu.be/GJLlxj_dtq8"))
        .await
        .unwrap();
    assert!(
        page.markdown.contains("## Transcript (English)"),
        "{}",
        page.markdown
    );
    assert!(page.markdown.contains("[0:05] just something shorter"));
    assert_eq!(page.byline.as_deref(), Some("Dave2D"));
    assert_eq!(page.note, None);
    let seen = site.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].path, "/site/watch?v=GJLlxj_dtq8&hl=en");
    assert!(
        seen[1]
            .path
            .starts_with("/site/api/timedtext?v=GJLlxj_dtq8"),
        "{}",
        seen[1].path
    );
    assert!(seen[1].path.contains("&lang=en"), "{}", seen[1].path);
}

#[tokio::test]
async fn a_youtube_video_without_captions_reads_with_a_note_and_no_caption_request() {
    let site = TestServer::start();
    site.route(
        "/site/watch",
        Reply::html(fixture("youtube/watch-captions-disabled-2025.html")),
    );
    let fetcher = fetcher();
    let config = config("youtube", &site);
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let page = read(
        &client,
        &target("https://www.youtube.com/watch?v=yJ3jJ2xXnQ0"),
    )
    .await
    .unwrap();
    assert_eq!(
        page.note.as_deref(),
        Some("no captions are published for this video")
    );
    assert!(page.markdown.contains("Blogothèque"), "{}", page.markdown);
    assert_eq!(site.seen().len(), 1);
}

const SESSION: &str = "auth_token=AUTH-SECRET; ct0=CSRF-SECRET";

#[tokio::test]
async fn an_x_post_is_read_with_the_session_and_an_expired_one_is_auth() {
    let site = TestServer::start();
    let op = "/site/i/api/graphql/559hs_YZNV4IgA3Z6zIIuw/TweetDetail";
    site.route(
        op,
        Reply::ok(
            "application/json",
            fixture("x/tweet-detail-1649191520250245121-2026.json"),
        ),
    );
    let fetcher = fetcher();
    let mut config = config("x", &site);
    config.x_session = Some(SESSION.to_owned());
    let client = SiteClient {
        fetcher: &fetcher,
        config: &config,
        comments: false,
    };
    let url = "https://x.com/XDevelopers/status/1649191520250245121";
    let page = read(&client, &target(url)).await.unwrap();
    assert!(
        page.markdown
            .contains("Today, we are deprecating our Premium v1.1 API")
    );
    let seen = site.seen();
    let asked = &seen[0];
    assert_eq!(
        asked.headers.get("cookie").map(String::as_str),
        Some(SESSION)
    );
    assert_eq!(
        asked.headers.get("x-csrf-token").map(String::as_str),
        Some("CSRF-SECRET")
    );
    assert!(
        asked
            .path
            .contains("focalTweetId%22%3A%221649191520250245121"),
        "{}",
        asked.path
    );
    // The session is refused: `auth`, and the error does not show it.
    site.route(
        op,
        Reply::status(
            401,
            r#"{"errors":[{"message":"Could not authenticate you"}]}"#,
        ),
    );
    let e = read(&client, &target(url)).await.unwrap_err();
    assert!(e.message.starts_with("auth:"), "{}", e.message);
    assert!(!e.message.contains("SECRET"), "{}", e.message);
}
