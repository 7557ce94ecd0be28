//! Fan-out overhead of the search router, for `bench/04-fanout.sh`.
//!
//! `cargo run --release -p trawl-search --example fanout_bench -- \
//!     --engine http://127.0.0.1:9001 --engine http://127.0.0.1:9002 … \
//!     [--hang http://127.0.0.1:9009] [--timeout-ms 1000] [--runs 20]`
//!
//! Builds a [`Router`] whose engines are SearXNG-format engines with distinct names
//! (`sx1`, `sx2`, …, and `hang` for `--hang`), each in its own correlation group, with the
//! per-engine rate limits off. After one untimed warm-up search it runs `--runs` searches
//! one after another in this process and prints one JSON line: wall milliseconds of each
//! search, this process's CPU milliseconds for all of them (from per-thread schedstat),
//! hits returned and each engine's outcome for the last search. Nothing asserts on the numbers.

use std::sync::Arc;
use std::time::Instant;

use trawl_search::engines::searxng;
use trawl_search::{Engine, EngineSpec, Router, Routes, SearchConfig, SearchRequest};
use url::Url;

/// SearXNG's request and parser under another name and correlation group.
#[derive(Debug)]
struct Named {
    spec: &'static EngineSpec,
}

impl Named {
    /// Leaked once per engine for the process's life: the trait hands out `&'static`.
    fn new(name: &'static str) -> Self {
        let spec = EngineSpec {
            name,
            group: name,
            routes: Routes::default(),
            confidence: "benchmark fixture",
            ..searxng::SPEC
        };
        Self {
            spec: Box::leak(Box::new(spec)),
        }
    }
}

impl Engine for Named {
    fn spec(&self) -> &'static EngineSpec {
        self.spec
    }
}

/// CPU time of this process's live threads, in milliseconds: the sum of the on-CPU
/// nanoseconds in /proc/self/task/*/schedstat (nanosecond resolution; /proc/self/stat
/// counts 10 ms ticks, too coarse for a few milliseconds per search). The runtime's
/// threads live for the whole run, and loopback IP literals need no resolver threads.
fn cpu_ms() -> f64 {
    let mut ns: u64 = 0;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for t in tasks.flatten() {
            let stat = std::fs::read_to_string(t.path().join("schedstat")).unwrap_or_default();
            ns += stat
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    ns as f64 / 1e6
}

#[tokio::main]
async fn main() {
    let mut engines: Vec<String> = Vec::new();
    let mut hang: Option<String> = None;
    let mut timeout_ms: u64 = 2000;
    let mut runs: usize = 20;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().expect("flag needs a value");
        match a.as_str() {
            "--engine" => engines.push(val()),
            "--hang" => hang = Some(val()),
            "--timeout-ms" => timeout_ms = val().parse().expect("--timeout-ms N"),
            "--runs" => runs = val().parse().expect("--runs N"),
            other => panic!("unknown argument {other}"),
        }
    }
    let mut config = SearchConfig {
        rate_limits: false,
        ..SearchConfig::default()
    };
    let mut list: Vec<Arc<dyn Engine>> = Vec::new();
    let mut names = Vec::new();
    let targets = engines
        .iter()
        .enumerate()
        .map(|(i, u)| (format!("sx{}", i + 1), u.clone()))
        .chain(hang.iter().map(|u| ("hang".to_owned(), u.clone())));
    for (name, base) in targets {
        let name: &'static str = Box::leak(name.into_boxed_str());
        config.set_base(name, Url::parse(&base).expect("engine URL"));
        list.push(Arc::new(Named::new(name)));
        names.push(name.to_owned());
    }
    let router = Router::builder(config).engines(list).build();
    let req = SearchRequest {
        query: "python".to_owned(),
        engines: names,
        max_results: 0,
        timeout_ms: Some(timeout_ms),
        ..SearchRequest::default()
    };
    let warm = router.search(&req).await;
    let cpu0 = cpu_ms();
    let mut wall = Vec::with_capacity(runs);
    let mut last = warm;
    for _ in 0..runs {
        let t = Instant::now();
        last = router.search(&req).await;
        wall.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let cpu = cpu_ms() - cpu0;
    let outcomes: Vec<String> = last
        .engines
        .iter()
        .map(|o| format!("{}:{}:{}", o.engine, o.outcome.as_str(), o.count))
        .collect();
    let line = serde_json::json!({
        "impl": "trawl",
        "runs": runs,
        "timeout_ms": timeout_ms,
        "wall_ms": wall,
        "cpu_ms_total": cpu,
        "hits": last.hits.len(),
        "folded": last.folded.len(),
        "outcomes": outcomes,
    });
    println!("{line}");
}
