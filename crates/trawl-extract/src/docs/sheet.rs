//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods): each sheet a `## Sheet` section holding a
//! GFM table, the row and column caps applied while reading. A ZIP workbook is expanded
//! once under the budget before it is read, since calamine expands members itself; xlsx
//! and xlsb sheets are then streamed cell by cell through calamine and ods through
//! [`ods`], so a sheet's claimed size (or a repeat count) never becomes an allocation.
//! Legacy xls is laid out densely by calamine, so each sheet's area is found first
//! ([`xls_scan`]) and a sheet spanning more than four times the cells shown is refused as
//! `too_large`, naming its dimensions.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use calamine::{Data, DataRef, Reader, Sheets, Xlsb, Xlsx, open_workbook_auto_from_rs};

use crate::docs::budget::{DocError, Meter};
use crate::docs::package::{Package, is_zip};
use crate::docs::{Converted, gfm, ods, ooxml_sheet, xls_scan};

fn malformed(e: impl std::fmt::Display) -> DocError {
    DocError::Malformed {
        format: "spreadsheet",
        why: e.to_string(),
    }
}

/// Whether an OLE2 compound file is an Excel workbook: it holds a BIFF workbook stream the
/// compound-file reader can read. calamine is not asked: it lays every sheet out densely
/// while opening, and follows a looping sector chain without end.
pub(crate) fn is_xls(bytes: &[u8]) -> bool {
    xls_scan::largest_sheet(bytes).is_some()
}

/// calamine can panic on a malformed file (a compound file's sector table pointing past
/// its end, found by the tests), so it runs inside `catch_unwind`, as pdf-extract does.
pub(crate) fn convert(bytes: &[u8], meter: &Meter) -> Result<Converted, DocError> {
    catch_unwind(AssertUnwindSafe(|| convert_unguarded(bytes, meter))).unwrap_or_else(|_| {
        Err(DocError::Malformed {
            format: "spreadsheet",
            why: "the spreadsheet reader gave up on this file".into(),
        })
    })
}

/// Most cells a legacy (xls) sheet may span: four times the cells shown (5,000 × 200 ×
/// 4 by default, about 130 MB of calamine's dense range and formula range together).
fn max_xls_cells(meter: &Meter) -> u64 {
    (meter.budget.max_rows as u64)
        .saturating_mul(meter.budget.max_columns as u64)
        .saturating_mul(4)
}

fn convert_unguarded(bytes: &[u8], meter: &Meter) -> Result<Converted, DocError> {
    if is_zip(bytes) {
        let mut pkg = Package::open(bytes, meter, "spreadsheet")?;
        pkg.verify_all()?;
        // OpenDocument has no `[Content_Types].xml`; Office Open XML always does.
        let opendocument = pkg.has("content.xml") && !pkg.has("[Content_Types].xml");
        if opendocument {
            drop(pkg);
            return ods_book(bytes, meter);
        }
        // Counts and lengths a part states become calamine's allocations: checked first.
        let binary = !pkg.names_like("xl/workbook.bin").is_empty();
        if binary {
            ooxml_sheet::check_xlsb(&mut pkg)?;
        } else {
            ooxml_sheet::check_xlsx(&mut pkg)?;
        }
        drop(pkg);
        if let Ok(mut book) = Xlsx::new(Cursor::new(bytes)) {
            let props = book.workbook_properties().unwrap_or_default();
            let markdown = streamed_sheets(book.sheet_names(), meter, |name| {
                let mut reader = book.worksheet_cells_reader(name).map_err(malformed)?;
                stream_rows(
                    || {
                        Ok(reader
                            .next_cell()
                            .map_err(malformed)?
                            .map(|c| (c.get_position(), data_ref_text(c.get_value()))))
                    },
                    meter,
                )
            })?;
            return Ok(Converted {
                title: props.title,
                author: props.creator,
                created: props.created,
                markdown,
                ..Converted::default()
            });
        }
        if let Ok(mut book) = Xlsb::new(Cursor::new(bytes)) {
            let props = book.workbook_properties().unwrap_or_default();
            let markdown = streamed_sheets(book.sheet_names(), meter, |name| {
                let mut reader = book.worksheet_cells_reader(name).map_err(malformed)?;
                stream_rows(
                    || {
                        Ok(reader
                            .next_cell()
                            .map_err(malformed)?
                            .map(|c| (c.get_position(), data_ref_text(c.get_value()))))
                    },
                    meter,
                )
            })?;
            return Ok(Converted {
                title: props.title,
                author: props.creator,
                created: props.created,
                markdown,
                ..Converted::default()
            });
        }
        return Err(malformed("a ZIP that is neither xlsx, xlsb nor ods"));
    }
    // Legacy xls: calamine lays every sheet out densely while opening the file, so a
    // sheet's area is checked first; a compound file whose workbook stream cannot be read
    // (a broken or looping sector chain, which calamine would follow without end) is
    // refused rather than handed to calamine.
    let cap = max_xls_cells(meter);
    let Some(extent) = xls_scan::largest_sheet(bytes) else {
        return Err(malformed(
            "no readable Excel workbook stream in this compound file",
        ));
    };
    if extent.cells() > cap {
        return Err(DocError::SheetTooLarge {
            rows: extent.rows,
            columns: extent.columns,
            cap,
        });
    }
    let mut out = Converted::default();
    let mut book: Sheets<_> = open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(malformed)?;
    if let Ok(props) = book.workbook_properties() {
        (out.title, out.author, out.created) = (props.title, props.creator, props.created);
    }
    let mut sections = Vec::new();
    for name in book.sheet_names() {
        meter.check_time()?;
        let range = book.worksheet_range(&name).map_err(malformed)?;
        let rows: Vec<Vec<String>> = range
            .rows()
            .take(meter.budget.max_rows + 1)
            .map(|r| {
                r.iter()
                    .take(meter.budget.max_columns)
                    .map(data_text)
                    .collect()
            })
            .collect();
        let more = range.height().saturating_sub(rows.len()) as u64;
        sections.push(section(&name, rows, more, meter));
    }
    out.markdown = sections.join("\n\n");
    Ok(out)
}

/// Each named sheet's section, its rows read by `rows_of` (streamed, capped).
fn streamed_sheets(
    names: Vec<String>,
    meter: &Meter,
    mut rows_of: impl FnMut(&str) -> Result<(Vec<Vec<String>>, u64), DocError>,
) -> Result<String, DocError> {
    let mut sections = Vec::new();
    for name in names {
        meter.check_time()?;
        let (rows, more) = rows_of(&name)?;
        sections.push(section(&name, rows, more, meter));
    }
    Ok(sections.join("\n\n"))
}

/// An ods workbook, read as it streams ([`ods`]).
fn ods_book(bytes: &[u8], meter: &Meter) -> Result<Converted, DocError> {
    let (sheets, mut out) = ods::sheets(bytes, meter)?;
    out.markdown = sheets
        .into_iter()
        .map(|s| section(&s.name, s.rows, s.more, meter))
        .collect::<Vec<_>>()
        .join("\n\n");
    Ok(out)
}

/// One sheet's section; `more` rows past the cap were not read into `rows`.
fn section(name: &str, rows: Vec<Vec<String>>, more: u64, meter: &Meter) -> String {
    let rows = trim_empty(rows);
    let table = gfm::table(&rows, meter.budget.max_rows, meter.budget.max_columns);
    drop(rows);
    let mut s = if table.is_empty() {
        format!("## {name}\n\n*(empty sheet)*")
    } else {
        format!("## {name}\n\n{}", table.trim_end())
    };
    if more > 0 {
        s.push_str(&format!(
            "\n*({more} more rows past the first {} not read)*\n",
            meter.budget.max_rows
        ));
    }
    s
}

/// Trailing empty rows and columns dropped (sheets often format far past their data), in
/// place: a sheet at the caps holds a million cells, and a copy would double them.
fn trim_empty(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let Some(last_row) = rows.iter().rposition(|r| r.iter().any(|c| !c.is_empty())) else {
        return Vec::new();
    };
    rows.truncate(last_row + 1);
    let width = rows
        .iter()
        .filter_map(|r| r.iter().rposition(|c| !c.is_empty()))
        .max()
        .map_or(0, |w| w + 1);
    for row in &mut rows {
        row.truncate(width);
    }
    rows
}

/// A sheet's cells, streamed from `next` (position and text): rows past `max_rows` and
/// columns past `max_columns` are skipped as they go by; rows are placed by their index,
/// never by a size the file declares.
fn stream_rows(
    mut next: impl FnMut() -> Result<Option<((u32, u32), String)>, DocError>,
    meter: &Meter,
) -> Result<(Vec<Vec<String>>, u64), DocError> {
    let max_rows = meter.budget.max_rows + 1;
    let max_cols = meter.budget.max_columns;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut first_row: Option<u32> = None;
    let mut skipped_rows: u64 = 0;
    let mut last_skipped: Option<u32> = None;
    let mut seen = 0u64;
    while let Some(((r, c), text)) = next()? {
        seen += 1;
        if seen.is_multiple_of(65_536) {
            meter.check_time()?;
        }
        if text.is_empty() {
            continue;
        }
        let base = *first_row.get_or_insert(r);
        let idx = r.saturating_sub(base) as usize;
        if idx >= max_rows {
            if last_skipped != Some(r) {
                skipped_rows += 1;
                last_skipped = Some(r);
            }
            continue;
        }
        if c as usize >= max_cols {
            continue;
        }
        if rows.len() <= idx {
            rows.resize_with(idx + 1, Vec::new);
        }
        let row = &mut rows[idx];
        if row.len() <= c as usize {
            row.resize(c as usize + 1, String::new());
        }
        row[c as usize] = text;
    }
    Ok((rows, skipped_rows))
}

fn data_ref_text(d: &DataRef<'_>) -> String {
    match d {
        DataRef::Empty => String::new(),
        DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => s.clone(),
        DataRef::SharedString(s) => (*s).to_owned(),
        DataRef::Int(i) => i.to_string(),
        DataRef::Float(f) => f.to_string(),
        DataRef::Bool(b) => b.to_string(),
        DataRef::DateTime(dt) => dt.to_string(),
        DataRef::Error(e) => format!("#{e:?}"),
    }
}

fn data_text(d: &Data) -> String {
    match d {
        Data::Empty => String::new(),
        other => other.to_string(),
    }
}
