//! Documents beyond HTML and PDF: Office Open XML (docx, xlsx, pptx), OpenDocument (odt,
//! odp, ods), legacy Excel (xls), EPUB, Jupyter notebooks, CSV/TSV, RSS/Atom feeds and ZIP
//! archives, each into the same Markdown a web page becomes.
//!
//! [`detect`] tells them apart by Content-Type, then magic bytes (a ZIP is opened to see
//! which package it is), then the URL's extension. [`convert`] runs the format's reader.
//! Every ZIP member and XML part is read through the [`budget`]'s `Meter`, so each read is
//! bounded in expanded bytes, members, nodes, nesting and time.

mod archive;
pub(crate) mod budget;
mod csv;
mod docx;
mod epub;
mod feed;
pub(crate) mod gfm;
mod ipynb;
mod msg;
mod odf;
mod ods;
mod ooxml_sheet;
mod package;
mod pptx;
mod sheet;
mod xls_scan;
mod xml;

use trawl_core::{Document, PageType, TrawlError, handle_for_url};
use url::Url;

use crate::ExtractOptions;
use budget::{DocBudget, DocError, Meter};
use package::{Package, is_zip};

/// Which reader a document goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocKind {
    Docx,
    Pptx,
    /// xlsx, xlsm, xlsb and xls through calamine, ods through trawl's streamed reader.
    Sheet,
    Odt,
    Odp,
    Epub,
    Notebook,
    Csv {
        tab: bool,
    },
    Feed,
    Archive,
    /// An Outlook message (.msg), a compound file of properties.
    Msg,
    /// An OLE2 compound file that is neither an .xls nor a .msg: a legacy .doc or .ppt,
    /// which trawl does not read (see README).
    Compound,
}

/// The OLE2 compound file signature (legacy Office and Outlook .msg).
const CFB_MAGIC: &[u8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1";

/// What a reader found besides the Markdown.
#[derive(Debug, Default)]
pub(crate) struct Converted {
    pub(crate) markdown: String,
    pub(crate) title: Option<String>,
    pub(crate) author: Option<String>,
    pub(crate) created: Option<String>,
    /// The language the document says it is in (`dc:language`).
    pub(crate) language: Option<String>,
    /// Its own summary (`dc:description`).
    pub(crate) description: Option<String>,
}

impl Converted {
    /// What [`front_block`] shows of this document.
    pub(crate) fn front_matter(&self) -> FrontMatter<'_> {
        FrontMatter {
            title: self.title.as_deref(),
            author: self.author.as_deref(),
            date: self.created.as_deref(),
            language: self.language.as_deref(),
            description: self.description.as_deref(),
        }
    }
}

/// What a document says of itself, for [`front_block`]: a document's properties, a PDF's
/// information dictionary, an image's own words and EXIF date.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrontMatter<'a> {
    pub(crate) title: Option<&'a str>,
    pub(crate) author: Option<&'a str>,
    pub(crate) date: Option<&'a str>,
    pub(crate) language: Option<&'a str>,
    pub(crate) description: Option<&'a str>,
}

/// The Content-Type trawl gives a file of this extension (for `trawl read FILE`).
pub fn content_type_for_extension(ext: &str) -> Option<&'static str> {
    Some(match ext.to_ascii_lowercase().as_str() {
        "docx" | "docm" => {
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        }
        "xlsx" | "xlsm" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsb" => "application/vnd.ms-excel.sheet.binary.macroenabled.12",
        "xls" => "application/vnd.ms-excel",
        "pptx" | "pptm" => {
            "application/vnd.openxmlformats-officedocument.presentationml.presentation"
        }
        "odt" => "application/vnd.oasis.opendocument.text",
        "odp" => "application/vnd.oasis.opendocument.presentation",
        "ods" => "application/vnd.oasis.opendocument.spreadsheet",
        "epub" => "application/epub+zip",
        "msg" => "application/vnd.ms-outlook",
        "ipynb" => "application/x-ipynb+json",
        "csv" => "text/csv",
        "tsv" | "tab" => "text/tab-separated-values",
        "rss" => "application/rss+xml",
        "atom" => "application/atom+xml",
        "zip" => "application/zip",
        _ => return None,
    })
}

fn kind_of_mime(mime: &str) -> Option<DocKind> {
    Some(match mime {
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        | "application/vnd.ms-word.document.macroenabled.12" => DocKind::Docx,
        "application/vnd.openxmlformats-officedocument.presentationml.presentation"
        | "application/vnd.ms-powerpoint.presentation.macroenabled.12" => DocKind::Pptx,
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        | "application/vnd.ms-excel.sheet.macroenabled.12"
        | "application/vnd.ms-excel.sheet.binary.macroenabled.12"
        | "application/vnd.ms-excel"
        | "application/vnd.oasis.opendocument.spreadsheet" => DocKind::Sheet,
        "application/vnd.oasis.opendocument.text" => DocKind::Odt,
        "application/vnd.oasis.opendocument.presentation" => DocKind::Odp,
        "application/epub+zip" => DocKind::Epub,
        "application/vnd.ms-outlook" => DocKind::Msg,
        "application/x-ipynb+json" => DocKind::Notebook,
        "text/csv" | "application/csv" => DocKind::Csv { tab: false },
        "text/tab-separated-values" => DocKind::Csv { tab: true },
        "application/rss+xml"
        | "application/atom+xml"
        | "application/rdf+xml"
        | "application/feed+xml" => DocKind::Feed,
        "application/zip" | "application/x-zip-compressed" | "application/x-zip" => {
            DocKind::Archive
        }
        _ => return None,
    })
}

/// Which document reader, if any, takes this body. `None` leaves it to the HTML, PDF, text
/// and JSON paths.
pub(crate) fn detect(bytes: &[u8], content_type: Option<&str>, url: &Url) -> Option<DocKind> {
    let mime = content_type
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    let ext = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .and_then(|last| last.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase());
    let by_ext = ext
        .as_deref()
        .and_then(content_type_for_extension)
        .and_then(kind_of_mime);
    if let Some(kind) = mime.as_deref().and_then(kind_of_mime) {
        // A generic ZIP type on an Office file: what is inside decides.
        if kind == DocKind::Archive && is_zip(bytes) {
            return Some(zip_kind(bytes));
        }
        return Some(kind);
    }
    // Served as something trawl reads already: only the extension or the body's own shape
    // turns it into a document.
    let generic = matches!(
        mime.as_deref(),
        None | Some(
            "application/octet-stream"
                | "binary/octet-stream"
                | "application/unknown"
                | "application/x-download"
                | "application/download"
                | "application/force-download"
                | "text/plain"
                | "text/xml"
                | "application/xml"
                | "application/json"
        )
    );
    if !generic {
        return None;
    }
    if is_zip(bytes) {
        return Some(zip_kind(bytes));
    }
    if bytes.starts_with(CFB_MAGIC) {
        return Some(if by_ext == Some(DocKind::Sheet) || sheet::is_xls(bytes) {
            DocKind::Sheet
        } else if msg::is_msg(bytes) {
            DocKind::Msg
        } else {
            DocKind::Compound
        });
    }
    if let Some(kind) = by_ext {
        match kind {
            // A notebook is JSON, a feed XML: the extension alone is enough.
            DocKind::Notebook | DocKind::Feed | DocKind::Csv { .. } => return Some(kind),
            // A ZIP format without the ZIP magic: let its reader say what is wrong.
            _ if mime.as_deref() != Some("text/plain") => return Some(kind),
            _ => {}
        }
    }
    if matches!(mime.as_deref(), Some("application/json") | None) && ipynb::looks_like(bytes) {
        return Some(DocKind::Notebook);
    }
    if feed::looks_like(bytes) {
        return Some(DocKind::Feed);
    }
    None
}

/// Which package a ZIP is, from its members (`mimetype` for OpenDocument and EPUB, the main
/// part's path for Office Open XML).
fn zip_kind(bytes: &[u8]) -> DocKind {
    let meter = Meter::new(budget::DocBudget::default());
    let Ok(mut pkg) = Package::open(bytes, &meter, "zip") else {
        return DocKind::Archive;
    };
    if pkg.has("word/document.xml") {
        return DocKind::Docx;
    }
    if pkg.has("ppt/presentation.xml") {
        return DocKind::Pptx;
    }
    if pkg.has("xl/workbook.xml") || pkg.has("xl/workbook.bin") {
        return DocKind::Sheet;
    }
    if pkg.has("mimetype") {
        // `mimetype` is a few dozen bytes; a larger one is not the marker.
        let mime = pkg
            .read("mimetype")
            .ok()
            .flatten()
            .filter(|b| b.len() < 256)
            .map(|b| String::from_utf8_lossy(&b).trim().to_owned());
        match mime.as_deref() {
            Some("application/vnd.oasis.opendocument.text") => return DocKind::Odt,
            Some("application/vnd.oasis.opendocument.presentation") => return DocKind::Odp,
            Some("application/vnd.oasis.opendocument.spreadsheet") => return DocKind::Sheet,
            Some("application/epub+zip") => return DocKind::Epub,
            _ => {}
        }
    }
    DocKind::Archive
}

/// Read `bytes` as `kind` into `doc`, at archive nesting `depth` (0 for the document
/// itself).
pub(crate) fn convert(
    kind: DocKind,
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
    meter: &Meter,
    depth: usize,
) -> Result<Converted, DocError> {
    meter.check_time()?;
    match kind {
        DocKind::Docx => docx::convert(bytes, opts, meter),
        DocKind::Pptx => pptx::convert(bytes, meter),
        DocKind::Sheet => sheet::convert(bytes, meter),
        DocKind::Odt => odf::convert_text(bytes, opts, meter),
        DocKind::Odp => odf::convert_presentation(bytes, meter),
        DocKind::Epub => epub::convert(bytes, url, meter),
        DocKind::Notebook => ipynb::convert(bytes),
        DocKind::Csv { tab } => Ok(csv::convert(bytes, content_type, tab, meter)),
        DocKind::Feed => feed::convert(bytes, url, meter),
        DocKind::Archive => archive::convert(bytes, url, opts, meter, depth),
        DocKind::Msg => msg::convert(bytes, url, opts, meter, depth),
        DocKind::Compound => Err(DocError::Malformed {
            format: "document",
            why: "a legacy Office (.doc, .ppt) compound file; of these trawl reads .xls and \
                  Outlook .msg (save as .docx or .pptx)"
                .into(),
        }),
    }
}

/// [`extract`](crate::extract) with the document readers held to `budget` instead of
/// [`DocBudget::default`]: the caps on expanded bytes, members, nesting, XML nodes, rows
/// and time. Bodies that are not such documents (HTML, PDF, text, JSON) read as usual.
pub fn extract_with_budget(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
    budget: &DocBudget,
) -> Result<Document, TrawlError> {
    match detect(bytes, content_type, url) {
        Some(kind) => read(kind, bytes, content_type, url, opts, budget),
        None => crate::extract(bytes, content_type, url, opts),
    }
}

/// A document of `kind` read under `budget` into a Document.
pub(crate) fn read(
    kind: DocKind,
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
    budget: &DocBudget,
) -> Result<Document, TrawlError> {
    let meter = Meter::new(*budget);
    let out = convert(kind, bytes, content_type, url, opts, &meter, 0)?;
    let mut doc = Document {
        url: url.to_string(),
        final_url: url.to_string(),
        handle: handle_for_url(url),
        content_type: content_type.map(str::to_owned),
        ..Document::default()
    };
    finish(&mut doc, kind, out);
    Ok(doc)
}

/// The page type a document of `kind` reads as.
pub(crate) fn page_type(kind: DocKind) -> PageType {
    match kind {
        DocKind::Docx | DocKind::Odt | DocKind::Epub => PageType::Article,
        DocKind::Feed => PageType::Listing,
        _ => PageType::Other,
    }
}

/// Fill `doc` from what the reader found.
pub(crate) fn finish(doc: &mut Document, kind: DocKind, mut out: Converted) {
    if matches!(
        kind,
        DocKind::Docx | DocKind::Pptx | DocKind::Odt | DocKind::Odp | DocKind::Epub
    ) {
        out.markdown = front_block(&out.front_matter(), &out.markdown);
    }
    let mut markdown = std::mem::take(&mut out.markdown);
    let trimmed = markdown.trim_end().len();
    markdown.truncate(trimmed);
    if !markdown.is_empty() {
        markdown.push('\n');
    }
    doc.title = out
        .title
        .map(|t| xml::fold_spaces(&t))
        .filter(|t| !t.is_empty())
        .or_else(|| {
            markdown
                .lines()
                .find_map(|l| l.strip_prefix("# "))
                .map(xml::fold_spaces)
        });
    doc.byline = out.author.filter(|a| !a.trim().is_empty());
    doc.language = out
        .language
        .filter(|l| !l.trim().is_empty())
        .or(doc.language.take());
    doc.description = out
        .description
        .filter(|d| !d.trim().is_empty())
        .or(doc.description.take());
    doc.published = out.created.filter(|c| !c.trim().is_empty());
    doc.text = markdown.clone();
    doc.markdown = markdown;
    doc.page_type = page_type(kind);
    doc.word_count = crate::dom::word_count(&doc.text);
    doc.quality_score = if doc.word_count == 0 { 0.0 } else { 0.9 };
}

/// An HTML fragment (an EPUB chapter, a feed's summary) as Markdown through trawl's own
/// parser and writer, whole: a chapter is all content, so no boilerplate is dropped.
pub(crate) fn html_to_markdown(html: &str, base: &Url) -> String {
    use crate::dom::{Kind, Tag};
    let dom = crate::parse::parse(html);
    // The head's title and scripts are not text; the writer skips a dropped node's subtree.
    let dropped: Vec<bool> = dom
        .nodes
        .iter()
        .map(|n| {
            n.kind == Kind::Element
                && matches!(n.tag, Tag::Head | Tag::Title | Tag::Script | Tag::Style)
        })
        .collect();
    crate::markdown::render(&dom, &dropped, &[0], base, crate::markdown::Mode::Markdown)
}

/// A file name for an image reference: the last path segment of a package part.
pub(crate) fn image_name(target: &str) -> &str {
    target.rsplit('/').next().unwrap_or(target)
}

/// `![alt](name)`, brackets in the alt text dropped so the link stays one.
pub(crate) fn image_ref(alt: &str, name: &str) -> String {
    let alt = xml::fold_spaces(&alt.replace(['[', ']'], ""));
    let name = name.replace(['(', ')', ' '], "_");
    format!("![{alt}]({name})")
}

/// Joins a part path relative to the part `from` (`word/document.xml` + `media/a.png` →
/// `word/media/a.png`), resolving `..`.
pub(crate) fn resolve_part(from: &str, target: &str) -> String {
    if let Some(abs) = target.strip_prefix('/') {
        return abs.to_owned();
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for seg in target.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// Relationships of a package part (`_rels/<name>.rels`): id → (type, target, external).
pub(crate) fn relationships(
    pkg: &mut Package<'_>,
    part: &str,
    meter: &Meter,
) -> Result<Vec<Rel>, DocError> {
    let (dir, name) = part.rsplit_once('/').unwrap_or(("", part));
    let rels_path = if dir.is_empty() {
        format!("_rels/{name}.rels")
    } else {
        format!("{dir}/_rels/{name}.rels")
    };
    let Some(text) = pkg.read_text(&rels_path)? else {
        return Ok(Vec::new());
    };
    let doc = xml::parse(&text, &rels_path, meter)?;
    Ok(xml::children(doc.root_element(), "Relationship")
        .map(|r| {
            let external = xml::attr(r, "TargetMode") == Some("External");
            let target = xml::attr(r, "Target").unwrap_or("").to_owned();
            Rel {
                id: xml::attr(r, "Id").unwrap_or("").to_owned(),
                kind: xml::attr(r, "Type").unwrap_or("").to_owned(),
                target: if external {
                    target
                } else {
                    resolve_part(part, &target)
                },
                external,
            }
        })
        .collect())
}

/// One relationship of a package part.
#[derive(Debug, Clone)]
pub(crate) struct Rel {
    pub(crate) id: String,
    pub(crate) kind: String,
    pub(crate) target: String,
    pub(crate) external: bool,
}

/// The relationship with id `id`.
pub(crate) fn rel<'r>(rels: &'r [Rel], id: &str) -> Option<&'r Rel> {
    rels.iter().find(|r| r.id == id)
}

/// Title, author, creation date, language and description from `docProps/core.xml`
/// (Office Open XML), as a [`Converted`] with no Markdown yet.
pub(crate) fn core_properties(pkg: &mut Package<'_>, meter: &Meter) -> Result<Converted, DocError> {
    let Some(text) = pkg.read_text("docProps/core.xml")? else {
        return Ok(Converted::default());
    };
    let doc = xml::parse(&text, "docProps/core.xml", meter)?;
    let get = |name: &str| {
        xml::find(doc.root_element(), name)
            .map(xml::text)
            .filter(|t| !t.is_empty())
    };
    Ok(Converted {
        title: get("title"),
        author: get("creator"),
        created: get("created"),
        language: get("language"),
        description: get("description"),
        ..Converted::default()
    })
}

/// The front block of a document that carries its own metadata: `# Title` (unless the
/// body opens with a title already), then a line each for authors, date, language and
/// description, so a pipe or an agent reading the Markdown learns what the document is.
pub(crate) fn front_block(front: &FrontMatter<'_>, markdown: &str) -> String {
    let lines: Vec<String> = [
        ("Authors", front.author),
        ("Date", front.date),
        ("Language", front.language),
        ("Description", front.description),
    ]
    .into_iter()
    .filter_map(|(label, value)| {
        let value = xml::fold_spaces(value?);
        (!value.is_empty()).then(|| format!("{label}: {value}"))
    })
    .collect();
    let title = front.title.map(xml::fold_spaces).filter(|t| !t.is_empty());
    // The body opens with the title already (a docx's Title paragraph); a first chapter's
    // heading is not the book's title.
    let first_heading = markdown
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# "))
        .map(xml::fold_spaces);
    let opens_titled = match (&first_heading, &title) {
        (Some(h), Some(t)) => h.eq_ignore_ascii_case(t),
        (Some(_), None) => true,
        (None, _) => false,
    };
    if lines.is_empty() && (opens_titled || title.is_none()) {
        return markdown.to_owned();
    }
    let (heading, body) = match (opens_titled, title) {
        (true, _) => markdown.split_once('\n').unwrap_or((markdown, "")),
        (false, Some(t)) => return assemble(&format!("# {t}"), &lines, markdown),
        (false, None) => return assemble("", &lines, markdown),
    };
    assemble(heading, &lines, body.trim_start_matches('\n'))
}

fn assemble(heading: &str, lines: &[String], body: &str) -> String {
    let mut out = String::with_capacity(heading.len() + body.len() + 256);
    if !heading.is_empty() {
        out.push_str(heading);
        out.push_str("\n\n");
    }
    if !lines.is_empty() {
        // Two spaces end each line: one line each, also where Markdown is rendered.
        out.push_str(&lines.join("  \n"));
        out.push_str("\n\n");
    }
    out.push_str(body);
    out
}
