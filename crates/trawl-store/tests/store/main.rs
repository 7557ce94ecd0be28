//! trawl-store's integration tests, by concern. The behaviour tests (round trips, find,
//! freshness) run once per backend (`sqlite::*`, `redis::*`) so the two cannot drift.
//! By concern: round trips, find, freshness and TTLs,
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
    Clock, DocumentRecord, Error, FindScope, Passage, RedisStore, Revalidation, Section,
    SharedStore, SqliteStore, Store, StoreConfig, content_hash, key_fingerprint,
};
use trawl_testkit::RedisServer;

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
            range: None,
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

/// A backend the shared behaviour tests run against.
#[derive(Debug, Clone, Copy)]
enum Backend {
    /// `SqliteStore` in memory.
    Sqlite,
    /// `RedisStore` on a private `redis-server` started for the test.
    Redis,
}

/// A store under test, with the Redis it lives in (stopped when the test ends).
struct TestStore {
    store: Arc<dyn Store>,
    _server: Option<RedisServer>,
}

impl std::ops::Deref for TestStore {
    type Target = dyn Store;
    fn deref(&self) -> &Self::Target {
        &*self.store
    }
}

impl TestStore {
    fn shared(&self) -> SharedStore {
        SharedStore::from_arc(Arc::clone(&self.store))
    }
}

impl Backend {
    /// A fresh, empty store; `None` (test skipped, with a note) when `redis-server` is not
    /// installed outside CI.
    fn open(self, config: StoreConfig) -> Option<TestStore> {
        Some(match self {
            Backend::Sqlite => TestStore {
                store: Arc::new(SqliteStore::open_in_memory(config).unwrap()),
                _server: None,
            },
            Backend::Redis => {
                let server = RedisServer::start()?;
                let store = RedisStore::open(&server.url(), "test:", config).unwrap();
                TestStore {
                    store: Arc::new(store),
                    _server: Some(server),
                }
            }
        })
    }
}

/// Opens a store on backend `$b` or ends the test (see [`Backend::open`]).
macro_rules! open {
    ($b:expr, $config:expr) => {
        match $b.open($config) {
            Some(store) => store,
            None => return,
        }
    };
}

/// The same tests, once per backend: `sqlite::name` and `redis::name`.
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $name() { super::$name(super::Backend::Sqlite) } )*
        }
        mod redis {
            $( #[test] fn $name() { super::$name(super::Backend::Redis) } )*
        }
    };
}

/// Many threads and many store instances on one file.
mod concurrency;
/// Writers killed with SIGKILL mid-run keep every acknowledged write.
mod crash;
/// Crawl state: records, URLs, claims and leases, the end of a crawl.
mod crawl;
/// FTS5 find: scope, BM25 order, stemming, literal query syntax.
mod find;
/// Staleness, revalidation, TTLs, prune and the size bound, on a hand-moved clock.
mod freshness;
/// Schema creation from an empty file, refusal of newer or foreign files.
mod migrations;
/// Values come back as stored; clear and the async door.
mod round_trip;
/// Redis only: replicas sharing one Redis, prefixes, atomic writes, lost and returning
/// Redis, global rate limits.
mod shared;
/// Older copies kept by change tracking: numbering, the window, deletion with the document.
mod versions;
