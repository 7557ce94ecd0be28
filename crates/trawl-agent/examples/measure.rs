//! Rough timings of the pure agent modules and the SQLite store, on synthetic documents.
//!
//! Run with `cargo run --release -p trawl-agent --example measure`. Numbers depend on the
//! machine; nothing asserts on them.

use std::time::{Instant, SystemTime};

use trawl_agent::fence;
use trawl_core::Document;
use trawl_store::{DocumentRecord, FindScope, SqliteStore, Store, StoreConfig};
use trawl_text::{neardup, pager, passages};

fn synthetic_markdown(sections: usize, seed: usize) -> String {
    let mut md = String::new();
    for s in 0..sections {
        md.push_str(&format!("## Section {s} of document {seed}\n\n"));
        for p in 0..4 {
            for w in 0..60 {
                md.push_str(
                    ["alpha ", "runtime ", "query ", "token ", "page ", "store "][(w + p + s) % 6],
                );
            }
            md.push_str(&format!("topic{} end.\n\n", (s * 7 + p + seed) % 1000));
        }
        md.push_str("```rust\nfn main() {\n    println!(\"hello\");\n}\n```\n\n");
        md.push_str("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n");
    }
    md
}

fn time<T>(label: &str, runs: u32, mut f: impl FnMut() -> T) -> T {
    let start = Instant::now();
    let mut out = f();
    for _ in 1..runs {
        out = f();
    }
    let each = start.elapsed() / runs;
    println!("{label:<48} {each:>12.2?}");
    out
}

fn main() {
    let big = synthetic_markdown(400, 0);
    println!(
        "document: {} bytes, {} estimated tokens",
        big.len(),
        pager::estimate_tokens(&big)
    );
    let spans = time("paginate (4000 tokens)", 20, || {
        pager::paginate(&big, pager::DEFAULT_PAGE_TOKENS)
    });
    println!("  -> {} pages", spans.len());
    let parts = time("passages::split", 20, || {
        passages::split(&big, pager::DEFAULT_PAGE_TOKENS)
    });
    println!("  -> {} passages", parts.len());
    time("passages::preview (BM25 over all passages)", 20, || {
        passages::preview(&parts, "topic17 runtime", None, 300)
    });
    let fence = fence::Fence::new().unwrap();
    time("fence.wrap", 20, || fence.wrap(&big));
    time("neardup Signature::of", 20, || neardup::Signature::of(&big));
    let docs: Vec<String> = (0..20).map(|i| synthetic_markdown(20, i % 10)).collect();
    let candidates: Vec<neardup::Candidate<'_>> = docs
        .iter()
        .map(|text| neardup::Candidate { text, quality: 0.5 })
        .collect();
    let folding = time("neardup::fold (20 docs of ~2,600 words)", 5, || {
        neardup::fold(&candidates)
    });
    println!(
        "  -> kept {}, folded {}",
        folding.kept.len(),
        folding.folded.len()
    );

    let dir = std::env::temp_dir().join(format!("trawl-measure-{}", std::process::id()));
    let store = SqliteStore::open(dir.join("trawl.db"), StoreConfig::default()).unwrap();
    let count = 2000;
    let prepared: Vec<(DocumentRecord, Vec<trawl_store::Passage>)> = (0..count)
        .map(|i| {
            let markdown = synthetic_markdown(3, i);
            let parts = passages::split(&markdown, pager::DEFAULT_PAGE_TOKENS);
            let doc = Document {
                url: format!("https://example.com/{i}"),
                final_url: format!("https://example.com/{i}"),
                handle: format!("example.com~{i:012x}"),
                markdown,
                ..Document::default()
            };
            let stored = parts.into_iter().map(Into::into).collect();
            (DocumentRecord::new(doc, SystemTime::now()), stored)
        })
        .collect();
    let start = Instant::now();
    for (record, parts) in &prepared {
        store.put_document(record, parts).unwrap();
    }
    let elapsed = start.elapsed();
    println!(
        "{:<48} {:>12.2?}  ({:.0} docs/s)",
        format!(
            "put_document x{count} (~{} KB each)",
            prepared[0].0.document.markdown.len() / 1024
        ),
        elapsed / count as u32,
        count as f64 / elapsed.as_secs_f64()
    );
    time("get_document", 200, || {
        store.get_document("example.com~0000000003e8").unwrap()
    });
    time("find in one document", 200, || {
        store
            .find(
                "topic17 runtime",
                FindScope::Document("example.com~0000000003e8"),
                5,
            )
            .unwrap()
    });
    let hits = time("find across all (limit 10)", 50, || {
        store.find("topic17 runtime", FindScope::All, 10).unwrap()
    });
    println!("  -> {} hits", hits.len());
    let stats = time("stats", 10, || store.stats().unwrap());
    println!("  -> {stats:?}");
    time("prune", 3, || store.prune().unwrap());
    drop(store);
    let _ = std::fs::remove_dir_all(dir);
}
