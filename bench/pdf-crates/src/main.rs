//! PDF text crates on trawl's PDF fixtures (`crates/trawl-extract/tests/pdf`), scored
//! against each file's `.words.json` (its words in reading order, from make.py):
//!
//! - word recall: the expected words found, as a multiset;
//! - reading order: the longest common subsequence of the expected and the found word
//!   sequences, over the expected words (1.0 is every word in order);
//! - time: median of ROUNDS extractions in this process, and pages/s from it.
//!
//! `pdf-crates [--trawl DOCS_BENCH] FILE.pdf...`: with `--trawl`, trawl-extract's
//! `docs_bench` example is scored too (its `--print` output for the words, its own
//! files/s over 10 × ROUNDS conversions for the time, a mean with its warm-up).

use std::collections::HashMap;
use std::process::Command;
use std::time::Instant;

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| c.is_whitespace() || c == '|')
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty() && w.chars().any(char::is_alphanumeric))
        .collect()
}

fn lcs(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0u32; b.len() + 1];
    let mut cur = vec![0u32; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                cur[j].max(prev[j + 1])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()] as usize
}

fn recall(expected: &[String], got: &[String]) -> f64 {
    let mut bag = HashMap::<&str, i32>::new();
    for w in got {
        *bag.entry(w).or_default() += 1;
    }
    let hit = expected
        .iter()
        .filter(|w| {
            bag.get_mut(w.as_str())
                .is_some_and(|n| *n > 0 && {
                    *n -= 1;
                    true
                })
        })
        .count();
    hit as f64 / expected.len().max(1) as f64
}

type Reader = fn(&[u8]) -> Result<String, String>;

const READERS: [(&str, Reader); 4] = [
    ("pdf-extract 0.12.1 `extract_text_from_mem`", |b| {
        pdf_extract::extract_text_from_mem(b).map_err(|e| e.to_string())
    }),
    ("lopdf 0.47.0 `extract_text`", |b| {
        let d = lopdf::Document::load_mem(b).map_err(|e| e.to_string())?;
        let pages: Vec<u32> = d.get_pages().keys().copied().collect();
        d.extract_text(&pages).map_err(|e| e.to_string())
    }),
    ("pdf_oxide 0.3.78 `extract_all_text`", |b| {
        let d = pdf_oxide::PdfDocument::from_bytes(b.to_vec()).map_err(|e| e.to_string())?;
        d.extract_all_text().map_err(|e| e.to_string())
    }),
    ("pdf_oxide 0.3.78 `to_markdown_all`", |b| {
        let d = pdf_oxide::PdfDocument::from_bytes(b.to_vec()).map_err(|e| e.to_string())?;
        d.to_markdown_all(&pdf_oxide::converters::ConversionOptions::default())
            .map_err(|e| e.to_string())
    }),
];

fn row(name: &str, pages: usize, label: &str, expected: &[String], text: &str, ms: f64) {
    let got = words(text);
    let r = recall(expected, &got);
    let o = lcs(expected, &got) as f64 / expected.len().max(1) as f64;
    let tables = text.lines().filter(|l| l.starts_with("|---")).count();
    println!(
        "| {name} | {pages} | {label} | {r:.3} | {o:.3} | {tables} | {ms:.2} | {:.0} |",
        pages as f64 / (ms / 1000.0)
    );
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let trawl = match args.iter().position(|a| a == "--trawl") {
        Some(i) => {
            let path = args.remove(i + 1);
            args.remove(i);
            Some(path)
        }
        None => None,
    };
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let dump = std::env::var_os("DUMP");
    println!(
        "| file | pages | reader | word recall | reading order | GFM tables | ms (median of {rounds}) | pages/s |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for path in &args {
        let bytes = std::fs::read(path).expect("read the PDF");
        let expected: Vec<String> = std::fs::read_to_string(path.replace(".pdf", ".words.json"))
            .map(|s| words(&serde_json::from_str::<Vec<String>>(&s).unwrap().join(" ")))
            .unwrap_or_default();
        let pages = lopdf::Document::load_mem(&bytes).map_or(0, |d| d.get_pages().len());
        let name = path.rsplit('/').next().unwrap_or(path);
        for (n, (label, read)) in READERS.into_iter().enumerate() {
            let mut times = Vec::new();
            let mut out = Err(String::new());
            for _ in 0..rounds {
                let t = Instant::now();
                out = std::panic::catch_unwind(|| read(&bytes))
                    .unwrap_or_else(|_| Err("panicked".into()));
                times.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            let ms = times[times.len() / 2];
            match out {
                Ok(text) => {
                    if let Some(dir) = &dump {
                        let crate_name = label.split(' ').next().unwrap();
                        let file = format!("{name}.{n}-{crate_name}.txt");
                        std::fs::write(std::path::Path::new(dir).join(file), &text).unwrap();
                    }
                    row(name, pages, label, &expected, &text, ms);
                }
                Err(e) => println!("| {name} | {pages} | {label} | error: {e} | | | | |"),
            }
        }
        if let Some(bench) = &trawl {
            let printed = Command::new(bench).args(["--print", path]).output().unwrap();
            let text = String::from_utf8_lossy(&printed.stdout);
            let timed = Command::new(bench)
                // Ten times the rounds: docs_bench reports a mean, warm-up included.
                .args(["--rounds", &(rounds * 10).to_string(), path])
                .output()
                .unwrap();
            let summary = String::from_utf8_lossy(&timed.stdout).trim().to_owned();
            // "N converted, N failed, S s, R files/s"
            let rate: f64 = summary
                .split(", ")
                .find_map(|p| p.strip_suffix(" files/s"))
                .and_then(|r| r.trim().parse().ok())
                .unwrap_or(f64::NAN);
            if let Some(dir) = &dump {
                std::fs::write(std::path::Path::new(dir).join(format!("{name}.trawl.md")), &*text)
                    .unwrap();
            }
            if summary.contains(" 0 failed") {
                row(name, pages, "**trawl** (pdf-extract + layout)", &expected, &text, 1000.0 / rate);
            } else {
                let err = String::from_utf8_lossy(&timed.stderr);
                // "FILE: code: message": the code is what trawl answers.
                let code = err.split(": ").nth(1).unwrap_or("").trim();
                println!("| {name} | {pages} | **trawl** | error `{code}` | | | | |");
            }
        }
    }
}
