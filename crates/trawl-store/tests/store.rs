//! trawl-store's integration tests, by concern: round trips, find, freshness and TTLs,
//! migrations, bounds, concurrency across threads and stores, and a writer killed with
//! SIGKILL mid-run (this binary re-runs itself as the writer).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::json;
use trawl_core::Document;
use trawl_store::{
    Clock, DocumentRecord, Error, FindScope, Passage, Revalidation, Section, SharedStore,
    SqliteStore, Store, StoreConfig, content_hash, key_fingerprint,
};

const HOUR: Duration = Duration::from_secs(3600);

/// A clock the test moves by hand.
#[derive(Clone)]
struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    fn new() -> Self {
        Self(Arc::new(AtomicI64::new(1_800_000_000_000)))
    }
    fn clock(&self) -> Clock {
        let ms = Arc::clone(&self.0);
        Clock::from_fn(move || {
            SystemTime::UNIX_EPOCH + Duration::from_millis(ms.load(Ordering::SeqCst) as u64)
        })
    }
    fn now(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(self.0.load(Ordering::SeqCst) as u64)
    }
    fn advance(&self, by: Duration) {
        self.0.fetch_add(by.as_millis() as i64, Ordering::SeqCst);
    }
}

fn config_with(clock: &ManualClock) -> StoreConfig {
    StoreConfig {
        clock: clock.clock(),
        ..StoreConfig::default()
    }
}

fn document(i: usize) -> Document {
    let markdown = format!(
        "# Page {i}\n\nThe quick brown fox number {i} jumps over the lazy dog.\n\n\
         ## Details\n\nMarker word zebra{i} appears only here. {}\n",
        "Filler text about databases and search engines. ".repeat(20)
    );
    Document {
        url: format!("https://example.com/page/{i}?utm_source=x"),
        final_url: format!("https://example.com/page/{i}"),
        handle: format!("example.com~{i:012x}"),
        title: Some(format!("Page {i}")),
        word_count: markdown.split_whitespace().count(),
        text: markdown.replace('#', ""),
        markdown,
        json_ld: vec![json!({"@type": "Article", "n": i})],
        ..Document::default()
    }
}

fn passages_of(doc: &Document) -> Vec<Passage> {
    doc.markdown
        .split("\n\n")
        .filter(|p| !p.starts_with('#'))
        .map(|p| Passage {
            page: 1,
            heading: doc.title.clone().unwrap_or_default(),
            text: p.to_owned(),
        })
        .collect()
}

fn put(store: &dyn Store, i: usize, fetched_at: SystemTime) -> DocumentRecord {
    let doc = document(i);
    let passages = passages_of(&doc);
    let record = DocumentRecord::new(doc, fetched_at);
    store.put_document(&record, &passages).unwrap();
    record
}

mod round_trip {
    use super::*;

    #[test]
    fn document_comes_back_as_stored() {
        let clock = ManualClock::new();
        let store = SqliteStore::open_in_memory(config_with(&clock)).unwrap();
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

    #[test]
    fn replacing_a_document_replaces_its_passages() {
        let store = SqliteStore::open_in_memory(StoreConfig::default()).unwrap();
        put(&store, 1, SystemTime::now());
        let mut doc = document(1);
        doc.markdown = "Entirely new text about kangaroos.".into();
        let record = DocumentRecord::new(doc, SystemTime::now());
        let passages = [Passage {
            page: 1,
            heading: String::new(),
            text: "Entirely new text about kangaroos.".into(),
        }];
        store.put_document(&record, &passages).unwrap();
        assert!(store.find("zebra1", FindScope::All, 0).unwrap().is_empty());
        assert_eq!(store.find("kangaroo", FindScope::All, 0).unwrap().len(), 1);
        assert_eq!(store.stats().unwrap().documents, 1);
        assert_eq!(store.stats().unwrap().passages, 1);
    }

    #[test]
    fn delete_removes_document_and_passages() {
        let store = SqliteStore::open_in_memory(StoreConfig::default()).unwrap();
        put(&store, 1, SystemTime::now());
        put(&store, 2, SystemTime::now());
        assert!(store.delete_document("example.com~000000000001").unwrap());
        assert!(!store.delete_document("example.com~000000000001").unwrap());
        assert!(store.find("zebra1", FindScope::All, 0).unwrap().is_empty());
        assert_eq!(store.find("zebra2", FindScope::All, 0).unwrap().len(), 1);
    }

    #[test]
    fn key_state_and_site_memory_round_trip() {
        let store = SqliteStore::open_in_memory(StoreConfig::default()).unwrap();
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

    #[test]
    fn clear_empties_only_the_named_sections() {
        let store = SqliteStore::open_in_memory(StoreConfig::default()).unwrap();
        put(&store, 1, SystemTime::now());
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn shared_store_runs_calls_off_the_executor() {
        let shared = SharedStore::new(SqliteStore::open_in_memory(StoreConfig::default()).unwrap());
        let tasks: Vec<_> = (0..20)
            .map(|i| {
                let shared = shared.clone();
                tokio::spawn(
                    async move { shared.run(move |s| Ok(put(s, i, SystemTime::now()))).await },
                )
            })
            .collect();
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        let stats = shared.run(|s| s.stats()).await.unwrap();
        assert_eq!(stats.documents, 20);
    }
}

mod find {
    use super::*;

    fn store_with_docs() -> SqliteStore {
        let store = SqliteStore::open_in_memory(StoreConfig::default()).unwrap();
        for i in 0..5 {
            put(&store, i, SystemTime::now());
        }
        store
    }

    #[test]
    fn within_one_document_and_across_all() {
        let store = store_with_docs();
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

    #[test]
    fn ranks_by_bm25_and_stems_with_porter() {
        let store = SqliteStore::open_in_memory(StoreConfig::default()).unwrap();
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

    #[test]
    fn all_words_first_then_any_word() {
        let store = store_with_docs();
        let both = store.find("zebra2 databases", FindScope::All, 0).unwrap();
        assert_eq!(both.len(), 1, "{both:?}");
        let either = store.find("zebra2 zebra4", FindScope::All, 0).unwrap();
        assert_eq!(either.len(), 2, "{either:?}");
    }

    #[test]
    fn query_syntax_is_taken_literally() {
        let store = store_with_docs();
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
}

mod freshness {
    use super::*;

    #[test]
    fn documents_go_stale_and_revalidation_refreshes_them() {
        let clock = ManualClock::new();
        let store = SqliteStore::open_in_memory(config_with(&clock)).unwrap();
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

    #[test]
    fn explicit_expiry_and_zero_ttl() {
        let clock = ManualClock::new();
        let config = StoreConfig {
            document_ttl: Duration::ZERO,
            ..config_with(&clock)
        };
        let store = SqliteStore::open_in_memory(config).unwrap();
        put(&store, 1, clock.now());
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

    #[test]
    fn search_cache_expires() {
        let clock = ManualClock::new();
        let store = SqliteStore::open_in_memory(config_with(&clock)).unwrap();
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

    #[test]
    fn prune_drops_long_stale_documents_and_old_site_memory() {
        let clock = ManualClock::new();
        let store = SqliteStore::open_in_memory(config_with(&clock)).unwrap();
        put(&store, 1, clock.now());
        store.put_site_reader("old.example", "impersonate").unwrap();
        clock.advance(HOUR * 24 * 20);
        put(&store, 2, clock.now());
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

    #[test]
    fn size_bound_evicts_the_oldest_reads() {
        let clock = ManualClock::new();
        let one_doc = serde_json::to_string(&document(0)).unwrap().len() as u64;
        let config = StoreConfig {
            max_document_bytes: one_doc * 10,
            ..config_with(&clock)
        };
        let store = SqliteStore::open_in_memory(config).unwrap();
        for i in 0..30 {
            put(&store, i, clock.now());
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
}

mod migrations {
    use super::*;

    #[test]
    fn an_empty_file_becomes_a_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/dirs/trawl.db");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"").unwrap();
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        assert_eq!(store.stats().unwrap().schema_version, 1);
        put(&store, 1, SystemTime::now());
        drop(store);
        let reopened = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        assert!(
            reopened
                .get_document("example.com~000000000001")
                .unwrap()
                .is_some()
        );
        assert!(reopened.integrity_check().unwrap().is_empty());
        let stats = reopened.stats().unwrap();
        assert!(stats.size_bytes.unwrap() > 0);
        assert_eq!(stats.location, path.display().to_string());
    }

    #[test]
    fn missing_directories_are_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/trawl.db");
        SqliteStore::open(&path, StoreConfig::default()).unwrap();
        assert!(path.exists());
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trawl.db");
        drop(SqliteStore::open(&path, StoreConfig::default()).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let err = SqliteStore::open(&path, StoreConfig::default()).unwrap_err();
        assert!(
            matches!(err, Error::SchemaTooNew { found: 99, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn a_file_that_is_not_a_database_is_refused_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trawl.db");
        std::fs::write(
            &path,
            b"this is not an sqlite file, it is a text file ".repeat(100),
        )
        .unwrap();
        let err = SqliteStore::open(&path, StoreConfig::default()).unwrap_err();
        assert!(matches!(err, Error::Open { .. }), "{err:?}");
    }
}

mod concurrency {
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
}

mod crash {
    use super::*;

    /// Set (to a store path) when this binary runs as the writer child.
    const WRITER_ENV: &str = "TRAWL_STORE_TEST_WRITER";
    const WRITES: usize = 1000;

    fn big_document(i: usize) -> (Document, Vec<Passage>) {
        let mut doc = document(i);
        doc.markdown.push_str(&format!(
            "\n\n{}",
            "Padding paragraph for size. ".repeat(300)
        ));
        let passages = (0..10)
            .map(|k| Passage {
                page: k / 3 + 1,
                heading: format!("Part {k}"),
                text: format!("zebra{i} passage {k} {}", "words in a passage ".repeat(30)),
            })
            .collect();
        (doc, passages)
    }

    /// Set (to a number) to offset the writer's document numbers.
    const WRITER_BASE_ENV: &str = "TRAWL_STORE_TEST_WRITER_BASE";

    /// The writer: stores documents one by one and prints `ACK <handle>` after each commit.
    /// A no-op in a normal test run.
    #[test]
    fn writer_child() {
        let Ok(path) = std::env::var(WRITER_ENV) else {
            return;
        };
        let base: usize = std::env::var(WRITER_BASE_ENV).map_or(0, |b| b.parse().unwrap());
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        let mut out = std::io::stdout().lock();
        for i in base..base + WRITES {
            let (doc, passages) = big_document(i);
            let handle = doc.handle.clone();
            store
                .put_document(&DocumentRecord::new(doc, SystemTime::now()), &passages)
                .unwrap();
            writeln!(out, "\nACK {handle}").unwrap();
            out.flush().unwrap();
        }
    }

    fn spawn_writer(path: &std::path::Path, base: usize) -> std::process::Child {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "crash::writer_child",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(WRITER_ENV, path)
            .env(WRITER_BASE_ENV, base.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }

    fn ack(line: &str) -> Option<String> {
        line.find("ACK ").map(|at| line[at + 4..].trim().to_owned())
    }

    /// Every acknowledged handle is stored whole, and the file is sound.
    fn check_acknowledged(store: &SqliteStore, acked: &[String]) {
        assert_eq!(store.integrity_check().unwrap(), Vec::<String>::new());
        for handle in acked {
            let record = store.get_document(handle).unwrap();
            let record = record.unwrap_or_else(|| panic!("acknowledged {handle} lost"));
            let i = usize::from_str_radix(handle.rsplit_once('~').unwrap().1, 16).unwrap();
            assert_eq!(record.document.markdown, big_document(i).0.markdown);
            let hits = store
                .find(&format!("zebra{i}"), FindScope::Document(handle), 0)
                .unwrap();
            assert_eq!(hits.len(), 10, "{handle}: every passage indexed");
        }
    }

    #[test]
    fn sigkill_mid_write_loses_at_most_the_write_in_flight() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trawl.db");
        let mut child = spawn_writer(&path, 0);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut acked = Vec::new();
        while acked.len() < 300 {
            let line = lines.next().expect("writer ended early").unwrap();
            acked.extend(ack(&line));
        }
        child.kill().unwrap(); // SIGKILL on Unix
        let status = child.wait().unwrap();
        // Acks written before the kill but not yet read count too.
        acked.extend(lines.map_while(Result::ok).filter_map(|l| ack(&l)));
        assert!(
            !status.success(),
            "the writer finished before it was killed"
        );
        assert!(acked.len() < WRITES);

        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        check_acknowledged(&store, &acked);
        let stored = store.stats().unwrap().documents as usize;
        assert!(
            stored == acked.len() || stored == acked.len() + 1,
            "{stored} stored, {} acknowledged",
            acked.len()
        );
    }

    /// Two writer processes on one file, both killed at a different point each round
    /// (the first round also races two processes creating the schema).
    #[test]
    fn two_writers_killed_at_varied_points_for_20_rounds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trawl.db");
        let mut acked: Vec<String> = Vec::new();
        for round in 0..20 {
            let kill_after = 5 + (round * 37) % 90;
            let (tx, rx) = std::sync::mpsc::channel::<Option<String>>();
            let mut children = Vec::new();
            for writer in 0..2 {
                let mut child = spawn_writer(&path, round * 10_000 + writer * 1_000 + 100_000);
                let stdout = child.stdout.take().unwrap();
                let tx = tx.clone();
                std::thread::spawn(move || {
                    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                        if let Some(handle) = ack(&line) {
                            let _ = tx.send(Some(handle));
                        }
                    }
                    let _ = tx.send(None);
                });
                children.push(child);
            }
            drop(tx);
            let mut this_round = 0;
            let mut ended = 0;
            while this_round < kill_after && ended < 2 {
                match rx.recv().unwrap() {
                    Some(handle) => {
                        acked.push(handle);
                        this_round += 1;
                    }
                    None => ended += 1,
                }
            }
            for child in &mut children {
                let _ = child.kill();
                child.wait().unwrap();
            }
            // Readers end when the pipes close; collect what was acknowledged meanwhile.
            acked.extend(rx.iter().flatten());
            let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
            check_acknowledged(&store, &acked);
        }
    }
}
