//! `crawl`: every in-scope page stored once, nothing disallowed or off the site requested,
//! Crawl-delay kept, traps bounded, limit/depth/include/exclude honoured, and a killed
//! crawl resumed without fetching a page twice.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use trawl_crawl::{CrawlEvent, CrawlOptions, Crawler, UrlState};
use trawl_store::{FindScope, SharedStore, SqliteStore, StoreConfig};
use trawl_testkit::TestServer;

use crate::site::{BLOG_PAGES, DOC_PAGES, MARKER, Site, SiteConfig, content_paths};

fn memory_store() -> SharedStore {
    SharedStore::new(SqliteStore::open(":memory:", StoreConfig::default()).unwrap())
}

fn wide(url: String) -> CrawlOptions {
    let mut o = CrawlOptions::new(url);
    o.limit = 1_000;
    o.max_depth = 40;
    o.concurrency = 4;
    o
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_stores_every_in_scope_page_once_and_refuses_what_it_must() {
    let canary = TestServer::start_on("127.0.0.2");
    let site = Site::start(SiteConfig {
        away: canary.url("/stolen"),
        ..SiteConfig::default()
    });
    let store = memory_store();
    let crawler = Crawler::new(crate::loopback_fetcher(), store.clone());
    let pages = Arc::new(Mutex::new(Vec::new()));
    let seen = pages.clone();
    let observer: trawl_crawl::Observer = Arc::new(move |e: CrawlEvent<'_>| {
        if let CrawlEvent::Page(p, _) = e {
            seen.lock().unwrap().push(p.clone());
        }
    });
    let summary = crawler
        .run(wide(site.url("/")), Some(observer))
        .await
        .unwrap();
    let counts = site.counts();
    // Every in-scope page requested exactly once (the `?utm_source` self-links are the
    // same page by canonical form).
    for path in content_paths() {
        assert_eq!(counts.get(&path), Some(&1), "{path}: {counts:?}");
    }
    assert!(
        counts.keys().all(|p| !p.contains("utm_source")),
        "{counts:?}"
    );
    assert_eq!(counts.get("/"), Some(&1));
    // robots.txt disallows /private/: never asked.
    assert!(
        counts.keys().all(|p| !p.starts_with("/private")),
        "{counts:?}"
    );
    assert!(summary.disallowed >= 1);
    // The endless calendar stopped at the shape-run bound, and was reported.
    let calendar = counts
        .keys()
        .filter(|p| p.starts_with("/calendar/"))
        .count();
    assert!((10..=26).contains(&calendar), "{calendar} calendar pages");
    assert!(summary.traps >= 1, "{calendar} calendar pages; {summary:?}");
    assert!(
        summary.trap_examples[0].contains("in a row"),
        "{:?}",
        summary.trap_examples
    );
    // The redirect to another host was refused before it was sent; so was the metadata address.
    assert_eq!(
        canary.seen().len(),
        0,
        "the canary on another host was reached"
    );
    let pages = pages.lock().unwrap().clone();
    let away = pages.iter().find(|p| p.url.ends_with("/go/away")).unwrap();
    assert_eq!(away.status, "failed");
    assert!(
        away.detail.as_deref().unwrap().contains("leaves the site"),
        "{away:?}"
    );
    let meta = pages.iter().find(|p| p.url.ends_with("/go/meta")).unwrap();
    assert_eq!(meta.status, "failed");
    // Every stored page is one document under its handle.
    let done: Vec<_> = pages.iter().filter(|p| p.status == "done").collect();
    let handles: HashSet<_> = done.iter().map(|p| p.handle.clone().unwrap()).collect();
    assert_eq!(handles.len(), done.len());
    assert_eq!(summary.progress.done as usize, done.len());
    assert!(
        done.len() > DOC_PAGES + BLOG_PAGES,
        "the start page and every docs and blog page"
    );
    let found = store
        .run(|s| s.find(MARKER, FindScope::All, 5))
        .await
        .unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let docs17 = done.iter().find(|p| p.url == site.url("/docs/17")).unwrap();
    assert_eq!(Some(&found[0].handle), docs17.handle.as_ref());
    // The crawl's state is kept: every done page listed with its handle.
    let kept = trawl_crawl::pages(&store, &summary.id, &[UrlState::Done], 0, 0)
        .await
        .unwrap();
    assert_eq!(kept.len(), done.len());
    assert_eq!(summary.status, "done");
    assert_eq!(summary.robots, "obeyed");
}

/// A crawl that extracts on its one async worker (as the CLI's crawl does on two cores)
/// stores the same pages, Markdown and passages as one extracting on blocking threads.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_crawl_extracting_in_place_stores_what_one_extracting_off_the_worker_stores() {
    let site = Site::start(SiteConfig::default());
    let mut crawls = Vec::new();
    for in_place in [false, true] {
        let store = memory_store();
        let crawler =
            Crawler::new(crate::loopback_fetcher(), store.clone()).extracting_in_place(in_place);
        let summary = crawler.run(wide(site.url("/")), None).await.unwrap();
        assert_eq!(summary.status, "done", "in place: {in_place}");
        let done = trawl_crawl::pages(&store, &summary.id, &[UrlState::Done], 0, 0)
            .await
            .unwrap();
        let mut stored = Vec::new();
        for row in done {
            let handle = row.handle.clone().unwrap();
            let record = store
                .run(move |s| s.get_document(&handle))
                .await
                .unwrap()
                .unwrap();
            stored.push((row.url, record.document.markdown, record.content_hash));
        }
        stored.sort();
        let found = store
            .run(|s| s.find(MARKER, FindScope::All, 5))
            .await
            .unwrap();
        crawls.push((stored, found.len()));
    }
    assert!(
        crawls[0].0.len() > DOC_PAGES + BLOG_PAGES,
        "{:?}",
        crawls[0].0.len()
    );
    assert_eq!(crawls[0], crawls[1]);
    assert_eq!(crawls[1].1, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frontier_spilled_to_the_store_still_stores_every_page_once() {
    let site = Site::start(SiteConfig::default());
    let store = memory_store();
    let crawler = Crawler::new(crate::loopback_fetcher(), store.clone());
    let mut options = wide(site.url("/"));
    // A few URLs in memory: the sitemap's and the links' rest wait in the store only.
    options.frontier_memory = 4;
    let summary = crawler.run(options, None).await.unwrap();
    let counts = site.counts();
    for path in content_paths() {
        assert_eq!(counts.get(&path), Some(&1), "{path}: {counts:?}");
    }
    assert!(
        counts.keys().all(|p| !p.starts_with("/private")),
        "{counts:?}"
    );
    assert_eq!(summary.status, "done");
    assert_eq!(summary.progress.queued, 0, "{summary:?}");
    assert!(
        summary.progress.done as usize >= content_paths().len(),
        "{summary:?}"
    );
}

#[tokio::test]
async fn metadata_redirect_is_refused_by_the_guard() {
    // A failing guard would send a packet to 169.254.169.254: only in the isolated namespace.
    trawl_testkit::require_isolation!();
    let site = Site::start(SiteConfig::default());
    let crawler = Crawler::new(crate::loopback_fetcher(), memory_store());
    let mut options = CrawlOptions::new(site.url("/go/meta"));
    options.sitemap = false;
    let pages = Arc::new(Mutex::new(Vec::new()));
    let seen = pages.clone();
    let observer: trawl_crawl::Observer = Arc::new(move |e: CrawlEvent<'_>| {
        if let CrawlEvent::Page(p, _) = e {
            seen.lock().unwrap().push(p.clone());
        }
    });
    crawler.run(options, Some(observer)).await.unwrap();
    let pages = pages.lock().unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].status, "failed");
    let why = pages[0].detail.as_deref().unwrap();
    assert!(
        why.contains("169.254.169.254") && why.contains("refused"),
        "{why}"
    );
}

#[tokio::test]
async fn limit_depth_include_and_exclude_are_honoured() {
    let site = Site::start(SiteConfig::default());
    let crawler = Crawler::new(crate::loopback_fetcher(), memory_store());

    let mut o = wide(site.url("/"));
    o.limit = 7;
    let s = crawler.run(o, None).await.unwrap();
    assert_eq!(s.progress.done, 7);
    assert!(s.limit_reached);
    let pages = site
        .requests()
        .iter()
        .filter(|p| p.starts_with("/docs/") || p.starts_with("/blog/") || p.as_str() == "/")
        .count();
    assert!(pages <= 7 + 4, "{pages} pages requested for a limit of 7");

    let site = Site::start(SiteConfig::default());
    let mut o = wide(site.url("/"));
    o.sitemap = false;
    o.max_depth = 2;
    crawler.run(o, None).await.unwrap();
    let asked: HashSet<String> = site.requests().into_iter().collect();
    // depth 1: /docs/0, /blog/0 ...; depth 2: /docs/1, /blog/1; never /docs/2 or /blog/2.
    assert!(
        asked.contains("/docs/1") && asked.contains("/blog/1"),
        "{asked:?}"
    );
    assert!(
        !asked.contains("/docs/2") && !asked.contains("/blog/2"),
        "{asked:?}"
    );

    let site = Site::start(SiteConfig::default());
    let mut o = wide(site.url("/"));
    o.include = vec!["^/blog/".into()];
    o.exclude = vec!["^/blog/1[0-9]$".into()];
    crawler.run(o, None).await.unwrap();
    let asked: HashSet<String> = site.requests().into_iter().collect();
    assert!(asked.contains("/blog/9"), "{asked:?}");
    assert!(!asked.contains("/blog/12"), "{asked:?}");
    assert!(
        asked
            .iter()
            .all(|p| !p.starts_with("/docs/") && !p.starts_with("/calendar/")),
        "{asked:?}"
    );
}

#[tokio::test]
async fn crawl_delay_is_kept_between_requests() {
    let site = Site::start(SiteConfig {
        crawl_delay: Some(0.3),
        ..SiteConfig::default()
    });
    let crawler = Crawler::new(crate::loopback_fetcher(), memory_store());
    let mut o = CrawlOptions::new(site.url("/"));
    o.limit = 5;
    o.concurrency = 4;
    let s = crawler.run(o, None).await.unwrap();
    assert_eq!(s.delay_ms, Some(300));
    let times = site.times("/");
    assert!(times.len() >= 6, "{:?}", site.requests());
    // Gaps between consecutive requests (robots.txt and sitemaps included): at least the
    // delay. A lower bound only.
    for pair in times.windows(2) {
        let gap = pair[1].duration_since(pair[0]);
        assert!(
            gap >= Duration::from_millis(300),
            "gap {gap:?} in {:?}",
            site.requests()
        );
    }
}

#[tokio::test]
async fn ignoring_robots_says_so_and_fetches_disallowed_paths() {
    let site = Site::start(SiteConfig::default());
    let crawler = Crawler::new(crate::loopback_fetcher(), memory_store());
    let mut o = CrawlOptions::new(site.url("/"));
    o.ignore_robots = true;
    o.sitemap = false;
    o.max_depth = 1;
    let s = crawler.run(o, None).await.unwrap();
    assert!(s.robots.starts_with("ignored"), "{}", s.robots);
    let asked = site.requests();
    assert!(
        asked.iter().any(|p| p.starts_with("/private/")),
        "{asked:?}"
    );
    assert!(!asked.iter().any(|p| p == "/robots.txt"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_crawl_resumes_without_fetching_a_page_twice() {
    aborted_then_resumed(0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_crawl_with_its_frontier_spilled_resumes_without_fetching_a_page_twice() {
    // Four URLs in memory: most of the frontier, and of the seen set, is in the store only
    // when the crawl stops, and again when it resumes.
    aborted_then_resumed(4).await;
}

async fn aborted_then_resumed(frontier_memory: usize) {
    let site = Site::start(SiteConfig {
        page_latency: Duration::from_millis(20),
        ..SiteConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trawl.db");
    let store = SharedStore::new(SqliteStore::open(&path, StoreConfig::default()).unwrap());
    let crawler = Crawler::new(crate::loopback_fetcher(), store.clone());
    let mut o = wide(site.url("/"));
    o.limit = 120;
    o.concurrency = 2;
    o.frontier_memory = frontier_memory;
    let running = crawler.start(o, None).await.unwrap();
    let id = running.id.clone();
    // Let it store some pages, then stop it dead (as a kill would).
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let st = trawl_crawl::status(&store, &id).await.unwrap();
        if st.urls.get("done").copied().unwrap_or(0) >= 30 {
            break;
        }
    }
    running.abort();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = site.counts();
    // A fresh store handle, as a new process would open.
    let store2 = SharedStore::new(SqliteStore::open(&path, StoreConfig::default()).unwrap());
    let crawler2 = Crawler::new(crate::loopback_fetcher(), store2.clone());
    let s = crawler2.resume(&id, None).await.unwrap();
    assert_eq!(s.progress.done, 120);
    let after = site.counts();
    // Only the pages in flight at the abort (at most the per-host concurrency) may be asked
    // again; every page stored before it is never asked again.
    let twice: Vec<_> = after
        .iter()
        .filter(|(p, n)| **n > 1 && p.as_str() != "/robots.txt")
        .collect();
    assert!(twice.len() <= 2, "asked twice: {twice:?}");
    let done = trawl_crawl::pages(&store2, &id, &[UrlState::Done], 0, 0)
        .await
        .unwrap();
    assert_eq!(done.len(), 120);
    for d in &done {
        let h = d.handle.clone().unwrap();
        assert!(
            store2
                .run(move |s| s.get_document(&h))
                .await
                .unwrap()
                .is_some()
        );
    }
    assert!(
        before.len() < after.len(),
        "the resumed crawl fetched more pages"
    );
}
