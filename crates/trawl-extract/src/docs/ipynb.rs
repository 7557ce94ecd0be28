//! Jupyter notebooks: Markdown cells as they are, code cells fenced with the kernel's
//! language, their text outputs (streams, `text/plain` results, errors) kept in plain
//! fences; images and HTML outputs are left out.

use serde_json::Value;

use crate::docs::Converted;
use crate::docs::budget::DocError;

/// Whether a JSON body is a notebook (nbformat 4 keeps `cells` and `nbformat` at the top).
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    let start = bytes.trim_ascii_start();
    if !start.starts_with(b"{") || memchr::memmem::find(bytes, b"\"nbformat\"").is_none() {
        return false;
    }
    serde_json::from_slice::<Value>(bytes)
        .is_ok_and(|v| v.get("cells").is_some_and(Value::is_array) && v.get("nbformat").is_some())
}

/// A cell's `source` (a string, or a list of lines).
fn joined(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// A fence longer than any run of backticks inside `body`.
fn fenced(lang: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}", body.trim_end_matches('\n'))
}

pub(crate) fn convert(bytes: &[u8]) -> Result<Converted, DocError> {
    let nb: Value = serde_json::from_slice(bytes).map_err(|e| DocError::Malformed {
        format: "notebook",
        why: e.to_string(),
    })?;
    let meta = nb.get("metadata");
    let lang = meta
        .and_then(|m| {
            m.pointer("/kernelspec/language")
                .or_else(|| m.pointer("/language_info/name"))
        })
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut blocks = Vec::new();
    for cell in nb
        .get("cells")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let source = joined(cell.get("source"));
        match cell.get("cell_type").and_then(Value::as_str) {
            Some("markdown") if !source.trim().is_empty() => {
                blocks.push(source.trim_end().to_owned());
            }
            Some("code") => {
                if !source.trim().is_empty() {
                    blocks.push(fenced(&lang, &source));
                }
                for output in cell
                    .get("outputs")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let text = match output.get("output_type").and_then(Value::as_str) {
                        Some("stream") => joined(output.get("text")),
                        Some("execute_result" | "display_data") => {
                            joined(output.get("data").and_then(|d| d.get("text/plain")))
                        }
                        Some("error") => {
                            let name = output.get("ename").and_then(Value::as_str).unwrap_or("");
                            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
                            format!("{name}: {value}")
                        }
                        _ => String::new(),
                    };
                    if !text.trim().is_empty() {
                        blocks.push(fenced("text", &text));
                    }
                }
            }
            Some("raw") if !source.trim().is_empty() => blocks.push(fenced("", &source)),
            _ => {}
        }
    }
    let title = meta
        .and_then(|m| m.get("title"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let author = meta
        .and_then(|m| m.get("authors"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| p.get("name").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(", ")
        });
    Ok(Converted {
        markdown: blocks.join("\n\n"),
        title,
        author,
        ..Converted::default()
    })
}
