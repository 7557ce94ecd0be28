//! PDF to text, with pdf-extract. The library can panic on malformed files, so it runs
//! inside `catch_unwind`, and only bytes that start like a PDF are handed to it.

use std::panic::{AssertUnwindSafe, catch_unwind};

use trawl_core::{ErrorCode, TrawlError};

/// Whether `bytes` start like a PDF (`%PDF-`, possibly after a little junk, which readers
/// accept within the first kilobyte).
pub(crate) fn is_pdf(bytes: &[u8]) -> bool {
    memchr::memmem::find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_some()
}

/// Text of a PDF, pages separated by blank lines.
pub(crate) fn pdf_text(bytes: &[u8]) -> Result<String, TrawlError> {
    if !is_pdf(bytes) {
        return Err(TrawlError::new(
            ErrorCode::UnsupportedContent,
            "not a PDF (no %PDF- header)",
        ));
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        pdf_extract::extract_text_from_mem(bytes)
    }));
    match result {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(err)) => Err(TrawlError::new(
            ErrorCode::UnsupportedContent,
            format!("unreadable PDF: {err}"),
        )),
        Err(_) => Err(TrawlError::new(
            ErrorCode::UnsupportedContent,
            "unreadable PDF: the PDF parser gave up on this file",
        )),
    }
}

/// Markdown for PDF text: paragraphs kept, runs of blank lines squeezed, lines trimmed.
pub(crate) fn text_to_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line.trim_start());
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}
