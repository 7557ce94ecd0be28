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

/// A saved page vendored in this crate (tests/fixtures/duckduckgo, PROVENANCE.md there).
fn vendored(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/duckduckgo/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

// A real lite page (2026, query "zeta"): all ten results, snippets from the row after
// each link, entities decoded.
#[test]
fn lite_page_parses_all_its_results() {
    let items = lite::parse(&vendored("lite-zeta-2026.html")).unwrap();
    assert_eq!(items.len(), 10, "{items:#?}");
    assert_eq!(items[0].url, "https://zeta-ai.io/en/login");
    assert_eq!(items[0].title, "Login / Sign up - zeta");
    assert!(
        items[0].snippet.starts_with("The No.1 AI chat!"),
        "{}",
        items[0].snippet
    );
    assert!(items[3].snippet.contains("ZETA's"), "{}", items[3].snippet);
    assert_eq!(
        items[4].url,
        "https://play.google.com/store/apps/details?id=com.scatterlab.messenger&hl=en-US"
    );
    assert!(
        items
            .iter()
            .all(|i| !i.snippet.is_empty() && !i.title.is_empty())
    );
    // The html parser finds nothing it knows on this page: it is not an html-endpoint page.
    assert!(parse(&vendored("lite-zeta-2026.html")).is_err());
}

// A real anomaly page (2026-09, trimmed by its source): blocked on both transports.
#[test]
fn challenge_page_is_blocked_on_both_transports() {
    let body = vendored("html-anomaly-challenge-2026-09.html");
    assert!(matches!(parse(&body), Err(ParseError::Blocked(_))));
    assert!(matches!(lite::parse(&body), Err(ParseError::Blocked(_))));
}

// A page with the search form and no result container is the home page served instead
// of results: a refusal, not a markup change. The real lite page with its result rows
// removed is that shape (the page itself keeps only its search forms).
#[test]
fn a_search_form_without_results_is_blocked() {
    let page = String::from_utf8(vendored("lite-zeta-2026.html")).unwrap();
    let start = page.find("<!-- Web results are present -->").unwrap();
    let end = page
        .rfind("<p class='extra'>&nbsp;</p>\n\n  <form")
        .unwrap();
    let home = format!("{}{}", &page[..start], &page[end..]);
    assert!(matches!(
        lite::parse(home.as_bytes()),
        Err(ParseError::Blocked(_))
    ));
    assert!(matches!(
        parse(home.as_bytes()),
        Err(ParseError::Blocked(_))
    ));
}

#[test]
fn the_lite_request_posts_the_form() {
    let base = url::Url::parse("http://127.0.0.1:9/").unwrap();
    let ctx = RequestContext {
        base: &base,
        key: None,
    };
    let r = lite::request("rust", &SearchRequest::new("rust"), &ctx);
    assert_eq!(r.url.path(), "/lite/");
    let Some(Body::Form(form)) = r.body else {
        panic!("a form body")
    };
    assert!(form.contains(&("q".into(), "rust".into())));
    assert!(form.contains(&("kl".into(), "wt-wt".into())));
}
