//! serper: parser and request-builder tests.

use super::*;

// ≈2022 sample (`q: "apple inc"`), 8 organic results.
#[test]
fn apple_sample() {
    let body = crate::fixture::serp("serper/search-apple-inc.json");
    let items = parse(&body).unwrap();
    assert_eq!(items.len(), 8);
    assert!(items[0].url.contains("apple.com"));
}

#[test]
fn out_of_credits() {
    let body = br#"{"message":"Not enough credits","statusCode":400}"#;
    assert!(matches!(parse(body), Err(ParseError::Quota(_))));
}
