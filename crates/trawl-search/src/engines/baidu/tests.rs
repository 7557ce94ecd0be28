//! baidu: parser and request-builder tests.

use super::*;
use crate::fixture::{built, parsed_first};

// No saved Baidu AI Search response exists (none found in public test data, only mocks):
// built from the documented fields, with a non-web reference and a null title.
#[test]
fn documented_shape_parses() {
    let body = r#"{"request_id":"r-1","references":[
      {"id":1,"url":"https://www.rust-lang.org/zh-CN/","title":"Rust 程序设计语言","date":"2025-03-01 10:00:00","content":"一门赋予每个人\n构建可靠软件能力的语言。","icon":null,"web_anchor":"Rust","type":"web","website":"rust-lang.org","is_aladdin":false},
      {"id":2,"url":"https://course.rs/","title":null,"content":"Rust 语言圣经","type":"web"},
      {"id":3,"url":"","title":"视频","type":"video"}
    ]}"#;
    let first = (
        "https://www.rust-lang.org/zh-CN/",
        "Rust 程序设计语言",
        "一门赋予每个人 构建可靠软件能力的语言。",
    );
    let items = parsed_first(parse, body.as_bytes(), 2, first);
    assert_eq!(items[0].published.as_deref(), Some("2025-03-01 10:00:00"));
    assert_eq!(items[0].extra.as_ref().unwrap()["website"], "rust-lang.org");
    assert_eq!(items[1].title, "");
}

#[test]
fn error_bodies_are_typed() {
    let body = br#"{"request_id":"r","code":"InvalidApiKey","message":"invalid api key"}"#;
    assert!(matches!(parse(body), Err(ParseError::Auth(_))));
    let body = br#"{"request_id":"r","code":429,"message":"QPS limit reached"}"#;
    assert!(matches!(parse(body), Err(ParseError::RateLimited(_))));
    let body = br#"{"request_id":"r"}"#;
    assert!(matches!(parse(body), Err(ParseError::Malformed(_))));
}

#[test]
fn request_carries_key_site_and_freshness() {
    let at = |req: &SearchRequest| built(request, "https://qianfan.baidubce.com", Some("bk"), req);
    let mut req = SearchRequest::new("rust 教程");
    let r = at(&req);
    assert_eq!(
        r.url.as_str(),
        "https://qianfan.baidubce.com/v2/ai_search/web_search"
    );
    assert!(
        r.headers
            .contains(&("Authorization".into(), "Bearer bk".into()))
    );
    let Some(Body::Json(b)) = &r.body else {
        panic!("a JSON body")
    };
    assert_eq!(b["messages"][0]["content"], "rust 教程");
    assert!(b.get("search_filter").is_none() && b.get("search_recency_filter").is_none());
    req.filters.site = Some("zhihu.com".into());
    for (fr, want) in [
        (Freshness::Day, "week"),
        (Freshness::Week, "week"),
        (Freshness::Month, "month"),
        (Freshness::Year, "year"),
    ] {
        req.filters.freshness = Some(fr);
        let Some(Body::Json(b)) = at(&req).body else {
            panic!("a JSON body")
        };
        assert_eq!(b["search_recency_filter"], want);
        assert_eq!(b["search_filter"]["match"]["site"][0], "zhihu.com");
    }
}
