//! `trawl read` converts several local files at once (issue 42 item 7): files named on the
//! command line (`docs/*.docx`), a folder with `--recursive`, files beside URLs. Each input
//! is one result, in order, headed `==> path <==` in `-q`; a file that cannot be read fails
//! alone and makes the exit non-zero.

use crate::util::{run, run_with_stdin, temp_dir, trawl};

fn page(title: &str, words: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{words} \
    is the subject of this page, which says enough about it to be read as an article.</p>\
    </main></body></html>"
    )
}

#[test]
fn several_files_read_as_one_batch_in_order() {
    let dir = temp_dir();
    std::fs::write(dir.join("a.html"), page("Alder", "The alder tree")).unwrap();
    std::fs::write(dir.join("b.csv"), "name,height\nbirch,20\n").unwrap();
    let store = dir.join("store.db");
    let r = run(trawl(&dir)
        .env("TRAWL_STORE", &store)
        .args(["read", "-q", "a.html", "b.csv"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let a = r.stdout.find("==> a.html <==").expect(&r.stdout);
    let b = r.stdout.find("==> b.csv <==").expect(&r.stdout);
    assert!(a < b, "{}", r.stdout);
    assert!(r.stdout[a..b].contains("The alder tree"), "{}", r.stdout);
    assert!(r.stdout[b..].contains("birch"), "{}", r.stdout);
}

#[test]
fn a_folder_needs_recursive_and_then_reads_every_visible_file() {
    let dir = temp_dir();
    let docs = dir.join("docs");
    std::fs::create_dir_all(docs.join("sub")).unwrap();
    std::fs::create_dir_all(docs.join(".git")).unwrap();
    std::fs::write(docs.join("b.html"), page("Beech", "The beech tree")).unwrap();
    std::fs::write(
        docs.join("sub/c.md"),
        "# Cedar\n\nThe cedar tree grows tall.\n",
    )
    .unwrap();
    std::fs::write(docs.join("a.txt"), "The ash tree has winged seeds.\n").unwrap();
    std::fs::write(docs.join(".hidden.txt"), "not read").unwrap();
    std::fs::write(docs.join(".git/config"), "not read").unwrap();
    let store = dir.join("store.db");

    let refused = run(trawl(&dir)
        .env("TRAWL_STORE", &store)
        .args(["read", "docs"]));
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("--recursive"), "{}", refused.stderr);

    let r =
        run(trawl(&dir)
            .env("TRAWL_STORE", &store)
            .args(["read", "--recursive", "docs", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let results = r.json()["data"]["results"].as_array().unwrap().clone();
    let inputs: Vec<&str> = results
        .iter()
        .map(|x| x["input"].as_str().unwrap())
        .collect();
    assert_eq!(
        inputs,
        ["docs/a.txt", "docs/b.html", "docs/sub/c.md"],
        "{results:?}"
    );
    assert!(results.iter().all(|x| x["ok"] == true), "{results:?}");
    let cedar = results[2]["document"]["markdown"].as_str().unwrap();
    assert!(cedar.contains("cedar tree"), "{cedar}");
}

#[test]
fn a_file_that_cannot_be_read_fails_alone() {
    let dir = temp_dir();
    std::fs::write(dir.join("good.html"), page("Hazel", "The hazel shrub")).unwrap();
    std::fs::write(
        dir.join("bad.bin"),
        [0u8, 159, 146, 150, 0, 1, 2, 3, 255, 254],
    )
    .unwrap();
    let store = dir.join("store.db");
    let r =
        run(trawl(&dir)
            .env("TRAWL_STORE", &store)
            .args(["read", "-q", "good.html", "bad.bin"]));
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("The hazel shrub"), "{}", r.stdout);
    assert!(r.stderr.contains("bad.bin"), "{}", r.stderr);
}

#[test]
fn stdin_is_taken_once_and_url_names_a_single_input() {
    let dir = temp_dir();
    std::fs::write(dir.join("a.txt"), "Text.\n").unwrap();
    let store = dir.join("store.db");
    let twice = run_with_stdin(
        trawl(&dir)
            .env("TRAWL_STORE", &store)
            .args(["read", "-", "-"]),
        Some(b"hello"),
    );
    assert_eq!(twice.code, 2, "{}", twice.stderr);
    assert!(twice.stderr.contains("once"), "{}", twice.stderr);
    let url = run(trawl(&dir).env("TRAWL_STORE", &store).args([
        "read",
        "a.txt",
        "a.txt",
        "--url",
        "https://example.com/a",
    ]));
    assert_eq!(url.code, 2, "{}", url.stderr);
    assert!(url.stderr.contains("--url"), "{}", url.stderr);
}
