//! `map`: every sitemap URL, having asked only for discovery files and the start page.

use std::collections::HashSet;

use trawl_crawl::{MapOptions, UrlSource, map_site};

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
