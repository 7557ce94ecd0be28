use trawl_store::MAX_VERSIONS;

use super::*;

/// Document 3 as it read at `n`: same handle, different text.
fn edition(n: usize, fetched_at: SystemTime) -> DocumentRecord {
    let mut doc = document(3);
    doc.markdown = format!("# Page 3\n\nEdition {n} of the page.\n");
    let mut record = DocumentRecord::new(doc, fetched_at);
    record.etag = Some(format!("\"e{n}\""));
    record
}

fn older_copies_are_numbered_kept_and_come_back(b: Backend) {
    let clock = ManualClock::new();
    let store = open!(b, config_with(&clock));
    let versions = store.versions().expect("this backend keeps versions");
    assert!(
        versions
            .list_versions("example.com~000000000003")
            .unwrap()
            .is_empty()
    );
    assert!(
        versions
            .get_version("example.com~000000000003", 1)
            .unwrap()
            .is_none()
    );

    let first = edition(1, clock.now());
    store.put_document(&first, &[]).unwrap();
    clock.advance(HOUR);
    assert_eq!(versions.put_version(&first).unwrap(), 1);
    let second = edition(2, clock.now());
    store.put_document(&second, &[]).unwrap();

    // The current copy is the second; the first is version 1, as it was.
    let current = store
        .get_document("example.com~000000000003")
        .unwrap()
        .unwrap();
    assert!(current.document.markdown.contains("Edition 2"));
    let old = versions
        .get_version("example.com~000000000003", 1)
        .unwrap()
        .unwrap();
    assert_eq!(old.document, first.document);
    assert_eq!(old.content_hash, first.content_hash);
    assert_eq!(old.fetched_at, first.fetched_at);
    assert_eq!(old.etag.as_deref(), Some("\"e1\""));
    assert!(
        !old.is_fresh(clock.now()),
        "history is never served as fresh"
    );
    let listed = versions.list_versions("example.com~000000000003").unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].version, 1);
    assert_eq!(listed[0].content_hash, first.content_hash);

    // Replacing the document again keeps its history.
    assert_eq!(versions.put_version(&second).unwrap(), 2);
    store.put_document(&edition(3, clock.now()), &[]).unwrap();
    let numbers: Vec<u32> = versions
        .list_versions("example.com~000000000003")
        .unwrap()
        .iter()
        .map(|v| v.version)
        .collect();
    assert_eq!(numbers, [1, 2]);
}

fn only_the_latest_copies_are_kept(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let versions = store.versions().unwrap();
    let total = MAX_VERSIONS + 3;
    for n in 1..=total {
        assert_eq!(
            versions
                .put_version(&edition(n as usize, SystemTime::now()))
                .unwrap(),
            n
        );
    }
    let listed = versions.list_versions("example.com~000000000003").unwrap();
    let numbers: Vec<u32> = listed.iter().map(|v| v.version).collect();
    assert_eq!(
        numbers,
        (4..=total).collect::<Vec<_>>(),
        "numbers are not reused"
    );
    assert!(
        versions
            .get_version("example.com~000000000003", 3)
            .unwrap()
            .is_none()
    );
    let last = versions
        .get_version("example.com~000000000003", total)
        .unwrap()
        .unwrap();
    assert!(
        last.document
            .markdown
            .contains(&format!("Edition {total} "))
    );
}

fn older_copies_go_with_their_document(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let versions = store.versions().unwrap();
    for i in [3, 4] {
        let record = edition(i, SystemTime::now());
        store.put_document(&record, &[]).unwrap();
        versions.put_version(&record).unwrap();
    }
    // Both editions share one handle: make a second document with versions too.
    let other = put(&*store, 5, SystemTime::now());
    versions.put_version(&other).unwrap();
    assert!(store.delete_document("example.com~000000000003").unwrap());
    assert!(
        versions
            .list_versions("example.com~000000000003")
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        versions
            .list_versions("example.com~000000000005")
            .unwrap()
            .len(),
        1
    );
    store.clear(&[Section::Documents]).unwrap();
    assert!(
        versions
            .list_versions("example.com~000000000005")
            .unwrap()
            .is_empty()
    );
    assert!(
        versions
            .get_version("example.com~000000000005", 1)
            .unwrap()
            .is_none()
    );
}

both_backends!(
    older_copies_are_numbered_kept_and_come_back,
    only_the_latest_copies_are_kept,
    older_copies_go_with_their_document,
);
