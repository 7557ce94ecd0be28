//! x: parser, cookies-file and request-builder tests.

use super::*;

/// A real `SearchTimeline` answer (twscrape's tests/mocked-data/raw_search.json, saved
/// from X in 2026-07 by its update script; MIT): twenty posts and two cursors.
fn saved() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/x/search-timeline-2026-07-twscrape.json"
    );
    std::fs::read(path).unwrap()
}

#[test]
fn real_search_timeline_gives_twenty_posts() {
    let items = parse(&saved()).unwrap();
    assert_eq!(items.len(), 20);
    for i in &items {
        assert!(i.url.starts_with("https://x.com/"), "{}", i.url);
        assert!(i.url.contains("/status/"), "{}", i.url);
        assert!(i.title.contains("(@"), "{}", i.title);
        assert!(i.published.is_some());
    }
    assert_eq!(
        items[0].url,
        "https://x.com/piloly/status/2074976613713031490"
    );
    assert_eq!(items[0].title, "Roland Pircher (@piloly)");
    assert!(items[0].snippet.starts_with("In Europe*, 4.7k Tesla sales"));
    assert_eq!(
        items[0].published.as_deref(),
        Some("Wed Jul 08 21:59:10 +0000 2026")
    );
    let extra = items[0].extra.as_ref().unwrap();
    assert_eq!(
        (extra["likes"].as_i64(), extra["replies"].as_i64()),
        (Some(312), Some(11))
    );
}

#[test]
fn error_answers_are_typed() {
    let expired = br#"{"errors":[{"code":32,"message":"Could not authenticate you."}]}"#;
    assert!(matches!(parse(expired), Err(ParseError::Auth(_))));
    let csrf = br#"{"errors":[{"code":353,"message":"This request requires a matching csrf cookie and header."}]}"#;
    assert!(matches!(parse(csrf), Err(ParseError::Auth(_))));
    let slow = br#"{"errors":[{"code":88,"message":"Rate limit exceeded"}]}"#;
    assert!(matches!(parse(slow), Err(ParseError::RateLimited(_))));
    assert!(matches!(parse(b"{}"), Err(ParseError::Malformed(_))));
}

#[test]
fn cookies_files_in_three_formats_give_the_session() {
    let want = Some("auth_token=a1b2; ct0=c3d4".to_owned());
    let netscape = "# Netscape HTTP Cookie File\n\
        .x.com\tTRUE\t/\tTRUE\t1893456000\tguest_id\tv1\n\
        #HttpOnly_.x.com\tTRUE\t/\tTRUE\t1893456000\tauth_token\ta1b2\n\
        .x.com\tTRUE\t/\tTRUE\t1893456000\tct0\tc3d4\n";
    assert_eq!(cookie_key(netscape), want);
    let json =
        r#"[{"domain":".x.com","name":"ct0","value":"c3d4"},{"name":"auth_token","value":"a1b2"}]"#;
    assert_eq!(cookie_key(json), want);
    assert_eq!(
        cookie_key("Cookie: lang=en; auth_token=a1b2; ct0=c3d4"),
        want
    );
    assert_eq!(cookie_key("auth_token=a1b2"), None, "ct0 is needed too");
}

#[test]
fn request_carries_the_session_and_the_filters_as_operators() {
    let key = "auth_token=a1b2; ct0=c3d4";
    let at = |req: &SearchRequest| crate::fixture::built(request, "https://x.com", Some(key), req);
    let mut req = SearchRequest::new("tokio 2.0");
    let r = at(&req);
    assert_eq!(
        r.url.path(),
        "/i/api/graphql/BGd0T_j7oVwlW5U79tO_0A/SearchTimeline"
    );
    assert!(r.headers.contains(&("cookie".into(), key.into())));
    assert!(r.headers.contains(&("x-csrf-token".into(), "c3d4".into())));
    let vars = |r: &EngineRequest| -> Value {
        let pairs: std::collections::HashMap<_, _> = r.url.query_pairs().into_owned().collect();
        let features: Value = serde_json::from_str(&pairs["features"]).unwrap();
        assert!(features.as_object().unwrap().len() > 30);
        serde_json::from_str(&pairs["variables"]).unwrap()
    };
    assert_eq!(vars(&r)["rawQuery"], "tokio 2.0");
    assert_eq!(vars(&r)["product"], "Top");
    req.filters.site = Some("github.com".into());
    req.filters.language = Some("EN".into());
    req.filters.freshness = Some(crate::types::Freshness::Week);
    let q = vars(&at(&req))["rawQuery"].as_str().unwrap().to_owned();
    let since = super::super::yyyymmdd_days_ago(7);
    let since = format!("since:{}-{}-{}", &since[..4], &since[4..6], &since[6..]);
    assert_eq!(q, format!("tokio 2.0 url:github.com {since} lang:en"));
}
