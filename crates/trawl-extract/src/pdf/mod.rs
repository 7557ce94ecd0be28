//! PDF to Markdown, with pdf-extract (on lopdf), inside a budget: text in drawing order,
//! tables as GFM ([`layout`]), and a scan read by OCR ([`scan`]) when OCR is on, else
//! `no_text_layer`. Neither crate bounds what
//! it decodes or parses, so every decoder runs first here, bounded by what it produces
//! ([`decode`]), and each page's parsing work is bounded before it starts ([`forms`]):
//!
//! 1. the raw bytes: every stream, read every way lopdf could decode it, must fit
//!    `max_decoded_bytes` (lopdf decodes cross-reference and object streams while it loads,
//!    before any object can be looked at);
//! 2. the loaded document: image and embedded-file data are dropped (text extraction
//!    never needs them, and pdf-extract would parse pixels as drawing operators), and
//!    every other stream is measured again with its declared filters, which also covers
//!    an encrypted file's streams once decrypted;
//! 3. each page: its content, and every form it draws, counted each time it is drawn, must
//!    fit `max_page_content_bytes`, since pdf-extract holds tens of bytes per byte it parses;
//!    a form that draws itself is refused (it would overflow the stack);
//! 4. time: `max_time` for the whole document, checked as it decodes and as text comes out.
//!
//! lopdf can panic on malformed files, so the parsing runs inside `catch_unwind`, and only
//! bytes that start like a PDF are handed to it.

mod decode;
mod forms;
mod info;
mod ink;
mod layout;
mod page;
mod render;
mod scan;

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use pdf_extract::{Document, Object, ObjectId};
use trawl_core::{ErrorCode, TrawlError};

use crate::ocr::{self, OcrOptions, Session};
use decode::{Budget, Over};

/// How much one PDF may cost to read: decoded bytes, bytes parsed per page, time. Each `0`
/// (or a zero duration) means no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// Bytes the document's streams may decode to in all ([`DEFAULT_PDF_MAX_DECODED_BYTES`]).
    pub max_decoded_bytes: u64,
    /// Bytes of drawing operators one page may have parsed: its content streams and the
    /// forms they draw, each time drawn ([`DEFAULT_PDF_MAX_PAGE_CONTENT_BYTES`]).
    pub max_page_content_bytes: u64,
    /// Time for the whole document ([`DEFAULT_PDF_MAX_TIME`]).
    pub max_time: Duration,
}

/// Default [`PdfLimits::max_decoded_bytes`]: 256 MiB, decoded and dropped stream by stream
/// (never held at once), so it bounds time more than memory.
pub const DEFAULT_PDF_MAX_DECODED_BYTES: u64 = 256 << 20;
/// Default [`PdfLimits::max_page_content_bytes`]: 4 MiB. Text pages hold kilobytes; the
/// heaviest vector drawings a few megabytes.
pub const DEFAULT_PDF_MAX_PAGE_CONTENT_BYTES: u64 = 4 << 20;
/// Default [`PdfLimits::max_time`].
pub const DEFAULT_PDF_MAX_TIME: Duration = Duration::from_secs(30);

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_decoded_bytes: DEFAULT_PDF_MAX_DECODED_BYTES,
            max_page_content_bytes: DEFAULT_PDF_MAX_PAGE_CONTENT_BYTES,
            max_time: DEFAULT_PDF_MAX_TIME,
        }
    }
}

impl PdfLimits {
    /// The most memory reading a PDF of `len` bytes within these limits may take, for a
    /// caller that admits work by cost: the file, the lopdf objects read from it, one
    /// stream decoded at a time, one page's parsed operators and its layout.
    pub fn worst_case_memory(&self, len: usize) -> u64 {
        let page = if self.max_page_content_bytes == 0 {
            u64::MAX / 4
        } else {
            self.max_page_content_bytes
        };
        let stream = (decode::KEEP as u64 * 3).min(if self.max_decoded_bytes == 0 {
            u64::MAX / 4
        } else {
            self.max_decoded_bytes
        });
        (len as u64)
            .saturating_mul(4)
            .saturating_add(stream)
            .saturating_add(page.saturating_mul(PARSE_BYTES_PER_BYTE))
            .saturating_add(ink::MAX_LAYOUT_MEMORY)
    }
}

/// Memory pdf-extract takes per byte of drawing operators it parses (lopdf's `Content`
/// plus its own state): a page of 4 MiB of text operators took `trawl read` 358 MB at
/// peak, 45 MB without it (about 75 bytes a byte).
const PARSE_BYTES_PER_BYTE: u64 = 80;

/// Whether `bytes` start like a PDF (`%PDF-`, possibly after a little junk, which readers
/// accept within the first kilobyte).
pub(crate) fn is_pdf(bytes: &[u8]) -> bool {
    memchr::memmem::find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_some()
}

/// Why reading stopped, inside the parsing.
enum Stop {
    Over(Over),
    Page(u32, forms::Refusal),
    Encrypted,
    /// Pages were read and held no glyph: (pages, images).
    NoText(usize, usize),
    Pdf(String),
}

/// A PDF read: its Markdown and page count, and whether its text came from OCR.
#[derive(Debug, Default)]
pub(crate) struct PdfText {
    pub(crate) markdown: String,
    pub(crate) pages: usize,
    /// The pages were scans, read by OCR.
    pub(crate) ocr: bool,
    /// OCR's mean word confidence (0 to 100).
    pub(crate) ocr_confidence: Option<f32>,
    /// What the PDF says of itself (title, author, date, language, subject).
    pub(crate) info: info::PdfInfo,
}

/// A PDF as Markdown, within `limits`: its text in drawing order, its tables as GFM
/// tables. A PDF whose pages hold no text at all (a scan) is read by OCR when `ocr` is
/// on, and is `no_text_layer` otherwise (or when OCR finds no text either).
pub(crate) fn pdf_markdown(
    bytes: &[u8],
    limits: &PdfLimits,
    ocr: &OcrOptions,
) -> Result<PdfText, TrawlError> {
    if !is_pdf(bytes) {
        return Err(TrawlError::new(
            ErrorCode::UnsupportedContent,
            "not a PDF (no %PDF- header)",
        ));
    }
    let mut raw_budget = Budget::new(limits);
    let mut budget = Budget::new(limits);
    let result = decode::prescan(bytes, &mut raw_budget)
        .map_err(Stop::Over)
        .and_then(|()| {
            catch_unwind(AssertUnwindSafe(|| read(bytes, limits, &mut budget)))
                .unwrap_or_else(|_| Err(Stop::Pdf("the PDF parser gave up on this file".into())))
        });
    match result {
        Ok((text, pages, info)) => Ok(PdfText {
            markdown: text_to_markdown(&text),
            pages,
            info,
            ..PdfText::default()
        }),
        Err(Stop::NoText(pages, images)) if ocr.enabled && images > 0 => {
            let no_text = refusal(Stop::NoText(pages, images), limits);
            read_scan(bytes, ocr, no_text)
        }
        Err(stop) => Err(refusal(stop, limits)),
    }
}

/// A scanned PDF through OCR, page by page up to `max_pages`; `no_text` is the refusal it
/// had without OCR, kept (with the reason) when OCR cannot run or finds no text.
fn read_scan(bytes: &[u8], opts: &OcrOptions, no_text: TrawlError) -> Result<PdfText, TrawlError> {
    let refuse = |e| ocr::refusal(e, opts, ErrorCode::NoTextLayer, &no_text.message);
    let Some(mut session) = Session::start(opts).map_err(refuse)? else {
        return Err(no_text);
    };
    // Loaded again: the text pass dropped image data. The bytes passed the decoding
    // budget already, so what lopdf decodes here is bounded by it.
    let doc = catch_unwind(AssertUnwindSafe(|| {
        let mut doc = Document::load_mem(bytes).ok()?;
        if doc.is_encrypted() {
            doc.decrypt("").ok()?;
        }
        Some(doc)
    }))
    .ok()
    .flatten()
    .ok_or_else(|| TrawlError::new(ErrorCode::NoTextLayer, no_text.message.clone()))?;
    let pages = doc.get_pages();
    let max_pages = session.opts().max_pages as usize;
    let mut texts = Vec::new();
    let mut notes = Vec::new();
    for (&number, &page) in pages.iter().take(if max_pages == 0 {
        usize::MAX
    } else {
        max_pages
    }) {
        let image = catch_unwind(AssertUnwindSafe(|| {
            scan::page_image(&doc, page, session.opts().max_pixels)
        }))
        .unwrap_or_else(|_| scan::PageImage::Unread("an unreadable image".into()));
        match image {
            scan::PageImage::File(file) => {
                let text = session.read(&file).map_err(refuse)?;
                if !text.is_empty() {
                    texts.push(text);
                }
            }
            scan::PageImage::None => {}
            scan::PageImage::Unread(why) => {
                notes.push(format!("_Page {number}: {why}, not read by OCR._"));
            }
            scan::PageImage::TooLarge(width, height) => {
                return Err(TrawlError::new(
                    ErrorCode::TooLarge,
                    format!(
                        "PDF page {number} is a {width} × {height} image ({:.0} million pixels), \
                         more than the {:.0} million OCR reads (TRAWL_OCR_MAX_PIXELS raises it)",
                        (width * height) as f64 / 1e6,
                        session.opts().max_pixels as f64 / 1e6
                    ),
                ));
            }
        }
    }
    if session.words == 0 {
        let mut message = format!("{}; OCR found no text on its pages", no_text.message);
        for note in &notes {
            message.push_str(&format!(" ({})", note.trim_matches('_')));
        }
        return Err(TrawlError::new(ErrorCode::NoTextLayer, message));
    }
    if max_pages > 0 && pages.len() > max_pages {
        notes.push(format!(
            "_OCR read the first {max_pages} of {} pages (the limit for one document; \
             TRAWL_OCR_MAX_PAGES raises it)._",
            pages.len()
        ));
    }
    texts.extend(notes);
    let mut markdown = texts.join("\n\n");
    markdown.push('\n');
    Ok(PdfText {
        markdown,
        pages: pages.len(),
        ocr: true,
        ocr_confidence: session.confidence(),
        info: info::info(&doc),
    })
}

fn read(
    bytes: &[u8],
    limits: &PdfLimits,
    budget: &mut Budget,
) -> Result<(String, usize, info::PdfInfo), Stop> {
    if encrypted_with_object_streams(bytes) {
        return Err(Stop::Encrypted);
    }
    let mut doc = Document::load_mem(bytes).map_err(|e| Stop::Pdf(e.to_string()))?;
    if doc.is_encrypted() {
        doc.decrypt("").map_err(|e| Stop::Pdf(e.to_string()))?;
    }
    let (decoded, images) = measure(&mut doc, budget).map_err(Stop::Over)?;
    let pages = doc.get_pages();
    let info = info::info(&doc);
    for (&number, &page) in &pages {
        forms::page_cost(&doc, page, &decoded, limits.max_page_content_bytes)
            .map_err(|r| Stop::Page(number, r))?;
        budget.check_time().map_err(Stop::Over)?;
    }
    let mut out = ink::Collect::new(budget);
    let done = pdf_extract::output_doc(&doc, &mut out);
    if out.late {
        return Err(Stop::Over(Over::Time));
    }
    done.map_err(|e| Stop::Pdf(e.to_string()))?;
    if out.writer.glyphs == 0 {
        return Err(Stop::NoText(pages.len(), images));
    }
    Ok((out.writer.finish(), pages.len(), info))
}

/// Drop what text extraction never reads (image and embedded-file data) and measure what
/// every other stream decodes to: its decoded length by object, and how many images
/// there were.
fn measure(
    doc: &mut Document,
    budget: &mut Budget,
) -> Result<(HashMap<ObjectId, u64>, usize), Over> {
    let mut decoded = HashMap::new();
    let mut images = 0;
    for (&id, object) in &mut doc.objects {
        let Object::Stream(stream) = object else {
            continue;
        };
        let is = |key: &[u8], value: &[u8]| {
            stream.dict.get(key).and_then(Object::as_name).ok() == Some(value)
        };
        if is(b"Subtype", b"Image") || is(b"Type", b"EmbeddedFile") {
            images += usize::from(is(b"Subtype", b"Image"));
            stream.set_plain_content(Vec::new());
            continue;
        }
        let filters = stream.filters().unwrap_or_default();
        let len = decode::decoded_len(&stream.content, &filters, budget)?;
        decoded.insert(id, len);
    }
    Ok((decoded, images))
}

/// An encrypted file whose objects sit in object streams: lopdf decrypts and decodes those
/// while it loads, where nothing can measure them first, so such a file is not read.
/// Names are compared as lopdf reads them (`#xx` escapes decoded).
fn encrypted_with_object_streams(bytes: &[u8]) -> bool {
    let (mut encrypt, mut objstm) = (false, false);
    for at in memchr::memchr_iter(b'/', bytes) {
        let rest = &bytes[at + 1..];
        let end = rest
            .iter()
            .position(|&c| c.is_ascii_whitespace() || b"()<>[]{}/%".contains(&c))
            .unwrap_or(rest.len());
        match forms::decode_name(&rest[..end]).as_slice() {
            b"Encrypt" => encrypt = true,
            b"ObjStm" => objstm = true,
            _ => continue,
        }
        if encrypt && objstm {
            return true;
        }
    }
    false
}

fn refusal(stop: Stop, limits: &PdfLimits) -> TrawlError {
    let mib = |n: u64| n as f64 / f64::from(1u32 << 20);
    match stop {
        Stop::Over(Over::Bytes) => TrawlError::new(
            ErrorCode::TooLarge,
            format!(
                "PDF streams decode to more than {:.0} MiB (the limit for one document)",
                mib(limits.max_decoded_bytes)
            ),
        ),
        Stop::Over(Over::Time) => TrawlError::new(
            ErrorCode::TooLarge,
            format!(
                "PDF text took longer than {} s to extract (the limit for one document)",
                limits.max_time.as_secs()
            ),
        ),
        Stop::Page(n, forms::Refusal::TooLarge) => TrawlError::new(
            ErrorCode::TooLarge,
            format!(
                "PDF page {n} draws more than {:.0} MiB of content (the limit for one page)",
                mib(limits.max_page_content_bytes)
            ),
        ),
        Stop::Page(n, forms::Refusal::Loop) => TrawlError::new(
            ErrorCode::UnsupportedContent,
            format!("unreadable PDF: page {n} draws a form that draws itself"),
        ),
        Stop::Encrypted => TrawlError::new(
            ErrorCode::UnsupportedContent,
            "encrypted PDF with object streams: not read (its streams cannot be measured \
             before they are decoded)",
        ),
        Stop::NoText(pages, images) => TrawlError::new(
            ErrorCode::NoTextLayer,
            format!(
                "PDF has no text layer: {pages} page{}, {images} image{}, no text \
                 (a scan? its text can only be read with OCR)",
                if pages == 1 { "" } else { "s" },
                if images == 1 { "" } else { "s" },
            ),
        ),
        Stop::Pdf(why) => TrawlError::new(
            ErrorCode::UnsupportedContent,
            format!("unreadable PDF: {why}"),
        ),
    }
}

/// Markdown for PDF text: paragraphs kept, runs of blank lines squeezed, lines trimmed.
fn text_to_markdown(text: &str) -> String {
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
