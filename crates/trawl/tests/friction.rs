//! The small frictions of a first hour (issue 42 item 20), each through the binary:
//! `open -q`, `--help`'s global options under their own heading, a one-page document's
//! footer, and a search of the store that finds nothing.

use crate::util::{run, temp_dir, trawl};

const NOTE: &str = "# Harbour note\n\nThe harbour master keeps the tide tables for every \
berth, with the heights of spring and neap tides written beside each day of the month.\n";

/// A store holding one short document; answers its handle.
fn stored(dir: &std::path::Path) -> String {
    std::fs::write(dir.join("note.md"), NOTE).unwrap();
    let r = run(trawl(dir).args(["read", "note.md", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.json()["data"]["handle"].as_str().unwrap().to_owned()
}

#[test]
fn open_q_prints_only_the_text() {
    let dir = temp_dir();
    let handle = stored(&dir);
    let r = run(trawl(&dir).args(["open", &handle, "-q"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("The harbour master keeps"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("TRAWL_UNTRUSTED"), "{}", r.stdout);
    assert!(!r.stdout.contains("handle:"), "{}", r.stdout);
}

#[test]
fn help_puts_the_global_options_under_their_own_heading() {
    let r = run(trawl(&temp_dir()).args(["open", "--help"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (own, global) = r.stdout.split_once("Global options:").expect(&r.stdout);
    assert!(global.contains("--store"), "{}", r.stdout);
    assert!(!own.contains("--store"), "{}", r.stdout);
}

#[test]
fn a_one_page_document_and_an_empty_search_say_it_plainly() {
    let dir = temp_dir();
    let handle = stored(&dir);
    let focused = run(trawl(&dir).args(["open", &handle, "--page", "1"]));
    assert_eq!(focused.code, 0, "{}", focused.stderr);
    assert!(!focused.stdout.contains("(of 1)"), "{}", focused.stdout);
    let query = run(trawl(&dir).args([
        "read",
        "note.md",
        "--query",
        "tide tables",
        "--max-tokens",
        "50",
    ]));
    assert_eq!(query.code, 0, "{}", query.stderr);
    assert!(!query.stdout.contains("(of 1)"), "{}", query.stdout);
    let none = run(trawl(&dir).args(["open", &handle, "--find", "zeppelin"]));
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(
        none.stdout.contains("No passage holds these words"),
        "{}",
        none.stdout
    );
    assert!(
        !none.stdout.contains("TRAWL_UNTRUSTED_BEGIN"),
        "{}",
        none.stdout
    );
}
