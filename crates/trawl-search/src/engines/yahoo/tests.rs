//! yahoo: parser and request-builder tests.

use super::*;

// 2020-07-16 page: ten `algo-sr` items with RU-wrapped links.
#[test]
fn legacy_2020_page_gives_ten_unwrapped() {
    let items = crate::fixture::parsed(parse, "yahoo/legacy-2020-bisoncorps-yahoo.html", 10);
    assert_eq!(
        items[0].url,
        "https://medium.com/homullus/fake-and-free-bypass-on-cookie-with-cloudflare-edge-cache-workers-for-wordpress-72c36d23c174"
    );
    assert!(items[0].title.starts_with("Fake and free Bypass-on-Cookie"));
    assert!(items.iter().all(|i| !i.url.contains("yahoo.com")));
}

// The 2026 title markup sxng expects, built from ENGINES.md §2.5 (no real page).
#[test]
fn modern_title_markup() {
    let body = br#"<html><body><div class="dd algo algo-sr relsrch"><div class="compTitle">
      <a href="https://r.search.yahoo.com/_ylt=x/RV=2/RU=https%3a%2f%2fexample.com%2f/RK=2/RS=y"><h3><span>Example</span></h3></a>
      </div><div class="compText"><p>Body</p></div></div></body></html>"#;
    let items = parse(body).unwrap();
    assert_eq!(items[0].url, "https://example.com/");
    assert_eq!(items[0].title, "Example");
    assert_eq!(items[0].snippet, "Body");
}
