//! PDFs as written by reportlab (`tests/pdf/make.py`): tables, ruled and borderless, come
//! back as GFM tables with exact cells, the text around them in reading order; a
//! two-column article and a long report stay prose; a scan is `no_text_layer`.

use trawl_core::{ErrorCode, TrawlError};
use trawl_extract::{ExtractOptions, extract};

fn read(name: &str) -> Result<trawl_core::Document, TrawlError> {
    let path = format!("{}/tests/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let url = url::Url::parse(&format!("https://example.com/{name}")).unwrap();
    extract(
        &bytes,
        Some("application/pdf"),
        &url,
        &ExtractOptions::default(),
    )
}

/// The PDF's text as drawn: its Markdown after the front block (the `# Title` and the
/// Authors/Date lines made from its information dictionary), which
/// [`the_front_block_comes_from_the_information_dictionary`] checks.
fn markdown(name: &str) -> String {
    let md = read(name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .markdown;
    match md.strip_prefix("# ") {
        Some(rest) => {
            let after_title = rest.split_once("\n\n").map_or("", |(_, b)| b);
            let fronted = after_title.lines().next().is_some_and(|l| {
                ["Authors: ", "Date: ", "Language: ", "Description: "]
                    .iter()
                    .any(|p| l.starts_with(p))
            });
            if fronted {
                after_title
                    .split_once("\n\n")
                    .map_or("", |(_, b)| b)
                    .to_owned()
            } else {
                after_title.to_owned()
            }
        }
        None => md,
    }
}

/// A PDF's own title, author and date open its Markdown; the placeholders its writer
/// fills in (reportlab's `(unspecified)` subject) do not.
#[test]
fn the_front_block_comes_from_the_information_dictionary() {
    let doc = read("two-column.pdf").unwrap();
    assert!(
        doc.markdown.starts_with(
            "# Harbour life\n\nAuthors: trawl fixtures  \nDate: 2000-01-01T00:00:00+00:00\n\nLife in a small harbour town"
        ),
        "{}",
        doc.markdown
    );
    assert_eq!(doc.title.as_deref(), Some("Harbour life"));
    assert_eq!(doc.byline.as_deref(), Some("trawl fixtures"));
    assert_eq!(doc.published.as_deref(), Some("2000-01-01T00:00:00+00:00"));
    assert_eq!(doc.description, None);
}

/// The GFM tables of a Markdown text, each as rows of trimmed cells (the rule row left out).
fn tables(markdown: &str) -> Vec<Vec<Vec<String>>> {
    let mut out: Vec<Vec<Vec<String>>> = Vec::new();
    let mut open = false;
    for line in markdown.lines() {
        let Some(inner) = line.strip_prefix('|').and_then(|l| l.strip_suffix('|')) else {
            open = false;
            continue;
        };
        if !open {
            out.push(Vec::new());
            open = true;
        }
        if inner.split('|').all(|c| c == "---") {
            continue;
        }
        let cells = inner.split('|').map(|c| c.trim().to_owned()).collect();
        out.last_mut().unwrap().push(cells);
    }
    out
}

fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|c| (*c).to_owned()).collect())
        .collect()
}

/// `needles` appear in `text` in this order.
fn in_order(text: &str, needles: &[&str]) {
    let mut from = 0;
    for needle in needles {
        let at = text[from..]
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing or out of order in:\n{text}"));
        from += at + needle.len();
    }
}

const STATIONS: &[&[&str]] = &[
    &["Station", "Region", "Rain mm", "Wind km/h"],
    &["North Point", "Coast", "12.5", "41"],
    &["Mill Hill", "Inland", "3.0", "12"],
    &["Harbour Light", "Coast", "18.25", "56"],
    &["Stone Cross", "Uplands", "7.75", "33"],
];

#[test]
fn a_ruled_table_is_a_gfm_table_between_its_paragraphs() {
    let md = markdown("ruled-table.pdf");
    assert_eq!(tables(&md), [rows(STATIONS)], "{md}");
    in_order(
        &md,
        &[
            "Weather stations (ruled)",
            "taken at noon by each station's keeper.",
            "\n\n| Station | Region | Rain mm | Wind km/h |\n|---|---|---|---|\n",
            "| Stone Cross | Uplands | 7.75 | 33 |\n\n",
            "Wind speeds are the strongest gust of the week.",
        ],
    );
    // The cells are only in the table, not repeated as loose lines.
    assert_eq!(md.matches("Harbour Light").count(), 1, "{md}");
}

#[test]
fn a_borderless_table_is_found_by_its_columns() {
    let md = markdown("borderless-table.pdf");
    assert_eq!(tables(&md), [rows(STATIONS)], "{md}");
    in_order(
        &md,
        &[
            "Weather stations (borderless)",
            "| Station |",
            "| Stone Cross |",
            "Wind speeds are",
        ],
    );
}

#[test]
fn an_invoice_has_its_items_and_totals_as_tables() {
    let md = markdown("invoice.pdf");
    let items: &[&[&str]] = &[
        &["Item", "Description", "Qty", "Unit price", "Amount"],
        &["HB-100", "Mooring rope, 20 m", "4", "35.00", "140.00"],
        &["HB-210", "Fender, large", "2", "48.50", "97.00"],
        &["HB-305", "Bilge pump service", "1", "120.00", "120.00"],
        &[
            "HB-410",
            "Chart of the north channel",
            "3",
            "12.00",
            "36.00",
        ],
    ];
    let totals: &[&[&str]] = &[
        &["Subtotal", "393.00"],
        &["VAT 20%", "78.60"],
        &["Total due", "471.60"],
    ];
    assert_eq!(tables(&md), [rows(items), rows(totals)], "{md}");
    in_order(
        &md,
        &[
            "Harbour Chandlery Ltd",
            "Invoice number: INV-2026-0142",
            "Invoice date: 2026-11-02",
            "| Item |",
            "| Subtotal |",
            "Payment within 30 days",
        ],
    );
}

#[test]
fn a_form_keeps_its_empty_answer_cell() {
    let md = markdown("form.pdf");
    let fields: &[&[&str]] = &[
        &["Field", "Answer"],
        &["Full name", "Mara Quill"],
        &["Date of birth", "1988-04-17"],
        &["Vessel", "Grey Heron"],
        &["Licence class", "B (coastal)"],
        &["Signed", ""],
    ];
    assert_eq!(tables(&md), [rows(fields)], "{md}");
    in_order(
        &md,
        &[
            "Mooring licence application",
            "| Field |",
            "Office use only",
        ],
    );
}

#[test]
fn a_statement_over_two_pages_is_one_table_a_page_with_empty_cells_kept() {
    let md = markdown("statement.pdf");
    let found = tables(&md);
    assert_eq!(found.len(), 2, "{md}");
    let header = ["Date", "Description", "Debit", "Credit", "Balance"];
    for table in &found {
        assert_eq!(table[0], header, "{md}");
        assert!(table.iter().all(|r| r.len() == 5), "{md}");
    }
    let body: Vec<&Vec<String>> = found.iter().flat_map(|t| &t[1..]).collect();
    assert_eq!(body.len(), 60, "every transaction once: {md}");
    assert_eq!(
        *body[0],
        ["2026-10-01", "Card payment shop 1", "10.50", "", "1239.50"]
    );
    assert_eq!(
        *body[2],
        [
            "2026-10-03",
            "Transfer from savings 3",
            "",
            "43.00",
            "1266.75"
        ]
    );
    assert_eq!(
        *body[59],
        [
            "2026-11-29",
            "Transfer from savings 60",
            "",
            "100.00",
            "1866.25"
        ]
    );
    in_order(
        &md,
        &[
            "Opening balance 1250.00.",
            "| Date |",
            "| Date |",
            "Closing balance 1866.25.",
        ],
    );
}

#[test]
fn a_two_column_article_is_prose_in_column_order_not_a_table() {
    let md = markdown("two-column.pdf");
    assert!(tables(&md).is_empty(), "{md}");
    assert!(!md.contains('|'), "{md}");
    // Each column is read to its end before the next: the first paragraph whole (it ends
    // in the left column), then the next ones, in the order they were written.
    in_order(
        &md,
        &[
            "Life in a small harbour town",
            "The harbour opens at dawn and the first boats\nleave before the tide turns.",
            "the weather into a ledger every evening at six.\n\nFishermen mend their nets",
        ],
    );
    let words: Vec<String> = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/tests/pdf/two-column.words.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    let got: Vec<&str> = md.split_whitespace().collect();
    assert_eq!(got, words, "every word, in reading order");
}

#[test]
fn a_long_report_has_no_table_and_every_word() {
    let md = markdown("long-report.pdf");
    assert!(!md.contains('|'), "no table in prose");
    let words: Vec<String> = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/tests/pdf/long-report.words.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    // Page numbers aside (reportlab writes none here), the words are the report's.
    let got: Vec<&str> = md.split_whitespace().collect();
    assert_eq!(got.len(), words.len());
    assert_eq!(got, words);
}

#[test]
fn a_scanned_pdf_says_it_has_no_text_layer() {
    let err = read("scanned.pdf").expect_err("a scan has no text to give");
    assert_eq!(err.code, ErrorCode::NoTextLayer, "{}", err.message);
    assert_eq!(err.code.as_str(), "no_text_layer");
    assert!(!err.retryable);
    assert!(err.message.contains("1 page, 1 image"), "{}", err.message);
    assert!(err.message.contains("OCR"), "{}", err.message);
}

#[test]
fn fpdf2_tables_bordered_cell_by_cell_and_borderless_read_the_same() {
    let md = markdown("fpdf-tables.pdf");
    let parts: &[&[&str]] = &[
        &["Part", "Material", "Weight kg", "Price"],
        &["Anchor", "Galvanised steel", "15", "210.00"],
        &["Cleat", "Bronze", "0.8", "34.50"],
        &["Block", "Ash and brass", "1.2", "58.00"],
    ];
    assert_eq!(tables(&md), [rows(parts), rows(parts)], "{md}");
    in_order(
        &md,
        &[
            "with their weights.",
            "| Part |",
            "listed without borders:",
            "| Part |",
            "Prices include delivery",
        ],
    );
}

#[test]
fn a_wrapped_cell_stays_in_its_row_aligned_to_the_top_or_the_bottom() {
    let md = markdown("wrapped-cells.pdf");
    let notes: &[&[&str]] = &[
        &["Berth", "Length m", "Notes"],
        &["A1", "24", "Fuel on the quay"],
        &[
            "A2",
            "18",
            "Shallow at low water, keep to the north side of the berth when leaving",
        ],
        &["B1", "30", "Crane access"],
        &[
            "B2",
            "12",
            "Small boats only, rafting allowed up to three deep in summer months",
        ],
        &["C1", "40", "Ferry berth"],
    ];
    assert_eq!(tables(&md), [rows(notes), rows(notes)], "{md}");
    in_order(
        &md,
        &[
            "Berth notes",
            "| Berth |",
            "aligned to the bottom:",
            "| Berth |",
            "| C1 | 40 | Ferry berth |\n\nAsk the harbour master",
        ],
    );
}
