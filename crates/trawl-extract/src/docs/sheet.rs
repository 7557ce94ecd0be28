//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods) through calamine: each sheet a `## Sheet`
//! section holding a GFM table. A ZIP workbook is expanded once under the budget before
//! calamine sees it, since calamine expands members itself; xlsx sheets are then streamed
//! cell by cell, so a sheet's claimed size never becomes an allocation.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use calamine::{Data, DataRef, Reader, Sheets, Xlsx, open_workbook_auto_from_rs};

use crate::docs::budget::{DocError, Meter};
use crate::docs::package::{Package, is_zip};
use crate::docs::{Converted, gfm};

fn malformed(e: impl std::fmt::Display) -> DocError {
    DocError::Malformed {
        format: "spreadsheet",
        why: e.to_string(),
    }
}

/// Whether an OLE2 compound file is an Excel workbook (calamine finds its workbook stream).
pub(crate) fn is_xls(bytes: &[u8]) -> bool {
    catch_unwind(AssertUnwindSafe(|| {
        calamine::open_workbook_from_rs::<calamine::Xls<_>, _>(Cursor::new(bytes)).is_ok()
    }))
    .unwrap_or(false)
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

fn convert_unguarded(bytes: &[u8], meter: &Meter) -> Result<Converted, DocError> {
    if is_zip(bytes) {
        Package::open(bytes, meter, "spreadsheet")?.verify_all()?;
    }
    let mut out = Converted::default();
    if is_zip(bytes)
        && let Ok(mut book) = Xlsx::new(Cursor::new(bytes))
    {
        let props = book.workbook_properties().unwrap_or_default();
        (out.title, out.author, out.created) = (props.title, props.creator, props.created);
        let mut sections = Vec::new();
        for name in book.sheet_names() {
            meter.check_time()?;
            let (rows, more) = xlsx_rows(&mut book, &name, meter)?;
            sections.push(section(&name, &rows, more, meter));
        }
        out.markdown = sections.join("\n\n");
        return Ok(out);
    }
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
        sections.push(section(&name, &rows, more, meter));
    }
    out.markdown = sections.join("\n\n");
    Ok(out)
}

/// One sheet's section; `more` rows past the cap were not read into `rows`.
fn section(name: &str, rows: &[Vec<String>], more: u64, meter: &Meter) -> String {
    let rows = trim_empty(rows);
    let table = gfm::table(&rows, meter.budget.max_rows, meter.budget.max_columns);
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

/// Trailing empty rows and columns dropped (sheets often format far past their data).
fn trim_empty(rows: &[Vec<String>]) -> Vec<Vec<String>> {
    let last_row = rows.iter().rposition(|r| r.iter().any(|c| !c.is_empty()));
    let Some(last_row) = last_row else {
        return Vec::new();
    };
    let width = rows[..=last_row]
        .iter()
        .filter_map(|r| r.iter().rposition(|c| !c.is_empty()))
        .max()
        .map_or(0, |w| w + 1);
    rows[..=last_row]
        .iter()
        .map(|r| r.iter().take(width).cloned().collect())
        .collect()
}

/// An xlsx sheet's cells, streamed: rows past `max_rows` and columns past `max_columns`
/// are skipped as they go by; a sheet's rows are placed by their index, never by a size
/// the file declares.
fn xlsx_rows(
    book: &mut Xlsx<Cursor<&[u8]>>,
    name: &str,
    meter: &Meter,
) -> Result<(Vec<Vec<String>>, u64), DocError> {
    let max_rows = meter.budget.max_rows + 1;
    let max_cols = meter.budget.max_columns;
    let mut reader = book.worksheet_cells_reader(name).map_err(malformed)?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut first_row: Option<u32> = None;
    let mut skipped_rows: u64 = 0;
    let mut last_skipped: Option<u32> = None;
    let mut seen = 0u64;
    while let Some(cell) = reader.next_cell().map_err(malformed)? {
        seen += 1;
        if seen.is_multiple_of(65_536) {
            meter.check_time()?;
        }
        let (r, c) = cell.get_position();
        let text = data_ref_text(cell.get_value());
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
