use super::*;

fn store_with_docs(b: Backend) -> Option<TestStore> {
    let store = b.open(StoreConfig::default())?;
    for i in 0..5 {
        put(&*store, i, SystemTime::now());
    }
    Some(store)
}

fn within_one_document_and_across_all(b: Backend) {
    let Some(store) = store_with_docs(b) else {
        return;
    };
    let one = store
        .find(
            "lazy dog",
            FindScope::Document("example.com~000000000003"),
            0,
        )
        .unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].handle, "example.com~000000000003");
    assert!(one[0].text.contains("lazy dog") && one[0].score > 0.0);
    assert_eq!(one[0].page, 1);
    let all = store.find("lazy dog", FindScope::All, 0).unwrap();
    assert_eq!(all.len(), 5);
    assert_eq!(store.find("lazy dog", FindScope::All, 2).unwrap().len(), 2);
}

fn ranks_by_bm25_and_stems_with_porter(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let doc = document(1);
    let passages = [
        ("Connecting", "A note on databases."),
        (
            "Pools",
            "Connection pools pool connections; connecting is slow.",
        ),
        ("Other", "Nothing relevant at all."),
    ]
    .map(|(heading, text)| Passage {
        page: 2,
        heading: heading.into(),
        text: text.into(),
        range: None,
    });
    store
        .put_document(&DocumentRecord::new(doc, SystemTime::now()), &passages)
        .unwrap();
    let hits = store.find("connect", FindScope::All, 0).unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[0].heading, "Pools");
    assert!(hits[0].score >= hits[1].score);
    assert_eq!(hits[0].page, 2);
}

fn all_words_first_then_any_word(b: Backend) {
    let Some(store) = store_with_docs(b) else {
        return;
    };
    let both = store.find("zebra2 databases", FindScope::All, 0).unwrap();
    assert_eq!(both.len(), 1, "{both:?}");
    let either = store.find("zebra2 zebra4", FindScope::All, 0).unwrap();
    assert_eq!(either.len(), 2, "{either:?}");
}

fn query_syntax_is_taken_literally(b: Backend) {
    let Some(store) = store_with_docs(b) else {
        return;
    };
    for q in [
        "NEAR(fox dog)",
        "title:fox",
        "fox*",
        "\"lazy",
        "fox AND OR NOT",
        "^fox",
    ] {
        let hits = store.find(q, FindScope::All, 0);
        assert!(hits.is_ok(), "{q}: {hits:?}");
    }
    assert_eq!(
        store.find("\"lazy dog\"", FindScope::All, 0).unwrap().len(),
        5
    );
    assert!(matches!(
        store.find(" ** ", FindScope::All, 0),
        Err(Error::EmptyQuery)
    ));
}

both_backends!(
    within_one_document_and_across_all,
    ranks_by_bm25_and_stems_with_porter,
    all_words_first_then_any_word,
    query_syntax_is_taken_literally
);
