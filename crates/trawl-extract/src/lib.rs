//! trawl-extract: fetched bytes in, [`Document`] out: the page's main content as Markdown
//! (and plain text) plus its metadata. Pure functions: no network, no I/O, no async.
//!
//! [`extract`] classifies the body (HTML, PDF, plain text, Markdown, JSON; anything else is
//! `unsupported_content`), decodes it ([`decode_html`]), and for HTML parses it with
//! trawl's own lenient parser, drops boilerplate, picks the main content and writes it as
//! Markdown with absolute links, code languages and GFM tables.
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

mod boilerplate;
mod charset;
mod content;
mod dom;
mod entities;
mod markdown;
mod metadata;
mod page_type;
mod parse;
mod pdf;

pub use charset::{decode_html, sniff_encoding};
pub use pdf::{
    DEFAULT_PDF_MAX_DECODED_BYTES, DEFAULT_PDF_MAX_PAGE_CONTENT_BYTES, DEFAULT_PDF_MAX_TIME,
    PdfLimits,
};
use trawl_core::{Document, ErrorCode, PageType, TrawlError, handle_for_url};
use url::Url;

use crate::content::{Pass, Selection};
use crate::markdown::Mode;

/// Knobs of the extractor.
#[derive(Debug, Clone, Default)]
pub struct ExtractOptions {
    /// Keep comment sections (off by default: comments are not the main content).
    pub include_comments: bool,
    /// What one PDF may cost to read (decoded bytes, bytes parsed per page, time); past
    /// it the read is `too_large`.
    pub pdf: PdfLimits,
}

/// A first pass that finds fewer visible characters than this is retried with looser
/// heuristics (the page may have named its content wrapper like boilerplate).
const MIN_CONTENT_CHARS: usize = 250;

/// The chosen block must hold at least NUM/DEN of the cleaned page's visible text, or the
/// cleaned page is taken instead.
const BROAD_RATIO: (usize, usize) = (1, 2);
const BROAD_RATIO_MANY_BLOCKS: (usize, usize) = (4, 5);

/// Below this many visible characters of its own, a page may be a thread in disguise.
const THREAD_MAX_OWN_CHARS: usize = 250;
/// ... and is read as one when its replies hold this many times more.
const THREAD_GAIN: usize = 3;

/// Characters that are not whitespace (`char::is_whitespace`), counted on bytes: this runs
/// over every rendering of a page. Characters that are not ASCII whitespace are counted in
/// blocks that vectorize (see `dom::TextSize`); then the few non-ASCII spaces come off.
fn visible_chars(s: &str) -> usize {
    let mut n = dom::TextSize::of(s).visible as usize;
    // U+0085, U+00A0, U+1680, U+2000-U+205F and U+3000 start with these bytes; \x0B is an
    // ASCII space to `char::is_whitespace` only.
    let maybe_space = |b: u8| matches!(b, 0x0B | 0xC2 | 0xE1 | 0xE2 | 0xE3);
    if s.bytes().any(maybe_space) {
        for (i, b) in s.bytes().enumerate() {
            if maybe_space(b) && s[i..].starts_with(char::is_whitespace) {
                n -= 1;
            }
        }
    }
    n
}

/// For debugging the reader (see `examples/extract_one.rs`): how the element holding
/// `needle` and its ancestors fare in the boilerplate stage, one line each, innermost first.
pub fn explain(html_bytes: &[u8], needle: &str) -> String {
    let html = charset::decode_html(html_bytes, Some("text/html"));
    let dom = parse::parse(&html);
    let mut signals = boilerplate::Signals::new(&dom, &vec![false; dom.nodes.len()]);
    content::mark_folded(&dom, &mut signals);
    let pass = Pass {
        strip_unlikely: true,
        weight_classes: true,
        clean_conditionally: true,
        include_comments: false,
        thread: false,
        show_hidden: false,
        widen: false,
        link_tolerant: false,
    };
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
/// text/markdown and JSON pass through; anything else is `unsupported_content`. The caller
/// sets `fetched_via`, `status` and, if it differs, `url`.
pub fn extract(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
) -> Result<Document, TrawlError> {
    let mut doc = Document {
        url: url.to_string(),
        final_url: url.to_string(),
        handle: handle_for_url(url),
        content_type: content_type.map(str::to_owned),
        ..Document::default()
    };
    match classify(bytes, content_type) {
        Body::Html => extract_html(bytes, content_type, url, opts, &mut doc),
        Body::Pdf => {
            let text = pdf::pdf_text(bytes, &opts.pdf)?;
            doc.markdown = pdf::text_to_markdown(&text);
            doc.text = doc.markdown.clone();
            doc.title = doc
                .markdown
                .lines()
                .next()
                .map(metadata::clean)
                .filter(|t| t.len() <= 200);
            doc.page_type = PageType::Pdf;
            finish_plain(&mut doc);
        }
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
    doc.cap_metadata();
    Ok(doc)
}

fn finish_plain(doc: &mut Document) {
    doc.word_count = doc.text.split_whitespace().count();
    doc.quality_score = if doc.word_count == 0 { 0.0 } else { 0.9 };
}

fn extract_html(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
    doc: &mut Document,
) {
    let html = charset::decode_html_borrowed(bytes, content_type);
    let dom = parse::parse(&html);
    drop(html);
    let meta = metadata::collect(&dom, url);
    let base = meta.base.clone().unwrap_or_else(|| url.clone());

    let page_type = page_type::page_type(&meta, url, page_type::shape(&dom));
    // Strict first; each retry relaxes one heuristic, as readability does. Keep the pass
    // that found the most text if none reaches the minimum.
    let strict = Pass {
        strip_unlikely: true,
        weight_classes: true,
        clean_conditionally: true,
        include_comments: opts.include_comments,
        thread: page_type == PageType::Forum,
        show_hidden: false,
        // An article is one run of prose: its container also holds the teasers around it.
        widen: page_type != PageType::Article,
        // A reference page links every other word, and an index's items are links.
        link_tolerant: matches!(page_type, PageType::Documentation | PageType::Listing),
    };
    let passes = [
        strict,
        Pass {
            strip_unlikely: false,
            ..strict
        },
        Pass {
            strip_unlikely: false,
            weight_classes: false,
            ..strict
        },
        Pass {
            strip_unlikely: false,
            weight_classes: false,
            clean_conditionally: false,
            ..strict
        },
        Pass {
            show_hidden: true,
            ..strict
        },
    ];
    // The page's title opening the content is metadata, dropped from the text; but a
    // product's name heads what is said about the product (its name, price, description).
    let dropped_titles: &[String] = if page_type == PageType::Product {
        &[]
    } else {
        &meta.titles
    };
    let mut drops = content::Drops::new(&dom);
    let mut signals = boilerplate::Signals::new(&dom, drops.hard_dropped());
    content::mark_folded(&dom, &mut signals);
    let mut best: Option<(Selection, String)> = None;
    // Passes share their boilerplate drops where they drop alike (`drops`); the strict
    // pass's serve the broad selection too.
    for pass in passes {
        let mut selection = content::select(&dom, pass, &signals, drops.get(&dom, pass, &signals));
        for title in dropped_titles {
            content::drop_title_heading(&dom, &mut selection, title);
        }
        let text = markdown::render(
            &dom,
            &selection.dropped,
            &selection.roots,
            &base,
            Mode::Text,
        );
        let enough = text.len() >= MIN_CONTENT_CHARS;
        if best.as_ref().is_none_or(|(_, t)| text.len() > t.len()) {
            best = Some((selection, text));
        }
        if enough {
            break;
        }
    }
    let (mut selection, mut text) = best.expect("at least one pass ran");
    // A page whose own text is a few lines and whose replies hold far more is a thread
    // (a link aggregator's story page): read it as one.
    // Counted once per text: it is read by each check below and by the quality score.
    let mut text_chars = visible_chars(&text);
    let chosen = text_chars;
    if !strict.thread && !opts.include_comments && chosen < THREAD_MAX_OWN_CHARS {
        let thread = Pass {
            thread: true,
            include_comments: true,
            ..strict
        };
        let mut replies =
            content::select(&dom, thread, &signals, drops.get(&dom, thread, &signals));
        for title in dropped_titles {
            content::drop_title_heading(&dom, &mut replies, title);
        }
        let replies_text =
            markdown::render(&dom, &replies.dropped, &replies.roots, &base, Mode::Text);
        let replies_chars = visible_chars(&replies_text);
        if replies_chars > chosen * THREAD_GAIN {
            selection = replies;
            text = replies_text;
            text_chars = replies_chars;
        }
    }
    // Recall safety net: when the chosen block holds little of what the page shows once
    // boilerplate is gone, the page is not one block of prose (a landing page, a listing,
    // a thread): take the whole cleaned page instead of betting on one block.
    // Pages made of many blocks (listings, shop grids, landing pages, product pages) need
    // less of a gap to be read whole.
    let many_blocks = matches!(
        page_type,
        PageType::Listing | PageType::Collection | PageType::Service | PageType::Product
    );
    let (num, den) = if many_blocks {
        BROAD_RATIO_MANY_BLOCKS
    } else {
        BROAD_RATIO
    };
    // On a page of prose, what the block may miss is prose: link text (a blog archive, a
    // rail of related posts) does not count. On a page of many blocks the links are items.
    let own = |chars: usize, link_density: f32| {
        if many_blocks {
            chars
        } else {
            (chars as f32 * (1.0 - link_density)) as usize
        }
    };
    // The broad selection holds at most the page's text after the strict drops: when the
    // chosen block already holds enough of that, the broad one cannot win.
    let chosen = own(text_chars, selection.link_density);
    let strict_boiled = drops.get(&dom, strict, &signals);
    let page_stats = &strict_boiled.stats[0];
    let page_text = if many_blocks {
        page_stats.text
    } else {
        page_stats.text - page_stats.link
    } as usize;
    let broad =
        (chosen * den < page_text * num).then(|| content::select_broad(&dom, strict_boiled));
    if let Some(mut broad) = broad
        && chosen * den
            < own(
                visible_chars(&markdown::render(
                    &dom,
                    &broad.dropped,
                    &broad.roots,
                    &base,
                    Mode::Text,
                )),
                broad.link_density,
            ) * num
    {
        for title in dropped_titles {
            content::drop_title_heading(&dom, &mut broad, title);
        }
        text = markdown::render(&dom, &broad.dropped, &broad.roots, &base, Mode::Text);
        text_chars = visible_chars(&text);
        selection = broad;
    }
    if content::drop_repeated_blocks(&dom, &mut selection) {
        text = markdown::render(
            &dom,
            &selection.dropped,
            &selection.roots,
            &base,
            Mode::Text,
        );
        text_chars = visible_chars(&text);
    }
    let mut markdown = markdown::render(
        &dom,
        &selection.dropped,
        &selection.roots,
        &base,
        Mode::Markdown,
    );
    let mut semantic = selection.semantic;
    let mut link_density = selection.link_density;

    // The page's own statement of its body, when what we found is much shorter.
    if let Some(body) = meta.article_body.as_deref()
        && body.len() > MIN_CONTENT_CHARS
        && text.len() * 2 < body.len()
    {
        text = body.trim().to_owned() + "\n";
        text_chars = visible_chars(&text);
        markdown = text.clone();
        semantic = true;
        link_density = 0.0;
    }

    doc.word_count = text.split_whitespace().count();
    doc.quality_score = quality(
        doc.word_count,
        text_chars,
        selection.page_text as usize,
        link_density,
        semantic,
    );
    doc.page_type = page_type;
    doc.markdown = markdown;
    doc.text = text;
    doc.title = meta.title;
    doc.byline = meta.byline;
    doc.published = meta.published;
    doc.language = meta.language;
    doc.site_name = meta.site_name;
    doc.description = meta.description;
    doc.canonical_url = meta.canonical_url;
    doc.json_ld = meta.json_ld;
}

/// How likely the extracted text is the page's main content, 0..1; below 0.5 means
/// "probably not". Long, link-poor text from a declared content container scores high; a
/// few words, a link list, or a sliver of a text-heavy page score low.
fn quality(
    words: usize,
    visible: usize,
    page_visible: usize,
    link_density: f32,
    semantic: bool,
) -> f32 {
    if words == 0 {
        return 0.0;
    }
    let length = (words as f32 / 200.0).min(1.0);
    let coverage = if page_visible == 0 {
        1.0
    } else {
        (visible as f32 / page_visible as f32).min(1.0)
    };
    let mut q = 0.1
        + 0.5 * length
        + 0.25 * (1.0 - link_density)
        + 0.1 * coverage.sqrt()
        + if semantic { 0.05 } else { 0.0 };
    if link_density > 0.5 {
        q = q.min(0.45);
    }
    q.clamp(0.0, 1.0)
}

/// What kind of body this is.
#[derive(Debug, PartialEq, Eq)]
enum Body {
    Html,
    Pdf,
    Text { markdown: bool },
    Json,
    Unsupported(String),
}

fn classify(bytes: &[u8], content_type: Option<&str>) -> Body {
    let mime = content_type
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    if pdf::is_pdf(bytes) {
        return Body::Pdf;
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
    fn visible_chars_counts_what_char_is_whitespace_does_not() {
        let samples = [
            "",
            "plain words, with\ttabs\nand\r\nbreaks",
            "vertical\x0btab and form\x0cfeed",
            "no-break\u{a0}space, next-line\u{85}, ogham\u{1680}mark",
            "em\u{2003}space thin\u{2009}space narrow\u{202f}nbsp math\u{205f}space",
            "ideographic\u{3000}space 漢字 and line\u{2028}para\u{2029}seps",
            // Not whitespace, though they look like it or share a lead byte.
            "zero\u{200b}width joiner\u{200d} ¢ € ☃ ㄱ Ⴀ",
            "é ß ö \u{1f600}",
        ];
        for s in samples {
            let by_char = s.chars().filter(|c| !c.is_whitespace()).count();
            assert_eq!(visible_chars(s), by_char, "{s:?}");
        }
    }

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
        assert!(matches!(
            classify(b"\x89PNG\r\n\x1a\n", Some("image/png")),
            Body::Unsupported(_)
        ));
        assert!(matches!(
            classify(&[0u8, 1, 2, 3, 4, 5, 6, 7, 0xff, 0xfe], None),
            Body::Unsupported(_)
        ));
    }

    #[test]
    fn quality_is_low_for_scraps_and_link_lists() {
        assert!(quality(600, 3000, 3500, 0.05, true) > 0.8);
        assert!(quality(20, 100, 5000, 0.0, false) < 0.5);
        assert!(quality(400, 2000, 2500, 0.8, false) < 0.5);
    }
}
