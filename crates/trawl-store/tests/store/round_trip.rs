use super::*;

fn document_comes_back_as_stored(b: Backend) {
    let clock = ManualClock::new();
    let store = open!(b, config_with(&clock));
    let mut record = DocumentRecord::new(document(7), clock.now());
    record.etag = Some("\"abc\"".into());
    record.last_modified = Some("Wed, 21 Oct 2026 07:28:00 GMT".into());
    store.put_document(&record, &[]).unwrap();

    let got = store
        .get_document("example.com~000000000007")
        .unwrap()
        .unwrap();
    assert_eq!(got.document, record.document);
    assert_eq!(got.content_hash, content_hash(&record.document.markdown));
    assert_eq!(got.etag.as_deref(), Some("\"abc\""));
    assert_eq!(got.last_modified, record.last_modified);
    assert_eq!(got.fetched_at, record.fetched_at);
    assert_eq!(got.expires_at, Some(clock.now() + 24 * HOUR));

    let by_url = store
        .get_document_by_url("https://example.com/page/7")
        .unwrap();
    assert_eq!(by_url.unwrap().document.handle, "example.com~000000000007");
    let by_asked = store.get_document_by_url("https://example.com/page/7?utm_source=x");
    assert!(by_asked.unwrap().is_some());
    assert!(
        store
            .get_document("example.com~ffffffffffff")
            .unwrap()
            .is_none()
    );
}

fn replacing_a_document_replaces_its_passages(b: Backend) {
    let store = open!(b, StoreConfig::default());
    put(&*store, 1, SystemTime::now());
    let mut doc = document(1);
    doc.markdown = "Entirely new text about kangaroos.".into();
    let record = DocumentRecord::new(doc, SystemTime::now());
    let passages = [Passage {
        page: 1,
        heading: String::new(),
        text: "Entirely new text about kangaroos.".into(),
        range: None,
    }];
    store.put_document(&record, &passages).unwrap();
    assert!(store.find("zebra1", FindScope::All, 0).unwrap().is_empty());
    assert_eq!(store.find("kangaroo", FindScope::All, 0).unwrap().len(), 1);
    assert_eq!(store.stats().unwrap().documents, 1);
    assert_eq!(store.stats().unwrap().passages, 1);
}

fn delete_removes_document_and_passages(b: Backend) {
    let store = open!(b, StoreConfig::default());
    put(&*store, 1, SystemTime::now());
    put(&*store, 2, SystemTime::now());
    assert!(store.delete_document("example.com~000000000001").unwrap());
    assert!(!store.delete_document("example.com~000000000001").unwrap());
    assert!(store.find("zebra1", FindScope::All, 0).unwrap().is_empty());
    assert_eq!(store.find("zebra2", FindScope::All, 0).unwrap().len(), 1);
}

fn key_state_and_site_memory_round_trip(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let key = "sk-live-0123456789abcdef";
    let fp = key_fingerprint("brave_api", key);
    assert!(!fp.contains(key) && fp.len() == 16);
    assert_ne!(fp, key_fingerprint("tavily", key));
    let state = json!({"health": "cooldown", "until": 1_800_000_000});
    store.put_key_state("brave_api", &fp, &state).unwrap();
    store
        .put_key_state("brave_api", "other", &json!({"health": "ok"}))
        .unwrap();
    let got = store.get_key_state("brave_api", &fp).unwrap().unwrap();
    assert_eq!(got.state, state);
    assert_eq!(store.key_states("brave_api").unwrap().len(), 2);
    assert!(store.key_states("tavily").unwrap().is_empty());

    assert!(store.get_site_reader("example.com").unwrap().is_none());
    store.put_site_reader("example.com", "impersonate").unwrap();
    store.put_site_reader("example.com", "jina").unwrap();
    let site = store.get_site_reader("example.com").unwrap().unwrap();
    assert_eq!(site.reader, "jina");
}

fn clear_empties_only_the_named_sections(b: Backend) {
    let store = open!(b, StoreConfig::default());
    put(&*store, 1, SystemTime::now());
    store.put_search("q=rust", &json!([1]), None).unwrap();
    store.put_key_state("exa", "fp", &json!({})).unwrap();
    store.put_site_reader("example.com", "http").unwrap();
    assert_eq!(store.clear(&[Section::SearchCache]).unwrap(), 1);
    let stats = store.stats().unwrap();
    assert_eq!((stats.documents, stats.search_entries), (1, 0));
    assert_eq!((stats.key_states, stats.sites), (1, 1));
    assert_eq!(store.clear(&Section::ALL).unwrap(), 3);
    let stats = store.stats().unwrap();
    assert_eq!(
        stats.documents + stats.passages + stats.key_states + stats.sites,
        0
    );
}

async fn shared_store_runs_calls_off_the_executor(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let shared = store.shared();
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let shared = shared.clone();
            tokio::spawn(async move { shared.run(move |s| Ok(put(s, i, SystemTime::now()))).await })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    let stats = shared.run(|s| s.stats()).await.unwrap();
    assert_eq!(stats.documents, 20);
}

async fn a_panic_inside_run_reaches_the_caller_and_the_store_lives_on(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let shared = store.shared();
    let task = {
        let shared = shared.clone();
        tokio::spawn(async move {
            shared
                .run(|s| -> trawl_store::Result<()> {
                    s.put_site_reader("example.com", "http")?;
                    panic!("caller bug")
                })
                .await
        })
    };
    assert!(task.await.unwrap_err().is_panic());
    let site = shared.run(|s| s.get_site_reader("example.com")).await;
    assert_eq!(site.unwrap().unwrap().reader, "http");
}

fn shared_store_runs_calls_off_the_executor_sync(b: Backend) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
        .block_on(shared_store_runs_calls_off_the_executor(b));
}

fn a_panic_inside_run_reaches_the_caller_and_the_store_lives_on_sync(b: Backend) {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(a_panic_inside_run_reaches_the_caller_and_the_store_lives_on(b));
}

both_backends!(
    shared_store_runs_calls_off_the_executor_sync,
    a_panic_inside_run_reaches_the_caller_and_the_store_lives_on_sync,
    document_comes_back_as_stored,
    replacing_a_document_replaces_its_passages,
    delete_removes_document_and_passages,
    key_state_and_site_memory_round_trip,
    clear_empties_only_the_named_sections
);
