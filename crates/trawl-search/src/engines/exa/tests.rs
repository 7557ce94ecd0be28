//! exa: parser and request-builder tests.

use super::*;

// No saved Exa response exists (ENGINES.md §8): built from the SDK's documented fields.
#[test]
fn documented_shape_parses() {
    let body = br#"{"requestId":"r","resolvedSearchType":"neural","results":[
      {"id":"https://a.example/","url":"https://a.example/","title":"A","score":0.9,"publishedDate":"2026-01-01T00:00:00.000Z","author":null,"highlights":["one.","two."]},
      {"id":"b","url":"https://b.example/","title":null,"text":"body text"}],"costDollars":{"total":0.005}}"#;
    let items = parse(body).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].snippet, "one. … two.");
    assert_eq!(items[1].snippet, "body text");
}
