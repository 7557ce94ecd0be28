//! serpapi: parser and request-builder tests.

use super::*;

// No saved SerpAPI response exists (ENGINES.md §8): documented shape.
#[test]
fn documented_shape_parses() {
    let body = br#"{"search_metadata":{"status":"Success"},"organic_results":[
      {"position":1,"title":"T","link":"https://t.example/","displayed_link":"t.example","snippet":"S"}]}"#;
    let items = parse(body).unwrap();
    assert_eq!(items[0].url, "https://t.example/");
    let out = br#"{"error":"Your account has run out of searches."}"#;
    assert!(matches!(parse(out), Err(ParseError::Quota(_))));
    let bad = br#"{"error":"Invalid API key. Your API key should be here: ..."}"#;
    assert!(matches!(parse(bad), Err(ParseError::Auth(_))));
}
