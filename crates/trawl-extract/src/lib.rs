//! trawl-extract: fetched bytes in, [`Document`] out: the page's main content as Markdown
//! (and plain text) plus its metadata. Pure functions: no network, no I/O, no async; the
//! one exception is OCR of images and scans, which runs `tesseract` as a process and only
//! when [`ExtractOptions::ocr`] turns it on.
//!
//! [`extract`] classifies the body (HTML, PDF, plain text, Markdown, JSON, and the documents
//! of `docs`: Office, OpenDocument, EPUB, notebooks, CSV, feeds, ZIP archives; images by
//! OCR when it is on; anything
//! else is `unsupported_content`), decodes it ([`decode_html`]), and for HTML parses it with
//! trawl's own lenient parser, drops boilerplate, picks the main content and writes it as
//! Markdown with absolute links, code languages and GFM tables. Documents are read under a
//! [`DocBudget`] (expanded bytes, members, nesting, XML nodes, rows, time;
//! [`extract_with_budget`] sets another).
//!
//! How the work is laid out: `body` tells the kinds of body apart; `charset` decodes and
//! `parse` builds the arena `dom`; `metadata` and `page_type` read the page; `html` runs the
//! HTML pipeline over `boilerplate`'s class signals and `content`'s selection passes;
//! `markdown` renders what was chosen; `pdf` reads PDFs (text in drawing order, tables
//! as GFM, scans through `ocr`); `image` reads images (size, EXIF, text by `ocr`); `docs`
//! reads the other documents.
//!
//! ```
//! use trawl_extract::{ExtractOptions, extract};
//! let url = url::Url::parse("https://example.com/post").unwrap();
//! let html = b"<html><head><title>Hi</title></head><body><nav><a href='/'>Home</a></nav>
//!   <article><h2>Intro</h2><p>Some words, written here for a reader, and
//!   <a href='/more'>a link</a> that goes on with enough text to count.</p></article></body></html>";
//! let doc = extract(html, Some("text/html"), &url, &ExtractOptions::default()).unwrap();
//! assert!(doc.markdown.contains("## Intro"));
//! assert!(doc.markdown.contains("[a link](https://example.com/more)"));
//! assert!(!doc.markdown.contains("Home"));
//! assert_eq!(doc.title.as_deref(), Some("Hi"));
//! ```

#![forbid(unsafe_code)]

mod anchors;
mod body;
mod boilerplate;
mod builder_classes;
mod charset;
mod content;
mod docs;
mod dom;
mod entities;
mod html;
mod image;
mod image_meta;
mod markdown;
mod metadata;
mod ocr;
mod page_type;
mod parse;
mod pdf;

pub use anchors::{Anchor, LinkTag, PageAnchors, page_anchors};
pub use charset::{decode_html, sniff_encoding};
pub use docs::budget::{
    DEFAULT_MAX_COLUMNS, DEFAULT_MAX_DEPTH, DEFAULT_MAX_EXPANDED_BYTES, DEFAULT_MAX_MEMBERS,
    DEFAULT_MAX_ROWS, DEFAULT_MAX_TIME, DEFAULT_MAX_XML_DEPTH, DEFAULT_MAX_XML_NODES, DocBudget,
};
pub use docs::{content_type_for_extension, extract_with_budget};
pub use ocr::{
    DEFAULT_OCR_MAX_PAGES, DEFAULT_OCR_MAX_PIXELS, DEFAULT_OCR_MAX_TIME, OcrOptions, OcrStatus,
    ocr_status,
};
pub use pdf::{
    DEFAULT_PDF_MAX_DECODED_BYTES, DEFAULT_PDF_MAX_PAGE_CONTENT_BYTES, DEFAULT_PDF_MAX_TIME,
    PdfLimits,
};
use trawl_core::{Document, ErrorCode, PageType, TrawlError, handle_for_url};
use url::Url;

use crate::body::{Body, classify};

/// An HTML fragment (an API's rendered comment, answer or article) as Markdown, whole:
/// the fragment is all content, so no boilerplate is dropped; links are made absolute
/// against `base`. Pure, like everything here.
pub fn fragment_to_markdown(html: &str, base: &Url) -> String {
    docs::html_to_markdown(html, base)
}

/// Knobs of the extractor.
#[derive(Debug, Clone, Default)]
pub struct ExtractOptions {
    /// Keep comment sections (off by default: comments are not the main content).
    pub include_comments: bool,
    /// What one PDF may cost to read (decoded bytes, bytes parsed per page, time); past
    /// it the read is `too_large`.
    pub pdf: PdfLimits,
    /// OCR for images and scanned PDFs (off by default: it runs `tesseract`, the one
    /// thing here that starts a process).
    pub ocr: OcrOptions,
}

/// For debugging the reader (see `examples/extract_one.rs`): how the element holding
/// `needle` and its ancestors fare in the boilerplate stage, one line each, innermost first.
pub fn explain(html_bytes: &[u8], url: &Url, needle: &str) -> String {
    let html = charset::decode_html(html_bytes, Some("text/html"));
    let dom = parse::parse(&html);
    let mut signals = boilerplate::Signals::new(&dom, &vec![false; dom.nodes.len()]);
    content::mark_folded(&dom, &mut signals);
    // The page's own strict pass, as `extract` runs it first.
    let meta = metadata::collect(&dom, url);
    let page_type = page_type::page_type(&meta, url, page_type::shape(&dom));
    let pass = html::strict_pass(page_type, &ExtractOptions::default());
    content::trace(&dom, pass, &signals, needle)
}

/// For debugging the page-type decision: the signals it reads, one `key=value` each.
#[doc(hidden)]
pub fn page_type_signals(html_bytes: &[u8], url: &Url) -> String {
    let html = charset::decode_html(html_bytes, Some("text/html"));
    let dom = parse::parse(&html);
    let meta = metadata::collect(&dom, url);
    page_type::signals(&meta, url, page_type::shape(&dom))
}

/// Memory an HTML page's extraction may take per byte of page (its DOM, the text of each
/// pass and the Markdown): a 4.3 MB page of 40,000 short linked paragraphs took 105 MB
/// (about 25 bytes a byte) in `trawl read`; this leaves room above that.
const HTML_BYTES_PER_BYTE: u64 = 32;

/// The most memory [`extract`] may take on `bytes`, for a caller that admits extraction
/// jobs by cost (a server running several at once): a PDF's bound follows from
/// [`PdfLimits`], anything else from its size.
pub fn estimated_memory(bytes: &[u8], content_type: Option<&str>, opts: &ExtractOptions) -> u64 {
    match classify(bytes, content_type) {
        Body::Pdf => opts.pdf.worst_case_memory(bytes.len()),
        _ => (bytes.len() as u64).saturating_mul(HTML_BYTES_PER_BYTE),
    }
}

/// Extract a document from `bytes` served as `content_type` from `url`.
///
/// HTML goes through main-content extraction, PDF through text extraction, text/plain,
/// text/markdown and JSON pass through, documents (docx, pptx, spreadsheets, odt, odp,
/// EPUB, notebooks, CSV, feeds, ZIP) go to their readers under the default
/// [`DocBudget`]; anything else is `unsupported_content`. The caller
/// sets `fetched_via`, `status` and, if it differs, `url`.
pub fn extract(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
) -> Result<Document, TrawlError> {
    extract_inner(bytes, content_type, url, opts, None)
}

/// [`extract`], and for a page read as HTML every link it writes (as [`page_anchors`]
/// gives them), taken from the extraction's own parse: a crawler needs both, and would
/// otherwise parse every page twice. `None` for anything not read as HTML.
pub fn extract_with_anchors(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
) -> Result<(Document, Option<PageAnchors>), TrawlError> {
    let mut anchors = None;
    let doc = extract_inner(bytes, content_type, url, opts, Some(&mut anchors))?;
    Ok((doc, anchors))
}

fn extract_inner(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
    anchors: Option<&mut Option<PageAnchors>>,
) -> Result<Document, TrawlError> {
    // Office, OpenDocument, EPUB, notebooks, CSV, feeds and archives: their own readers.
    if let Some(kind) = docs::detect(bytes, content_type, url) {
        return docs::read(kind, bytes, content_type, url, opts, &DocBudget::default());
    }
    let mut doc = Document {
        url: url.to_string(),
        final_url: url.to_string(),
        handle: handle_for_url(url),
        content_type: content_type.map(str::to_owned),
        ..Document::default()
    };
    match classify(bytes, content_type) {
        Body::Html => html::extract_html(bytes, content_type, url, opts, &mut doc, anchors),
        Body::Pdf => {
            let read = pdf::pdf_markdown(bytes, &opts.pdf, &opts.ocr)?;
            doc.pages = u32::try_from(read.pages).ok();
            doc.ocr = read.ocr;
            doc.ocr_confidence = read.ocr_confidence;
            // The first line stands in for a title the PDF does not give.
            let first_line = read
                .markdown
                .lines()
                .find(|l| !l.starts_with('|'))
                .map(metadata::clean)
                .filter(|t| t.len() <= 200);
            let info = read.info;
            doc.byline.clone_from(&info.author);
            doc.published.clone_from(&info.created);
            doc.language.clone_from(&info.language);
            doc.description.clone_from(&info.description);
            doc.title = info.title.clone().or(first_line);
            let front = docs::FrontMatter {
                title: info.title.as_deref(),
                author: info.author.as_deref(),
                date: info.created.as_deref(),
                language: info.language.as_deref(),
                description: info.description.as_deref(),
            };
            doc.markdown = docs::front_block(&front, &read.markdown);
            doc.text = doc.markdown.clone();
            doc.page_type = PageType::Pdf;
            finish_plain(&mut doc);
        }
        Body::Image(format) => image::read(bytes, format, &opts.ocr, &mut doc)?,
        Body::Text { markdown } => {
            let text = charset::decode_html(bytes, content_type);
            if markdown {
                doc.title = text
                    .lines()
                    .find_map(|l| l.strip_prefix("# "))
                    .map(metadata::clean);
            }
            doc.markdown = text.clone();
            doc.text = text;
            doc.page_type = PageType::Text;
            finish_plain(&mut doc);
        }
        Body::Json => {
            let text = charset::decode_html(bytes, content_type);
            let fence = if text.contains("```") { "````" } else { "```" };
            doc.markdown = format!("{fence}json\n{}\n{fence}\n", text.trim_end());
            doc.text = text;
            doc.page_type = PageType::Text;
            finish_plain(&mut doc);
        }
        Body::Unsupported(what) => {
            return Err(TrawlError::new(
                ErrorCode::UnsupportedContent,
                format!("cannot read {what} content"),
            ));
        }
    }
    if doc.word_count == 0 && doc.markdown.trim().is_empty() && bytes.is_empty() {
        return Err(TrawlError::new(ErrorCode::UnsupportedContent, "empty body"));
    }
    drop_stray_controls(&mut doc.markdown);
    drop_stray_controls(&mut doc.text);
    doc.cap_metadata();
    Ok(doc)
}

/// Control characters other than tab, newline and carriage return (a NUL in a text file,
/// an escape sequence in a log) are not text: they would reach a terminal or a model as
/// they are, so they are dropped.
fn drop_stray_controls(text: &mut String) {
    use trawl_core::swar;

    let stray = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    // Controls are U+0000-U+001F, U+007F and U+0080-U+009F (C2 80 to C2 9F in UTF-8):
    // looked for on bytes, without decoding (this runs over every page's text and
    // Markdown, which hold none).
    let bytes = text.as_bytes();
    let stray_at = |a: u8, b: u8| {
        (a < 0x20) & (a != b'\t') & (a != b'\n') & (a != b'\r')
            | (a == 0x7F)
            | (a == 0xC2) & (0x80..=0x9F).contains(&b)
    };
    // Eight bytes a step (`trawl_core::swar`): a word holding a candidate (a control, or
    // 0xC2 before any second byte) is read again by pairs.
    let candidates = |w: u64| {
        swar::below(w, 0x20)
            & !(swar::equal(w, b'\t') | swar::equal(w, b'\n') | swar::equal(w, b'\r'))
            | swar::equal(w, 0x7F)
            | swar::equal(w, 0xC2)
    };
    let any_stray = swar::words(bytes).enumerate().any(|(n, w)| {
        candidates(w) != 0
            && (n * 8..(n * 8 + 8).min(bytes.len()))
                .any(|i| stray_at(bytes[i], bytes.get(i + 1).copied().unwrap_or(b' ')))
    });
    // The byte test is exact (the same set as `stray`), so no second search by char.
    if any_stray {
        text.retain(|c| !stray(c));
    }
}

fn finish_plain(doc: &mut Document) {
    doc.word_count = dom::word_count(&doc.text);
    doc.quality_score = if doc.word_count == 0 { 0.0 } else { 0.9 };
}

#[cfg(test)]
mod tests {
    #[test]
    fn stray_controls_go_and_text_stays() {
        let cases = [
            (
                "plain text\twith tabs\r\nand lines",
                "plain text\twith tabs\r\nand lines",
            ),
            ("a NUL\0 and an escape\x1b[31m", "a NUL and an escape[31m"),
            ("DEL\x7f and C1 \u{85}next \u{9f}end", "DEL and C1 next end"),
            // Lead byte 0xC2 of characters that are not controls.
            ("© 2026, 90°, «quoted»\u{a0}", "© 2026, 90°, «quoted»\u{a0}"),
            ("ends with a control\u{80}", "ends with a control"),
            ("\u{1}", ""),
            ("", ""),
        ];
        for (given, kept) in cases {
            let mut text = given.to_owned();
            super::drop_stray_controls(&mut text);
            assert_eq!(text, kept, "{given:?}");
        }
    }

    #[test]
    fn stray_controls_go_wherever_they_fall_in_a_long_text() {
        let stray = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
        for at in [0, 1, 62, 63, 64, 65, 127, 128, 200] {
            for odd in [
                '\0', '\x1b', '\x7f', '\u{85}', '\u{9f}', '\u{a0}', '©', '\n',
            ] {
                let given: String = "a".repeat(at) + &odd.to_string() + &"b".repeat(70);
                let mut text = given.clone();
                super::drop_stray_controls(&mut text);
                let kept: String = given.chars().filter(|&c| !stray(c)).collect();
                assert_eq!(text, kept, "{odd:?} at {at}");
            }
        }
    }
}
