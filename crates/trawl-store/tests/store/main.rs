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

/// Many threads and many store instances on one file.
mod concurrency;
/// Writers killed with SIGKILL mid-run keep every acknowledged write.
mod crash;
/// FTS5 find: scope, BM25 order, stemming, literal query syntax.
mod find;
/// Staleness, revalidation, TTLs, prune and the size bound, on a hand-moved clock.
mod freshness;
/// Schema creation from an empty file, refusal of newer or foreign files.
mod migrations;
/// Values come back as stored; clear and the async door.
mod round_trip;
