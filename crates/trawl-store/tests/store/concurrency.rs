use super::*;

#[test]
fn many_threads_and_many_stores_on_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trawl.db");
    let shared = Arc::new(SqliteStore::open(&path, StoreConfig::default()).unwrap());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let shared = Arc::clone(&shared);
            let path = path.clone();
            std::thread::spawn(move || {
                // Even threads share one store; odd ones open their own, as separate
                // processes would.
                let own;
                let store: &dyn Store = if t % 2 == 0 {
                    &*shared
                } else {
                    own = SqliteStore::open(&path, StoreConfig::default()).unwrap();
                    &own
                };
                for i in 0..40 {
                    let n = t * 1000 + i;
                    put(store, n, SystemTime::now());
                    store.put_search(&format!("q{n}"), &json!(n), None).unwrap();
                    let back = store.get_document(&document(n).handle).unwrap();
                    assert!(back.is_some());
                    store.find("lazy dog", FindScope::All, 3).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let stats = shared.stats().unwrap();
    assert_eq!(stats.documents, 320);
    assert_eq!(stats.search_entries, 320);
    assert_eq!(
        shared.find("zebra7039", FindScope::All, 0).unwrap().len(),
        1
    );
    assert!(shared.integrity_check().unwrap().is_empty());
}

#[test]
fn a_writer_held_past_the_busy_timeout_gives_a_retryable_busy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trawl.db");
    let config = StoreConfig {
        busy_timeout: Duration::from_millis(50),
        ..StoreConfig::default()
    };
    let store = SqliteStore::open(&path, config).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let doc = document(1);
    let err = store
        .put_document(&DocumentRecord::new(doc, SystemTime::now()), &[])
        .unwrap_err();
    assert!(matches!(err, Error::Busy) && err.is_retryable(), "{err:?}");
    // Readers are not blocked by the writer (WAL).
    assert!(
        store
            .get_document("example.com~000000000001")
            .unwrap()
            .is_none()
    );
    holder.execute_batch("COMMIT").unwrap();
    put(&store, 1, SystemTime::now());
}
