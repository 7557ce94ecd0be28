//! parallel: parser and request-builder tests.

use super::*;

// No saved Parallel response exists (none found in public test data): built from the
// documented V1 fields.
#[test]
fn documented_shape_parses() {
    let body = br#"{"search_id":"search_1","results":[
      {"url":"https://a.example/","title":"A","publish_date":"2026-05-01","excerpts":["first part.","second part."]},
      {"url":"https://b.example/","title":null,"excerpts":[]}
    ]}"#;
    let items = parse(body).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].snippet, "first part. … second part.");
    assert_eq!(items[0].published.as_deref(), Some("2026-05-01"));
    assert_eq!(items[1].title, "");
}

#[test]
fn error_bodies_are_typed() {
    let body = br#"{"error":{"message":"Invalid API key","ref_id":"x"}}"#;
    assert!(matches!(parse(body), Err(ParseError::Auth(_))));
    let body = br#"{"error":{"message":"Rate limit exceeded"}}"#;
    assert!(matches!(parse(body), Err(ParseError::RateLimited(_))));
}

#[test]
fn request_carries_key_site_and_freshness() {
    let at = |req: &SearchRequest| {
        crate::fixture::built(request, "https://api.parallel.ai", Some("k1"), req)
    };
    let mut req = SearchRequest::new("rust");
    let r = at(&req);
    assert_eq!(r.url.as_str(), "https://api.parallel.ai/v1/search");
    assert!(r.headers.contains(&("x-api-key".into(), "k1".into())));
    let Some(Body::Json(b)) = &r.body else {
        panic!()
    };
    assert_eq!(b["search_queries"], serde_json::json!(["rust"]));
    assert!(b["advanced_settings"].get("source_policy").is_none());
    req.filters.site = Some("docs.rs".into());
    req.filters.freshness = Some(crate::types::Freshness::Day);
    let r = at(&req);
    let Some(Body::Json(b)) = &r.body else {
        panic!()
    };
    let policy = &b["advanced_settings"]["source_policy"];
    assert_eq!(policy["include_domains"], serde_json::json!(["docs.rs"]));
    let after = policy["after_date"].as_str().unwrap();
    let d = super::super::yyyymmdd_days_ago(1);
    assert_eq!(after.replace('-', ""), d);
}
