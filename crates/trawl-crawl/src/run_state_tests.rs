//! The crawl state's memory (what leaves it, what the store answers for) and its
//! near-duplicate index after a resume.

use super::*;
use trawl_store::SharedStore;
use trawl_store::{SqliteStore, StoreConfig};

fn state(cap: usize) -> State {
    let store = SharedStore::new(SqliteStore::open(":memory:", StoreConfig::default()).unwrap());
    state_in(store, cap)
}

fn state_in(store: SharedStore, cap: usize) -> State {
    let start = Url::parse("https://docs.example/").unwrap();
    let mut options = CrawlOptions::new(start.to_string());
    options.frontier_memory = cap;
    let scope = Scope::new(&start, false, &[], &[]).unwrap();
    let journal = Journal::new(store, "c1".into());
    State::new(
        "c1".into(),
        options,
        scope,
        journal,
        Arc::new(Pacer::default()),
    )
}

fn leaf(i: usize) -> Url {
    Url::parse(&format!("https://docs.example/leaf/{i:06}.html")).unwrap()
}

#[tokio::test]
async fn urls_waiting_in_the_store_leave_memory_and_are_still_known() {
    let mut st = state(16);
    let mut rows = Vec::new();
    for i in 0..1_000 {
        rows.extend(st.consider(leaf(i), 1, 0, -1.0, false));
    }
    assert_eq!(rows.len(), 1_000);
    st.journal.add(rows).await.unwrap();
    st.forget_written();
    // What memory holds is bounded by the frontier's cap, not by the URLs found.
    assert!(st.seen.len() <= 32, "{} held", st.seen.len());
    assert_eq!(st.frontier.len(), 1_000);
    // Found again on another page: the store knows them, so none is queued twice.
    let again: Vec<Url> = (0..1_000).map(leaf).collect();
    st.ask_store(&again.iter().collect::<Vec<_>>())
        .await
        .unwrap();
    let twice: Vec<CrawlUrl> = again
        .into_iter()
        .filter_map(|u| st.consider(u, 2, 0, -2.0, false))
        .collect();
    assert!(twice.is_empty(), "{} queued twice", twice.len());
    // And a URL never seen is still new.
    assert!(st.consider(leaf(5_000), 2, 0, -2.0, false).is_some());
}

#[tokio::test]
async fn a_resumed_crawl_folds_copies_of_the_pages_it_stored_before() {
    let store = SharedStore::new(SqliteStore::open(":memory:", StoreConfig::default()).unwrap());
    let words = |last: &str| {
        let mut w: Vec<String> = (0..120).map(|i| format!("word{}", i * 7 % 97)).collect();
        w.push(last.into());
        w.join(" ")
    };
    let url = Url::parse("https://docs.example/guide").unwrap();
    let document = trawl_core::Document {
        handle: trawl_core::handle_for_url(&url),
        url: url.to_string(),
        markdown: words("end"),
        word_count: 121,
        ..Default::default()
    };
    let handle = document.handle.clone();
    let record = trawl_store::DocumentRecord::new(document, SystemTime::now());
    store
        .run(move |s| s.put_document(&record, &[]))
        .await
        .unwrap();
    let mut before = state_in(store.clone(), 0);
    let rows: Vec<CrawlUrl> = before
        .consider(url.clone(), 0, 0, 0.0, true)
        .into_iter()
        .collect();
    before.journal.add(rows).await.unwrap();
    let outcome = UrlOutcome {
        handle: Some(handle),
        ..UrlOutcome::default()
    };
    before
        .journal
        .set(vec![key_of(&url)], UrlState::Done, outcome)
        .await
        .unwrap();
    let copy = crate::dedup::signature_of_markdown(&words("print"), 121);
    // A new run of the same crawl knows nothing of the page until it is refolded.
    let mut after = state_in(store.clone(), 0);
    assert_eq!(after.folder.duplicate_of("other", copy.as_deref()), None);
    crate::resume::refold(&mut after, &store).await.unwrap();
    let why = after.folder.duplicate_of("other", copy.as_deref()).unwrap();
    assert!(
        why.starts_with("near-duplicate of https://docs.example/guide "),
        "{why}"
    );
}

/// A crawl with a committer forgets spilled URLs as soon as their rows are queued, and asks
/// the store only what it has committed: until the batch holding those rows is written,
/// they are known from memory, so none is queued twice (the batch is held open here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_forgotten_before_their_rows_are_committed_are_still_known() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("c.db"), StoreConfig::default()).unwrap();
    let store = SharedStore::new(store);
    let start = Url::parse("https://docs.example/").unwrap();
    let mut options = CrawlOptions::new(start.to_string());
    options.frontier_memory = 16;
    let scope = Scope::new(&start, false, &[], &[]).unwrap();
    let journal = Journal::new(store, "c1".into()).committing();
    // The crawl tables, made on first use (a crawl's start makes them).
    journal.known(vec!["none".into()]).await.unwrap();
    let (release, held) = std::sync::mpsc::channel::<()>();
    journal.committer().unwrap().queue(move |_| {
        let _ = held.recv();
        Ok(())
    });
    let mut st = State::new(
        "c1".into(),
        options,
        scope,
        journal,
        Arc::new(Pacer::default()),
    );
    let mut rows = Vec::new();
    for i in 0..1_000 {
        rows.extend(st.consider(leaf(i), 1, 0, -1.0, false));
    }
    st.journal.add_soon(rows).await.unwrap();
    st.forget_written();
    assert!(st.seen.len() <= 32, "{} held", st.seen.len());
    let again: Vec<Url> = (0..1_000).map(leaf).collect();
    let again: Vec<&Url> = again.iter().collect();
    let ask = tokio::time::timeout(Duration::from_secs(10), st.ask_store(&again));
    ask.await
        .expect("a read does not wait for the batch")
        .unwrap();
    let twice = (0..1_000)
        .filter_map(|i| st.consider(leaf(i), 2, 0, -2.0, false))
        .count();
    assert_eq!(twice, 0, "queued twice while their rows were not committed");
    // Once written, they are the store's to answer for, and memory lets them go.
    release.send(()).unwrap();
    st.journal.once_written().await;
    for _ in 0..100 {
        if crate::lock::lock(&st.unwritten).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(crate::lock::lock(&st.unwritten).is_empty());
    st.ask_store(&again).await.unwrap();
    let twice = (0..1_000)
        .filter_map(|i| st.consider(leaf(i), 3, 0, -3.0, false))
        .count();
    assert_eq!(twice, 0, "queued twice after their rows were committed");
}
