//! github: parser and request-builder tests.

use super::*;

const DIR: &str = "github/";

// 2014-03-03 PyGithub replay: no topics/license/visibility, which are optional.
#[test]
fn repositories_2014() {
    let body = crate::fixture::serp(&format!("{DIR}search-repositories-2014-pygithub.json"));
    let items = parse(&body).unwrap();
    assert!(items.len() >= 10);
    let first = &items[0];
    assert!(first.url.starts_with("https://github.com/"));
    let extra = first.extra.as_ref().unwrap();
    assert!(extra["stars"].as_u64().unwrap() > 0);
    assert_eq!(extra["language"], "Python");
    let headers: serde_json::Value = serde_json::from_slice(&crate::fixture::serp(&format!(
        "{DIR}search-repositories-2014-pygithub.headers.json"
    )))
    .unwrap();
    let pairs: Vec<(String, String)> = headers["headers"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
        .collect();
    assert_eq!(rate_limit(&pairs).unwrap().remaining, Some(29));
}

// 2022-07-19 octokit fixture: the issues endpoint body plus raw rate-limit headers.
#[test]
fn issues_2022_with_rate_limit_headers() {
    let raw: serde_json::Value = serde_json::from_slice(&crate::fixture::serp(&format!(
        "{DIR}search-issues-2022-octokit-raw.json"
    )))
    .unwrap();
    let body = serde_json::to_vec(&raw["response"]).unwrap();
    let items = parse(&body).unwrap();
    assert!(!items.is_empty());
    assert!(
        items
            .iter()
            .all(|i| i.url.starts_with("https://github.com/") && !i.title.is_empty())
    );
    let flat: Vec<String> = raw["rawHeaders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect();
    let pairs: Vec<(String, String)> = flat
        .chunks(2)
        .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
        .collect();
    let rl = rate_limit(&pairs).unwrap();
    assert_eq!(rl.limit, Some(30));
    assert_eq!(rl.resource.as_deref(), Some("search"));
    assert!(GitHub.note_from_headers(&pairs).unwrap().contains("29/30"));
}

#[test]
fn rate_limit_message() {
    let body = br#"{"message":"API rate limit exceeded for 1.2.3.4.","documentation_url":"x"}"#;
    assert!(matches!(parse(body), Err(ParseError::RateLimited(_))));
}
