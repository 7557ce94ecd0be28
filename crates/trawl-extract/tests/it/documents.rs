//! Documents beyond HTML and PDF, read from files written by the libraries people write
//! them with (`tests/docs/make.py`: python-docx, openpyxl, xlwt, odfpy, python-pptx,
//! EbookLib, nbformat), and hostile ones built here: a ZIP bomb, a billion-laughs XML, an
//! external entity, a 100 MB spreadsheet, deep nesting.

use std::io::Write;
use std::path::PathBuf;

use trawl_core::{Document, ErrorCode, PageType, TrawlError};
use trawl_extract::{
    DocBudget, ExtractOptions, content_type_for_extension, extract, extract_with_budget,
};
use url::Url;
use zip::write::SimpleFileOptions;

fn fixture(name: &str) -> (Vec<u8>, Url) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/docs")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (bytes, Url::from_file_path(&path).unwrap())
}

/// A fixture read as `trawl read FILE` reads it: the type from the extension.
fn read(name: &str) -> Document {
    read_with(name, &ExtractOptions::default())
}

fn read_with(name: &str, opts: &ExtractOptions) -> Document {
    let (bytes, url) = fixture(name);
    let ext = name.rsplit('.').next().unwrap();
    extract(&bytes, content_type_for_extension(ext), &url, opts)
        .unwrap_or_else(|e| panic!("{name}: {}: {}", e.code.as_str(), e.message))
}

/// What no converted document may hold: package XML and inlined image bytes.
fn assert_clean(doc: &Document) {
    let md = &doc.markdown;
    for bad in [
        "<w:",
        "<a:",
        "<p:",
        "<text:",
        "<office:",
        "</",
        "xmlns",
        "base64",
        "iVBORw0KGgo",
        "data:image",
    ] {
        assert!(!md.contains(bad), "{bad:?} in:\n{md}");
    }
}

/// `needles` appear in `md` in this order.
fn assert_in_order(md: &str, needles: &[&str]) {
    let mut from = 0;
    for n in needles {
        let at = md[from..]
            .find(n)
            .unwrap_or_else(|| panic!("{n:?} missing after byte {from} in:\n{md}"));
        from += at + n.len();
    }
}

#[test]
fn docx_headings_lists_tables_links_footnotes_and_pictures() {
    let doc = read("report.docx");
    assert_clean(&doc);
    let md = &doc.markdown;
    assert_in_order(
        md,
        &[
            "# Tidal Survey Report",
            "# Methods",
            "## Harbours",
            "# Findings",
        ],
    );
    assert!(md.contains("**tidal range**"), "{md}");
    assert!(
        md.contains("[the tide tables](https://example.org/tides)"),
        "{md}"
    );
    assert!(md.contains("- Northport\n- Southwick"), "{md}");
    assert!(md.contains("1. Eastham\n1. Westmere"), "{md}");
    assert!(
        md.contains("| Harbour | Range (m) | Notes |\n|---|---|---|"),
        "{md}"
    );
    assert!(md.contains("| Northport | 4.2 | spring \\| neap |"), "{md}");
    assert!(
        md.contains("![Map of the three harbours](image1.png)"),
        "{md}"
    );
    assert!(
        md.contains("March.[^1]") && md.contains("[^1]: Measured at the spring equinox."),
        "{md}"
    );
    assert_eq!(doc.title.as_deref(), Some("Tidal Survey Report"));
    assert_eq!(doc.byline.as_deref(), Some("Ada Marsh"));
    assert!(doc.published.is_some());
    assert_eq!(doc.page_type, PageType::Article);
    // Comments are not the document's text unless asked for.
    assert!(!md.contains("Check the March figure"), "{md}");
    let with = read_with(
        "report.docx",
        &ExtractOptions {
            include_comments: true,
            ..ExtractOptions::default()
        },
    );
    assert!(
        with.markdown
            .contains("Comment: Reviewer: Check the March figure"),
        "{}",
        with.markdown
    );
}

#[test]
fn spreadsheets_one_section_per_sheet() {
    let doc = read("survey.xlsx");
    assert_clean(&doc);
    assert_in_order(
        &doc.markdown,
        &[
            "## Tides",
            "| Harbour | Range (m) | Surveyed |",
            "| Northport | 4.2 | 2026-03-01 |",
            "## Crew",
            "| Ben Rook | boat \\| pilot |",
        ],
    );
    assert_eq!(doc.title.as_deref(), Some("Survey workbook"));
    assert_eq!(doc.byline.as_deref(), Some("Ada Marsh"));

    let xls = read("legacy.xls");
    assert_in_order(
        &xls.markdown,
        &[
            "## Legacy",
            "| Station | Depth |",
            "| Buoy 7 | 12.5 |",
            "| Buoy 9 | 8 |",
        ],
    );

    // A real xlsb (calamine's own test workbook; see tests/docs/PROVENANCE.md), read
    // through the streamed cell reader.
    let xlsb = read("calamine-issues.xlsb");
    assert_in_order(
        &xlsb.markdown,
        &[
            "## datatypes",
            "| 1.5 |",
            "| ab |",
            "## issue2",
            "| 2 | b |",
            "| 3 | c |",
        ],
    );

    let ods = read("readings.ods");
    assert_clean(&ods);
    assert_in_order(
        &ods.markdown,
        &["## Readings", "| Hour | Height |", "| 12:00 | 3.9 |"],
    );
}

#[test]
fn pptx_slides_in_order_with_titles_tables_charts_pictures_and_notes() {
    let doc = read("briefing.pptx");
    assert_clean(&doc);
    assert_in_order(
        &doc.markdown,
        &[
            "## Slide 1: Survey Briefing",
            "Spring 2026 results",
            "### Notes",
            "Welcome everyone; keep this under ten minutes.",
            "## Slide 2: Key Findings",
            "- Ranges rose at every harbour\n- Northport saw the largest change",
            "![Chart of harbour ranges](image1.png)",
            "Mention the March storm.",
            "## Slide 3: Numbers",
            "| Harbour | Range |",
            "| Southwick | 3.1 |",
            "Chart: Range by harbour",
            "| Northport | 4.2 |",
        ],
    );
    assert_eq!(doc.title.as_deref(), Some("Survey Briefing"));
}

#[test]
fn opendocument_text_and_presentation() {
    let odt = read("notes.odt");
    assert_clean(&odt);
    assert_in_order(
        &odt.markdown,
        &[
            "# Harbour Notes",
            "## Arrival",
            "[the harbour page](https://example.org/northport)",
            "[^1]",
            "- Moor the boat\n- Log the gauge",
            "| Gauge | Reading |",
            "| North | 4.1 |",
            "[^1]: Local time.",
        ],
    );
    assert_eq!(odt.byline.as_deref(), Some("Ben Rook"));

    let odp = read("harbour-day.odp");
    assert_clean(&odp);
    assert_in_order(
        &odp.markdown,
        &[
            "## Slide 1: Harbour Day",
            "Welcome aboard",
            "### Notes",
            "Smile.",
            "## Slide 2: Schedule",
            "Boats leave at nine",
            "Check the weather.",
        ],
    );
}

#[test]
fn epub_chapters_follow_the_spine() {
    let doc = read("tide-book.epub");
    assert_clean(&doc);
    // The spine reads chapter 3 before chapter 2, whatever the file names say.
    assert_in_order(
        &doc.markdown,
        &[
            "# Low Water",
            "chapter 1 of the book",
            "# Slack Water",
            "chapter 3",
            "# High Water",
            "chapter 2",
        ],
    );
    assert!(
        doc.markdown.contains("![Map of the flats]"),
        "{}",
        doc.markdown
    );
    assert_eq!(doc.title.as_deref(), Some("The Tide Book"));
    assert_eq!(doc.byline.as_deref(), Some("Cora Wells"));
    // The navigation document is not read as a chapter, nor the chapters' <title>.
    assert_eq!(
        doc.markdown.matches("Low Water").count(),
        1,
        "{}",
        doc.markdown
    );
}

#[test]
fn notebook_cells_fenced_with_the_kernel_language() {
    let doc = read("tides.ipynb");
    assert_clean(&doc);
    assert_in_order(
        &doc.markdown,
        &[
            "# Tide analysis",
            "We load the **readings** first.",
            "```python\nimport statistics",
            "```text\n3.65\n```",
            "```text\n{'peak': 'March'}\n```",
            "## Conclusion",
        ],
    );
    assert_eq!(doc.title.as_deref(), Some("Tide analysis"));
    // Served as JSON without a name, a notebook is still known by its shape.
    let (bytes, _) = fixture("tides.ipynb");
    let url = Url::parse("https://example.org/download?id=7").unwrap();
    let doc = extract(
        &bytes,
        Some("application/json"),
        &url,
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(
        doc.markdown.starts_with("# Tide analysis"),
        "{}",
        doc.markdown
    );
}

#[test]
fn csv_and_tsv_in_their_charsets() {
    let sjis = read("stations-sjis.csv");
    assert_eq!(
        sjis.markdown,
        "| 駅 | 人数 |\n|---|---|\n| 東京 | 120 |\n| 大阪 | 80 |\n"
    );
    let cp1252 = read("menu-1252.csv");
    assert_in_order(
        &cp1252.markdown,
        &["| Café | Price |", "| Crème brûlée | 4,50 € |"],
    );
    let utf16 = read("people-utf16.tsv");
    assert_in_order(
        &utf16.markdown,
        &["| name | note |", "| Zoë | naïve |", "| Łukasz | żółw |"],
    );
    // UTF-16 without its BOM, served as text/csv over HTTP.
    let text: Vec<u8> = "a,b\nZoë,1\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let url = Url::parse("https://example.org/x.csv").unwrap();
    let doc = extract(&text, Some("text/csv"), &url, &ExtractOptions::default()).unwrap();
    assert_eq!(doc.markdown, "| a | b |\n|---|---|\n| Zoë | 1 |\n");
}

#[test]
fn feeds_list_each_item() {
    let rss = read("harbour.rss");
    assert_clean(&rss);
    assert_in_order(
        &rss.markdown,
        &[
            "# Harbour News",
            "## [Spring tides arrive](https://example.org/news/spring)",
            "Sun, 01 Mar 2026",
            "The **highest** tides",
            "## [New buoy & gauge](https://example.org/news/buoy)",
            "*Buoy 7*",
        ],
    );
    assert_eq!(rss.page_type, PageType::Listing);
    let atom = read("harbour.atom");
    assert_in_order(
        &atom.markdown,
        &[
            "# Harbour Log",
            "## [Gauge check](https://example.org/log/1)",
            "2026-03-02T08:30:00Z",
            "All gauges read true.",
            "## [Storm *warning*](https://example.org/log/2)",
            "Boats stay in.",
        ],
    );
    assert_eq!(atom.byline.as_deref(), Some("Ada Marsh"));
    // Served as text/xml with no extension: known by its root element.
    let (bytes, _) = fixture("harbour.rss");
    let url = Url::parse("https://example.org/feed").unwrap();
    let doc = extract(&bytes, Some("text/xml"), &url, &ExtractOptions::default()).unwrap();
    assert!(doc.markdown.starts_with("# Harbour News"));
}

#[test]
fn archive_members_converted_in_turn() {
    let doc = read("bundle.zip");
    assert_clean(&doc);
    assert_in_order(
        &doc.markdown,
        &[
            "## readme.md",
            "# Survey bundle",
            "## data/tides.csv",
            "| Northport | 4.2 |",
            "## notes/summary.txt",
            "Ranges rose everywhere.",
            "## data/survey.xlsx",
            "## Tides",
            "| Southwick | 3.1 | 2026-03-02 |",
        ],
    );
}

#[test]
fn detected_by_magic_bytes_whatever_the_name_or_type() {
    // Office files served as octet-stream from a URL with no extension, and from stdin.
    for (name, needle) in [
        ("report.docx", "# Methods"),
        ("briefing.pptx", "## Slide 1"),
        ("survey.xlsx", "## Tides"),
        ("notes.odt", "## Arrival"),
        ("tide-book.epub", "# Low Water"),
    ] {
        let (bytes, _) = fixture(name);
        for (ct, url) in [
            (
                Some("application/octet-stream"),
                "https://example.org/get?id=1",
            ),
            (None, "file:///dev/stdin"),
        ] {
            let doc = extract(
                &bytes,
                ct,
                &Url::parse(url).unwrap(),
                &ExtractOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{name} as {ct:?}: {}", e.message));
            assert!(
                doc.markdown.contains(needle),
                "{name} as {ct:?}:\n{}",
                doc.markdown
            );
        }
    }
    // A generic application/zip type on a docx: what is inside decides.
    let (bytes, _) = fixture("report.docx");
    let doc = extract(
        &bytes,
        Some("application/zip"),
        &Url::parse("https://example.org/a").unwrap(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(doc.markdown.contains("# Methods"));
}

#[test]
fn html_never_inlines_data_uris() {
    let html = br#"<html><body><article><h1>Chart</h1><p>Some words about the chart, long enough to be the main content of the page for sure.</p>
        <p><img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" alt="A chart"></p>
        <p><img data-src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Lazy"></p>
        <p><a href="data:text/html;base64,PHNjcmlwdD4=">a data link</a> and more words to read here.</p></article></body></html>"#;
    let doc = extract(
        html,
        Some("text/html"),
        &Url::parse("https://example.org/").unwrap(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(doc.markdown.contains("A chart"), "{}", doc.markdown);
    assert!(doc.markdown.contains("a data link"), "{}", doc.markdown);
    assert!(!doc.markdown.contains("data:"), "{}", doc.markdown);
    assert!(!doc.markdown.contains("base64"), "{}", doc.markdown);
}

// ---- hostile documents -------------------------------------------------------------------

/// A ZIP of `members` (name, bytes), deflated.
fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default()
        .compression_level(Some(1))
        .large_file(true);
    for (name, bytes) in members {
        w.start_file(*name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A ZIP whose one member `name` expands to `size` bytes of `fill`, written in chunks so
/// the expanded bytes never exist here either.
fn bomb(name: &str, size: usize, prefix: &[u8], fill: &[u8]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default()
        .compression_level(Some(9))
        .large_file(true);
    w.start_file(name, opts).unwrap();
    w.write_all(prefix).unwrap();
    let chunk: Vec<u8> = fill.iter().copied().cycle().take(1 << 20).collect();
    let mut written = prefix.len();
    while written < size {
        w.write_all(&chunk).unwrap();
        written += chunk.len();
    }
    w.finish().unwrap().into_inner()
}

fn minimal_xlsx_parts() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("[Content_Types].xml", br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#.to_vec()),
        ("_rels/.rels", br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.to_vec()),
        ("xl/workbook.xml", br#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Big" sheetId="1" r:id="rId1"/></sheets></workbook>"#.to_vec()),
        ("xl/_rels/workbook.xml.rels", br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#.to_vec()),
    ]
}

const SHEET_HEAD: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#;

/// An xlsx of `rows` rows of two cells (small: it compresses well).
fn xlsx_rows(rows: usize) -> Vec<u8> {
    let mut sheet = SHEET_HEAD.to_vec();
    for r in 1..=rows {
        sheet.extend_from_slice(format!(r#"<row r="{r}"><c r="A{r}"><v>{r}</v></c><c r="B{r}" t="inlineStr"><is><t>row {r}</t></is></c></row>"#).as_bytes());
    }
    sheet.extend_from_slice(b"</sheetData></worksheet>");
    let mut parts = minimal_xlsx_parts();
    parts.push(("xl/worksheets/sheet1.xml", sheet));
    let members: Vec<(&str, &[u8])> = parts.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    zip_of(&members)
}

/// An xlsx whose sheet XML expands to `size` bytes.
fn huge_xlsx(size: usize) -> Vec<u8> {
    let parts = minimal_xlsx_parts();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default()
        .compression_level(Some(1))
        .large_file(true);
    for (name, bytes) in &parts {
        w.start_file(*name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.start_file("xl/worksheets/sheet1.xml", opts).unwrap();
    w.write_all(SHEET_HEAD).unwrap();
    let row = br#"<row><c t="inlineStr"><is><t>padding padding padding</t></is></c></row>"#;
    let chunk: Vec<u8> = row
        .iter()
        .copied()
        .cycle()
        .take(row.len() * 16_384)
        .collect();
    let mut written = 0;
    while written < size {
        w.write_all(&chunk).unwrap();
        written += chunk.len();
    }
    w.write_all(b"</sheetData></worksheet>").unwrap();
    w.finish().unwrap().into_inner()
}

const LAUGHS: &str = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>"#;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn refused(result: Result<Document, TrawlError>) -> TrawlError {
    match result {
        Ok(doc) => panic!("read, {} bytes of Markdown", doc.markdown.len()),
        Err(e) => e,
    }
}

fn docx_with_body(body_xml: &str) -> Vec<u8> {
    let (bytes, _) = fixture("report.docx");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut members = Vec::new();
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).unwrap();
        let name = f.name().unwrap().into_owned();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut data).unwrap();
        if name == "word/document.xml" {
            data = body_xml.as_bytes().to_vec();
        }
        members.push((name, data));
    }
    let refs: Vec<(&str, &[u8])> = members
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    zip_of(&refs)
}

#[test]
fn billion_laughs_and_external_entities_are_refused() {
    let opts = ExtractOptions::default();
    // In a feed.
    let feed =
        format!("{LAUGHS}<rss version=\"2.0\"><channel><title>&lol9;</title></channel></rss>");
    let e = refused(extract(
        feed.as_bytes(),
        Some("application/rss+xml"),
        &url("https://example.org/f"),
        &opts,
    ));
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert!(e.message.contains("DTD or entities"), "{}", e.message);
    // In a docx part.
    let body = format!(
        "{LAUGHS}<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"
    );
    let e = refused(extract(
        &docx_with_body(&body),
        None,
        &url("https://example.org/a.docx"),
        &opts,
    ));
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert!(e.message.contains("word/document.xml"), "{}", e.message);
    // An external entity is never resolved, whatever it names.
    let xxe = r#"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><title>&x;</title></channel></rss>"#;
    let e = refused(extract(
        xxe.as_bytes(),
        Some("application/rss+xml"),
        &url("https://example.org/f"),
        &opts,
    ));
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert!(!e.message.contains("root:"), "{}", e.message);
    // An entity used without a declaration is not expanded either.
    let bare = r#"<rss version="2.0"><channel><title>&lol9;</title></channel></rss>"#;
    assert_eq!(
        refused(extract(
            bare.as_bytes(),
            Some("application/rss+xml"),
            &url("https://example.org/f"),
            &opts
        ))
        .code,
        ErrorCode::UnsupportedContent
    );
}

#[test]
fn deep_nesting_and_too_many_members_are_refused() {
    let deep = format!(
        "<rss version=\"2.0\"><channel>{}{}</channel></rss>",
        "<x>".repeat(10_000),
        "</x>".repeat(10_000)
    );
    let e = refused(extract(
        deep.as_bytes(),
        Some("application/rss+xml"),
        &url("https://example.org/f"),
        &ExtractOptions::default(),
    ));
    assert_eq!(e.code, ErrorCode::TooLarge);
    assert!(e.message.contains("nesting"), "{}", e.message);

    let names: Vec<String> = (0..50).map(|i| format!("f{i}.txt")).collect();
    let members: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    let archive = zip_of(&members);
    let budget = DocBudget {
        max_members: 20,
        ..DocBudget::default()
    };
    let e = refused(extract_with_budget(
        &archive,
        None,
        &url("https://example.org/a.zip"),
        &ExtractOptions::default(),
        &budget,
    ));
    assert_eq!(e.code, ErrorCode::TooLarge);
    assert!(e.message.contains("50 members"), "{}", e.message);

    // An archive inside an archive inside an archive: past the nesting cap.
    let inner = zip_of(&[("a.txt", b"deepest")]);
    let middle = zip_of(&[("inner.zip", &inner)]);
    let outer = zip_of(&[("middle.zip", &middle)]);
    let doc = extract(
        &outer,
        None,
        &url("https://example.org/o.zip"),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(
        doc.markdown.contains("nest more than 2 deep"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("deepest"), "{}", doc.markdown);
}

#[test]
fn long_sheets_and_csvs_keep_their_first_rows() {
    let budget = DocBudget {
        max_rows: 100,
        ..DocBudget::default()
    };
    let doc = extract_with_budget(
        &xlsx_rows(250),
        None,
        &url("https://example.org/big.xlsx"),
        &ExtractOptions::default(),
        &budget,
    )
    .unwrap();
    assert!(
        doc.markdown.contains("| 100 | row 100 |"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("row 102"), "{}", doc.markdown);
    assert!(
        doc.markdown
            .contains("149 more rows past the first 100 not read"),
        "{}",
        doc.markdown
    );

    let csv: String = (0..250).map(|i| format!("{i},v{i}\n")).collect();
    let doc = extract_with_budget(
        csv.as_bytes(),
        Some("text/csv"),
        &url("https://example.org/a.csv"),
        &ExtractOptions::default(),
        &budget,
    )
    .unwrap();
    assert!(doc.markdown.contains("| 100 | v100 |"));
    assert!(!doc.markdown.contains("v101"));
    assert!(doc.markdown.contains("149 more rows"), "{}", doc.markdown);
}

/// Peak resident memory of this process, from the kernel.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

const CHILD: &str = "TRAWL_DOCS_BOMB_CHILD";

/// The bombs, each refused with a typed error under the default caps. Run in a child
/// process (below) so its peak memory is its own.
fn read_the_bombs() {
    let opts = ExtractOptions::default();
    // 256 MiB of zeros in one member of a ZIP under 4 MB, then a docx whose document.xml
    // is one.
    let zeros = bomb("zeros.bin", 256 << 20, b"", &[0]);
    assert!(zeros.len() < 4 << 20, "{} bytes", zeros.len());
    let e = refused(extract(
        &zeros,
        Some("application/zip"),
        &url("https://example.org/b.zip"),
        &opts,
    ));
    assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
    assert!(
        e.message.contains("ZIP bomb") && e.message.contains("64 MiB"),
        "{}",
        e.message
    );
    assert!(!e.retryable);

    let word = bomb(
        "word/document.xml",
        128 << 20,
        b"<w:document xmlns:w=\"w\"><w:body>",
        b"<w:p><w:r><w:t>lol</w:t></w:r></w:p>",
    );
    let e = refused(extract(
        &word,
        None,
        &url("https://example.org/b.docx"),
        &opts,
    ));
    assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
    assert!(e.message.contains("word/document.xml"), "{}", e.message);

    // A 100 MB spreadsheet (its sheet XML, expanded).
    let sheet = huge_xlsx(100 << 20);
    assert!(sheet.len() < 4 << 20, "{} bytes", sheet.len());
    let e = refused(extract(
        &sheet,
        None,
        &url("https://example.org/huge.xlsx"),
        &opts,
    ));
    assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
    assert!(
        e.message.contains("xl/worksheets/sheet1.xml"),
        "{}",
        e.message
    );
}

#[test]
fn bombs_end_in_typed_errors_within_bounded_memory() {
    if std::env::var_os(CHILD).is_some() {
        let before = peak_rss_kib();
        read_the_bombs();
        println!("PEAK_RSS_KIB before={before} after={}", peak_rss_kib());
        return;
    }
    // The test's name in this binary: its module path without the crate's own name.
    let name = concat!(
        module_path!(),
        "::bombs_end_in_typed_errors_within_bounded_memory"
    );
    let name = name.split_once("::").map_or(name, |(_, rest)| rest);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.contains("PEAK_RSS_KIB"))
        .unwrap_or_else(|| panic!("no measurement in:\n{stdout}"));
    let after: u64 = line.rsplit("after=").next().unwrap().parse().unwrap();
    // The bombs expand to 256 MiB, 128 MiB and 100 MiB and the cap lets 64 MiB be read: an
    // unbounded read of the first alone would hold 256 MiB. (Measured: about 80 MiB for
    // the whole child process, harness and compressed bombs included.)
    assert!(after < 150 * 1024, "peak RSS {after} KiB: {line}");
}

#[test]
fn the_time_cap_ends_a_read_with_a_typed_error() {
    let (bytes, url) = fixture("report.docx");
    let budget = DocBudget {
        max_time: std::time::Duration::ZERO,
        ..DocBudget::default()
    };
    let e = refused(extract_with_budget(
        &bytes,
        None,
        &url,
        &ExtractOptions::default(),
        &budget,
    ));
    assert_eq!(e.code, ErrorCode::Timeout, "{}", e.message);
    assert!(!e.retryable, "the same bytes would take as long again");
    // The default budget reads the same file.
    assert!(
        extract_with_budget(
            &bytes,
            None,
            &url,
            &ExtractOptions::default(),
            &DocBudget::default()
        )
        .is_ok()
    );
}

#[test]
fn legacy_compound_files_other_than_xls_say_what_they_are() {
    // An .xls is an OLE2 compound file too, and is read whatever its name.
    let (xls, _) = fixture("legacy.xls");
    let doc = extract(
        &xls,
        None,
        &url("file:///dev/stdin"),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(doc.markdown.contains("## Legacy"), "{}", doc.markdown);
    // The same signature with no workbook inside (a .msg, .doc or .ppt): a clear refusal.
    let mut msg = xls.clone();
    msg.truncate(512);
    msg.resize(4096, 0);
    let e = refused(extract(
        &msg,
        None,
        &url("https://example.org/mail.msg"),
        &ExtractOptions::default(),
    ));
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert!(e.message.contains("Outlook .msg"), "{}", e.message);
    // Named .xls, the broken file reaches calamine, which panics on it: a typed error.
    let e = refused(extract(
        &msg,
        None,
        &url("https://example.org/broken.xls"),
        &ExtractOptions::default(),
    ));
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert!(e.message.contains("spreadsheet"), "{}", e.message);
}

/// Every fixture with bytes changed here and there (a fixed xorshift sequence, so the
/// same files every run) is read or refused, never a panic.
#[test]
fn damaged_documents_are_errors_not_panics() {
    let names = [
        "report.docx",
        "survey.xlsx",
        "legacy.xls",
        "readings.ods",
        "briefing.pptx",
        "notes.odt",
        "harbour-day.odp",
        "tide-book.epub",
        "tides.ipynb",
        "harbour.rss",
        "harbour.atom",
        "bundle.zip",
        "people-utf16.tsv",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in names {
        let (bytes, url) = fixture(name);
        for round in 0..60 {
            let mut damaged = bytes.clone();
            for _ in 0..1 + round % 8 {
                let at = (next() as usize) % damaged.len();
                damaged[at] = next() as u8;
            }
            if round % 10 == 9 {
                damaged.truncate((next() as usize) % damaged.len());
            }
            let ext = name.rsplit('.').next().unwrap();
            let outcome = std::panic::catch_unwind(|| {
                // A damaged file is refused with a reason, or read without leaking the
                // container's markup into the text.
                match extract(
                    &damaged,
                    content_type_for_extension(ext),
                    &url,
                    &ExtractOptions::default(),
                ) {
                    Ok(doc) => {
                        for tag in ["<w:", "<a:t", "<text:", "<office:", "</sst"] {
                            assert!(!doc.markdown.contains(tag), "{name} round {round}: {tag}");
                        }
                    }
                    Err(e) => assert!(!e.message.is_empty(), "{name} round {round}"),
                }
            });
            assert!(outcome.is_ok(), "{name} round {round} panicked");
        }
    }
}

#[test]
fn an_archive_member_that_cannot_be_expanded_is_named_and_skipped() {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    w.start_file("odd.txt", stored).unwrap();
    w.write_all(b"never shown").unwrap();
    w.start_file("fine.txt", stored).unwrap();
    w.write_all(b"shown as it is").unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    // Mark the first member bzip2 (method 12), which this build does not expand: in its
    // local header (offset 8) and its central directory entry (offset 10).
    bytes[8] = 12;
    let central = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    bytes[central + 10] = 12;
    let doc = extract(
        &bytes,
        Some("application/zip"),
        &url("https://example.org/a.zip"),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(doc.markdown.contains("## odd.txt"), "{}", doc.markdown);
    assert!(!doc.markdown.contains("never shown"), "{}", doc.markdown);
    assert!(
        doc.markdown.contains("## fine.txt\n\nshown as it is"),
        "{}",
        doc.markdown
    );
}

/// Issue 44: each feed item says who wrote it, beside its date (Atom's author name, RSS's
/// author, Dublin Core's creator).
#[test]
fn feed_items_name_their_authors() {
    let url = Url::parse("https://example.org/feed").unwrap();
    let rss = b"<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\
<channel><title>Quay</title><item><title>Low water</title><link>https://example.org/a</link>\
<pubDate>Mon, 02 Mar 2026 08:00:00 GMT</pubDate><dc:creator>Ben Tide</dc:creator>\
<description>Mind the mud.</description></item></channel></rss>";
    let doc = extract(
        rss,
        Some("application/rss+xml"),
        &url,
        &ExtractOptions::default(),
    )
    .unwrap();
    assert_in_order(
        &doc.markdown,
        &[
            "## [Low water](https://example.org/a)",
            "*Mon, 02 Mar 2026 08:00:00 GMT · Ben Tide*",
            "Mind the mud.",
        ],
    );
    let atom = b"<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Log</title>\
<entry><title>Gauge</title><link href=\"https://example.org/1\"/><updated>2026-03-02T08:30:00Z</updated>\
<author><name>Ada Marsh</name></author><summary>Reads true.</summary></entry></feed>";
    let doc = extract(
        atom,
        Some("application/atom+xml"),
        &url,
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(
        doc.markdown.contains("*2026-03-02T08:30:00Z · Ada Marsh*"),
        "{}",
        doc.markdown
    );
}

/// Issue 44: XHTML (as EPUB chapters are written) with an internal DTD subset leaves no
/// stray `]>`, and the line before a quote is blank, not a bare `>`.
#[test]
fn an_internal_subset_and_a_quote_after_a_paragraph_read_clean() {
    let url = Url::parse("https://example.org/ch1.xhtml").unwrap();
    let page = "<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.1//EN\" \"x.dtd\" [\n\
<!ENTITY nbsp \"&#160;\">\n]>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>Tides</title></head>\
<body><h1>Tides</h1><p>The tide tables list the times of high and low water at each harbour of the coast.</p>\
<blockquote><p><em>Said</em> the keeper.</p><p>Second line.</p></blockquote></body></html>";
    let doc = extract(
        page.as_bytes(),
        Some("application/xhtml+xml"),
        &url,
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(!doc.markdown.contains("]>"), "{}", doc.markdown);
    assert!(
        doc.markdown
            .contains("coast.\n\n> *Said* the keeper.\n>\n> Second line."),
        "{}",
        doc.markdown
    );
}

/// Issue 44: a web page inside a ZIP (or read from a file) keeps its links: addresses as
/// they are, links to other files relative, as written.
#[test]
fn html_in_an_archive_keeps_its_links() {
    use std::io::Write;
    let page = "<html><head><title>Guide</title></head><body><article><h1>Guide</h1><p>The harbour \
has <a href=\"https://example.org/tides\">tide tables</a>, <a href=\"berths.html\">a list of berths</a> \
and <a href=\"/rules\">rules</a> for visiting boats and their crews in every season.</p></article></body></html>";
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("site/page.html", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(page.as_bytes()).unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let url = Url::parse("file:///home/me/bundle.zip").unwrap();
    let doc = extract(
        &bytes,
        Some("application/zip"),
        &url,
        &ExtractOptions::default(),
    )
    .unwrap();
    for link in [
        "[tide tables](https://example.org/tides)",
        "[a list of berths](berths.html)",
        "[rules](/rules)",
    ] {
        assert!(doc.markdown.contains(link), "{link} in {}", doc.markdown);
    }
    assert!(!doc.markdown.contains("file://"), "{}", doc.markdown);
}

/// Issue 44: a document that carries its own metadata opens with it, in the Markdown an
/// agent or a pipe reads: `# Title`, then a line each for authors, date, language and
/// description (a first chapter's heading is not the book's title).
#[test]
fn documents_open_with_a_front_block() {
    let epub = read("tide-book.epub");
    assert!(
        epub.markdown
            .starts_with("# The Tide Book\n\nAuthors: Cora Wells  \nLanguage: en\n\n# Low Water"),
        "{}",
        epub.markdown
    );
    assert_eq!(epub.language.as_deref(), Some("en"));
    let docx = read("report.docx");
    assert_in_order(
        &docx.markdown,
        &[
            "# Tidal Survey Report\n\nAuthors: Ada Marsh  \nDate: 2013-12-23T23:15:00Z",
            "# Methods",
        ],
    );
    assert_eq!(docx.markdown.matches("# Tidal Survey Report").count(), 1);
    let pptx = read("briefing.pptx");
    assert!(
        pptx.markdown
            .starts_with("# Survey Briefing\n\nAuthors: Ada Marsh"),
        "{}",
        pptx.markdown
    );
}

/// Issue 44: an Outlook message (.msg) reads as `# Subject`, a From/To/Cc/Date block, the
/// body, and its attachments read like archive members. A real message written by Outlook
/// first (see tests/docs/PROVENANCE.md), then one built by hand with every part.
#[test]
fn an_outlook_message_reads_as_subject_header_body_and_attachments() {
    let real = read("test-file.msg");
    assert!(
        real.markdown
            .starts_with("# MSG Test File\n\nTo: time2talk@online-convert.com\n\n"),
        "{}",
        real.markdown
    );
    assert!(real.markdown.contains("John Doe"), "{}", real.markdown);
    assert_eq!(real.title.as_deref(), Some("MSG Test File"));

    use std::io::Write;
    let mut file = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).unwrap();
    let mut put = |path: &str, bytes: &[u8]| {
        file.create_stream(path).unwrap().write_all(bytes).unwrap();
    };
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    put("/__substg1.0_0037001F", &utf16("Tide gauge readings"));
    put("/__substg1.0_0C1A001F", &utf16("Ada Marsh"));
    put("/__substg1.0_5D01001F", &utf16("ada@example.org"));
    put("/__substg1.0_0E04001F", &utf16("Ben Rook; Cora Wells"));
    put("/__substg1.0_0E03001F", &utf16("Harbour Office"));
    put("/__substg1.0_1000001F", &utf16("Plain copy of the body."));
    put(
        "/__substg1.0_10130102",
        b"<html><body><p>The gauges read <b>true</b> this week; see <a href=\"https://example.org/gauges\">the gauge page</a>.</p></body></html>",
    );
    // The fixed-size properties: a 32-byte header, then PR_CLIENT_SUBMIT_TIME (0x0039,
    // PT_SYSTIME) = 2026-03-02T08:30:00Z as a FILETIME.
    let mut props = vec![0u8; 32];
    props.extend_from_slice(&0x0039_0040u32.to_le_bytes());
    props.extend_from_slice(&6u32.to_le_bytes());
    let ticks: u64 = (1_772_440_200 + 11_644_473_600) * 10_000_000;
    props.extend_from_slice(&ticks.to_le_bytes());
    put("/__properties_version1.0", &props);
    file.create_storage("/__nameid_version1.0").unwrap();
    file.create_storage("/__attach_version1.0_#00000000")
        .unwrap();
    let mut put = |path: &str, bytes: &[u8]| {
        file.create_stream(path).unwrap().write_all(bytes).unwrap();
    };
    put(
        "/__attach_version1.0_#00000000/__substg1.0_3707001F",
        &utf16("readings.csv"),
    );
    put(
        "/__attach_version1.0_#00000000/__substg1.0_37010102",
        b"harbour,range\nNorthport,4.2\n",
    );
    let bytes = file.into_inner().into_inner();

    let url = Url::parse("file:///home/me/readings.msg").unwrap();
    let doc = extract(
        &bytes,
        content_type_for_extension("msg"),
        &url,
        &ExtractOptions::default(),
    )
    .unwrap();
    assert_in_order(
        &doc.markdown,
        &[
            "# Tide gauge readings\n\nFrom: Ada Marsh <ada@example.org>  \nTo: Ben Rook; Cora Wells  \nCc: Harbour Office  \nDate: 2026-03-02T08:30:00Z\n\n",
            "The gauges read **true** this week; see [the gauge page](https://example.org/gauges).",
            "## Attachments",
            "### readings.csv",
            "| Northport | 4.2 |",
        ],
    );
    assert!(
        !doc.markdown.contains("Plain copy"),
        "the HTML body is the one read"
    );
    assert_eq!(doc.byline.as_deref(), Some("Ada Marsh <ada@example.org>"));
    assert_eq!(doc.published.as_deref(), Some("2026-03-02T08:30:00Z"));
}
