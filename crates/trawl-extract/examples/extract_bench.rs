//! Extraction throughput and output over a corpus laid out like
//! `../shared/bench/extract/dev`: `html/<id>.html.gz` plus `ground-truth.json` (urls).
//!
//! `cargo run --release -p trawl-extract --example extract_bench -- CORPUS_DIR OUT_DIR`
//! writes `OUT_DIR/<id>.md` and prints `pages=N seconds=S pages_per_s=R`. Only the
//! `extract` calls are timed: reading, gunzip and writing happen outside the clock. The
//! five slowest pages go to stderr. `bench/extract.sh` runs this pinned to one core.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use trawl_extract::{ExtractOptions, extract};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: extract_bench CORPUS_DIR OUT_DIR");
        std::process::exit(2);
    }
    let corpus = Path::new(&args[1]);
    let out_dir = Path::new(&args[2]);
    std::fs::create_dir_all(out_dir).expect("create OUT_DIR");
    let truth: serde_json::Value = serde_json::from_slice(
        &std::fs::read(corpus.join("ground-truth.json")).expect("read ground-truth.json"),
    )
    .expect("parse ground-truth.json");
    let mut pages = Vec::new();
    for (id, entry) in truth.as_object().expect("ground truth is an object") {
        let url = url::Url::parse(entry["url"].as_str().unwrap_or("https://example.com/"))
            .unwrap_or_else(|_| url::Url::parse("https://example.com/").unwrap());
        let gz =
            std::fs::read(corpus.join("html").join(format!("{id}.html.gz"))).expect("read page");
        let mut html = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut html)
            .expect("gunzip page");
        pages.push((id.clone(), url, html));
    }

    let opts = ExtractOptions::default();
    let mut outputs = Vec::with_capacity(pages.len());
    let mut times = Vec::with_capacity(pages.len());
    let started = Instant::now();
    for (_, url, html) in &pages {
        let t = Instant::now();
        let doc = extract(html, Some("text/html"), url, &opts);
        times.push(t.elapsed());
        outputs.push(doc);
    }
    let seconds = started.elapsed().as_secs_f64();

    for ((id, _, _), doc) in pages.iter().zip(&outputs) {
        let markdown = doc.as_ref().map(|d| d.markdown.as_str()).unwrap_or("");
        std::fs::write(out_dir.join(format!("{id}.md")), markdown).expect("write output");
    }
    let mut slowest: Vec<(Duration, &str, usize)> = times
        .iter()
        .zip(&pages)
        .map(|(t, (id, _, html))| (*t, id.as_str(), html.len()))
        .collect();
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    for (t, id, len) in slowest.iter().take(5) {
        eprintln!(
            "slow: {id} {:.2} ms {} KB",
            t.as_secs_f64() * 1000.0,
            len / 1024
        );
    }
    let low: Vec<(&str, f32)> = pages
        .iter()
        .zip(&outputs)
        .filter_map(|((id, _, _), doc)| doc.as_ref().ok().map(|d| (id.as_str(), d.quality_score)))
        .filter(|(_, q)| *q < 0.5)
        .collect();
    eprintln!("quality_score < 0.5 on {} pages: {low:?}", low.len());
    let n = pages.len();
    println!(
        "pages={n} seconds={seconds:.3} pages_per_s={:.1}",
        n as f64 / seconds
    );
}
