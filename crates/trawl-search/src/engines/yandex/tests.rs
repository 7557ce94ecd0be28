//! yandex: parser and request-builder tests.

use super::*;

// No saved Yandex page exists (ENGINES.md 2.8; none found in public test data): built
// from the widget markup SearXNG and ddgs select.
#[test]
fn documented_widget_markup_parses() {
    let body = r#"<html><body><ul class="b-serp-list">
      <li class="b-serp-item serp-item"><h3 class="b-serp-item__title"><a class="b-serp-item__title-link" href="https://example.ru/a"><span>Пример A</span></a></h3>
        <div class="b-serp-item__content"><div class="b-serp-item__text">Первый сниппет.</div></div></li>
      <li class="b-serp-item serp-item"><h3 class="b-serp-item__title"><a class="b-serp-item__title-link" href="https://example.com/b">Example B</a></h3>
        <div class="b-serp-item__content"><div class="b-serp-item__text">Second.</div></div></li>
    </ul></body></html>"#;
    let items = parse(body.as_bytes()).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].url, "https://example.ru/a");
    assert_eq!(items[0].title, "Пример A");
    assert_eq!(items[0].snippet, "Первый сниппет.");
    assert_eq!(items[1].title, "Example B");
}

#[test]
fn captcha_page_is_blocked() {
    let body = br#"<html><body><form action="/checkcaptcha"><div class="CheckboxCaptcha">x</div></form></body></html>"#;
    assert!(matches!(parse(body), Err(ParseError::Blocked(_))));
}

#[test]
fn request_carries_site_language_and_page() {
    let mut req = SearchRequest::new("rust");
    req.filters.site = Some("habr.com".into());
    req.filters.language = Some("RU".into());
    req.filters.page = Some(2);
    let r = crate::fixture::built(request, "https://yandex.com", None, &req);
    let pairs: std::collections::HashMap<_, _> = r.url.query_pairs().into_owned().collect();
    assert_eq!(r.url.path(), "/search/site/");
    assert_eq!(pairs["text"], "rust site:habr.com");
    assert_eq!(pairs["lang"], "ru");
    assert_eq!(pairs["p"], "1");
    assert_eq!(pairs["searchid"], "3131712");
}
