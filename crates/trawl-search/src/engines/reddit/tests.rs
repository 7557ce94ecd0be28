//! reddit: parser and request-builder tests.

use super::*;

// 2016-07-12 real listing (oauth host, same shape as the public search.json).
#[test]
fn listing_2016() {
    let items = crate::fixture::parsed(parse, "reddit/r-all-search-praw-oauth-search-2016.json", 6);
    assert!(items.iter().all(|i| i.url.starts_with("https://")));
}
