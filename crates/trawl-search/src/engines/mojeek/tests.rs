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
    let items = parse(body).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[1].url, "https://example.org/b");
    assert_eq!(items[0].title, "Example A");
    assert_eq!(items[0].snippet, "First snippet.");
}

#[test]
fn no_pages_found_is_empty() {
    let body = b"<html><body><p>No pages found matching: zzqx</p></body></html>";
    assert_eq!(parse(body).unwrap(), vec![]);
}
