//! Sameness in a crawl: a print view, an address with a parameter that changes a line and a
//! story at two paths are near-duplicates; a mirror that names its original canonical is
//! that page. Each is stored once, and the copies fetched are `skipped`, naming it.

use std::sync::{Arc, Mutex};

use trawl_crawl::{CrawlEvent, CrawlOptions, CrawlPage, Crawler};
use trawl_store::{FindScope, SharedStore, SqliteStore, StoreConfig};

use crate::site::{NEAR_DUPLICATES, Site, SiteConfig, content_paths};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_duplicates_and_canonical_copies_are_stored_once_naming_the_page_kept() {
    let site = Site::start(SiteConfig {
        near_duplicates: true,
        ..SiteConfig::default()
    });
    let store = SharedStore::new(SqliteStore::open(":memory:", StoreConfig::default()).unwrap());
    let crawler = Crawler::new(crate::loopback_fetcher(), store.clone());
    let pages = Arc::new(Mutex::new(Vec::<CrawlPage>::new()));
    let seen = pages.clone();
    let observer: trawl_crawl::Observer = Arc::new(move |e: CrawlEvent<'_>| {
        if let CrawlEvent::Page(p, _) = e {
            seen.lock().unwrap().push(p.clone());
        }
    });
    let mut options = CrawlOptions::new(site.url("/"));
    options.limit = 1_000;
    options.max_depth = 40;
    options.concurrency = 4;
    let summary = crawler.run(options, Some(observer)).await.unwrap();
    let pages = pages.lock().unwrap().clone();
    let counts = site.counts();
    let page_of = |path: &str| pages.iter().find(|p| p.url == site.url(path));

    let mut skipped = 0;
    for group in NEAR_DUPLICATES {
        for path in group {
            assert!(
                counts.get(*path).copied().unwrap_or(0) <= 1,
                "{path}: {counts:?}"
            );
        }
        let done: Vec<&&str> = group
            .iter()
            .filter(|p| page_of(p).is_some_and(|p| p.status == "done"))
            .collect();
        assert_eq!(done.len(), 1, "{group:?} stored {done:?}");
        let kept = site.url(done[0]);
        for path in group.iter().filter(|p| *p != done[0]) {
            let Some(copy) = page_of(path) else {
                // Never fetched: only a page named canonical by a stored one may be.
                assert_eq!(*path, "/docs/9", "{path} was not fetched");
                continue;
            };
            skipped += 1;
            assert_eq!(copy.status, "skipped", "{copy:?}");
            assert_eq!(copy.handle, None, "{copy:?}");
            let detail = copy.detail.as_deref().unwrap();
            assert!(detail.contains(&kept), "{path}: {detail} (kept {kept})");
            if group.contains(&"/mirror/docs/9") {
                // Its words differ: the canonical link decided, not the similarity.
                assert!(detail.starts_with("duplicate of "), "{detail}");
            } else {
                assert!(detail.starts_with("near-duplicate of "), "{detail}");
            }
        }
    }
    assert!(skipped >= 3, "{skipped} copies skipped");
    assert_eq!(summary.progress.duplicates, skipped);
    // A tracking parameter is not even asked for: canonical form decides before fetching.
    assert!(counts.keys().all(|p| !p.contains("utm_")), "{counts:?}");
    // Pages alike in shape but not in words are all stored.
    for path in content_paths() {
        if NEAR_DUPLICATES.iter().any(|g| g.contains(&path.as_str())) {
            continue;
        }
        let p = page_of(&path).unwrap_or_else(|| panic!("{path} not crawled"));
        assert_eq!(p.status, "done", "{p:?}");
    }
    // The story is in the store once: every passage about it comes from one document.
    let found = store
        .run(|s| s.find("\"filed under\"", FindScope::All, 50))
        .await
        .unwrap();
    assert!(!found.is_empty());
    let handles: std::collections::HashSet<_> = found.iter().map(|h| h.handle.clone()).collect();
    assert_eq!(handles.len(), 1, "{found:?}");
}
