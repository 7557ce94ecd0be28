use std::collections::HashSet;

use trawl_store::{
    CrawlRecord, CrawlStore, CrawlUrl, KeptLink, KeptLinks, PageNotes, UrlOutcome, UrlState,
};

use super::*;

fn url(key: &str, state: UrlState, priority: f64) -> CrawlUrl {
    CrawlUrl {
        key: key.into(),
        url: format!("https://example.com/{key}"),
        depth: 1,
        priority,
        run: 0,
        state,
        handle: None,
        title: None,
        words: 0,
        status: None,
        detail: None,
    }
}

fn record(id: &str) -> CrawlRecord {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    CrawlRecord {
        id: id.into(),
        start_url: "https://example.com/".into(),
        status: "running".into(),
        options: json!({"limit": 5}),
        summary: json!({}),
        created_at: t,
        updated_at: t,
        cancel_requested: false,
    }
}

fn crawls(store: &TestStore) -> &dyn CrawlStore {
    store.crawl_state().expect("both backends keep crawl state")
}

fn done(handle: &str) -> UrlOutcome {
    UrlOutcome {
        handle: Some(handle.into()),
        title: Some("Ünïcode / \"title\"".into()),
        words: 12,
        status: Some(200),
        detail: None,
    }
}

const LEASE: Duration = Duration::from_secs(30);

fn crawl_record_urls_states_and_counts_round_trip(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    assert!(c.crawls().unwrap().is_empty());
    let r = record("c1");
    c.put_crawl(&r).unwrap();
    assert_eq!(c.get_crawl("c1").unwrap().unwrap(), r);
    assert!(c.get_crawl("nope").unwrap().is_none());
    let added = c
        .add_crawl_urls(
            "c1",
            &[
                url("a", UrlState::Queued, -1.0),
                url("b", UrlState::Queued, -1.0),
            ],
        )
        .unwrap();
    assert_eq!(added, 2);
    c.set_crawl_url_state("c1", &["a".into()], UrlState::Done, &done("h~a"))
        .unwrap();
    // A key already seen is not added again, nor reset.
    let added = c
        .add_crawl_urls(
            "c1",
            &[
                url("a", UrlState::Queued, -1.0),
                url("c", UrlState::Skipped, 0.0),
            ],
        )
        .unwrap();
    assert_eq!(added, 1);
    let got = c.crawl_urls("c1", &[UrlState::Done], 0, 0).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].handle.as_deref(), Some("h~a"));
    assert_eq!(got[0].title.as_deref(), Some("Ünïcode / \"title\""));
    assert_eq!((got[0].words, got[0].status), (12, Some(200)));
    let all = c.crawl_urls("c1", &[], 0, 0).unwrap();
    let keys: Vec<&str> = all.iter().map(|u| u.key.as_str()).collect();
    assert_eq!(keys, ["a", "b", "c"]);
    assert_eq!(all[0].state, UrlState::Done);
    assert_eq!(c.crawl_urls("c1", &[], 1, 1).unwrap()[0].key, "b");
    let some = c
        .crawl_urls("c1", &[UrlState::Skipped, UrlState::Queued], 0, 0)
        .unwrap();
    let keys: Vec<&str> = some.iter().map(|u| u.key.as_str()).collect();
    assert_eq!(keys, ["b", "c"]);
    let mut counts = c.crawl_url_counts("c1").unwrap();
    counts.sort_by_key(|(s, _)| s.as_str());
    assert_eq!(
        counts,
        [
            (UrlState::Done, 1),
            (UrlState::Queued, 1),
            (UrlState::Skipped, 1)
        ]
    );
    assert!(c.request_cancel("c1").unwrap());
    assert!(!c.request_cancel("nope").unwrap());
    // Writing the record again (a progress update) keeps the cancel request.
    c.put_crawl(&r).unwrap();
    assert!(c.get_crawl("c1").unwrap().unwrap().cancel_requested);
    c.clear_cancel("c1").unwrap();
    assert!(!c.get_crawl("c1").unwrap().unwrap().cancel_requested);
    // A rewrite keeps when the crawl was created.
    let mut later = r.clone();
    later.created_at += Duration::from_secs(60);
    later.updated_at += Duration::from_secs(60);
    later.status = "done".into();
    c.put_crawl(&later).unwrap();
    let got = c.get_crawl("c1").unwrap().unwrap();
    assert_eq!(
        (got.created_at, got.updated_at),
        (r.created_at, later.updated_at)
    );
    assert_eq!(got.status, "done");
    let mut newer = record("c2");
    newer.created_at += Duration::from_secs(5);
    c.put_crawl(&newer).unwrap();
    let ids: Vec<String> = c.crawls().unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(ids, ["c2", "c1"]);
    assert!(c.delete_crawl("c1").unwrap());
    assert!(!c.delete_crawl("c1").unwrap());
    assert!(c.crawl_urls("c1", &[], 0, 0).unwrap().is_empty());
    assert!(c.crawl_url_counts("c1").unwrap().is_empty());
    assert!(c.get_crawl("c1").unwrap().is_none());
}

fn claims_take_the_best_queued_urls_once_each(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    c.put_crawl(&record("c")).unwrap();
    let rows: Vec<CrawlUrl> = (0..6)
        .map(|i| url(&format!("u{i}"), UrlState::Queued, -(i as f64)))
        .chain([url("s", UrlState::Skipped, 10.0)])
        .collect();
    c.add_crawl_urls("c", &rows).unwrap();
    let first = c.claim_crawl_urls("c", "w1", 2, LEASE, 0).unwrap();
    let keys: Vec<&str> = first.iter().map(|u| u.url.key.as_str()).collect();
    assert_eq!(keys, ["u0", "u1"], "highest priority first; skipped never");
    assert!(
        first
            .iter()
            .all(|u| !u.lapsed && u.url.state == UrlState::Fetching)
    );
    assert_eq!(first[0].url.url, "https://example.com/u0");
    let second = c.claim_crawl_urls("c", "w2", 10, LEASE, 0).unwrap();
    let keys: Vec<&str> = second.iter().map(|u| u.url.key.as_str()).collect();
    assert_eq!(keys, ["u2", "u3", "u4", "u5"]);
    assert!(
        c.claim_crawl_urls("c", "w3", 10, LEASE, 0)
            .unwrap()
            .is_empty()
    );
    let mut counts = c.crawl_url_counts("c").unwrap();
    counts.sort_by_key(|(s, _)| s.as_str());
    assert_eq!(counts, [(UrlState::Fetching, 6), (UrlState::Skipped, 1)]);
}

fn settling_needs_the_lease_and_happens_once(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    c.put_crawl(&record("c")).unwrap();
    c.add_crawl_urls(
        "c",
        &[
            url("a", UrlState::Queued, 0.0),
            url("b", UrlState::Queued, -1.0),
        ],
    )
    .unwrap();
    let claimed = c.claim_crawl_urls("c", "w1", 2, LEASE, 0).unwrap();
    assert_eq!(claimed.len(), 2);
    // Another worker's settle is refused and writes nothing.
    assert!(
        !c.settle_crawl_url("c", "w2", "a", UrlState::Done, &done("h~x"))
            .unwrap()
    );
    assert!(
        c.settle_crawl_url("c", "w1", "a", UrlState::Done, &done("h~a"))
            .unwrap()
    );
    // Settled once: a second settle (a retry) is refused.
    assert!(
        !c.settle_crawl_url("c", "w1", "a", UrlState::Failed, &UrlOutcome::default())
            .unwrap()
    );
    let a = &c.crawl_urls("c", &[UrlState::Done], 0, 0).unwrap()[0];
    assert_eq!((a.key.as_str(), a.handle.as_deref()), ("a", Some("h~a")));
    // Renewing: only what the worker still holds.
    let keys = vec!["a".to_owned(), "b".to_owned()];
    assert_eq!(c.renew_crawl_leases("c", "w1", &keys, LEASE).unwrap(), 1);
    assert_eq!(c.renew_crawl_leases("c", "w2", &keys, LEASE).unwrap(), 0);
    // Giving one back queues it for anyone.
    assert!(
        c.settle_crawl_url("c", "w1", "b", UrlState::Queued, &UrlOutcome::default())
            .unwrap()
    );
    let again = c.claim_crawl_urls("c", "w2", 5, LEASE, 0).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].url.key, "b");
    assert!(
        !c.settle_crawl_url("c", "w1", "b", UrlState::Done, &done("h~b"))
            .unwrap()
    );
    assert!(
        c.settle_crawl_url("c", "w2", "b", UrlState::Done, &done("h~b"))
            .unwrap()
    );
}

fn a_lease_that_runs_out_goes_back_to_the_queue_marked_lapsed(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    c.put_crawl(&record("c")).unwrap();
    c.add_crawl_urls(
        "c",
        &[
            url("a", UrlState::Queued, 0.0),
            url("b", UrlState::Queued, -1.0),
        ],
    )
    .unwrap();
    let short = Duration::from_millis(150);
    assert_eq!(
        c.claim_crawl_urls("c", "dead", 1, short, 0).unwrap().len(),
        1
    );
    assert_eq!(
        c.claim_crawl_urls("c", "live", 1, LEASE, 0).unwrap()[0]
            .url
            .key,
        "b"
    );
    // Before it runs out, nobody else gets it.
    assert!(
        c.claim_crawl_urls("c", "other", 5, LEASE, 0)
            .unwrap()
            .is_empty()
    );
    std::thread::sleep(Duration::from_millis(400));
    let back = c.claim_crawl_urls("c", "other", 5, LEASE, 0).unwrap();
    assert_eq!(back.len(), 1, "{back:?}");
    assert_eq!(back[0].url.key, "a");
    assert!(back[0].lapsed, "the URL says its first lease ran out");
    // The dead worker's late settle is refused; the live lease was untouched.
    assert!(
        !c.settle_crawl_url("c", "dead", "a", UrlState::Done, &done("h~a"))
            .unwrap()
    );
    assert!(
        c.settle_crawl_url("c", "live", "b", UrlState::Done, &done("h~b"))
            .unwrap()
    );
    assert!(
        c.settle_crawl_url("c", "other", "a", UrlState::Done, &done("h~a"))
            .unwrap()
    );
    let mut counts = c.crawl_url_counts("c").unwrap();
    counts.sort_by_key(|(s, _)| s.as_str());
    assert_eq!(counts, [(UrlState::Done, 2)]);
}

fn claims_stay_within_the_page_budget(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    c.put_crawl(&record("c")).unwrap();
    let rows: Vec<CrawlUrl> = (0..10)
        .map(|i| url(&format!("u{i}"), UrlState::Queued, 0.0))
        .collect();
    c.add_crawl_urls("c", &rows).unwrap();
    let first = c.claim_crawl_urls("c", "w1", 3, LEASE, 4).unwrap();
    assert_eq!(first.len(), 3);
    // Budget 4: three in flight, so one more at most.
    assert_eq!(c.claim_crawl_urls("c", "w2", 3, LEASE, 4).unwrap().len(), 1);
    assert!(
        c.claim_crawl_urls("c", "w2", 3, LEASE, 4)
            .unwrap()
            .is_empty()
    );
    // A failure frees its place in the budget; a page done keeps it.
    let k0 = first[0].url.key.clone();
    let k1 = first[1].url.key.clone();
    c.settle_crawl_url("c", "w1", &k0, UrlState::Failed, &UrlOutcome::default())
        .unwrap();
    c.settle_crawl_url("c", "w1", &k1, UrlState::Done, &done("h"))
        .unwrap();
    assert_eq!(c.claim_crawl_urls("c", "w2", 3, LEASE, 4).unwrap().len(), 1);
    assert!(
        c.claim_crawl_urls("c", "w2", 3, LEASE, 4)
            .unwrap()
            .is_empty()
    );
}

fn workers_claiming_at_once_never_share_a_url(b: Backend) {
    let store = open!(b, StoreConfig::default());
    c_put(&store);
    let rows: Vec<CrawlUrl> = (0..200)
        .map(|i| url(&format!("u{i:03}"), UrlState::Queued, -((i % 7) as f64)))
        .collect();
    crawls(&store).add_crawl_urls("c", &rows).unwrap();
    let taken: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|w| {
                let store = &store;
                scope.spawn(move || {
                    let c = crawls(store);
                    let worker = format!("w{w}");
                    let mut mine = Vec::new();
                    loop {
                        let got = c.claim_crawl_urls("c", &worker, 3, LEASE, 0).unwrap();
                        if got.is_empty() {
                            return mine;
                        }
                        for u in got {
                            assert!(
                                c.settle_crawl_url(
                                    "c",
                                    &worker,
                                    &u.url.key,
                                    UrlState::Done,
                                    &done("h")
                                )
                                .unwrap()
                            );
                            mine.push(u.url.key);
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let total: usize = taken.iter().map(Vec::len).sum();
    let distinct: HashSet<&String> = taken.iter().flatten().collect();
    assert_eq!(total, 200, "every URL handed out");
    assert_eq!(distinct.len(), 200, "none handed out twice");
}

fn c_put(store: &TestStore) {
    crawls(store).put_crawl(&record("c")).unwrap();
}

fn a_crawl_ends_once(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    c.put_crawl(&record("c")).unwrap();
    assert!(c.end_crawl("c", "done", &json!({"by": "first"})).unwrap());
    assert!(
        !c.end_crawl("c", "cancelled", &json!({"by": "second"}))
            .unwrap()
    );
    assert!(!c.end_crawl("nope", "done", &json!({})).unwrap());
    let got = c.get_crawl("c").unwrap().unwrap();
    assert_eq!(got.status, "done");
    assert_eq!(got.summary, json!({"by": "first"}));
}

fn page_notes_merge_and_go_with_their_crawl(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    c.put_crawl(&record("c1")).unwrap();
    let links = KeptLinks {
        canonical: None,
        links: vec![KeptLink {
            url: "https://example.com/a".into(),
            text: "A".into(),
        }],
    };
    let note = |links: Option<KeptLinks>, change: Option<serde_json::Value>| PageNotes {
        key: "k".into(),
        links,
        change,
    };
    c.put_page_notes("c1", &[note(Some(links.clone()), None)])
        .unwrap();
    let change = json!({"url": "https://example.com/k", "change_status": "same"});
    c.put_page_notes("c1", &[note(None, Some(change.clone()))])
        .unwrap();
    assert_eq!(
        c.page_notes("c1", &["k".into(), "absent".into()]).unwrap(),
        [note(Some(links), Some(change))],
        "{b:?}: a write keeps what it does not give"
    );
    assert_eq!(c.page_notes("c1", &[]).unwrap().len(), 1);
    assert!(c.page_notes("c2", &[]).unwrap().is_empty());
    assert!(c.delete_crawl("c1").unwrap());
    assert!(c.page_notes("c1", &[]).unwrap().is_empty(), "{b:?}");
}

fn only_the_redis_store_shares_crawl_work(b: Backend) {
    let store = open!(b, StoreConfig::default());
    assert_eq!(
        crawls(&store).shares_work(),
        matches!(b, Backend::Redis),
        "{b:?}"
    );
}

fn known_urls_are_those_seen_in_any_state_of_that_crawl(b: Backend) {
    let store = open!(b, StoreConfig::default());
    let c = crawls(&store);
    c.put_crawl(&record("c1")).unwrap();
    c.put_crawl(&record("c2")).unwrap();
    c.add_crawl_urls(
        "c1",
        &[
            url("a", UrlState::Queued, -1.0),
            url("b", UrlState::Skipped, 0.0),
            url("d", UrlState::Queued, -1.0),
        ],
    )
    .unwrap();
    c.set_crawl_url_state("c1", &["d".into()], UrlState::Done, &done("h~d"))
        .unwrap();
    c.add_crawl_urls("c2", &[url("z", UrlState::Queued, -1.0)])
        .unwrap();
    let ask: Vec<String> = ["z", "d", "x", "a", "b"].map(String::from).into();
    assert_eq!(c.known_crawl_urls("c1", &ask).unwrap(), ["d", "a", "b"]);
    assert_eq!(c.known_crawl_urls("c2", &ask).unwrap(), ["z"]);
    assert!(c.known_crawl_urls("nope", &ask).unwrap().is_empty());
    assert!(c.known_crawl_urls("c1", &[]).unwrap().is_empty());
    // Many at once (more than one statement's worth on SQLite).
    let many: Vec<CrawlUrl> = (0..200)
        .map(|i| url(&format!("k{i}"), UrlState::Queued, -1.0))
        .collect();
    c.add_crawl_urls("c2", &many).unwrap();
    let ask: Vec<String> = (0..300).rev().map(|i| format!("k{i}")).collect();
    let known = c.known_crawl_urls("c2", &ask).unwrap();
    assert_eq!(known, ask[100..]);
}

both_backends!(
    known_urls_are_those_seen_in_any_state_of_that_crawl,
    crawl_record_urls_states_and_counts_round_trip,
    claims_take_the_best_queued_urls_once_each,
    settling_needs_the_lease_and_happens_once,
    a_lease_that_runs_out_goes_back_to_the_queue_marked_lapsed,
    claims_stay_within_the_page_budget,
    workers_claiming_at_once_never_share_a_url,
    a_crawl_ends_once,
    page_notes_merge_and_go_with_their_crawl,
    only_the_redis_store_shares_crawl_work,
);

#[test]
fn crawls_under_one_prefix_are_not_seen_under_another() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let a = RedisStore::open(&server.url(), "a:", StoreConfig::default()).unwrap();
    let b = RedisStore::open(&server.url(), "b:", StoreConfig::default()).unwrap();
    let ca = a.crawl_state().unwrap();
    ca.put_crawl(&record("c")).unwrap();
    ca.add_crawl_urls("c", &[url("x", UrlState::Queued, 0.0)])
        .unwrap();
    let cb = b.crawl_state().unwrap();
    assert!(cb.crawls().unwrap().is_empty());
    assert!(
        cb.claim_crawl_urls("c", "w", 5, LEASE, 0)
            .unwrap()
            .is_empty()
    );
    assert_eq!(ca.claim_crawl_urls("c", "w", 5, LEASE, 0).unwrap().len(), 1);
}
