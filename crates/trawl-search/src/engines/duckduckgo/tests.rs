//! duckduckgo: parser and request-builder tests.

use super::*;

const DIR: &str = "duckduckgo/";

fn fixture(name: &str) -> Vec<u8> {
    crate::fixture::serp(&format!("{DIR}{name}"))
}

/// The saved page `name` gives `n` results, every link unwrapped from DuckDuckGo's
/// redirect and ad wrappers.
fn clean(name: &str, n: usize) -> Vec<RawItem> {
    let items = crate::fixture::parsed(parse, &format!("{DIR}{name}"), n);
    for it in &items {
        assert!(!it.url.contains("duckduckgo.com/l/"), "{}", it.url);
        assert!(!it.url.contains("y.js"), "{}", it.url);
    }
    items
}

// Captured 2026-02-23 (PROVENANCE.md): ten results, all `uddg`-wrapped.
#[test]
fn openclaw_gives_ten_unwrapped_hits() {
    let items = clean("html-openclaw.html", 10);
    assert!(items.iter().all(|i| !i.snippet.is_empty()));
}

#[test]
fn openai_news_gives_ten_hits() {
    clean("html-OpenAI-news.html", 10);
}

// The Jakarta page has one `result--ad`; it must be dropped, leaving ten.
#[test]
fn jakarta_drops_the_ad() {
    clean("html-weather-Jakarta.html", 10);
}

// 2020 page: same classes, links carry an extra `kh=-1`.
#[test]
fn legacy_2020_page_parses() {
    clean("legacy-2020-bisoncorps-duckduckgo.html", 25);
}

// The JavaScript page holds no results (it is the d.js bootstrap), only the vqd.
#[test]
fn js_page_is_not_a_results_page_but_has_vqd() {
    let body = fixture("www-openclaw-search.html");
    assert!(matches!(parse(&body), Err(ParseError::Malformed(_))));
    assert!(vqd(&body).is_some_and(|v| v.starts_with("4-")));
    let html = fixture("html-weather-Jakarta.html");
    assert_eq!(
        vqd(&html).as_deref(),
        Some("4-23696560918250046874401586642396178867")
    );
}

#[test]
fn anomaly_page_is_blocked() {
    let body = br#"<html><body><form id="challenge-form" action="/anomaly"></form>
        <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div></body></html>"#;
    assert!(matches!(parse(body), Err(ParseError::Blocked(_))));
}

#[test]
fn no_results_page_is_empty() {
    let body = br#"<html><body><div id="links"><div class="result result--no-result">
        <div class="no-results">No results.</div></div></div></body></html>"#;
    assert_eq!(parse(body).unwrap(), vec![]);
}

#[test]
fn request_maps_filters() {
    let mut req = SearchRequest::new("rust");
    req.filters.site = Some("docs.rs".into());
    req.filters.freshness = Some(crate::types::Freshness::Week);
    let base = url::Url::parse("http://127.0.0.1:9/x").unwrap();
    let r = DuckDuckGo::default().request(
        "rust",
        &req,
        &RequestContext {
            base: &base,
            key: None,
        },
    );
    assert_eq!(r.url.as_str(), "http://127.0.0.1:9/x/html/");
    let Some(Body::Form(form)) = r.body else {
        panic!()
    };
    assert!(form.contains(&("q".into(), "rust site:docs.rs".into())));
    assert!(form.contains(&("df".into(), "w".into())));
}

#[test]
fn page_two_carries_the_remembered_vqd() {
    let ddg = DuckDuckGo::default();
    let mut req = SearchRequest::new("weather");
    let base = url::Url::parse("https://html.duckduckgo.com").unwrap();
    let ctx = RequestContext {
        base: &base,
        key: None,
    };
    ddg.remember("weather", &req, &fixture("html-weather-Jakarta.html"));
    req.filters.page = Some(3);
    let Some(Body::Form(form)) = ddg.request("weather", &req, &ctx).body else {
        panic!()
    };
    assert!(form.contains(&("s".into(), "25".into())));
    assert!(form.contains(&("dc".into(), "26".into())));
    assert!(form.contains(&(
        "vqd".into(),
        "4-23696560918250046874401586642396178867".into()
    )));
    // Another query has no token yet: the offset alone, as ddgs sends it.
    let Some(Body::Form(other)) = ddg.request("other", &req, &ctx).body else {
        panic!()
    };
    assert!(!other.iter().any(|(k, _)| k == "vqd"));
}
