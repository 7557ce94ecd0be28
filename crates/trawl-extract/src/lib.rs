//! trawl-extract: turns fetched bytes into a [`Document`]: main content as Markdown plus
//! metadata. Pure functions: bytes and a URL in, Document out; no I/O, no async.
//!
//! (Placeholder surface; the extractor proper lands with its own change.)

use trawl_core::{Document, ErrorCode, TrawlError, handle_for_url};
use url::Url;

/// Knobs of the extractor.
#[derive(Debug, Clone, Default)]
pub struct ExtractOptions {
    /// Keep comment sections (off by default: comments are not the main content).
    pub include_comments: bool,
}

/// Extract a document from `bytes` served as `content_type` from `url`.
///
/// HTML goes through main-content extraction, PDF through text extraction, text/plain,
/// text/markdown and JSON pass through; anything else is `unsupported_content`.
pub fn extract(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    _opts: &ExtractOptions,
) -> Result<Document, TrawlError> {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let _ = content_type;
    if text.is_empty() {
        return Err(TrawlError::new(ErrorCode::UnsupportedContent, "empty body"));
    }
    Ok(Document {
        url: url.to_string(),
        final_url: url.to_string(),
        handle: handle_for_url(url),
        word_count: text.split_whitespace().count(),
        markdown: text.clone(),
        text,
        content_type: content_type.map(str::to_owned),
        ..Document::default()
    })
}
