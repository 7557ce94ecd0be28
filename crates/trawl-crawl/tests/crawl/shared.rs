//! One crawl worked on by two crawlers, each with its own connections to one Redis (as two
//! processes would be): every page fetched once in total, both fetching; one stopped dead
//! mid-crawl and the other finishing it with nothing lost; the host's Crawl-delay held
//! across both.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use trawl_crawl::{CrawlEvent, CrawlOptions, Crawler, Observer, RunningCrawl, UrlState};
use trawl_store::{RedisSlots, RedisStore, SharedStore, StoreConfig};
use trawl_testkit::RedisServer;

use crate::site::{Site, SiteConfig, content_paths};

/// A crawler with its own store handle on `redis` (a process of its own, but for the
/// address space) and the per-host slots of that store.
fn crawler_on(redis: &RedisServer, lease: Duration) -> (Crawler, SharedStore) {
    let store = Arc::new(RedisStore::open(&redis.url(), "t:", StoreConfig::default()).unwrap());
    let slots = Arc::new(RedisSlots::new(store.clone(), lease));
    let shared = SharedStore::from_arc(store);
    let crawler = Crawler::new(crate::loopback_fetcher(), shared.clone())
        .with_shared_limiter(slots)
        .with_lease(lease);
    (crawler, shared)
}

fn options(url: String, limit: usize) -> CrawlOptions {
    let mut o = CrawlOptions::new(url);
    o.limit = limit;
    o.max_depth = 40;
    o.concurrency = 2;
    o
}

/// An observer counting the pages this crawler stored.
fn counter() -> (Observer, Arc<AtomicUsize>) {
    let n = Arc::new(AtomicUsize::new(0));
    let seen = n.clone();
    let observer: Observer = Arc::new(move |e: CrawlEvent<'_>| {
        if let CrawlEvent::Page(p, _) = e
            && p.status == "done"
        {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    (observer, n)
}

async fn wait_for(store: &SharedStore, id: &str, what: impl Fn(&trawl_crawl::CrawlStatus) -> bool) {
    for _ in 0..600 {
        let st = trawl_crawl::status(store, id).await.unwrap();
        if what(&st) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("crawl {id} never got there");
}

fn done(st: &trawl_crawl::CrawlStatus) -> u64 {
    st.urls.get("done").copied().unwrap_or(0)
}

/// Starts a crawl on `a` and, once it is seeded, joins it with `b`.
async fn start_and_join(
    a: &Crawler,
    b: &Crawler,
    store: &SharedStore,
    o: CrawlOptions,
) -> (
    (RunningCrawl, Arc<AtomicUsize>),
    (RunningCrawl, Arc<AtomicUsize>),
) {
    let (obs_a, n_a) = counter();
    let (obs_b, n_b) = counter();
    let first = a.start(o, Some(obs_a)).await.unwrap();
    let id = first.id.clone();
    // Seeded: its first URLs are in the store.
    wait_for(store, &id, |s| !s.urls.is_empty()).await;
    let second = b.join(&id, Some(obs_b)).await.unwrap();
    ((first, n_a), (second, n_b))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_crawlers_on_one_redis_share_a_crawl_and_fetch_each_page_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = Site::start(SiteConfig {
        page_latency: Duration::from_millis(15),
        ..SiteConfig::default()
    });
    let (a, store) = crawler_on(&redis, Duration::from_secs(30));
    let (b, _) = crawler_on(&redis, Duration::from_secs(30));
    let ((first, n_a), (second, n_b)) =
        start_and_join(&a, &b, &store, options(site.url("/"), 1_000)).await;
    let id = first.id.clone();
    let (sa, sb) = (first.wait().await.unwrap(), second.wait().await.unwrap());
    assert_eq!(sa.status, "done");
    assert_eq!(sb.status, "done");
    let (n_a, n_b) = (n_a.load(Ordering::SeqCst), n_b.load(Ordering::SeqCst));
    assert!(n_a > 0 && n_b > 0, "both fetched: {n_a} and {n_b}");
    let counts = site.counts();
    for path in content_paths() {
        assert_eq!(counts.get(&path), Some(&1), "{path} in {counts:?}");
    }
    let twice: Vec<_> = counts
        .iter()
        .filter(|(p, n)| **n > 1 && p.as_str() != "/robots.txt")
        .collect();
    assert!(twice.is_empty(), "asked twice: {twice:?}");
    let st = trawl_crawl::status(&store, &id).await.unwrap();
    assert_eq!(st.status, "done");
    assert_eq!(done(&st) as usize, n_a + n_b, "{st:?}");
    assert!(done(&st) as usize >= content_paths().len(), "{st:?}");
    assert_eq!(st.urls.get("fetching"), None);
    assert_eq!(st.urls.get("queued"), None);
    // The summary was written once, by whichever ended it, with both crawlers' pages.
    assert_eq!(st.summary["progress"]["done"], done(&st));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawler_stopped_dead_loses_nothing_and_no_stored_page_is_fetched_again() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = Site::start(SiteConfig {
        page_latency: Duration::from_millis(20),
        ..SiteConfig::default()
    });
    let lease = Duration::from_millis(900);
    let (a, store) = crawler_on(&redis, lease);
    let (b, _) = crawler_on(&redis, lease);
    let ((first, _), (second, _)) =
        start_and_join(&a, &b, &store, options(site.url("/"), 1_000)).await;
    let id = first.id.clone();
    wait_for(&store, &id, |s| done(s) >= 40).await;
    // As a kill -9 would: its fetches in flight are dropped, its leases are left to run out.
    first.abort();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let stored_before: HashSet<String> = trawl_crawl::pages(&store, &id, &[UrlState::Done], 0, 0)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.url)
        .collect();
    let s = second.wait().await.unwrap();
    assert_eq!(s.status, "done");
    let counts = site.counts();
    for path in content_paths() {
        assert!(
            counts.get(&path).is_some_and(|n| *n >= 1),
            "{path} never fetched"
        );
    }
    let done_rows = trawl_crawl::pages(&store, &id, &[UrlState::Done], 0, 0)
        .await
        .unwrap();
    let done_urls: HashSet<String> = done_rows.iter().map(|p| p.url.clone()).collect();
    for path in content_paths() {
        assert!(
            done_urls.contains(&site.url(&path)),
            "{path} not done at the end"
        );
    }
    // Asked twice: only pages the stopped crawler had in flight (at most its 2 at once),
    // and never a page stored before the stop.
    let twice: Vec<&String> = counts
        .iter()
        .filter(|(p, n)| **n > 1 && p.as_str() != "/robots.txt")
        .map(|(p, _)| p)
        .collect();
    assert!(twice.len() <= 2, "asked twice: {twice:?}");
    for p in &twice {
        assert!(
            !stored_before.contains(&site.url(p)),
            "{p} was stored before the stop and fetched again"
        );
    }
    let st = trawl_crawl::status(&store, &id).await.unwrap();
    assert_eq!(
        (st.urls.get("fetching"), st.urls.get("queued")),
        (None, None)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crawl_delay_holds_across_two_crawlers_of_one_host() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = Site::start(SiteConfig {
        crawl_delay: Some(0.3),
        ..SiteConfig::default()
    });
    let (a, store) = crawler_on(&redis, Duration::from_secs(30));
    let (b, _) = crawler_on(&redis, Duration::from_secs(30));
    let mut o = options(site.url("/"), 8);
    o.concurrency = 4;
    let ((first, n_a), (second, n_b)) = start_and_join(&a, &b, &store, o).await;
    first.wait().await.unwrap();
    second.wait().await.unwrap();
    let requests = site.requests();
    // Every request but robots.txt (each crawler reads it once, before it knows the
    // delay): consecutive arrivals at least the delay apart, whichever crawler sent them.
    let times: Vec<_> = requests
        .iter()
        .zip(site.times("/"))
        .filter(|(path, _)| path.as_str() != "/robots.txt")
        .map(|(_, at)| at)
        .collect();
    assert!(times.len() >= 8, "{requests:?}");
    for pair in times.windows(2) {
        let gap = pair[1].duration_since(pair[0]);
        assert!(
            gap >= Duration::from_millis(300),
            "gap {gap:?} in {requests:?}"
        );
    }
    let (n_a, n_b) = (n_a.load(Ordering::SeqCst), n_b.load(Ordering::SeqCst));
    assert!(n_b > 0, "the second crawler fetched too ({n_a} and {n_b})");
}
