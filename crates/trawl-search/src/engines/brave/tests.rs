//! brave: parser and request-builder tests.

use super::*;

// No real Brave HTML page exists (ENGINES.md §8). Built from the documented shape:
// `div[data-type=web]` holding `a[href] > div.title` and `div.snippet-description`.
#[test]
fn documented_markup_parses() {
    let body = br#"<html><body><div id="results">
      <div class="snippet svelte-1" data-type="web"><a href="https://example.com/a" class="h svelte-2">
        <div class="site-name">example.com</div><div class="title">Example A</div></a>
        <div class="snippet-description">3 days ago - The A page.</div></div>
      <div class="snippet svelte-1" data-type="web"><a href="/settings">x</a></div>
    </div></body></html>"#;
    let first = ("https://example.com/a", "Example A", "The A page.");
    let items = crate::fixture::parsed_first(parse, body, 1, first);
    assert_eq!(items[0].published.as_deref(), Some("3 days ago"));
}
