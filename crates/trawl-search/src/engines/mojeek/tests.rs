//! mojeek: parser and request-builder tests.

use super::*;

// No real Mojeek page exists (ENGINES.md §8); this page is built from the documented
// 2025-26 markup: `ul.results-standard > li > a.ob, h2 > a.title, p.s`.
#[test]
fn documented_markup_parses() {
    let body = br#"<html><body><ul class="results-standard">
      <li><a class="ob" href="https://example.com/a">example.com</a>
          <h2><a class="title" href="https://example.com/a">Example A</a></h2>
          <p class="s">First snippet.</p></li>
      <li><a class="ob" href="https://example.org/b">example.org</a>
          <h2><a class="title" href="https://example.org/b">Example B</a></h2>
          <p class="s">Second.</p></li>
    </ul></body></html>"#;
    let first = ("https://example.com/a", "Example A", "First snippet.");
    let items = crate::fixture::parsed_first(parse, body, 2, first);
    assert_eq!(items[1].url, "https://example.org/b");
}

#[test]
fn no_pages_found_is_empty() {
    let body = b"<html><body><p>No pages found matching: zzqx</p></body></html>";
    assert_eq!(parse(body).unwrap(), vec![]);
}

/// Mojeek answers suspected bots with an ALTCHA proof-of-work page instead of results.
/// Written after the real page's markup (title "Captcha", an `altcha-widget` inside the
/// form that resubmits the search); it must read as a block, not as changed markup.
#[test]
fn the_altcha_captcha_page_is_blocked() {
    let body = br#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Captcha</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/css/captcha.css">
<script async defer src="/js/altcha.min.js" type="module"></script></head>
<body><main class="captcha">
<img src="/images/mojeek-logo.svg" alt="Mojeek">
<p>Please complete the check below to continue to your results.</p>
<form method="get" action="/search">
<input type="hidden" name="q" value="rust ownership">
<altcha-widget challengeurl="/captcha/challenge" hidefooter auto="onload"></altcha-widget>
<button type="submit">Continue</button>
</form></main></body></html>"#;
    match parse(body) {
        Err(ParseError::Blocked(why)) => assert!(!why.is_empty()),
        other => panic!("expected blocked, got {other:?}"),
    }
    // The title alone is enough, whatever the widget is called next year.
    let titled =
        b"<html><head><title>Captcha</title></head><body><form><p>Check</p></form></body></html>";
    assert!(matches!(parse(titled), Err(ParseError::Blocked(_))));
}
