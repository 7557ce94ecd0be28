//! `trawl open --find` finds a document by its title and by a heading with nothing under
//! it (issue 42 item 5): the words of a page's `<title>` (and the H1 that repeats it, which
//! the Markdown leaves out), of a docx's title, and of an empty section's heading.

use crate::util::{run, temp_dir, trawl};

const PAGE: &str = "<html><head><title>Quillwort field guide</title></head><body><main>\
<h1>Quillwort field guide</h1>\
<p>This page explains how to tell the small aquatic plants of lake margins apart, with \
notes on their leaves, their spores and the water they grow in.</p>\
<h2>Equipment</h2>\
<h2>On the shore</h2>\
<p>Put the lens in the pocket and the notebook in the bag before the walk.</p>\
</main></body></html>";

fn docx() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../trawl-extract/tests/docs/report.docx")
}

#[test]
fn a_title_and_an_empty_headings_words_are_found() {
    let dir = temp_dir();
    std::fs::write(dir.join("guide.html"), PAGE).unwrap();
    let store = dir.join("store.db");
    let trawl_in = |args: &[&str]| run(trawl(&dir).env("TRAWL_STORE", &store).args(args));
    for file in [dir.join("guide.html"), docx()] {
        let r = trawl_in(&["read", file.to_str().unwrap(), "--json"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let found = |words: &str| {
        let r = trawl_in(&["open", "--find", words, "--all", "--json"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.json()["data"]["passages"].as_array().unwrap().clone()
    };
    // The page's title, only in <title> and its H1: the first passage carries it.
    let by_title = found("quillwort");
    assert_eq!(by_title.len(), 1, "{by_title:?}");
    assert!(
        by_title[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("This page explains"),
        "{by_title:?}"
    );
    // A heading with nothing under it before the next one.
    let by_heading = found("equipment");
    assert_eq!(by_heading.len(), 1, "{by_heading:?}");
    assert_eq!(by_heading[0]["text"], "## Equipment", "{by_heading:?}");
    // The docx's title, a heading followed at once by the next chapter's.
    let by_docx_title = found("survey");
    assert_eq!(by_docx_title.len(), 1, "{by_docx_title:?}");
}
