//! tavily: parser and request-builder tests.

use super::*;

const DIR: &str = "tavily/";

fn read(name: &str) -> Vec<u8> {
    crate::fixture::serp(&format!("{DIR}{name}"))
}

// Three real 2026-03-06 responses, each beside the request that produced it.
#[test]
fn real_responses_and_requests() {
    for (name, expect_domain) in [
        ("search-test_basic_search", None),
        ("search-test_search_with_include_domains", Some("arxiv.org")),
        ("search-test_factory_with_bound_params", Some("arxiv.org")),
    ] {
        let items = parse(&read(&format!("{name}.json"))).unwrap();
        assert!(!items.is_empty(), "{name}");
        assert!(items.iter().all(|i| i.url.starts_with("http")));
        if let Some(d) = expect_domain {
            assert!(items.iter().all(|i| i.url.contains(d)), "{name}");
        }
        // Our request carries the same fields the recorded one did.
        let recorded: serde_json::Value =
            serde_json::from_slice(&read(&format!("{name}.request.json"))).unwrap();
        let rb = &recorded["body"];
        let mut req = SearchRequest::new(rb["query"].as_str().unwrap());
        if let Some(d) = rb["include_domains"].as_array() {
            req.filters.site = d[0].as_str().map(str::to_owned);
        }
        let base = url::Url::parse("https://api.tavily.com").unwrap();
        let ours = Tavily.request(
            &req.query.clone(),
            &req,
            &RequestContext {
                base: &base,
                key: Some("k"),
            },
        );
        assert_eq!(ours.url.as_str(), recorded["uri"].as_str().unwrap());
        let Some(Body::Json(body)) = ours.body else {
            panic!()
        };
        assert_eq!(body["query"], rb["query"]);
        if !rb["include_domains"].is_null() {
            assert_eq!(body["include_domains"], rb["include_domains"]);
        }
        if !rb["search_depth"].is_null() {
            assert_eq!(body["search_depth"], rb["search_depth"]);
        }
    }
}

#[test]
fn keyless_mode_and_limit_envelope() {
    let base = url::Url::parse("https://api.tavily.com").unwrap();
    let r = Tavily.request(
        "q",
        &SearchRequest::new("q"),
        &RequestContext {
            base: &base,
            key: None,
        },
    );
    assert!(
        r.headers
            .contains(&("X-Tavily-Access-Mode".into(), "keyless".into()))
    );
    let body = br#"{"error":{"code":"rate_limited","message":"slow","window":"1m","retry_after_seconds":30}}"#;
    assert!(matches!(parse(body), Err(ParseError::RateLimited(_))));
}
