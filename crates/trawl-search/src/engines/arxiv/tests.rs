//! arxiv: parser and request-builder tests.

use super::*;

fn fixture(name: &str) -> Vec<u8> {
    crate::fixture::serp(&format!("arxiv/{name}"))
}

fn check_full(papers: &[Paper]) {
    assert!(!papers.is_empty());
    for p in papers {
        assert!(p.id.contains("arxiv.org/abs/"), "{}", p.id);
        assert!(!p.title.is_empty() && !p.summary.is_empty());
        assert!(!p.authors.is_empty());
        assert!(!p.categories.is_empty());
        assert!(p.primary_category.is_some());
        assert!(p.published.is_some() && p.updated.is_some());
        assert!(p.abs_url.as_deref().is_some_and(|u| u.contains("/abs/")));
        assert!(p.pdf_url.as_deref().is_some_and(|u| u.contains("/pdf/")));
    }
}

// 2025-11-11, new format: bare `<link href>` elements.
#[test]
fn new_format_query() {
    let papers = parse_papers(&fixture("query-electron-proton-2025-11-new-format.xml")).unwrap();
    check_full(&papers);
    assert!(
        papers[0]
            .abs_url
            .as_deref()
            .unwrap()
            .starts_with("https://")
    );
}

// 2025-08-20, old format: `rel="alternate"` and `title="pdf"` links.
#[test]
fn old_format_query() {
    let papers = parse_papers(&fixture("query-electron-proton-2025-08-old-format.xml")).unwrap();
    check_full(&papers);
    let new = parse_papers(&fixture("query-electron-proton-2025-11-new-format.xml")).unwrap();
    assert_eq!(papers.len(), new.len());
}

#[test]
fn empty_feeds() {
    for f in [
        "query-empty-2025-08-old-format.xml",
        "query-empty-2025-11-new-format.xml",
    ] {
        assert_eq!(parse_papers(&fixture(f)).unwrap(), vec![], "{f}");
    }
}

// `id_list` with 4 ids of which one exists.
#[test]
fn missing_ids() {
    for f in [
        "query-missing-id-2025-08-old-format.xml",
        "query-missing-id-2025-11-new-format.xml",
    ] {
        let papers = parse_papers(&fixture(f)).unwrap();
        assert_eq!(papers.len(), 1, "{f}");
        check_full(&papers);
    }
}

#[test]
fn free_text_becomes_an_and_of_words() {
    assert_eq!(
        search_query("electron proton"),
        "all:electron AND all:proton"
    );
    assert_eq!(
        search_query("au:einstein AND ti:relativity"),
        "au:einstein AND ti:relativity"
    );
    assert_eq!(search_query("\"quantum\""), "all:quantum");
}

#[test]
fn error_entry_and_garbage() {
    let body = br#"<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#x</id><title>Error</title><summary>malformed id</summary></entry></feed>"#;
    assert!(
        matches!(parse_papers(body), Err(ParseError::Malformed(m)) if m.contains("malformed id"))
    );
    assert!(parse_papers(b"\x00\x01garbage").is_err());
}
