//! Printing answers: the Envelope for `--json`, human text otherwise; errors are said by
//! `errors.rs`.

use std::io::Write;

use serde::Serialize;
use trawl_agent::fence::Fence;
use trawl_core::{Envelope, Meta, TrawlError};

use crate::errors::{ExitStatus, exit_code, print_error};

/// The Envelope, pretty-printed, in one write: stdout is line-buffered, so writing it
/// straight there cost one system call per line (1,700 for a 20-page batch).
pub fn print_json<T: Serialize>(envelope: &Envelope<T>) {
    let mut text = serde_json::to_vec_pretty(envelope).unwrap_or_default();
    text.push(b'\n');
    let _ = std::io::stdout().lock().write_all(&text);
}

/// Report an error: the Envelope on stdout when `json`, always the lines on stderr
/// ([`print_error`]); the exit status number to end with.
pub fn report_error(err: &TrawlError, json: bool, meta: Meta) -> i32 {
    if json {
        print_json(&Envelope::<()>::failure(err.clone(), meta));
    }
    print_error(err, None, None);
    exit_code(err)
}

/// Human output: the Markdown `render` makes inside a fresh fence around page text. Without
/// randomness for the fence nothing is printed and the error goes to stderr (exit 1).
pub fn print_fenced(render: impl FnOnce(&Fence) -> String) -> i32 {
    match Fence::new() {
        Ok(fence) => {
            print!("{}", render(&fence));
            ExitStatus::Success.code()
        }
        Err(e) => {
            let err = TrawlError::internal(format!("no randomness for the fence: {e}"));
            print_error(&err, None, None);
            exit_code(&err)
        }
    }
}

/// Markdown to plain text for `--format text`: syntax marks dropped, words kept.
pub fn markdown_to_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            continue;
        }
        if trimmed.starts_with('|') && trimmed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
            continue;
        }
        let mut l = trimmed.trim_start_matches('#').trim_start().to_owned();
        if trimmed.starts_with('|') {
            l = l.trim_matches('|').replace(" | ", "\t");
        }
        out.push_str(&strip_links(&l).replace("**", "").replace("__", ""));
        out.push('\n');
    }
    out
}

/// `[text](url)` → `text`, `![alt](url)` → `alt`.
fn strip_links(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|i| open + i) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|i| close + i) else {
            break;
        };
        let before = &rest[..open];
        out.push_str(before.strip_suffix('!').unwrap_or(before));
        out.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The page's Markdown opening with its title as `# Title` when the extractor kept the
/// title apart (it moves an H1 equal to the page's title into metadata): what a pipe or an
/// API client reads starts with what the page is.
pub fn titled(markdown: &str, title: Option<&str>) -> String {
    match title.map(str::trim).filter(|t| !t.is_empty()) {
        Some(title) if !markdown.trim_start().starts_with("# ") => {
            let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
            format!("# {title}\n\n{markdown}")
        }
        _ => markdown.to_owned(),
    }
}
