use super::*;

fn documents_go_stale_and_revalidation_refreshes_them(b: Backend) {
    let clock = ManualClock::new();
    let store = open!(b, config_with(&clock));
    let mut record = DocumentRecord::new(document(1), clock.now());
    record.etag = Some("\"v1\"".into());
    store.put_document(&record, &[]).unwrap();
    let handle = "example.com~000000000001";
    assert!(
        store
            .get_document(handle)
            .unwrap()
            .unwrap()
            .is_fresh(clock.now())
    );

    clock.advance(25 * HOUR);
    let stale = store.get_document(handle).unwrap().unwrap();
    assert!(
        !stale.is_fresh(clock.now()),
        "a stale copy is still returned"
    );
    assert_eq!(store.stats().unwrap().stale_documents, 1);

    let revalidation = Revalidation {
        fetched_at: clock.now(),
        expires_at: None,
        etag: None,
        last_modified: Some("Thu, 01 Jan 2026 00:00:00 GMT".into()),
    };
    assert!(store.revalidate_document(handle, &revalidation).unwrap());
    let fresh = store.get_document(handle).unwrap().unwrap();
    assert!(fresh.is_fresh(clock.now()));
    assert_eq!(fresh.etag.as_deref(), Some("\"v1\""), "validator kept");
    assert!(fresh.last_modified.is_some());
    assert!(
        !store
            .revalidate_document("example.com~ffffffffffff", &revalidation)
            .unwrap()
    );
}

fn explicit_expiry_and_zero_ttl(b: Backend) {
    let clock = ManualClock::new();
    let config = StoreConfig {
        document_ttl: Duration::ZERO,
        ..config_with(&clock)
    };
    let store = open!(b, config);
    put(&*store, 1, clock.now());
    let mut record = DocumentRecord::new(document(2), clock.now());
    record.expires_at = Some(clock.now() + Duration::from_secs(60));
    store.put_document(&record, &[]).unwrap();
    clock.advance(HOUR * 24 * 365);
    let never = store
        .get_document("example.com~000000000001")
        .unwrap()
        .unwrap();
    assert!(never.expires_at.is_none() && never.is_fresh(clock.now()));
    let short = store
        .get_document("example.com~000000000002")
        .unwrap()
        .unwrap();
    assert!(!short.is_fresh(clock.now()));
}

fn search_cache_expires(b: Backend) {
    let clock = ManualClock::new();
    let store = open!(b, config_with(&clock));
    let answer = json!({"hits": [{"url": "https://example.com/"}]});
    store
        .put_search("web|rust sqlite|10", &answer, None)
        .unwrap();
    store
        .put_search("news|rust|10", &answer, Some(Duration::from_secs(60)))
        .unwrap();
    let cached = store.get_search("web|rust sqlite|10").unwrap().unwrap();
    assert_eq!(cached.value, answer);
    assert_eq!(cached.stored_at, clock.now());

    clock.advance(Duration::from_secs(61));
    assert!(store.get_search("news|rust|10").unwrap().is_none());
    assert!(store.get_search("web|rust sqlite|10").unwrap().is_some());
    clock.advance(Duration::from_secs(15 * 60));
    assert!(store.get_search("web|rust sqlite|10").unwrap().is_none());
    assert_eq!(store.stats().unwrap().expired_search_entries, 2);
    assert_eq!(store.prune().unwrap().expired_searches, 2);
    assert_eq!(store.stats().unwrap().search_entries, 0);
}

fn prune_drops_long_stale_documents_and_old_site_memory(b: Backend) {
    let clock = ManualClock::new();
    let store = open!(b, config_with(&clock));
    put(&*store, 1, clock.now());
    store.put_site_reader("old.example", "impersonate").unwrap();
    clock.advance(HOUR * 24 * 20);
    put(&*store, 2, clock.now());
    store.put_site_reader("new.example", "http").unwrap();
    clock.advance(HOUR * 24 * 15);
    // Doc 1 expired 34 days ago (> 30 days retention), doc 2 14 days ago.
    assert!(
        store.get_site_reader("old.example").unwrap().is_none(),
        "past its TTL"
    );
    let report = store.prune().unwrap();
    assert_eq!(report.expired_documents, 1);
    assert_eq!(report.forgotten_sites, 1);
    assert!(
        store
            .get_document("example.com~000000000001")
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .get_document("example.com~000000000002")
            .unwrap()
            .is_some()
    );
    assert!(store.find("zebra1", FindScope::All, 0).unwrap().is_empty());
    assert!(store.get_site_reader("new.example").unwrap().is_some());
}

fn a_pinned_site_keeps_its_reader_and_outlives_its_ttl(b: Backend) {
    let clock = ManualClock::new();
    let store = open!(b, config_with(&clock));
    store.put_site_reader("learned.example", "http").unwrap();
    store
        .pin_site_reader("pinned.example", "impersonate")
        .unwrap();
    // What worked last does not replace a pin.
    store.put_site_reader("pinned.example", "http").unwrap();
    let pin = store.get_site_reader("pinned.example").unwrap().unwrap();
    assert_eq!((pin.reader.as_str(), pin.pinned), ("impersonate", true));
    let listed: Vec<(String, String, bool)> = store
        .site_readers()
        .unwrap()
        .into_iter()
        .map(|(site, r)| (site, r.reader, r.pinned))
        .collect();
    assert_eq!(
        listed,
        [
            ("learned.example".to_owned(), "http".to_owned(), false),
            ("pinned.example".to_owned(), "impersonate".to_owned(), true),
        ]
    );
    clock.advance(HOUR * 24 * 40);
    assert!(store.get_site_reader("learned.example").unwrap().is_none());
    assert_eq!(store.prune().unwrap().forgotten_sites, 1);
    assert_eq!(store.site_readers().unwrap().len(), 1, "the pin stays");
    // Tier counts: each attempt adds to its reader's ok or failed.
    let attempts = |list: &[(&str, bool)]| -> Vec<(String, bool)> {
        list.iter().map(|(r, w)| ((*r).to_owned(), *w)).collect()
    };
    store
        .count_site_attempts(
            "pinned.example",
            &attempts(&[("http", false), ("render", true)]),
        )
        .unwrap();
    store
        .count_site_attempts("pinned.example", &attempts(&[("render", true)]))
        .unwrap();
    let stats = store.site_tier_stats("pinned.example").unwrap();
    let stats: Vec<(&str, u64, u64)> = stats
        .iter()
        .map(|t| (t.reader.as_str(), t.ok, t.failed))
        .collect();
    assert_eq!(stats, [("render", 2, 0), ("http", 0, 1)]);
    assert!(store.site_tier_stats("other.example").unwrap().is_empty());
    assert!(store.forget_site("pinned.example").unwrap());
    assert!(store.site_tier_stats("pinned.example").unwrap().is_empty());
    assert!(!store.forget_site("pinned.example").unwrap());
    assert!(store.get_site_reader("pinned.example").unwrap().is_none());
    // Once forgotten, what works is learned again.
    store.put_site_reader("pinned.example", "http").unwrap();
    assert!(
        !store
            .get_site_reader("pinned.example")
            .unwrap()
            .unwrap()
            .pinned
    );
}

fn size_bound_evicts_the_oldest_reads(b: Backend) {
    let clock = ManualClock::new();
    let one_doc = serde_json::to_string(&document(0)).unwrap().len() as u64;
    let config = StoreConfig {
        max_document_bytes: one_doc * 10,
        ..config_with(&clock)
    };
    let store = open!(b, config);
    for i in 0..30 {
        put(&*store, i, clock.now());
        clock.advance(Duration::from_secs(1));
        assert!(store.stats().unwrap().document_bytes <= one_doc * 10 + 64);
    }
    let stats = store.stats().unwrap();
    assert!(stats.documents <= 10 && stats.documents >= 8, "{stats:?}");
    assert!(
        store
            .get_document("example.com~00000000001d")
            .unwrap()
            .is_some()
    );
    assert!(
        store
            .get_document("example.com~000000000000")
            .unwrap()
            .is_none()
    );
    assert!(store.find("zebra0", FindScope::All, 0).unwrap().is_empty());
}

/// Pins are never evicted, so each is charged against the size bound and documents make
/// room for them; a forgotten pin gives its charge back.
fn pins_count_against_the_size_bound(b: Backend) {
    let clock = ManualClock::new();
    let one_doc = serde_json::to_string(&document(0)).unwrap().len() as u64;
    let bound = one_doc * 10;
    let config = StoreConfig {
        max_document_bytes: bound,
        ..config_with(&clock)
    };
    let store = open!(b, config);
    // Pins worth about four documents.
    let pins = (4 * one_doc).div_ceil(trawl_store::PIN_CHARGE_BYTES);
    for i in 0..pins {
        store
            .pin_site_reader(&format!("pin{i}.example"), "http")
            .unwrap();
    }
    for i in 0..30 {
        put(&*store, i, clock.now());
        clock.advance(Duration::from_secs(1));
    }
    let with_pins = store.stats().unwrap();
    assert!(
        with_pins.document_bytes + pins * trawl_store::PIN_CHARGE_BYTES <= bound + 64,
        "documents and pins over the bound: {with_pins:?}"
    );
    assert!(with_pins.documents <= 7, "{with_pins:?}");
    for i in 0..pins {
        assert!(store.forget_site(&format!("pin{i}.example")).unwrap());
    }
    for i in 30..60 {
        put(&*store, i, clock.now());
        clock.advance(Duration::from_secs(1));
    }
    let without = store.stats().unwrap();
    assert!(without.documents >= 8, "{without:?}");
}

both_backends!(
    pins_count_against_the_size_bound,
    documents_go_stale_and_revalidation_refreshes_them,
    explicit_expiry_and_zero_ttl,
    search_cache_expires,
    prune_drops_long_stale_documents_and_old_site_memory,
    a_pinned_site_keeps_its_reader_and_outlives_its_ttl,
    size_bound_evicts_the_oldest_reads
);
