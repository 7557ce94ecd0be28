//! wikipedia: parser and request-builder tests.

use super::*;

// No saved Wikipedia response exists (ENGINES.md §5.5). This is the documented
// formatversion=2 shape from the MediaWiki API help.
#[test]
fn documented_shape_parses() {
    let body = br#"{"batchcomplete":true,"continue":{"sroffset":10,"continue":"-||"},
      "query":{"searchinfo":{"totalhits":5060},"search":[
        {"ns":0,"title":"Rust (programming language)","pageid":29414838,"size":151000,"wordcount":12000,
         "snippet":"<span class=\"searchmatch\">Rust</span> is a general-purpose language &amp; more","timestamp":"2026-11-01T10:00:00Z"}]}}"#;
    let items = parse(body, "en").unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(
        items[0].url,
        "https://en.wikipedia.org/wiki/Rust_(programming_language)"
    );
    assert_eq!(
        items[0].snippet,
        "Rust is a general-purpose language & more"
    );
}

#[test]
fn api_error_is_reported() {
    let body = br#"{"error":{"code":"ratelimited","info":"slow down"}}"#;
    assert!(matches!(parse(body, "en"), Err(ParseError::RateLimited(_))));
}
