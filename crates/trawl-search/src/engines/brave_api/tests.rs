//! brave_api: parser and request-builder tests.

use super::*;

const DIR: &str = "brave-api/";

// ≈2024-12-31 real `web/search?q=hello world`.
#[test]
fn web_search() {
    let items = parse(&crate::fixture::serp(&format!(
        "{DIR}web-search-hello-world.json"
    )))
    .unwrap();
    assert_eq!(items.len(), 20);
    assert!(
        items
            .iter()
            .all(|i| i.url.starts_with("http") && !i.title.contains("<strong>"))
    );
}

// ≈early 2025 real `news/search`.
#[test]
fn news_search() {
    let items = parse(&crate::fixture::serp(&format!("{DIR}news-search.json"))).unwrap();
    assert!(!items.is_empty());
    assert!(items.iter().all(|i| i.url.starts_with("http")));
}

#[test]
fn error_response() {
    let body = br#"{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"bad","status":401}}"#;
    assert!(matches!(parse(body), Err(ParseError::Auth(_))));
}
