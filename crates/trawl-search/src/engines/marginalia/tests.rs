//! marginalia: parser and request-builder tests.

use super::*;

// No saved Marginalia response exists (ENGINES.md §8): ApiSearchResult shape.
#[test]
fn documented_shape_parses() {
    let body = br#"{"license":"CC-BY-NC-SA 4.0","query":"x","results":[
      {"url":"https://m.example/","title":"M","description":"small web","quality":-3.2,"format":"html5","details":[]}]}"#;
    let items = parse(body).unwrap();
    assert_eq!(items[0].url, "https://m.example/");
    assert_eq!(items[0].snippet, "small web");
}
