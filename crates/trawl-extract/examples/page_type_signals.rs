//! Print the page-type signals of every page of a corpus laid out like
//! `../shared/bench/extract/wcxb-dev`: `page_type_signals CORPUS_DIR`, one page a line,
//! `id label signals…` (label from `ground-truth.json`).

use std::io::Read;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let corpus = Path::new(&args[1]);
    let truth: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("ground-truth.json")).unwrap()).unwrap();
    for (id, entry) in truth.as_object().unwrap() {
        let url = url::Url::parse(entry["url"].as_str().unwrap_or("https://example.com/"))
            .unwrap_or_else(|_| url::Url::parse("https://example.com/").unwrap());
        let gz = std::fs::read(corpus.join("html").join(format!("{id}.html.gz"))).unwrap();
        let mut html = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut html)
            .unwrap();
        let label = entry["page_type"].as_str().unwrap_or("-");
        println!(
            "{id} {label} {} {}",
            trawl_extract::page_type_signals(&html, &url),
            url
        );
    }
}
