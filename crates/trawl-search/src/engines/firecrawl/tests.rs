//! firecrawl: parser and request-builder tests.

use super::*;

const DIR: &str = "firecrawl/";

fn read(n: &str) -> Vec<u8> {
    crate::fixture::serp(&format!("{DIR}{n}"))
}

// 2025-10-29 real `/v2/search` (5 web results with markdown), with its request.
#[test]
fn v2_search() {
    let items = parse(&read("v2-search-firecrawl.json")).unwrap();
    assert_eq!(items.len(), 5);
    assert!(
        items
            .iter()
            .all(|i| i.url.starts_with("http") && !i.title.is_empty())
    );
    let recorded: serde_json::Value =
        serde_json::from_slice(&read("v2-search-firecrawl.request.json")).unwrap();
    let base = url::Url::parse("https://api.firecrawl.dev").unwrap();
    let ours = request(
        "firecrawl",
        &SearchRequest::new("firecrawl"),
        &RequestContext {
            base: &base,
            key: None,
        },
    );
    assert_eq!(ours.url.as_str(), recorded["uri"].as_str().unwrap());
    let Some(Body::Json(b)) = ours.body else {
        panic!()
    };
    assert_eq!(b["query"], recorded["body"]["query"]);
}

// The scrape response (and its request) is the page-read shape; a search parser
// must refuse it rather than invent results.
#[test]
fn v2_scrape_is_not_a_search() {
    assert!(matches!(
        parse(&read("v2-scrape.json")),
        Err(ParseError::Malformed(_))
    ));
    let req: serde_json::Value = serde_json::from_slice(&read("v2-scrape.request.json")).unwrap();
    assert!(req["uri"].as_str().unwrap().ends_with("/v2/scrape"));
}

#[test]
fn no_credits() {
    let body = br#"{"success":false,"error":"Insufficient credits to perform this request."}"#;
    assert!(matches!(parse(body), Err(ParseError::Quota(_))));
}
