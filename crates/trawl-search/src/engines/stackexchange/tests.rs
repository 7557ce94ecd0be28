//! stackexchange: parser and request-builder tests.

use super::*;

// No saved StackExchange response exists (ENGINES.md §8): documented shape.
#[test]
fn documented_shape_parses() {
    let body =
        br#"{"items":[{"tags":["rust","serde"],"owner":{"display_name":"x"},"is_answered":true,
      "answer_count":3,"score":42,"creation_date":1700000000,"question_id":77,
      "link":"https://stackoverflow.com/questions/77/how-to","title":"How to &quot;derive&quot;?"}],
      "has_more":false,"quota_max":300,"quota_remaining":299}"#;
    let items = parse(body).unwrap();
    assert_eq!(items[0].title, "How to \"derive\"?");
    assert_eq!(
        items[0].url,
        "https://stackoverflow.com/questions/77/how-to"
    );
}

#[test]
fn throttle_is_rate_limited() {
    let body = br#"{"error_id":502,"error_name":"throttle_violation","error_message":"too many requests"}"#;
    assert!(matches!(parse(body), Err(ParseError::RateLimited(_))));
}
