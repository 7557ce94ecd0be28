//! searxng: parser and request-builder tests.

use super::*;

// Real ≈2024-04 response: 30 results from bing, qwant, duckduckgo, google, wikipedia.
#[test]
fn real_response_splits_by_upstream() {
    let body = crate::fixture::serp("searxng/search-python-format-json.json");
    let items = parse(&body).unwrap();
    assert_eq!(items.len(), 30);
    assert_eq!(items[0].url, "https://www.python.org/");
    assert_eq!(
        items[0].upstream,
        vec![
            ("bing".into(), 1),
            ("qwant".into(), 1),
            ("duckduckgo".into(), 1)
        ]
    );
    assert_eq!(
        items[1].upstream,
        vec![
            ("bing".into(), 4),
            ("qwant".into(), 3),
            ("duckduckgo".into(), 2)
        ]
    );
    let ups: std::collections::BTreeSet<_> = items
        .iter()
        .flat_map(|i| i.upstream.iter().map(|(e, _)| e.as_str()))
        .collect();
    assert!(ups.contains("google") && ups.contains("wikipedia"));
}

#[test]
fn unresponsive_upstreams_are_noted() {
    let body = br#"{"query":"x","results":[],"unresponsive_engines":[["brave","Suspended: too many requests"]]}"#;
    assert_eq!(
        unresponsive(body).as_deref(),
        Some("upstream failures: brave (Suspended: too many requests)")
    );
    assert_eq!(
        unresponsive(br#"{"results":[],"unresponsive_engines":[]}"#),
        None
    );
}

#[test]
fn error_body() {
    assert!(parse(br#"{"error":"search error"}"#).is_err());
}
