//! What a query-focused read saves, and what it keeps: for each page of a corpus with
//! ground truth (WCXB layout: `ground-truth.json` with `url` and `articleBody` per id,
//! `html/<id>.html`), extract the page, pick one sentence of its truth, make a query of
//! that sentence's content words, and read the page for that query at several budgets.
//! Prints a Markdown table: tokens given against the whole page and against today's
//! page 1, and how often the sentence is in what was given (recall at the budget).
//!
//!     cargo run --locked -p trawl-agent --example focus_bench -- GROUND_TRUTH HTML_DIR [BUDGET ...]
//!
//! `bench/14-query.sh` runs it on wcxb-dev. Tokens are trawl's estimate
//! ([`trawl_text::pager::estimate_tokens`]), as the budget counts them.

use std::collections::BTreeMap;
use std::path::Path;

use trawl_agent::focus::focus;
use trawl_extract::{ExtractOptions, extract};
use trawl_text::pager::{DEFAULT_PAGE_TOKENS, Pages, estimate_tokens};

/// Words too common to be worth a query (a short English list is enough here).
const STOP: &[&str] = &[
    "about", "after", "also", "been", "before", "being", "between", "both", "could", "does",
    "each", "from", "have", "having", "here", "into", "just", "like", "many", "more", "most",
    "much", "must", "only", "other", "over", "said", "same", "should", "since", "some", "such",
    "than", "that", "their", "them", "then", "there", "these", "they", "this", "those", "through",
    "under", "very", "were", "what", "when", "where", "which", "while", "will", "with", "would",
    "your", "yours",
];

/// Lower-cased runs of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `markdown` without link targets (`[text](url)` keeps `[text]`), so a sentence with a
/// link in it still reads as its words.
fn without_link_targets(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 2..];
        match rest.find(')') {
            Some(j) => rest = &rest[j + 1..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// Whether every word of `sentence`, in order and next to each other, is in `text`.
fn holds(text: &str, sentence: &str) -> bool {
    let needle = words(sentence).join(" ");
    let hay = words(&without_link_targets(text)).join(" ");
    !needle.is_empty() && format!(" {hay} ").contains(&format!(" {needle} "))
}

/// The truth's sentences of 12-40 words, and the middle one of them.
fn pick_sentence(truth: &str) -> Option<String> {
    let mut sentences = Vec::new();
    for line in truth.lines() {
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            let end =
                matches!(b, b'.' | b'?' | b'!') && bytes.get(i + 1).is_none_or(|&n| n == b' ');
            if end || i + 1 == bytes.len() {
                let s = line[start..=i].trim();
                let n = s.split_whitespace().count();
                if (12..=40).contains(&n) {
                    sentences.push(s.to_owned());
                }
                start = i + 1;
            }
        }
    }
    let middle = sentences.len() / 2;
    sentences.into_iter().nth(middle)
}

/// A query of the sentence's first eight distinct content words (four letters or more).
fn query_of(sentence: &str) -> String {
    let mut picked: Vec<String> = Vec::new();
    for w in words(sentence) {
        if w.chars().count() >= 4 && !STOP.contains(&w.as_str()) && !picked.contains(&w) {
            picked.push(w);
        }
        if picked.len() == 8 {
            break;
        }
    }
    picked.join(" ")
}

#[derive(Default)]
struct Row {
    tokens: Vec<usize>,
    found: usize,
    found_where_kept: usize,
}

fn median(values: &[usize]) -> usize {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [truth_path, html_dir, budgets @ ..] = args.as_slice() else {
        eprintln!("usage: focus_bench GROUND_TRUTH HTML_DIR [BUDGET ...]");
        std::process::exit(2);
    };
    let budgets: Vec<usize> = if budgets.is_empty() {
        vec![500, 1000, 2000]
    } else {
        budgets
            .iter()
            .map(|b| b.parse().expect("a budget is a number"))
            .collect()
    };
    let truth: BTreeMap<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(truth_path).expect("read the ground truth"))
            .expect("ground truth is a JSON object");
    let mut whole = Row::default();
    let mut first_page = Row::default();
    let mut by_budget: Vec<Row> = budgets.iter().map(|_| Row::default()).collect();
    let (mut pages, mut kept, mut skipped) = (0usize, 0usize, 0usize);
    for (id, entry) in &truth {
        let path = Path::new(html_dir).join(format!("{id}.html"));
        let (Ok(html), Some(url), Some(body)) = (
            std::fs::read(&path),
            entry["url"].as_str().and_then(|u| url::Url::parse(u).ok()),
            entry["articleBody"].as_str(),
        ) else {
            skipped += 1;
            continue;
        };
        let Some(sentence) = pick_sentence(body) else {
            skipped += 1;
            continue;
        };
        let query = query_of(&sentence);
        let Ok(doc) = extract(&html, Some("text/html"), &url, &ExtractOptions::default()) else {
            skipped += 1;
            continue;
        };
        let md = doc.markdown;
        pages += 1;
        let in_whole = holds(&md, &sentence);
        kept += usize::from(in_whole);
        let count = |row: &mut Row, text: &str| {
            row.tokens.push(estimate_tokens(text));
            let found = holds(text, &sentence);
            row.found += usize::from(found);
            row.found_where_kept += usize::from(found && in_whole);
        };
        count(&mut whole, &md);
        let page1 = Pages::new(&md, DEFAULT_PAGE_TOKENS);
        count(&mut first_page, page1.get(1).map_or("", |p| p.text));
        for (row, &budget) in by_budget.iter_mut().zip(&budgets) {
            let focused = focus(&md, &query, budget);
            assert!(
                focused.tokens <= budget,
                "{id}: {} > {budget}",
                focused.tokens
            );
            count(row, &focused.markdown);
        }
    }
    let whole_sum: usize = whole.tokens.iter().sum();
    println!(
        "{pages} pages ({skipped} skipped: no 12-40-word sentence in the truth, or unreadable); \
         the extract kept the chosen sentence word for word on {kept} ({:.1} %).",
        100.0 * kept as f64 / pages.max(1) as f64
    );
    println!();
    println!(
        "| read | median tokens | tokens in all | ÷ whole page | recall: sentence given | recall where the extract kept it |"
    );
    println!("|---|---|---|---|---|---|");
    let line = |label: &str, row: &Row| {
        let sum: usize = row.tokens.iter().sum();
        println!(
            "| {label} | {} | {sum} | {:.2} | {:.1} % | {:.1} % |",
            median(&row.tokens),
            sum as f64 / whole_sum.max(1) as f64,
            100.0 * row.found as f64 / pages.max(1) as f64,
            100.0 * row.found_where_kept as f64 / kept.max(1) as f64,
        );
    };
    line("whole page (`--page-size-tokens 0`)", &whole);
    line("page 1 (`trawl read URL`, 4000 tokens a page)", &first_page);
    for (row, budget) in by_budget.iter().zip(&budgets) {
        line(&format!("`--query Q --max-tokens {budget}`"), row);
    }
}
