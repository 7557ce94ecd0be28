//! sov2ex: parser and request-builder tests.

use super::*;
use crate::fixture::{built, parsed_first};

// No saved SOV2EX response exists (PROVENANCE has none; none found in public test data):
// built from the documented shape, ids both as a number and as a string.
#[test]
fn documented_shape_points_at_v2ex_topics() {
    let body = br#"{"took":3,"timed_out":false,"total":2,"hits":[
      {"_score":9.1,"_source":{"node":17,"replies":12,"created":"2026-01-02T03:04:05","member":"alice","id":1001,"title":"Rust <b>async</b> runtime","content":"Which runtime\n do you use?"},"highlight":{"title":["<em>Rust</em>"]}},
      {"_score":5.0,"_source":{"id":"1002","title":"Second","content":"x"}},
      {"_score":1.0,"_source":{"id":{"bad":1},"title":"Bad id"}}
    ]}"#;
    let first = (
        "https://www.v2ex.com/t/1001",
        "Rust <b>async</b> runtime",
        "Which runtime do you use?",
    );
    let items = parsed_first(parse, body, 2, first);
    assert_eq!(items[0].published.as_deref(), Some("2026-01-02T03:04:05"));
    assert_eq!(items[0].extra.as_ref().unwrap()["replies"], 12);
    assert_eq!(items[1].url, "https://www.v2ex.com/t/1002");
}

#[test]
fn an_answer_without_hits_is_malformed() {
    assert!(matches!(
        parse(br#"{"message":"invalid query"}"#),
        Err(ParseError::Malformed(m)) if m == "invalid query"
    ));
}

#[test]
fn request_carries_paging_and_freshness() {
    let at = |req: &SearchRequest| built(request, "https://www.sov2ex.com", None, req);
    let mut req = SearchRequest::new("rust");
    let r = at(&req);
    assert_eq!(
        r.url.as_str(),
        "https://www.sov2ex.com/api/search?q=rust&size=10&from=0&sort=sumup"
    );
    req.filters.page = Some(3);
    req.filters.freshness = Some(crate::types::Freshness::Week);
    let r = at(&req);
    let pairs: std::collections::HashMap<_, _> = r.url.query_pairs().into_owned().collect();
    assert_eq!(pairs["from"], "20");
    let gte: u64 = pairs["gte"].parse().unwrap();
    let week_ago = super::super::unix_now() - 7 * 86_400;
    assert!(gte.abs_diff(week_ago) < 60, "{gte} vs {week_ago}");
}
