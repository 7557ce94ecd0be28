//! OpenDocument spreadsheets (ods), read from `content.xml` as it streams: a row or cell
//! repeated (`number-rows-repeated`, `number-columns-repeated`) is counted, and written
//! only as far as the row and column caps, so a 779-byte file that claims 1,000 rows of
//! 16,384 cells costs what its first 5,000 × 200 do. calamine's ods reader expands every
//! repeat into a dense range first (gigabytes for such a file), hence this reader.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::docs::Converted;
use crate::docs::budget::{DocError, Meter};
use crate::docs::package::Package;

fn malformed(why: impl std::fmt::Display) -> DocError {
    DocError::Malformed {
        format: "ods",
        why: why.to_string(),
    }
}

/// One sheet as read: its name, its rows up to the cap, and rows with content past it.
pub(crate) struct Sheet {
    pub(crate) name: String,
    pub(crate) rows: Vec<Vec<String>>,
    pub(crate) more: u64,
}

/// The local part of a qualified name (`table:table-row` → `table-row`).
fn local(name: &str) -> &str {
    name.rsplit_once(':').map_or(name, |(_, l)| l)
}

fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| local(a.key.as_ref()) == name)
        .map(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.clone().into_owned())
        })
}

/// A repeat count as written, at least 1.
fn repeats(e: &BytesStart<'_>, name: &str) -> u64 {
    attr(e, name)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(1)
        .max(1)
}

/// A typed cell's value when it has no text (`office:value`, dates, booleans).
fn typed_value(e: &BytesStart<'_>) -> String {
    [
        "value",
        "date-value",
        "time-value",
        "boolean-value",
        "string-value",
    ]
    .iter()
    .find_map(|n| attr(e, n))
    .unwrap_or_default()
}

/// The row being read.
#[derive(Default)]
struct Row {
    cells: Vec<String>,
    /// Empty cells seen since the last cell with text (written only if one follows).
    blank: u64,
    repeat: u64,
}

impl Row {
    fn push(&mut self, text: String, times: u64, max_columns: usize) {
        if text.is_empty() {
            self.blank = self.blank.saturating_add(times);
            return;
        }
        let room = max_columns.saturating_sub(self.cells.len()) as u64;
        let blanks = self.blank.min(room) as usize;
        self.cells
            .extend(std::iter::repeat_n(String::new(), blanks));
        self.blank = 0;
        let room = max_columns.saturating_sub(self.cells.len()) as u64;
        let copies = times.min(room) as usize;
        self.cells.extend(std::iter::repeat_n(text, copies));
    }
}

/// Every sheet of an ods file's `content.xml`, rows and columns capped as they are read.
pub(crate) fn sheets(bytes: &[u8], meter: &Meter) -> Result<(Vec<Sheet>, Converted), DocError> {
    let mut pkg = Package::open(bytes, meter, "ods")?;
    let content = pkg
        .read_text("content.xml")?
        .ok_or_else(|| malformed("no content.xml"))?;
    let mut out = Converted::default();
    if let Some(meta) = pkg.read_text("meta.xml")? {
        let doc = crate::docs::xml::parse(&meta, "meta.xml", meter)?;
        let get = |name: &str| {
            crate::docs::xml::find(doc.root_element(), name)
                .map(crate::docs::xml::text)
                .filter(|t| !t.is_empty())
        };
        out.title = get("title");
        out.author = get("initial-creator").or_else(|| get("creator"));
        out.created = get("creation-date").or_else(|| get("date"));
    }
    Ok((read_content(&content, meter)?, out))
}

fn read_content(content: &str, meter: &Meter) -> Result<Vec<Sheet>, DocError> {
    let max_rows = meter.budget.max_rows + 1;
    let max_columns = meter.budget.max_columns;
    let mut reader = Reader::from_str(content);
    let mut sheets: Vec<Sheet> = Vec::new();
    let mut row: Option<Row> = None;
    // The cell being read: its text, repeat count and typed value.
    let mut cell: Option<(String, u64, String)> = None;
    // Empty rows since the last row with text (written only if one follows).
    let mut blank_rows: u64 = 0;
    // Inside an annotation (a comment on a cell): its text is not the cell's.
    let mut in_note = 0usize;
    let mut events = 0u64;
    loop {
        events += 1;
        if events.is_multiple_of(65_536) {
            meter.check_time()?;
        }
        let event = reader.read_event().map_err(malformed)?;
        match event {
            Event::DocType(_) => {
                return Err(DocError::XmlEntities {
                    part: "content.xml".into(),
                });
            }
            // Inside an annotation only its own nesting is followed.
            Event::Start(e) if in_note > 0 && local(e.name().as_ref()) == "annotation" => {
                in_note += 1;
            }
            Event::Start(_) | Event::Empty(_) if in_note > 0 => {}
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                match local(e.name().as_ref()) {
                    "table" if !empty => {
                        sheets.push(Sheet {
                            name: attr(e, "name")
                                .unwrap_or_else(|| format!("Sheet{}", sheets.len() + 1)),
                            rows: Vec::new(),
                            more: 0,
                        });
                        blank_rows = 0;
                    }
                    "table-row" => {
                        let r = Row {
                            repeat: repeats(e, "number-rows-repeated"),
                            ..Row::default()
                        };
                        if empty {
                            blank_rows = blank_rows.saturating_add(r.repeat);
                        } else {
                            row = Some(r);
                        }
                    }
                    "table-cell" | "covered-table-cell" => {
                        let times = repeats(e, "number-columns-repeated");
                        let value = typed_value(e);
                        if empty {
                            if let Some(r) = row.as_mut() {
                                r.push(value, times, max_columns);
                            }
                        } else {
                            cell = Some((String::new(), times, value));
                        }
                    }
                    "annotation" if !empty => in_note = 1,
                    "p" if !empty => {
                        if let Some((text, _, _)) = cell.as_mut()
                            && !text.is_empty()
                        {
                            text.push('\n');
                        }
                    }
                    "s" => {
                        if let Some((text, _, _)) = cell.as_mut() {
                            let n = repeats(e, "c").min(64) as usize;
                            text.extend(std::iter::repeat_n(' ', n));
                        }
                    }
                    "tab" => {
                        if let Some((text, _, _)) = cell.as_mut() {
                            text.push('\t');
                        }
                    }
                    "line-break" => {
                        if let Some((text, _, _)) = cell.as_mut() {
                            text.push('\n');
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(t) if in_note == 0 => {
                if let Some((text, _, _)) = cell.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::GeneralRef(r) if in_note == 0 => {
                if let Some((text, _, _)) = cell.as_mut() {
                    let c = r
                        .resolve_char_ref()
                        .ok()
                        .flatten()
                        .or_else(|| quick_xml::escape::resolve_xml_entity(&r)?.chars().next());
                    text.extend(c);
                }
            }
            Event::End(e) => match local(e.name().as_ref()) {
                "annotation" if in_note > 0 => in_note -= 1,
                _ if in_note > 0 => {}
                "table-cell" | "covered-table-cell" => {
                    if let (Some((text, times, value)), Some(r)) = (cell.take(), row.as_mut()) {
                        let text = if text.trim().is_empty() { value } else { text };
                        r.push(text, times, max_columns);
                    }
                }
                "table-row" => {
                    let (Some(r), Some(sheet)) = (row.take(), sheets.last_mut()) else {
                        continue;
                    };
                    if r.cells.is_empty() {
                        blank_rows = blank_rows.saturating_add(r.repeat);
                        continue;
                    }
                    // Blank rows between rows with text are kept, up to the cap.
                    let room = max_rows.saturating_sub(sheet.rows.len()) as u64;
                    let blanks = blank_rows.min(room) as usize;
                    sheet.rows.extend(std::iter::repeat_n(Vec::new(), blanks));
                    blank_rows = 0;
                    let room = max_rows.saturating_sub(sheet.rows.len()) as u64;
                    let copies = r.repeat.min(room);
                    for _ in 0..copies {
                        sheet.rows.push(r.cells.clone());
                    }
                    sheet.more = sheet.more.saturating_add(r.repeat - copies);
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(sheets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::budget::DocBudget;

    fn content(rows: &str) -> String {
        format!(
            "<?xml version=\"1.0\"?><office:document-content \
             xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
             xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
             xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\">\
             <office:body><office:spreadsheet><table:table table:name=\"Tides\">{rows}\
             </table:table></office:spreadsheet></office:body></office:document-content>"
        )
    }

    #[test]
    fn repeated_rows_and_cells_are_counted_not_expanded() {
        let meter = Meter::new(DocBudget::default());
        let xml = content(
            "<table:table-row><table:table-cell><text:p>Port</text:p></table:table-cell>\
             <table:table-cell office:value-type=\"float\" office:value=\"3.5\"/></table:table-row>\
             <table:table-row table:number-rows-repeated=\"1048576\">\
             <table:table-cell table:number-columns-repeated=\"16384\"><text:p>x</text:p>\
             </table:table-cell></table:table-row>",
        );
        let sheets = read_content(&xml, &meter).unwrap();
        let sheet = &sheets[0];
        assert_eq!(sheet.name, "Tides");
        assert_eq!(sheet.rows[0], vec!["Port".to_owned(), "3.5".to_owned()]);
        assert_eq!(sheet.rows.len(), DocBudget::default().max_rows + 1);
        assert_eq!(sheet.rows[1].len(), DocBudget::default().max_columns);
        assert_eq!(sheet.more, 1_048_576 - DocBudget::default().max_rows as u64,);
    }

    #[test]
    fn trailing_blank_rows_and_cells_cost_nothing() {
        let meter = Meter::new(DocBudget::default());
        let xml = content(
            "<table:table-row><table:table-cell><text:p>a</text:p></table:table-cell>\
             <table:table-cell table:number-columns-repeated=\"16383\"/></table:table-row>\
             <table:table-row table:number-rows-repeated=\"1048575\">\
             <table:table-cell table:number-columns-repeated=\"16384\"/></table:table-row>",
        );
        let sheets = read_content(&xml, &meter).unwrap();
        assert_eq!(sheets[0].rows, vec![vec!["a".to_owned()]]);
        assert_eq!(sheets[0].more, 0);
    }

    #[test]
    fn a_cells_comment_is_not_its_text() {
        let meter = Meter::new(DocBudget::default());
        let xml = content(
            "<table:table-row><table:table-cell><office:annotation><text:p>note</text:p>\
             </office:annotation><text:p>Port</text:p><text:p>Ellen</text:p>\
             </table:table-cell></table:table-row>",
        );
        let sheets = read_content(&xml, &meter).unwrap();
        assert_eq!(sheets[0].rows, vec![vec!["Port\nEllen".to_owned()]]);
    }

    #[test]
    fn a_doctype_is_refused() {
        let meter = Meter::new(DocBudget::default());
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"b\">]><x/>";
        assert!(matches!(
            read_content(xml, &meter),
            Err(DocError::XmlEntities { .. })
        ));
    }
}
