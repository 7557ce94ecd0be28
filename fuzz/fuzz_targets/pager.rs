//! Fuzz the pager: any text under any budget gives pages that tile the document (joined
//! back they are the document), at least one page, each non-empty unless the document is.
//!
//! `cargo fuzz run pager` (with `RUSTC_BOOTSTRAP=1` on a stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_text::pager::{Pages, paginate};

fuzz_target!(|data: &[u8]| {
    let Some((budget, rest)) = data.split_first() else {
        return;
    };
    let doc = String::from_utf8_lossy(rest);
    let budget = usize::from(*budget);
    let spans = paginate(&doc, budget);
    assert!(!spans.is_empty());
    let mut at = 0;
    for span in &spans {
        assert_eq!(span.start, at, "pages must be contiguous");
        assert!(span.end > span.start || doc.is_empty(), "empty page");
        assert!(doc.is_char_boundary(span.start) && doc.is_char_boundary(span.end));
        at = span.end;
    }
    assert_eq!(at, doc.len(), "pages must cover the document");
    let pages = Pages::new(&doc, budget);
    let joined: String = pages.iter().map(|p| p.text).collect();
    assert_eq!(joined, doc);
    for offset in [0, doc.len() / 2, doc.len()] {
        let n = pages.page_of_offset(offset);
        assert!(n >= 1 && n <= pages.count());
    }
});
