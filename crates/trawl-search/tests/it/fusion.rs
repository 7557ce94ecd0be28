use std::collections::BTreeMap;

use trawl_search::fuse::{CONSENSUS_BONUS, K};
use trawl_search::{Hit, OutcomeKind, SearchRequest};

use crate::support::{Reply, fixture, serve};

/// The documented formula, written out again independently of the crate's `score`.
fn expected_score(hit: &Hit) -> f64 {
    let mut per_query: BTreeMap<Option<u32>, BTreeMap<&str, u32>> = BTreeMap::new();
    for p in &hit.provenance {
        let best = per_query
            .entry(p.query)
            .or_default()
            .entry(p.group.as_str())
            .or_insert(u32::MAX);
        *best = (*best).min(p.rank);
    }
    per_query
        .values()
        .map(|groups| {
            groups
                .values()
                .map(|r| 1.0 / (K + f64::from(*r)))
                .sum::<f64>()
                + CONSENSUS_BONUS * (groups.len() as f64 - 1.0)
        })
        .sum()
}

#[tokio::test]
async fn duckduckgo_searxng_arxiv_fuse_with_provenance() {
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let sx = serve(|_| Reply::ok(fixture("searxng/search-python-format-json.json"))).await;
    let ax = serve(|_| {
        Reply::ok(fixture(
            "arxiv/query-electron-proton-2025-11-new-format.xml",
        ))
    })
    .await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", ddg.url())
        .set_base("searxng", sx.url())
        .set_base("arxiv", ax.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("q");
    req.engines = vec!["duckduckgo".into(), "searxng".into(), "arxiv".into()];
    let data = router.search(&req).await;

    let sent = ddg.seen.lock().unwrap()[0].clone();
    assert_eq!(
        (sent.method.as_str(), sent.target.as_str()),
        ("POST", "/html/")
    );
    assert!(String::from_utf8_lossy(&sent.body).contains("q=q"));
    let by: BTreeMap<_, _> = data
        .engines
        .iter()
        .map(|o| (o.engine.as_str(), o))
        .collect();
    assert_eq!(by["duckduckgo"].outcome, OutcomeKind::Ok);
    assert_eq!(by["duckduckgo"].count, 10);
    assert_eq!(by["searxng"].count, 30);
    assert_eq!(by["arxiv"].count, 10);
    assert!(!data.all_failed());

    // Every hit's score follows the formula, and the list is sorted by it.
    assert!(data.hits.len() >= 45, "{}", data.hits.len());
    for w in data.hits.windows(2) {
        assert!(w[0].fused_score >= w[1].fused_score);
    }
    for (i, h) in data.hits.iter().enumerate() {
        assert_eq!(h.rank as usize, i + 1);
        assert!(
            (h.fused_score - expected_score(h)).abs() < 1e-12,
            "{}",
            h.url
        );
        assert!(!h.provenance.is_empty());
    }

    // Provenance names each engine and rank.
    let ddg_first = crate::support::fixture("duckduckgo/html-openclaw.html");
    let first_url = trawl_search::engines::duckduckgo::parse(&ddg_first).unwrap()[0]
        .url
        .clone();
    let h = data.hits.iter().find(|h| h.url == first_url).unwrap();
    assert!(
        h.provenance
            .iter()
            .any(|p| p.engine == "duckduckgo" && p.rank == 1 && p.group == "bing")
    );
    let py = data
        .hits
        .iter()
        .find(|h| h.url == "https://www.python.org/")
        .unwrap();
    let engines: Vec<&str> = py.provenance.iter().map(|p| p.engine.as_str()).collect();
    assert_eq!(
        engines,
        ["searxng:bing", "searxng:qwant", "searxng:duckduckgo"]
    );
    // bing and duckduckgo are one group: two groups vote (bing at 1, qwant at 1).
    assert!((py.fused_score - (2.0 / 61.0 + CONSENSUS_BONUS)).abs() < 1e-12);
    assert!(data.hits.iter().any(|h| {
        h.provenance
            .iter()
            .any(|p| p.engine == "arxiv" && p.rank == 10)
    }));
    assert_eq!(data.hits[0].url, "https://www.python.org/");

    // The JSON carries the contract's field names.
    let json = serde_json::to_value(&data).unwrap();
    for k in ["query", "hits", "engines", "folded"] {
        assert!(json.get(k).is_some(), "{k}");
    }
    let hit = &json["hits"][0];
    for k in [
        "rank",
        "url",
        "title",
        "snippet",
        "fused_score",
        "provenance",
    ] {
        assert!(hit.get(k).is_some(), "{k}");
    }
    assert_eq!(json["engines"][0]["outcome"], "ok");
}

#[tokio::test]
async fn overlapping_engines_merge_and_vote_by_group() {
    // Mojeek (own index) and DuckDuckGo (Bing) return overlapping pages.
    let moj_page = br#"<html><body><ul class="results-standard">
        <li><h2><a href="https://www.python.org/">Python</a></h2><p class="s">Official site, longer snippet here.</p></li>
        <li><h2><a href="https://docs.python.org/3/">Docs</a></h2><p class="s">Docs</p></li></ul></body></html>"#.to_vec();
    let moj = serve(move |_| Reply::ok(moj_page.clone())).await;
    let sx = serve(|_| Reply::ok(fixture("searxng/search-python-format-json.json"))).await;
    let mut cfg = crate::config();
    cfg.set_base("mojeek", moj.url())
        .set_base("searxng", sx.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("python");
    req.engines = vec!["mojeek".into(), "searxng".into()];
    req.max_results = 5;
    let data = router.search(&req).await;
    assert_eq!(data.hits.len(), 5);
    let py = &data.hits[0];
    assert_eq!(py.url, "https://www.python.org/");
    // Three groups: mojeek@1, bing@1 (searxng bing + duckduckgo), qwant@1.
    assert!((py.fused_score - (3.0 / 61.0 + 2.0 * CONSENSUS_BONUS)).abs() < 1e-12);
    assert_eq!(py.provenance.len(), 4);
    assert!(
        py.provenance
            .iter()
            .any(|p| p.engine == "mojeek" && p.rank == 1)
    );
}

#[tokio::test]
async fn expanded_queries_fuse_per_query_then_across() {
    let moj = serve(|_| {
        Reply::ok(
            br#"<html><body><ul class="results-standard"><li><h2><a href="https://a.example/">A</a></h2><p class="s">a</p></li></ul></body></html>"#.to_vec(),
        )
    })
    .await;
    let mut cfg = crate::config();
    cfg.set_base("mojeek", moj.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("one");
    req.expand = vec!["two".into()];
    req.engines = vec!["mojeek".into()];
    let data = router.search(&req).await;
    assert_eq!(moj.hits(), 2);
    assert_eq!(data.engines.len(), 2);
    let h = &data.hits[0];
    let queries: Vec<_> = h.provenance.iter().map(|p| p.query).collect();
    assert_eq!(queries, [Some(0), Some(1)]);
    assert!((h.fused_score - 2.0 / 61.0).abs() < 1e-12);
}

#[tokio::test]
async fn filters_an_engine_cannot_honour_are_reported() {
    let ax = serve(|_| Reply::ok(fixture("arxiv/query-empty-2025-11-new-format.xml"))).await;
    let mut cfg = crate::config();
    cfg.set_base("arxiv", ax.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("x");
    req.engines = vec!["arxiv".into()];
    req.filters.site = Some("example.com".into());
    req.filters.region = Some("de".into());
    let data = router.search(&req).await;
    let o = &data.engines[0];
    assert_eq!(o.outcome, OutcomeKind::Empty);
    assert_eq!(
        o.detail.as_deref(),
        Some("cannot honour: region; site filtered here: 0 result(s) from other sites dropped")
    );
}

#[tokio::test]
async fn html_engines_look_like_a_browser_and_apis_say_trawl() {
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-openclaw.html"))).await;
    let gh = serve(|_| Reply::ok(fixture("github/search-repositories-2014-pygithub.json"))).await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", ddg.url());
    cfg.set_base("github", gh.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("q");
    req.engines = vec!["duckduckgo".into(), "github".into()];
    let data = router.search(&req).await;
    assert!(
        data.engines.iter().all(|o| o.outcome == OutcomeKind::Ok),
        "{:?}",
        data.engines
    );
    let d = ddg.seen.lock().unwrap()[0].clone();
    assert!(d.header("user-agent").unwrap().starts_with("Mozilla/5.0"));
    assert!(d.header("accept-language").is_some());
    let g = gh.seen.lock().unwrap()[0].clone();
    assert!(g.header("user-agent").unwrap().starts_with("trawl/"));
    assert_eq!(g.header("accept"), Some("application/vnd.github+json"));
    assert!(g.target.starts_with("/search/repositories?q=q"));
    let stars = data
        .hits
        .iter()
        .find_map(|h| h.extra.as_ref()?.get("stars")?.as_u64());
    assert!(stars.is_some_and(|s| s > 0));
}

#[tokio::test]
async fn duckduckgo_page_two_reuses_the_vqd_of_page_one() {
    let ddg = serve(|_| Reply::ok(fixture("duckduckgo/html-weather-Jakarta.html"))).await;
    let mut cfg = crate::config();
    cfg.set_base("duckduckgo", ddg.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("weather Jakarta");
    req.engines = vec!["duckduckgo".into()];
    let first = router.search(&req).await;
    assert_eq!(first.next_page, Some(2));
    req.filters.page = first.next_page;
    router.search(&req).await;
    let sent = ddg.seen.lock().unwrap()[1].clone();
    let body = String::from_utf8_lossy(&sent.body).into_owned();
    assert!(
        body.contains("s=10") && body.contains("vqd=4-23696560918250046874401586642396178867"),
        "{body}"
    );
}

#[tokio::test]
async fn site_filter_is_enforced_for_engines_that_cannot_apply_it() {
    let ax = serve(|_| {
        Reply::ok(fixture(
            "arxiv/query-electron-proton-2025-11-new-format.xml",
        ))
    })
    .await;
    let sx = serve(|_| Reply::ok(fixture("searxng/search-python-format-json.json"))).await;
    let mut cfg = crate::config();
    cfg.set_base("arxiv", ax.url());
    cfg.set_base("searxng", sx.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("python");
    req.engines = vec!["arxiv".into(), "searxng".into()];
    req.filters.site = Some("python.org".into());
    let data = router.search(&req).await;
    assert!(!data.hits.is_empty());
    assert!(
        data.hits.iter().all(|h| h.url.contains("python.org")),
        "{:?}",
        data.hits
    );
    let ax = data.engines.iter().find(|o| o.engine == "arxiv").unwrap();
    assert_eq!(ax.outcome, OutcomeKind::Empty);
    assert!(
        ax.detail
            .as_deref()
            .unwrap()
            .contains("10 result(s) from other sites dropped")
    );
    // SearXNG was asked with site:, but the fixture ignores it: its strays are dropped too.
    let sx = data.engines.iter().find(|o| o.engine == "searxng").unwrap();
    assert!(
        sx.detail
            .as_deref()
            .unwrap()
            .contains("from other sites dropped"),
        "{sx:?}"
    );
}
