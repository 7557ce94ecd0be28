//! Fusion: canonical URL → dedup with provenance merge → correlation-aware RRF.
//!
//! For one query, a hit's score is
//!
//! ```text
//! fused_score = Σ_groups 1 / (K + best_rank_in_group)  +  CONSENSUS_BONUS × (groups − 1)
//! ```
//!
//! Engines that share an upstream index (DuckDuckGo and Yahoo resell Bing; Startpage,
//! Serper and SerpAPI resell Google) form one correlation group, and a group votes once,
//! at its best rank, so three Bing resellers agreeing count as one opinion, not three.
//! SearXNG results are split by the upstream engines SearXNG reports. The consensus bonus
//! rewards agreement between *independent* indexes. With `--expand`, each query is fused
//! on its own and a hit's final score is the sum of its per-query scores.

use std::collections::{BTreeMap, HashMap, HashSet};

use url::Url;

use crate::engine::RawItem;
use crate::engines::upstream_group;
use crate::types::{Folded, Hit, Provenance};

/// The RRF constant.
pub const K: f64 = 60.0;

/// Added once per distinct correlation group beyond the first: a quarter of a rank-1 vote.
/// Large enough to lift a result that independent indexes agree on above a single
/// engine's top hit of similar rank, small enough not to beat a clearly better rank.
pub const CONSENSUS_BONUS: f64 = 0.25 / (K + 1.0);

/// One engine's ranked list for one query.
#[derive(Debug, Clone)]
pub struct EngineList {
    /// Engine name.
    pub engine: String,
    /// Its correlation group.
    pub group: String,
    /// Items in rank order.
    pub items: Vec<RawItem>,
}

/// The votes an engine's list casts: one per item, or, for a meta-engine whose items
/// report upstream engines, one per upstream engine (`searxng:bing`, group `bing`).
pub fn votes(list: &EngineList, query: Option<u32>) -> Vec<(usize, Provenance)> {
    let mut out = Vec::new();
    for (i, item) in list.items.iter().enumerate() {
        if item.upstream.is_empty() {
            out.push((
                i,
                Provenance {
                    engine: list.engine.clone(),
                    rank: i as u32 + 1,
                    group: list.group.clone(),
                    query,
                },
            ));
        } else {
            for (up, rank) in &item.upstream {
                out.push((
                    i,
                    Provenance {
                        engine: format!("{}:{up}", list.engine),
                        rank: *rank,
                        group: upstream_group(up),
                        query,
                    },
                ));
            }
        }
    }
    out
}

/// The score of a hit from its provenance, per the formula in the module doc.
pub fn score(provenance: &[Provenance]) -> f64 {
    // (query, group) → best rank.
    let mut best: BTreeMap<(Option<u32>, &str), u32> = BTreeMap::new();
    for p in provenance {
        let e = best.entry((p.query, p.group.as_str())).or_insert(p.rank);
        *e = (*e).min(p.rank);
    }
    let mut groups_per_query: BTreeMap<Option<u32>, u32> = BTreeMap::new();
    let mut total = 0.0;
    for ((q, _), rank) in &best {
        total += 1.0 / (K + f64::from(*rank));
        *groups_per_query.entry(*q).or_insert(0) += 1;
    }
    for g in groups_per_query.values() {
        total += CONSENSUS_BONUS * f64::from(g.saturating_sub(1));
    }
    total
}

/// The dedup key of a URL: its canonical form without the scheme, so `http` and `https`
/// spellings of one page merge. `None` for URLs that do not parse.
pub fn dedup_key(raw: &str) -> Option<String> {
    let u = Url::parse(raw).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let c = trawl_core::canonical_url(&u);
    let s = c.as_str();
    Some(s.split_once("://").map_or(s, |(_, rest)| rest).to_owned())
}

struct Acc {
    url: String,
    best_rank: u32,
    title: String,
    title_rank: u32,
    snippet: String,
    published: Option<String>,
    extra: Option<serde_json::Value>,
    provenance: Vec<Provenance>,
    order: usize,
}

/// Fuse lists (each tagged with its query index when `--expand` ran several) into ranked
/// hits. `max_results` 0 means no limit. Folded spellings are reported once each.
pub fn fuse(lists: &[(Option<u32>, EngineList)], max_results: usize) -> (Vec<Hit>, Vec<Folded>) {
    let mut by_key: HashMap<String, Acc> = HashMap::new();
    let mut folded: Vec<Folded> = Vec::new();
    let mut order = 0usize;
    // An engine may list a URL twice (ads, sitelinks): keep its best rank only, once per
    // query.
    let mut seen: HashSet<(Option<u32>, String, String)> = HashSet::new();
    for (query, list) in lists {
        for (idx, prov) in votes(list, *query) {
            let item = &list.items[idx];
            let Some(key) = dedup_key(&item.url) else {
                continue;
            };
            if !seen.insert((*query, key.clone(), prov.engine.clone())) {
                // Listed again (a repeated list): its best rank stands, whichever list came
                // first, so the order engines finish in cannot change a score.
                if let Some(acc) = by_key.get_mut(&key)
                    && let Some(p) = acc
                        .provenance
                        .iter_mut()
                        .find(|p| p.query == *query && p.engine == prov.engine)
                    && prov.rank < p.rank
                {
                    p.rank = prov.rank;
                    acc.best_rank = acc.best_rank.min(prov.rank);
                }
                continue;
            }
            let acc = by_key.entry(key).or_insert_with(|| {
                order += 1;
                Acc {
                    url: item.url.clone(),
                    best_rank: prov.rank,
                    title: item.title.clone(),
                    title_rank: prov.rank,
                    snippet: String::new(),
                    published: None,
                    extra: None,
                    provenance: Vec::new(),
                    order,
                }
            });
            if item.url != acc.url && !folded.iter().any(|f| f.url == item.url) {
                if prov.rank < acc.best_rank {
                    // The better-ranked spelling becomes the hit's URL.
                    folded.retain(|f| f.url != item.url);
                    for f in folded.iter_mut().filter(|f| f.into == acc.url) {
                        f.into = item.url.clone();
                    }
                    folded.push(Folded {
                        url: acc.url.clone(),
                        into: item.url.clone(),
                    });
                    acc.url = item.url.clone();
                } else {
                    folded.push(Folded {
                        url: item.url.clone(),
                        into: acc.url.clone(),
                    });
                }
            }
            acc.best_rank = acc.best_rank.min(prov.rank);
            // Best title: the best-ranked engine's, unless it gave none.
            if !item.title.is_empty() && (acc.title.is_empty() || prov.rank < acc.title_rank) {
                acc.title = item.title.clone();
                acc.title_rank = prov.rank;
            }
            if item.snippet.chars().count() > acc.snippet.chars().count() {
                acc.snippet = item.snippet.clone();
            }
            if acc.published.is_none() {
                acc.published = item.published.clone();
            }
            if acc.extra.is_none() {
                acc.extra = item.extra.clone();
            }
            acc.provenance.push(prov);
        }
    }
    let mut hits: Vec<(Hit, u32, usize)> = by_key
        .into_values()
        .map(|mut a| {
            let fused_score = score(&a.provenance);
            // A title is a line and a snippet a paragraph, whatever an engine sends.
            trawl_core::caps::cap_chars(&mut a.title, trawl_core::caps::MAX_TITLE_CHARS);
            trawl_core::caps::cap_chars(&mut a.snippet, trawl_core::caps::MAX_SNIPPET_CHARS);
            (
                Hit {
                    rank: 0,
                    url: a.url,
                    title: a.title,
                    snippet: a.snippet,
                    fused_score,
                    provenance: a.provenance,
                    published: a.published,
                    handle: None,
                    preview: None,
                    extra: a.extra,
                },
                a.best_rank,
                a.order,
            )
        })
        .collect();
    hits.sort_by(|a, b| {
        b.0.fused_score
            .total_cmp(&a.0.fused_score)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    let mut out: Vec<Hit> = hits.into_iter().map(|(h, _, _)| h).collect();
    if max_results > 0 {
        out.truncate(max_results);
    }
    for (i, h) in out.iter_mut().enumerate() {
        h.rank = i as u32 + 1;
    }
    let kept: std::collections::HashSet<&str> = out.iter().map(|h| h.url.as_str()).collect();
    folded.retain(|f| kept.contains(f.into.as_str()));
    (out, folded)
}

/// Whether `url` is on `site` (`example.com`, `docs.example.com/path`): same host or a
/// subdomain of it (`www.` ignored on both sides), and under the path when one is given.
pub fn on_site(url: &str, site: &str) -> bool {
    let site = site
        .trim()
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let (site_host, site_path) = match site.split_once('/') {
        Some((h, p)) => (h, format!("/{}", p.trim_end_matches('/'))),
        None => (site, String::new()),
    };
    let site_host = site_host.to_ascii_lowercase();
    let site_host = site_host.trim_start_matches("www.");
    let Ok(u) = url::Url::parse(url) else {
        return false;
    };
    let Some(host) = u.host_str() else {
        return false;
    };
    let host = host.to_ascii_lowercase();
    let host = host.trim_start_matches("www.");
    let host_ok = host == site_host || host.ends_with(&format!(".{site_host}"));
    host_ok && (site_path.is_empty() || u.path().starts_with(&site_path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(url: &str, title: &str, snippet: &str) -> RawItem {
        RawItem {
            url: url.into(),
            title: title.into(),
            snippet: snippet.into(),
            ..RawItem::default()
        }
    }

    fn list(engine: &str, group: &str, urls: &[&str]) -> (Option<u32>, EngineList) {
        (
            None,
            EngineList {
                engine: engine.into(),
                group: group.into(),
                items: urls.iter().map(|u| item(u, u, "")).collect(),
            },
        )
    }

    #[test]
    fn correlated_engines_vote_once() {
        // DDG and Yahoo are both Bing: together they equal one vote at the best rank.
        let (hits, _) = fuse(
            &[
                list("duckduckgo", "bing", &["https://a.com/", "https://b.com/"]),
                list("yahoo", "bing", &["https://b.com/", "https://a.com/"]),
            ],
            0,
        );
        let a = hits.iter().find(|h| h.url == "https://a.com/").unwrap();
        assert!((a.fused_score - 1.0 / 61.0).abs() < 1e-12);
        assert_eq!(a.provenance.len(), 2);
    }

    #[test]
    fn independent_groups_add_and_get_a_bonus() {
        let (hits, _) = fuse(
            &[
                list("duckduckgo", "bing", &["https://x.com/", "https://a.com/"]),
                list("mojeek", "mojeek", &["https://a.com/"]),
            ],
            0,
        );
        assert_eq!(hits[0].url, "https://a.com/");
        let expect = 1.0 / 62.0 + 1.0 / 61.0 + CONSENSUS_BONUS;
        assert!((hits[0].fused_score - expect).abs() < 1e-12);
        assert_eq!(hits[0].rank, 1);
        assert_eq!(hits[1].rank, 2);
    }

    #[test]
    fn a_4_mb_title_and_snippet_are_cut_with_a_note() {
        let huge = "T".repeat(4 << 20);
        let (hits, _) = fuse(
            &[(
                None,
                EngineList {
                    engine: "mojeek".into(),
                    group: "mojeek".into(),
                    items: vec![item("https://a.com/p", &huge, &huge)],
                },
            )],
            0,
        );
        let note = format!("… [cut from {} characters]", 4 << 20);
        assert_eq!(hits[0].title.chars().count(), 512 + note.chars().count());
        assert!(hits[0].title.ends_with(&note));
        assert_eq!(
            hits[0].snippet.chars().count(),
            2_048 + note.chars().count()
        );
    }

    #[test]
    fn dedup_merges_spellings_and_keeps_best_fields() {
        let (hits, folded) = fuse(
            &[
                (
                    None,
                    EngineList {
                        engine: "mojeek".into(),
                        group: "mojeek".into(),
                        items: vec![item("http://www.a.com/p/?utm_source=x", "", "short")],
                    },
                ),
                (
                    None,
                    EngineList {
                        engine: "duckduckgo".into(),
                        group: "bing".into(),
                        items: vec![
                            item("https://z.com/", "Z", ""),
                            item("https://a.com/p", "A title", "a much longer snippet"),
                        ],
                    },
                ),
            ],
            0,
        );
        let a = hits.iter().find(|h| h.title == "A title").unwrap();
        assert_eq!(a.snippet, "a much longer snippet");
        assert_eq!(a.provenance.len(), 2);
        assert_eq!(a.url, "http://www.a.com/p/?utm_source=x");
        assert_eq!(
            folded,
            vec![Folded {
                url: "https://a.com/p".into(),
                into: a.url.clone()
            }]
        );
    }

    #[test]
    fn searxng_items_vote_per_upstream_group() {
        let mut it = item("https://a.com/", "A", "");
        it.upstream = vec![
            ("bing".into(), 2),
            ("duckduckgo".into(), 1),
            ("google".into(), 3),
        ];
        let (hits, _) = fuse(
            &[(
                None,
                EngineList {
                    engine: "searxng".into(),
                    group: "searxng".into(),
                    items: vec![it],
                },
            )],
            0,
        );
        let h = &hits[0];
        assert_eq!(h.provenance.len(), 3);
        assert_eq!(h.provenance[1].engine, "searxng:duckduckgo");
        assert_eq!(h.provenance[1].group, "bing");
        let expect = 1.0 / 61.0 + 1.0 / 63.0 + CONSENSUS_BONUS;
        assert!((h.fused_score - expect).abs() < 1e-12);
    }

    #[test]
    fn expanded_queries_sum() {
        let mut a = list("mojeek", "mojeek", &["https://a.com/"]);
        let mut b = list("mojeek", "mojeek", &["https://a.com/"]);
        a.0 = Some(0);
        b.0 = Some(1);
        let (hits, _) = fuse(&[a, b], 0);
        assert!((hits[0].fused_score - 2.0 / 61.0).abs() < 1e-12);
    }

    #[test]
    fn max_results_truncates() {
        let (hits, _) = fuse(&[list("m", "m", &["https://a.com/", "https://b.com/"])], 1);
        assert_eq!(hits.len(), 1);
    }

    #[test]
    fn site_matching() {
        assert!(on_site("https://docs.rs/tokio", "docs.rs"));
        assert!(on_site("https://www.example.com/a", "example.com"));
        assert!(on_site("https://blog.example.com/a", "www.example.com"));
        assert!(!on_site("https://notexample.com/", "example.com"));
        assert!(on_site(
            "https://github.com/rust-lang/rust/issues",
            "github.com/rust-lang"
        ));
        assert!(!on_site("https://github.com/other", "github.com/rust-lang"));
    }
}
