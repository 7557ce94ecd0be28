//! Extraction speed on a few real pages of the shared benchmark, read in place.
//! `cargo bench -p trawl-extract`.

use std::io::Read;
use std::path::PathBuf;

use trawl_extract::{ExtractOptions, extract};

fn main() {
    divan::main();
}

/// Pages of different sizes from `../shared/bench/extract/dev`.
const PAGES: &[&str] = &[
    "042bb7b5fedab6eac7db576522b89b93904c237d344bcbe14a6a5ab7f7335856",
    "04a6711caa7c687592777718866e781e976e0fe684faebe8b3cedcef8cd0ea34",
    "05844573ca7e1fba714d715bb11ca08c26e25328999c74a1cb3bc8a0e4399f0f",
];

fn load(id: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/bench/extract/dev/html")
        .join(format!("{id}.html.gz"));
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut html = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut html)
        .expect("gunzip");
    html
}

#[divan::bench(args = PAGES)]
fn extract_page(bencher: divan::Bencher<'_, '_>, id: &str) {
    let html = load(id);
    let url = url::Url::parse("https://example.com/article").unwrap();
    let opts = ExtractOptions::default();
    bencher.bench(|| {
        extract(divan::black_box(&html), Some("text/html"), &url, &opts).map(|d| d.word_count)
    });
}
