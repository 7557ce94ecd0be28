//! `map`: every sitemap URL, having asked only for discovery files and the start page; a
//! kept map answers from the store within its TTL.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime};

use trawl_crawl::{MapKeeping, MapOptions, UrlSource, map_site, map_site_kept};
use trawl_store::{Clock, SharedStore, SqliteStore, StoreConfig};

use crate::site::{DOC_PAGES, Site, SiteConfig};

#[tokio::test]
async fn map_lists_every_sitemap_url_from_discovery_files_and_the_start_page_only() {
    let site = Site::start(SiteConfig::default());
    let fetcher = crate::loopback_fetcher();
    let map = map_site(&fetcher, &MapOptions::new(site.url("/")))
        .await
        .unwrap();
    let sitemap: HashSet<String> = map
        .urls
        .iter()
        .filter(|u| u.source == UrlSource::Sitemap)
        .map(|u| u.url.clone())
        .collect();
    for i in 0..DOC_PAGES {
        assert!(
            sitemap.contains(&site.url(&format!("/docs/{i}"))),
            "docs/{i} missing"
        );
    }
    assert_eq!(sitemap.len(), DOC_PAGES);
    let docs3 = map
        .urls
        .iter()
        .find(|u| u.url == site.url("/docs/3"))
        .unwrap();
    assert_eq!(docs3.lastmod.as_deref(), Some("2024-01-04"));
    // The start page's own links are found too, with their anchor text.
    let blog = map
        .urls
        .iter()
        .find(|u| u.url == site.url("/blog/0"))
        .unwrap();
    assert_eq!(blog.source, UrlSource::Link);
    assert_eq!(blog.title.as_deref(), Some("Blog"));
    // The site's own log: robots.txt, the sitemap index, the gzipped sitemap, /llms.txt
    // (a discovery file; this site has none) and the start page, each once; no other page.
    let mut asked = site.requests();
    asked.sort();
    assert_eq!(
        asked,
        [
            "/",
            "/llms.txt",
            "/robots.txt",
            "/sitemap_index.xml",
            "/sitemaps/docs.xml.gz"
        ],
    );
    assert_eq!(map.requests, 5);
    assert_eq!(map.sitemaps.len(), 2);
    assert_eq!(map.robots, "parsed");
}

#[tokio::test]
async fn map_search_ranks_and_filters_and_limits() {
    let site = Site::start(SiteConfig::default());
    let fetcher = crate::loopback_fetcher();
    let mut options = MapOptions::new(site.url("/"));
    options.search = Some("blog".into());
    options.limit = 3;
    let map = map_site(&fetcher, &options).await.unwrap();
    assert_eq!(map.urls.len(), 3);
    assert!(map.found > 3);
    assert!(map.urls[0].url.contains("/blog/"), "{:?}", map.urls[0]);
    assert!(map.urls[0].score.unwrap() > 0.0);

    let mut options = MapOptions::new(site.url("/"));
    options.include = vec!["^/docs/1".into()];
    options.exclude = vec!["^/docs/1[0-9]$".into()];
    let map = map_site(&fetcher, &options).await.unwrap();
    let paths: HashSet<String> = map
        .urls
        .iter()
        .map(|u| url::Url::parse(&u.url).unwrap().path().to_owned())
        .collect();
    assert!(paths.contains("/docs/1"));
    assert!(paths.contains("/docs/100"));
    assert!(!paths.contains("/docs/15"));
    assert!(!paths.contains("/docs/2"));
    assert!(paths.iter().all(|p| p.starts_with("/docs/1")), "{paths:?}");
}

/// A store whose clock runs `offset` milliseconds ahead of the system's.
fn store_with_clock(offset: Arc<AtomicI64>) -> SharedStore {
    let clock = Clock::from_fn(move || {
        let ms = offset.load(Ordering::SeqCst);
        SystemTime::now() + Duration::from_millis(ms as u64)
    });
    let config = StoreConfig {
        clock,
        ..StoreConfig::default()
    };
    SharedStore::new(SqliteStore::open(":memory:", config).unwrap())
}

#[tokio::test]
async fn a_kept_map_answers_from_the_store_within_its_ttl_and_fresh_maps_again() {
    let site = Site::start(SiteConfig::default());
    let fetcher = crate::loopback_fetcher();
    let offset = Arc::new(AtomicI64::new(0));
    let store = store_with_clock(offset.clone());
    let keep = MapKeeping {
        ttl: Duration::from_secs(3_600),
        fresh: false,
    };
    let options = MapOptions::new(site.url("/"));
    let first = map_site_kept(&fetcher, &store, &options, keep)
        .await
        .unwrap();
    assert!(!first.from_store);
    assert_eq!(first.age_s, None);
    assert_eq!(first.requests, 5);
    assert_eq!(site.requests().len(), 5);

    // Within the TTL: the same answer, not one request to the site.
    let again = map_site_kept(&fetcher, &store, &options, keep)
        .await
        .unwrap();
    assert!(again.from_store);
    assert!(again.age_s.is_some());
    assert_eq!(again.requests, 0);
    assert_eq!(site.requests().len(), 5, "{:?}", site.requests());
    let urls = |m: &trawl_crawl::SiteMap| m.urls.iter().map(|u| u.url.clone()).collect::<Vec<_>>();
    assert_eq!(urls(&again), urls(&first));
    assert_eq!(again.found, first.found);
    assert_eq!(again.sitemaps, first.sitemaps);
    // The same start URL written another way (tracking parameter, fragment) is the same map.
    let spelled = MapOptions::new(site.url("/?utm_source=x#top"));
    let same = map_site_kept(&fetcher, &store, &spelled, keep)
        .await
        .unwrap();
    assert!(same.from_store);
    assert_eq!(site.requests().len(), 5);

    // Other options are another map.
    let mut ranked = options.clone();
    ranked.search = Some("blog".into());
    let other = map_site_kept(&fetcher, &store, &ranked, keep)
        .await
        .unwrap();
    assert!(!other.from_store);
    assert_eq!(site.requests().len(), 10);

    // fresh: mapped again, and the new map is what the store answers next.
    let fresh = MapKeeping {
        fresh: true,
        ..keep
    };
    let refetched = map_site_kept(&fetcher, &store, &options, fresh)
        .await
        .unwrap();
    assert!(!refetched.from_store);
    assert_eq!(site.requests().len(), 15);
    assert!(
        map_site_kept(&fetcher, &store, &options, keep)
            .await
            .unwrap()
            .from_store
    );
    assert_eq!(site.requests().len(), 15);

    // Past the TTL (the store's clock two hours on): mapped again.
    offset.store(2 * 3_600_000, Ordering::SeqCst);
    let expired = map_site_kept(&fetcher, &store, &options, keep)
        .await
        .unwrap();
    assert!(!expired.from_store);
    assert_eq!(site.requests().len(), 20);
}

#[tokio::test]
async fn a_kept_map_is_refused_when_the_guard_now_refuses_its_start() {
    let site = Site::start(SiteConfig::default());
    let store = store_with_clock(Arc::new(AtomicI64::new(0)));
    let keep = MapKeeping {
        ttl: Duration::from_secs(3_600),
        fresh: false,
    };
    let options = MapOptions::new(site.url("/"));
    map_site_kept(&crate::loopback_fetcher(), &store, &options, keep)
        .await
        .unwrap();
    // A fetcher whose guard refuses loopback: the kept map is not an answer around it.
    let strict = trawl_fetch::Fetcher::new(trawl_fetch::FetchConfig::default()).unwrap();
    let err = map_site_kept(&strict, &store, &options, keep)
        .await
        .unwrap_err();
    assert_eq!(err.code, trawl_core::ErrorCode::BlockedByPolicy, "{err:?}");
    assert_eq!(site.requests().len(), 5);
}
