//! Every engine, one module each. Adding an engine is one file plus one line in [`all`].

use std::sync::Arc;

use crate::engine::{Described, Engine, KeyNeed};
use crate::types::Route;

/// What every engine module needs: the engine trait, its description and request types.
mod prelude {
    pub(crate) use crate::engine::{
        Body, Capabilities, Engine, EngineRequest, EngineSpec, ErrorWords, KeyNeed, Listing,
        ParseError, RawItem, RequestContext, Routes, endpoint, endpoint_with, json_body, required,
        with_site,
    };
    pub(crate) use crate::html::{clean_text, strip_tags};
    pub(crate) use crate::types::SearchRequest;
}

pub mod arxiv;
pub mod baidu;
pub mod bing;
pub mod brave;
pub mod brave_api;
pub mod duckduckgo;
pub mod exa;
pub mod firecrawl;
pub mod github;
pub mod hackernews;
pub mod jina;
pub mod marginalia;
pub mod mojeek;
pub mod parallel;
pub mod reddit;
pub mod searxng;
pub mod serpapi;
pub mod serper;
pub mod sov2ex;
pub mod stackexchange;
pub mod startpage;
pub mod tavily;
pub mod wikipedia;
pub mod x;
pub mod yahoo;
pub mod yandex;

/// Every engine trawl knows, in display order.
pub fn all() -> Vec<Arc<dyn Engine>> {
    vec![
        Arc::new(duckduckgo::DuckDuckGo::default()),
        Arc::new(Described(&mojeek::SPEC)),
        Arc::new(Described(&brave::SPEC)),
        Arc::new(wikipedia::Wikipedia),
        Arc::new(Described(&bing::SPEC)),
        Arc::new(Described(&yahoo::SPEC)),
        Arc::new(Described(&startpage::SPEC)),
        Arc::new(Described(&yandex::SPEC)),
        Arc::new(searxng::Searxng),
        Arc::new(Described(&arxiv::SPEC)),
        Arc::new(github::GitHub),
        Arc::new(Described(&hackernews::SPEC)),
        Arc::new(Described(&stackexchange::SPEC)),
        Arc::new(Described(&reddit::SPEC)),
        Arc::new(Described(&sov2ex::SPEC)),
        Arc::new(Described(&brave_api::SPEC)),
        Arc::new(tavily::Tavily),
        Arc::new(Described(&exa::SPEC)),
        Arc::new(Described(&serper::SPEC)),
        Arc::new(Described(&serpapi::SPEC)),
        Arc::new(Described(&jina::SPEC)),
        Arc::new(Described(&firecrawl::SPEC)),
        Arc::new(Described(&marginalia::SPEC)),
        Arc::new(Described(&parallel::SPEC)),
        Arc::new(Described(&baidu::SPEC)),
        Arc::new(Described(&x::SPEC)),
    ]
}

/// The engines whose description puts them in `route`, in display order. The router
/// keeps the keyed and URL-only ones among them only when they are configured.
pub fn route_members(route: Route) -> Vec<&'static str> {
    all()
        .iter()
        .filter(|e| e.spec().in_route(route))
        .map(|e| e.name())
        .collect()
}

/// The engine table as Markdown, one row per engine in display order: what the README's
/// engine list must say (a test compares them).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| engine | group | key | filters | routes | parser confidence |\n|---|---|---|---|---|---|\n",
    );
    for e in all() {
        let s = e.spec();
        let key = match (s.key, e.key_env()) {
            (KeyNeed::None, _) => "none".to_owned(),
            (KeyNeed::Optional, Some(v)) => format!("optional `{v}`"),
            (_, Some(v)) => format!("`{v}`"),
            (_, None) => "URL".to_owned(),
        };
        let key = if s.base.is_empty() {
            "`TRAWL_SEARXNG_URL`".to_owned()
        } else {
            key
        };
        let routes: Vec<String> = s.routes.iter().map(|r| r.name().to_owned()).collect();
        out.push_str(&format!(
            "| {} | {} | {} | `{}` | {} | {} |\n",
            s.name,
            s.group,
            key,
            s.filters.letters(),
            if routes.is_empty() {
                "-".to_owned()
            } else {
                routes.join(", ")
            },
            s.confidence.replace('|', "/"),
        ));
    }
    out
}

/// The correlation group of an engine named by a meta-engine (SearXNG's upstream names).
/// Engines that resell another's index share its group: DuckDuckGo and Yahoo are Bing,
/// Startpage is Google, and so on. Unknown names form their own group.
pub fn upstream_group(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    let g = match n.as_str() {
        "bing" | "duckduckgo" | "yahoo" | "ddg" | "bing news" | "duckduckgo news"
        | "yahoo news" => "bing",
        "google" | "startpage" | "google news" | "google scholar" | "serper" | "serpapi" => {
            "google"
        }
        "brave" | "brave_api" | "brave.news" => "brave",
        "wikipedia" | "wikidata" => "wikipedia",
        "arxiv" => "arxiv",
        "marginalia" => "marginalia",
        "github" => "github",
        "stackoverflow" | "stackexchange" | "superuser" | "askubuntu" => "stackexchange",
        "hackernews" | "hacker news" => "hackernews",
        "yandex" => "yandex",
        "parallel" => "parallel",
        other => other,
    };
    g.to_owned()
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Days since the Unix epoch (Bing's `ez5_<from>_<to>` uses these).
pub(crate) fn days_since_epoch() -> u64 {
    unix_now() / 86_400
}

/// `YYYYMMDD` of the day `days` ago (UTC).
pub(crate) fn yyyymmdd_days_ago(days: u64) -> String {
    let (y, m, d) = civil_from_days(days_since_epoch().saturating_sub(days) as i64);
    format!("{y:04}{m:02}{d:02}")
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian, UTC).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lowercase() {
        let engines = all();
        let mut names: Vec<_> = engines.iter().map(|e| e.name()).collect();
        assert!(names.iter().all(|n| {
            n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        }));
        names.sort();
        names.dedup();
        assert_eq!(names.len(), engines.len());
        for e in &engines {
            assert!(!e.confidence().is_empty());
        }
    }

    /// The README's engine list is the table's: regenerate the block between the markers
    /// with `TRAWL_BLESS=1 cargo test -p trawl-search readme_engine_list`.
    #[test]
    fn readme_engine_list_matches_the_table() {
        const BEGIN: &str = "<!-- engines:begin (generated from the engine table) -->\n";
        const END: &str = "<!-- engines:end -->";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let (head, rest) = readme
            .split_once(BEGIN)
            .expect("README engine list markers");
        let (block, tail) = rest.split_once(END).expect("README engine list end marker");
        let want = markdown_table();
        if block != want && std::env::var_os("TRAWL_BLESS").is_some() {
            // CI checks the README; it must never rewrite it and pass.
            assert!(
                !trawl_testkit::in_ci(),
                "TRAWL_BLESS is refused under CI: regenerate the README's engine list locally"
            );
            std::fs::write(path, format!("{head}{BEGIN}{want}{END}{tail}")).unwrap();
            return;
        }
        assert_eq!(
            block, want,
            "README engine list differs from the engine table"
        );
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn correlated_upstreams_share_a_group() {
        assert_eq!(upstream_group("duckduckgo"), "bing");
        assert_eq!(upstream_group("Yahoo"), "bing");
        assert_eq!(upstream_group("startpage"), "google");
        assert_eq!(upstream_group("qwant"), "qwant");
        for e in all() {
            if e.name() != "searxng" {
                assert_eq!(upstream_group(e.name()), e.group(), "{}", e.name());
            }
        }
    }

    // The 2020 Google desktop page is kept only as a negative sample (PROVENANCE.md): it
    // is not the WML layout, so no web parser here may invent results from it.
    #[test]
    fn legacy_google_page_is_not_mistaken_for_results() {
        let body = crate::fixture::serp("google/legacy-2020-bisoncorps-google.html");
        assert!(duckduckgo::parse(&body).is_err());
        assert!(bing::parse(&body).is_err());
        assert!(yahoo::parse(&body).is_err());
        assert!(mojeek::parse(&body).is_err());
        // Its result links are direct (this layout has no `/url?q=` wrappers): the shared
        // helper leaves such a link alone, and unwraps the same link once wrapped.
        let doc = String::from_utf8_lossy(&body);
        let i = doc
            .find("href=\"https://www.w3.org/")
            .expect("the legacy page links its first result directly");
        let href = &doc[i + 6..];
        let direct = url::Url::parse(&href[..href.find('"').unwrap()]).unwrap();
        assert!(trawl_core::unwrap_redirect(&direct).is_none(), "{direct}");
        let mut wrapped = url::Url::parse("https://www.google.com/url").unwrap();
        wrapped
            .query_pairs_mut()
            .append_pair("q", direct.as_str())
            .append_pair("sa", "U");
        let target = trawl_core::unwrap_redirect(&wrapped).expect("a /url?q= link unwraps");
        assert_eq!(target, direct);
    }

    /// Every saved response in ../shared/fixtures/serp is named by some test in this
    /// crate, so a fixture added later without a parser test fails here.
    #[test]
    fn every_fixture_is_tested() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.push(p);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut fixtures = Vec::new();
        walk(&root.join("../../../shared/fixtures/serp"), &mut fixtures);
        let mut sources = Vec::new();
        walk(&root.join("src"), &mut sources);
        walk(&root.join("tests"), &mut sources);
        let text: String = sources
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .collect();
        let mut missing = Vec::new();
        for f in &fixtures {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                continue;
            }
            let stem = [".request.json", ".headers.json", ".json", ".html", ".xml"]
                .iter()
                .find_map(|suf| name.strip_suffix(suf))
                .unwrap_or(&name);
            if !text.contains(stem) {
                missing.push(name);
            }
        }
        assert!(fixtures.len() > 30);
        assert!(missing.is_empty(), "fixtures with no test: {missing:?}");
    }
}
