//! jina: parser and request-builder tests.

use super::*;

// No saved Jina response exists (ENGINES.md §8): documented shape.
#[test]
fn documented_shape_parses() {
    let body = br#"{"code":200,"status":20000,"data":[{"title":"J","url":"https://j.example/","description":"d","content":"","usage":{"tokens":5}}]}"#;
    assert_eq!(parse(body).unwrap()[0].url, "https://j.example/");
    let err = br#"{"code":402,"name":"InsufficientBalanceError","message":"balance"}"#;
    assert!(matches!(parse(err), Err(ParseError::Quota(_))));
}
