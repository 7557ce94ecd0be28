//! startpage: parser and request-builder tests.

use super::*;

// No real Startpage page exists (ENGINES.md §8); built from the documented markup.
#[test]
fn documented_markup_parses() {
    let body = br#"<html><body><section>
      <div class="result css-abc"><a class="result-title result-link" href="https://example.com/x"><h2>Example X</h2></a>
        <p class="description">About X.</p></div>
      <div class="result css-abc"><a class="result-title" href="https://www.google.com/ad">Ad</a></div>
    </section></body></html>"#;
    let first = ("https://example.com/x", "Example X", "About X.");
    crate::fixture::parsed_first(parse, body, 1, first);
}

#[test]
fn captcha_form_is_blocked() {
    let body = br#"<html><body><form action="/sp/captcha/verify"></form></body></html>"#;
    assert!(matches!(parse(body), Err(ParseError::Blocked(_))));
}
