use std::collections::HashSet;

use proptest::prelude::*;
use trawl_search::fuse::{EngineList, dedup_key, fuse, score};
use trawl_search::{RawItem, SearchRequest};

fn url_strategy() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["http", "https"]),
        prop::sample::select(vec!["a.example", "www.a.example", "b.example", "c.example"]),
        prop::sample::select(vec![
            "",
            "/",
            "/p",
            "/p/",
            "/q?x=1",
            "/q?utm_source=z&x=1",
            "/p#frag",
        ]),
    )
        .prop_map(|(s, h, p)| format!("{s}://{h}{p}"))
}

fn lists_strategy() -> impl Strategy<Value = Vec<(Option<u32>, EngineList)>> {
    let engine = prop::sample::select(vec![
        ("duckduckgo", "bing"),
        ("yahoo", "bing"),
        ("mojeek", "mojeek"),
        ("brave", "brave"),
    ]);
    prop::collection::vec(
        (engine, prop::collection::vec(url_strategy(), 0..8), 0u32..2),
        0..5,
    )
    .prop_map(|lists| {
        lists
            .into_iter()
            .map(|((e, g), urls, q)| {
                (
                    Some(q),
                    EngineList {
                        engine: e.to_owned(),
                        group: g.to_owned(),
                        items: urls
                            .into_iter()
                            .map(|u| RawItem {
                                title: u.clone(),
                                url: u,
                                ..RawItem::default()
                            })
                            .collect(),
                    },
                )
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Ranked, scored by the formula, one hit per page, and every vote kept once.
    #[test]
    fn fusion_invariants(lists in lists_strategy()) {
        let (hits, folded) = fuse(&lists, 0);
        let mut keys = HashSet::new();
        for (i, h) in hits.iter().enumerate() {
            prop_assert_eq!(h.rank as usize, i + 1);
            prop_assert!((h.fused_score - score(&h.provenance)).abs() < 1e-12);
            prop_assert!(keys.insert(dedup_key(&h.url).unwrap()));
        }
        for w in hits.windows(2) {
            prop_assert!(w[0].fused_score >= w[1].fused_score);
        }
        // Each (query, engine, page) appears in exactly one hit, at its best rank.
        let mut expected = HashSet::new();
        for (q, l) in &lists {
            for it in &l.items {
                expected.insert((*q, l.engine.clone(), dedup_key(&it.url).unwrap()));
            }
        }
        let mut got = HashSet::new();
        for h in &hits {
            let k = dedup_key(&h.url).unwrap();
            for p in &h.provenance {
                prop_assert!(got.insert((p.query, p.engine.clone(), k.clone())));
            }
        }
        prop_assert_eq!(got, expected);
        for f in &folded {
            prop_assert!(hits.iter().any(|h| h.url == f.into));
            prop_assert_eq!(dedup_key(&f.url), dedup_key(&f.into));
        }
    }

    /// Any bytes give items or a parse error from every engine, never a panic, and every
    /// URL a parser lets through is http(s).
    #[test]
    fn parsers_never_panic(selector in 0usize..64, body in prop::collection::vec(any::<u8>(), 0..2048)) {
        let all = trawl_search::engines::all();
        let engine = &all[selector % all.len()];
        if let Ok(items) = engine.parse_for(&body, &SearchRequest::new("x")) {
            for it in items {
                prop_assert!(it.url.starts_with("http"), "{} gave {:?}", engine.name(), it.url);
            }
        }
    }

    /// Near-valid inputs: real fixtures cut at a random point.
    #[test]
    fn truncated_fixtures_never_panic(which in 0usize..6, cut in 0.0f64..1.0) {
        let (engine, path) = [
            ("duckduckgo", "duckduckgo/html-openclaw.html"),
            ("yahoo", "yahoo/legacy-2020-bisoncorps-yahoo.html"),
            ("arxiv", "arxiv/query-electron-proton-2025-08-old-format.xml"),
            ("searxng", "searxng/search-python-format-json.json"),
            ("github", "github/search-repositories-2014-pygithub.json"),
            ("brave_api", "brave-api/web-search-hello-world.json"),
        ][which];
        let body = crate::support::fixture(path);
        let n = (body.len() as f64 * cut) as usize;
        let all = trawl_search::engines::all();
        let e = all.iter().find(|e| e.name() == engine).unwrap();
        // A cut page gives a parse error or items, and each item is a real result: an
        // http(s) URL and a title that holds no tag (a lone `<` where the cut fell inside
        // one is text, as HTML parses it).
        if let Ok(items) = e.parse_for(&body[..n], &SearchRequest::new("x")) {
            for it in items {
                prop_assert!(it.url.starts_with("http"), "{engine} gave {:?}", it.url);
                let tag = it
                    .title
                    .as_bytes()
                    .windows(2)
                    .any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'/'));
                prop_assert!(!tag, "{engine} title {:?}", it.title);
            }
        }
    }
}

/// A hit as order-independent data: its page, its score's bits, its sorted votes.
type HitView = (String, u64, Vec<(Option<u32>, String, u32, String)>);

fn view(hits: &[trawl_search::Hit]) -> Vec<HitView> {
    hits.iter()
        .map(|h| {
            let mut votes: Vec<_> = h
                .provenance
                .iter()
                .map(|p| (p.query, p.engine.clone(), p.rank, p.group.clone()))
                .collect();
            votes.sort();
            (dedup_key(&h.url).unwrap(), h.fused_score.to_bits(), votes)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Engines finish in any order: fusing their lists in another order gives the same
    /// pages, scores and votes, and the same ranking except among exact ties.
    #[test]
    fn fusion_is_independent_of_completion_order(
        lists in lists_strategy(),
        rotate in 0usize..8,
        reverse in any::<bool>(),
    ) {
        let mut other = lists.clone();
        if reverse {
            other.reverse();
        }
        if !other.is_empty() {
            let n = rotate % other.len();
            other.rotate_left(n);
        }
        let (a, _) = fuse(&lists, 0);
        let (b, _) = fuse(&other, 0);
        let (mut va, mut vb) = (view(&a), view(&b));
        // Same score sequence: ranks differ only where scores tie exactly.
        let scores = |v: &[HitView]| v.iter().map(|h| h.1).collect::<Vec<_>>();
        prop_assert_eq!(scores(&va), scores(&vb));
        va.sort();
        vb.sort();
        prop_assert_eq!(va, vb);
    }
}

/// URLs as engines hand them out, with the parts canonicalization touches.
fn messy_url() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["http", "https", "HTTP", "HtTpS"]),
        prop::sample::select(vec![
            "Example.COM",
            "www.example.com",
            "www.co",
            "www.www.example.com",
            "xn--bcher-kva.example",
            "bücher.example",
            "127.0.0.1:80",
            "[::1]:443",
            "a.example:8080",
        ]),
        prop::collection::vec(
            prop::sample::select(vec![
                "", "/", "a", "%7e", "%2F", "%2d", "..", ".", "%", "ü", " ", "//",
            ]),
            0..5,
        ),
        prop::collection::vec(
            (
                prop::sample::select(vec!["utm_source", "q", "ref", "x", "A", "gclid", ""]),
                prop::sample::select(vec!["", "1", "%20", "a+b", "&", "=", "ü"]),
            ),
            0..4,
        ),
        prop::sample::select(vec!["", "#", "#top", "#a?b"]),
    )
        .prop_map(|(scheme, host, path, query, frag)| {
            let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let q = if q.is_empty() {
                String::new()
            } else {
                format!("?{}", q.join("&"))
            };
            format!("{scheme}://{host}/{}{q}{frag}", path.join("/"))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Canonicalizing a canonical URL changes nothing, for messy and for arbitrary URLs.
    #[test]
    fn canonicalization_is_idempotent(url in messy_url(), any_text in "\\PC{0,40}") {
        for raw in [url, format!("https://example.com/{any_text}"), any_text] {
            let Ok(u) = url::Url::parse(&raw) else { continue };
            let once = trawl_core::canonical_url(&u);
            let twice = trawl_core::canonical_url(&once);
            prop_assert_eq!(once.as_str(), twice.as_str(), "{}", raw);
            // The dedup key is stable too.
            prop_assert_eq!(dedup_key(once.as_str()), dedup_key(twice.as_str()));
        }
    }
}
