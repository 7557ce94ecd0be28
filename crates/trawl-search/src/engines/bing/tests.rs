//! bing: parser and request-builder tests.

use super::*;

// 2020-07-16 page (PROVENANCE.md): ten `li.b_algo`, direct hrefs.
#[test]
fn legacy_2020_page_gives_ten() {
    let items = crate::fixture::parsed(parse, "bing/legacy-2020-bisoncorps-bing.html", 10);
    assert!(items.iter().filter(|i| !i.snippet.is_empty()).count() >= 8);
}

// No recent real page exists (ENGINES.md §8): built from the documented ck/a shape.
#[test]
fn ck_a_links_are_unwrapped_and_ads_dropped() {
    let body = br#"<html><body><ol id="b_results">
      <li class="b_algo"><h2><a href="https://www.bing.com/aclick?ld=x">Ad</a></h2></li>
      <li class="b_algo"><h2><a href="https://www.bing.com/ck/a?!&&p=1&u=a1aHR0cHM6Ly9leGFtcGxlLm9yZy9wYWdl&ntb=1">Example</a></h2>
        <div class="b_caption"><p class="b_lineclamp2">A snippet</p></div></li>
    </ol></body></html>"#;
    let items = parse(body).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].url, "https://example.org/page");
    assert_eq!(items[0].snippet, "A snippet");
}

#[test]
fn captcha_is_blocked() {
    let body = br#"<html><body><div id="b_captcha">verify</div></body></html>"#;
    assert!(matches!(parse(body), Err(ParseError::Blocked(_))));
}
