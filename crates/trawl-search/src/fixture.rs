//! Test access to the saved engine responses in `../shared/fixtures/serp` (PROVENANCE.md
//! says where each came from).

/// The bytes of `path` under the SERP fixtures directory; a missing fixture fails the test.
pub(crate) fn serp(path: &str) -> Vec<u8> {
    let full = format!(
        "{}/../../../shared/fixtures/serp/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&full).unwrap_or_else(|e| panic!("fixture {full}: {e}"))
}

use crate::engine::{EngineRequest, ParseFn, RawItem, RequestContext, RequestFn};
use crate::types::SearchRequest;

/// `parse` over the saved response at `path`: `n` items, each with an http(s) link and a
/// title.
pub(crate) fn parsed(parse: ParseFn, path: &str, n: usize) -> Vec<RawItem> {
    let items = parse(&serp(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(items.len(), n, "{path}");
    let bad: Vec<&RawItem> = items
        .iter()
        .filter(|i| !i.url.starts_with("http") || i.title.is_empty())
        .collect();
    assert!(
        bad.is_empty(),
        "{path}: items without a link or title: {bad:#?}"
    );
    items
}

/// `parse` over a hand-built body: `n` items, the first with this link, title and snippet.
pub(crate) fn parsed_first(
    parse: ParseFn,
    body: &[u8],
    n: usize,
    (url, title, snippet): (&str, &str, &str),
) -> Vec<RawItem> {
    let items = parse(body).unwrap();
    assert_eq!(items.len(), n, "{items:#?}");
    assert_eq!(
        (items[0].url.as_str(), items[0].title.as_str()),
        (url, title)
    );
    assert_eq!(items[0].snippet, snippet);
    items
}

/// The request `request` builds for `req` against `base`, with `key`.
pub(crate) fn built(
    request: RequestFn,
    base: &str,
    key: Option<&str>,
    req: &SearchRequest,
) -> EngineRequest {
    let base = url::Url::parse(base).unwrap();
    request(&req.query, req, &RequestContext { base: &base, key })
}
