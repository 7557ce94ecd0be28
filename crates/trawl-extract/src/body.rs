//! What kind of body the fetched bytes are, from the declared content type and, when that
//! says nothing useful, from the first bytes.

use crate::{image, pdf};

/// What kind of body this is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Body {
    Html,
    Pdf,
    Text {
        markdown: bool,
    },
    Json,
    /// PNG, JPEG, TIFF or WebP, read by OCR.
    Image(image::Format),
    Unsupported(String),
}

pub(crate) fn classify(bytes: &[u8], content_type: Option<&str>) -> Body {
    let mime = content_type
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    if pdf::is_pdf(bytes) {
        return Body::Pdf;
    }
    // An image is what its magic says, whatever it was served as (image/*, octet-stream).
    if let Some(format) = image::sniff(bytes) {
        return Body::Image(format);
    }
    match mime.as_deref() {
        Some("text/html" | "application/xhtml+xml") => Body::Html,
        Some("text/plain") => Body::Text { markdown: false },
        Some("text/markdown" | "text/x-markdown") => Body::Text { markdown: true },
        Some(m) if m == "application/json" || m == "text/json" || m.ends_with("+json") => {
            Body::Json
        }
        Some("application/pdf") => {
            Body::Unsupported("application/pdf without a %PDF- header (not a PDF)".into())
        }
        None
        | Some(
            "application/octet-stream"
            | "binary/octet-stream"
            | "application/unknown"
            | "text/xml"
            | "application/xml",
        ) => sniff(bytes, mime.as_deref()),
        Some(other) => Body::Unsupported(other.to_owned()),
    }
}

/// Guess a body's kind from its first bytes when the server did not say (or said nothing
/// useful).
fn sniff(bytes: &[u8], mime: Option<&str>) -> Body {
    let head = &bytes[..bytes.len().min(1024)];
    let start = head.trim_ascii_start();
    let start = start.strip_prefix(b"\xef\xbb\xbf").unwrap_or(start);
    let lower = start.to_ascii_lowercase();
    let has = |needle: &[u8]| memchr::memmem::find(&lower, needle).is_some();
    if start.starts_with(b"<")
        && (has(b"<!doctype html")
            || has(b"<html")
            || has(b"<head")
            || has(b"<body")
            || has(b"<p")
            || has(b"<div")
            || has(b"<meta"))
    {
        return Body::Html;
    }
    if mime.is_some_and(|m| m.ends_with("xml")) {
        return Body::Unsupported(mime.unwrap_or("xml").to_owned());
    }
    if (start.starts_with(b"{") || start.starts_with(b"["))
        && serde_json::from_slice::<serde_json::Value>(bytes).is_ok()
    {
        return Body::Json;
    }
    let sample = &bytes[..bytes.len().min(4096)];
    let controls = sample
        .iter()
        .filter(|&&b| b < 0x09 || (0x0e..0x20).contains(&b))
        .count();
    if sample.is_empty() || controls * 100 < sample.len() && is_utf8_prefix(sample, bytes.len()) {
        return Body::Text { markdown: false };
    }
    Body::Unsupported(mime.unwrap_or("binary").to_owned())
}

/// Whether `sample`, the first bytes of a body `total` bytes long, is UTF-8: a character
/// cut by the end of the sample (at most 3 bytes of it) does not count against it.
fn is_utf8_prefix(sample: &[u8], total: usize) -> bool {
    match std::str::from_utf8(sample) {
        Ok(_) => true,
        Err(e) => {
            e.error_len().is_none() && sample.len() < total && sample.len() - e.valid_up_to() < 4
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_text_cut_at_the_sniff_window_is_text() {
        // 4,095 ASCII bytes, then a 3-byte character straddling byte 4,096.
        let mut body = vec![b'a'; 4095];
        body.extend_from_slice("€ and more text".as_bytes());
        assert_eq!(classify(&body, None), Body::Text { markdown: false });
        // A byte that can start no character, just before the window's end, is not text.
        let mut bad = vec![b'a'; 4094];
        bad.extend_from_slice(&[0xe2, 0x28, 0xa1, b'a']);
        assert!(matches!(classify(&bad, None), Body::Unsupported(_)));
    }

    #[test]
    fn classify_by_type_and_magic() {
        assert_eq!(
            classify(b"<p>x", Some("text/html; charset=utf-8")),
            Body::Html
        );
        assert_eq!(
            classify(b"%PDF-1.7 ...", Some("application/octet-stream")),
            Body::Pdf
        );
        assert_eq!(classify(b"{\"a\":1}", None), Body::Json);
        assert_eq!(classify(b"<!DOCTYPE html><html>", None), Body::Html);
        assert_eq!(
            classify(b"# T", Some("text/markdown")),
            Body::Text { markdown: true }
        );
        // An image goes to OCR, whatever it was served as.
        assert_eq!(
            classify(b"\x89PNG\r\n\x1a\n", Some("image/png")),
            Body::Image(image::Format::Png)
        );
        assert!(matches!(
            classify(&[0u8, 1, 2, 3, 4, 5, 6, 7, 0xff, 0xfe], None),
            Body::Unsupported(_)
        ));
    }
}
