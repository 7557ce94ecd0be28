use std::collections::HashSet;
use std::time::Instant;

use super::*;

fn redis_pair(server: &RedisServer, prefix: &str) -> (RedisStore, RedisStore) {
    let open = || RedisStore::open(&server.url(), prefix, StoreConfig::default()).unwrap();
    (open(), open())
}

#[test]
fn replicas_see_each_others_writes_and_prefixes_keep_stores_apart() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (a, b) = redis_pair(&server, "team1:");
    put(&a, 3, SystemTime::now());
    let got = b.get_document("example.com~000000000003").unwrap().unwrap();
    assert_eq!(got.document, document(3));
    assert_eq!(b.find("zebra3", FindScope::All, 0).unwrap().len(), 1);
    b.put_search("q", &json!([1]), None).unwrap();
    assert!(a.get_search("q").unwrap().is_some());
    // A key cool-down learned by one replica is what the next one reads.
    let cooldown = json!({"health": "cooldown", "until": 1_800_000_000});
    a.put_key_state("brave_api", "fp1", &cooldown).unwrap();
    assert_eq!(
        b.get_key_state("brave_api", "fp1").unwrap().unwrap().state,
        cooldown
    );
    b.put_site_reader("example.com", "impersonate").unwrap();
    assert_eq!(
        a.get_site_reader("example.com").unwrap().unwrap().reader,
        "impersonate"
    );

    let other = RedisStore::open(&server.url(), "team2:", StoreConfig::default()).unwrap();
    assert!(
        other
            .get_document("example.com~000000000003")
            .unwrap()
            .is_none()
    );
    assert!(other.find("zebra3", FindScope::All, 0).unwrap().is_empty());
    assert_eq!(other.stats().unwrap().documents, 0);
    other.clear(&Section::ALL).unwrap();
    assert!(
        a.get_document("example.com~000000000003")
            .unwrap()
            .is_some()
    );
}

#[test]
fn unreachable_redis_is_an_open_error_naming_the_url_without_its_password() {
    let port = trawl_testkit::free_port();
    let url = format!("redis://user:hunter2@127.0.0.1:{port}/0");
    let err = RedisStore::open(&url, "p:", StoreConfig::default()).unwrap_err();
    let Error::Open { location, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(location, &format!("redis://****@127.0.0.1:{port}/0"));
    assert!(!format!("{err} {err:?}").contains("hunter2"));
}

#[test]
fn a_restarted_redis_is_used_again_without_reopening() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let store = RedisStore::open(&server.url(), "p:", StoreConfig::default()).unwrap();
    put(&store, 1, SystemTime::now());
    server.stop();
    assert!(store.get_document("example.com~000000000001").is_err());
    assert!(store.put_site_reader("example.com", "http").is_err());
    server.restart();
    // Nothing persisted (no save, no AOF); the pool's broken connections are replaced.
    assert!(
        store
            .get_document("example.com~000000000001")
            .unwrap()
            .is_none()
    );
    put(&store, 2, SystemTime::now());
    assert_eq!(store.find("zebra2", FindScope::All, 0).unwrap().len(), 1);
}

#[test]
fn concurrent_writers_never_leave_a_passage_without_its_document() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let stores: Vec<Arc<RedisStore>> = (0..3)
        .map(|_| Arc::new(RedisStore::open(&server.url(), "p:", StoreConfig::default()).unwrap()))
        .collect();
    std::thread::scope(|s| {
        for (t, store) in stores.iter().enumerate() {
            s.spawn(move || {
                for round in 0..30 {
                    let i = (t + round) % 5;
                    put(&**store, i, SystemTime::now());
                    if round % 7 == 0 {
                        store.delete_document(&document(i).handle).unwrap();
                    }
                    // Finds racing the writers must not fail on half-written data.
                    store.find("lazy dog", FindScope::All, 0).unwrap();
                }
            });
        }
    });
    let store = &stores[0];
    let stats = store.stats().unwrap();
    let stored: HashSet<String> = (0..5)
        .filter(|i| store.get_document(&document(*i).handle).unwrap().is_some())
        .map(|i| document(i).handle)
        .collect();
    assert_eq!(stats.documents as usize, stored.len());
    // Every passage found belongs to a stored document, and each stored one is found once
    // per passage (no postings left from replaced copies).
    let hits = store.find("lazy dog", FindScope::All, 0).unwrap();
    assert_eq!(hits.len(), stored.len(), "{hits:?}");
    assert!(hits.iter().all(|h| stored.contains(&h.handle)));
    assert_eq!(
        stats.passages as usize,
        stored.len() * passages_of(&document(0)).len()
    );
}

#[test]
fn rate_limit_slots_are_global_across_replicas() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let stores: Vec<RedisStore> = (0..3)
        .map(|_| RedisStore::open(&server.url(), "p:", StoreConfig::default()).unwrap())
        .collect();
    let spacing = Duration::from_millis(250);
    let starts = std::sync::Mutex::new(Vec::<Instant>::new());
    let start = Instant::now();
    std::thread::scope(|s| {
        for store in &stores {
            for _ in 0..2 {
                let starts = &starts;
                s.spawn(move || {
                    while start.elapsed() < Duration::from_millis(1100) {
                        if let Some(lease) = store
                            .try_acquire_slot("engine", spacing, 0, Duration::from_secs(5))
                            .unwrap()
                        {
                            starts.lock().unwrap().push(Instant::now());
                            store.release_slot(&lease).unwrap();
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                });
            }
        }
    });
    // One start per 250 ms across the six callers: consecutive starts are at least the
    // spacing apart (less the round trip's jitter), and no more starts than the time the
    // callers really ran allows; a loaded machine may give fewer, never more.
    let ran = start.elapsed();
    let mut starts = starts.into_inner().unwrap();
    starts.sort();
    assert!(!starts.is_empty(), "no slot in {ran:?}");
    for pair in starts.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap + Duration::from_millis(25) >= spacing,
            "two starts {gap:?} apart"
        );
    }
    let most = (ran.as_millis() / spacing.as_millis()) as usize + 1;
    assert!(starts.len() <= most, "{} starts in {ran:?}", starts.len());

    // In-flight cap: two slots, the third caller on any replica is told busy.
    let a = stores[0]
        .try_acquire_slot("capped", Duration::ZERO, 2, Duration::from_secs(5))
        .unwrap()
        .unwrap();
    let _b = stores[1]
        .try_acquire_slot("capped", Duration::ZERO, 2, Duration::from_secs(5))
        .unwrap()
        .unwrap();
    let busy = stores[2].try_acquire_slot("capped", Duration::ZERO, 2, Duration::from_secs(5));
    assert!(busy.unwrap().is_none());
    stores[0].release_slot(&a).unwrap();
    let again = stores[2].try_acquire_slot("capped", Duration::ZERO, 2, Duration::from_secs(5));
    assert!(again.unwrap().is_some());
    // A lease a dead replica never released frees itself.
    let _short = stores[0]
        .try_acquire_slot("leased", Duration::ZERO, 1, Duration::from_millis(100))
        .unwrap()
        .unwrap();
    std::thread::sleep(Duration::from_millis(150));
    assert!(
        stores[1]
            .try_acquire_slot("leased", Duration::ZERO, 1, Duration::from_secs(5))
            .unwrap()
            .is_some()
    );
}

#[test]
fn while_redis_is_down_every_call_fails_at_once_as_retryable_and_a_restart_ends_it() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let store = RedisStore::open(&server.url(), "p:", StoreConfig::default()).unwrap();
    put(&store, 1, SystemTime::now());
    server.stop();
    // The call that finds Redis gone: unavailable, and worth retrying later.
    let first = store.get_document("example.com~000000000001").unwrap_err();
    assert!(first.is_unavailable() && first.is_retryable(), "{first:?}");
    assert!(first.to_string().contains(&server.url()), "{first}");
    let found = store.connection_stats();
    let since = found.down_since.expect("marked down");
    // The calls of a read after it (look up, site memory, keep) each try at most one
    // direct connection and never wait for the pool: that wait (a connect timeout each)
    // is what made a read take ~5 s during an outage.
    let calls = 20;
    for i in 0..calls {
        let err = match i % 4 {
            0 => store
                .get_document_by_url("https://example.com/page/1")
                .unwrap_err(),
            1 => store.get_site_reader("example.com").unwrap_err(),
            2 => store
                .count_site_attempts("example.com", &[("http".into(), true)])
                .unwrap_err(),
            _ => {
                let doc = document(9);
                let passages = passages_of(&doc);
                store
                    .put_document(&DocumentRecord::new(doc, SystemTime::now()), &passages)
                    .unwrap_err()
            }
        };
        assert!(err.is_unavailable() && err.is_retryable(), "{err:?}");
    }
    let after = store.connection_stats();
    assert_eq!(after.pool_timeouts, found.pool_timeouts, "{after:?}");
    assert!(
        after.direct_tries - found.direct_tries <= calls,
        "{found:?} -> {after:?}"
    );
    assert_eq!(
        after.down_since,
        Some(since),
        "one outage, not one per call"
    );
    server.restart();
    // The next call finds it back (a refused connection is tried again at once).
    put(&store, 2, SystemTime::now());
    assert_eq!(store.find("zebra2", FindScope::All, 0).unwrap().len(), 1);
    assert_eq!(store.connection_stats().down_since, None);
}

#[test]
fn a_silent_redis_costs_one_timeout_then_calls_fail_at_once_until_it_answers_again() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    // A short busy timeout: a command waits at most 1 s (the floor) for an answer.
    let config = StoreConfig {
        busy_timeout: Duration::from_millis(100),
        ..StoreConfig::default()
    };
    let store = RedisStore::open(&server.url(), "p:", config).unwrap();
    put(&store, 1, SystemTime::now());
    server.pause();
    let first = store.get_document("example.com~000000000001").unwrap_err();
    assert!(first.is_unavailable() && first.is_retryable(), "{first:?}");
    let found = store.connection_stats();
    // Within the silent window no call tries a connection or waits for the pool: each
    // would wait a timeout again.
    for _ in 0..10 {
        let err = store.get_site_reader("example.com").unwrap_err();
        assert!(err.is_unavailable(), "{err:?}");
    }
    let after = store.connection_stats();
    assert_eq!(
        after.direct_tries, found.direct_tries,
        "{found:?} -> {after:?}"
    );
    assert_eq!(
        after.pool_timeouts, found.pool_timeouts,
        "{found:?} -> {after:?}"
    );
    server.resume();
    // Tried again once the silent window (5 s) has passed.
    let deadline = Instant::now() + Duration::from_secs(15);
    while store.get_site_reader("example.com").is_err() {
        assert!(Instant::now() < deadline, "{:?}", store.connection_stats());
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        store
            .get_document("example.com~000000000001")
            .unwrap()
            .is_some()
    );
}

#[test]
fn calls_that_meet_a_restarted_redis_at_once_all_succeed() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let store = RedisStore::open(&server.url(), "p:", StoreConfig::default()).unwrap();
    let callers = 8;
    // Fill the pool with connections (each caller holds one while the others start), so
    // that every caller after the restart takes one the restart has broken.
    let together = std::sync::Barrier::new(callers);
    std::thread::scope(|s| {
        for _ in 0..callers {
            s.spawn(|| {
                together.wait();
                for _ in 0..20 {
                    store.get_site_reader("example.com").unwrap();
                }
            });
        }
    });
    server.restart();
    // They all find their connection dropped at once: one tries a new connection, and the
    // others take its answer instead of failing while it runs.
    for round in 0..5 {
        let together = std::sync::Barrier::new(callers);
        let failed = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..callers {
                s.spawn(|| {
                    together.wait();
                    if let Err(e) = store.get_site_reader("example.com") {
                        failed.lock().unwrap().push(e.to_string());
                    }
                });
            }
        });
        let failed = failed.into_inner().unwrap();
        assert!(failed.is_empty(), "round {round}: {failed:?}");
        if round < 4 {
            server.restart();
        }
    }
    assert_eq!(store.connection_stats().down_since, None);
}
