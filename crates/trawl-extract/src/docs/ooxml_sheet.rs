//! An xlsx's or xlsb's parts checked before calamine opens the workbook, where a number in
//! a part would become an allocation before any cell is read:
//!
//! - an xlsx's `sharedStrings.xml` declares `uniqueCount`, and calamine reserves room for
//!   that many strings: a count of 10^11 in a 1 KB file aborted the process;
//! - an xlsb's records each start with their length, and calamine sizes its buffer to that
//!   length before reading: a record claiming 256 MiB in a 200-byte part took 270 MB.
//!
//! Each check reads the parts calamine will read, found as calamine finds them, and refuses
//! a count or length the part cannot hold.

use std::collections::HashMap;

use encoding_rs::UTF_16LE;
use quick_xml::Reader;
use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesStart, Event};

use crate::docs::budget::DocError;
use crate::docs::package::Package;

fn bad(why: String) -> DocError {
    DocError::Malformed {
        format: "spreadsheet",
        why,
    }
}

/// Bytes the smallest shared string takes (`<si/>`): no part holds more strings than this
/// allows.
const SMALLEST_STRING: usize = 5;

/// An xlsx whose shared strings part claims more strings than it could hold is refused.
pub(crate) fn check_xlsx(pkg: &mut Package<'_>) -> Result<(), DocError> {
    // calamine reads `<workbook's folder>sharedStrings.xml`: every such part is checked.
    let parts: Vec<String> = pkg
        .names()
        .into_iter()
        .filter(|n| n.to_ascii_lowercase().ends_with("sharedstrings.xml"))
        .collect();
    for name in parts {
        let Some(bytes) = pkg.reread(&name)? else {
            continue;
        };
        let Some(count) = unique_count(&bytes) else {
            continue;
        };
        if count > (bytes.len() / SMALLEST_STRING) as u128 {
            return Err(bad(format!(
                "`{name}` claims {count} shared strings in {} bytes",
                bytes.len()
            )));
        }
    }
    Ok(())
}

/// A reader configured as calamine configures its own.
fn calamine_reader(bytes: &[u8]) -> Reader<&[u8]> {
    let mut r = Reader::from_reader(bytes);
    let config = r.config_mut();
    config.check_end_names = false;
    config.trim_text(false);
    config.check_comments = false;
    config.expand_empty_elements = true;
    r
}

/// The `uniqueCount` of the first `sst` element, when calamine would read it as a number
/// (digits only; it reserves nothing otherwise).
fn unique_count(bytes: &[u8]) -> Option<u128> {
    let mut reader = calamine_reader(bytes);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).ok()? {
            Event::Start(e) if e.local_name().into_inner() == "sst" => {
                let v = e.try_get_attribute("uniqueCount").ok()??.value;
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let digits = v.trim_start_matches('0');
                // More digits than any count calamine could reserve: as good as infinite.
                return Some(if digits.len() > 30 {
                    u128::MAX
                } else {
                    digits.parse().unwrap_or(0)
                });
            }
            Event::Eof => return None,
            _ => {}
        }
        buf.clear();
    }
}

/// An xlsb whose workbook, shared strings, styles or sheet parts hold a record longer than
/// what is left of the part is refused.
pub(crate) fn check_xlsb(pkg: &mut Package<'_>) -> Result<(), DocError> {
    let mut parts = vec!["xl/workbook.bin".to_owned()];
    parts.push("xl/sharedStrings.bin".into());
    parts.push("xl/styles.bin".into());
    parts.extend(sheet_paths(pkg)?);
    for path in parts {
        for name in pkg.names_like(&path) {
            if let Some(bytes) = pkg.reread(&name)? {
                check_records(&name, &bytes)?;
            }
        }
    }
    Ok(())
}

/// The parts calamine reads sheets from: each `BrtBundleSh` record of `xl/workbook.bin`
/// names a relationship of `xl/_rels/workbook.bin.rels`, whose target is the part.
fn sheet_paths(pkg: &mut Package<'_>) -> Result<Vec<String>, DocError> {
    let mut rels = HashMap::new();
    for name in pkg.names_like("xl/_rels/workbook.bin.rels") {
        let Some(bytes) = pkg.reread(&name)? else {
            continue;
        };
        let mut reader = calamine_reader(&bytes);
        let mut buf = Vec::new();
        while let Ok(event) = reader.read_event_into(&mut buf) {
            match event {
                Event::Start(e) if e.name().as_ref() == "Relationship" => {
                    if let (Some(id), Some(target)) = (raw_attr(&e, "Id"), attr(&e, "Target")) {
                        rels.insert(id, target);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
            buf.clear();
        }
    }
    let mut paths = Vec::new();
    for name in pkg.names_like("xl/workbook.bin") {
        let Some(bytes) = pkg.reread(&name)? else {
            continue;
        };
        for (typ, data) in Records(&bytes) {
            match typ {
                0x009C if data.len() >= 12 => {
                    let rel_len = u32::from_le_bytes([data[8], data[9], data[10], data[11]]);
                    let Some(id) = (rel_len != u32::MAX)
                        .then(|| data.get(12..12 + rel_len as usize * 2))
                        .flatten()
                    else {
                        continue;
                    };
                    let id = UTF_16LE.decode(id).0;
                    if let Some(target) = rels.get(&*id) {
                        paths.push(format!("xl/{target}"));
                    }
                }
                // The end of the sheets' list: calamine reads no more of them.
                0x0090 => break,
                _ => {}
            }
        }
    }
    Ok(paths)
}

/// An attribute's value as written, by its full name (calamine's `raw_attr`).
fn raw_attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.try_get_attribute(name)
        .ok()?
        .map(|a| a.value.into_owned())
}

/// An attribute's value with entities resolved, by its full name.
fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    let a = e.try_get_attribute(name).ok()??;
    let v = a
        .normalized_value_with(quick_xml::XmlVersion::Implicit1_0, 1, resolve_xml_entity)
        .ok()?;
    Some(v.into_owned())
}

/// An xlsb part's records, as calamine's `RecordIter` reads them: a type of one or two
/// 7-bit bytes, a length of up to four, then the data. Ends at the first record that does
/// not fit.
struct Records<'a>(&'a [u8]);

/// The next record's type and claimed length, and where its data starts.
fn header(b: &[u8]) -> Option<(u16, usize, usize)> {
    let mut at = 0;
    let first = *b.first()?;
    at += 1;
    let typ = if first & 0x80 != 0 {
        let second = *b.get(at)?;
        at += 1;
        u16::from(first & 0x7F) + (u16::from(second & 0x7F) << 7)
    } else {
        u16::from(first)
    };
    let mut byte = *b.get(at)?;
    at += 1;
    let mut len = usize::from(byte & 0x7F);
    for i in 1..4 {
        if byte & 0x80 == 0 {
            break;
        }
        byte = *b.get(at)?;
        at += 1;
        len += usize::from(byte & 0x7F) << (7 * i);
    }
    Some((typ, len, at))
}

impl<'a> Iterator for Records<'a> {
    type Item = (u16, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let (typ, len, at) = header(self.0)?;
        let data = self.0.get(at..at + len)?;
        self.0 = &self.0[at + len..];
        Some((typ, data))
    }
}

/// Every record of a part fits in what is left of it.
fn check_records(name: &str, bytes: &[u8]) -> Result<(), DocError> {
    let mut rest = bytes;
    while let Some((_, len, at)) = header(rest) {
        let left = rest.len() - at;
        if len > left {
            return Err(bad(format!(
                "`{name}` holds a record of {len} bytes with {left} bytes left"
            )));
        }
        rest = &rest[at + len..];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_counts_are_read_as_calamine_reads_them() {
        let sst = |count: &str| {
            format!(r#"<?xml version="1.0"?><sst xmlns="m" uniqueCount="{count}"><si/></sst>"#)
        };
        assert_eq!(unique_count(sst("12").as_bytes()), Some(12));
        assert_eq!(unique_count(sst("000012").as_bytes()), Some(12));
        assert_eq!(unique_count(sst("+12").as_bytes()), None);
        assert_eq!(
            unique_count(sst(&"9".repeat(40)).as_bytes()),
            Some(u128::MAX)
        );
        assert_eq!(
            unique_count(b"<x:sst xmlns:x=\"m\" uniqueCount=\"7\"/>"),
            Some(7)
        );
    }

    #[test]
    fn record_headers_are_read_as_calamine_reads_them() {
        // Type 0x94 in two bytes, length 300 in two.
        assert_eq!(header(&[0x94, 0x01, 0xAC, 0x02]), Some((0x94, 300, 4)));
        let mut part = vec![0x81, 0x01, 0x00];
        part.extend([0x94, 0x01, 0x10]);
        part.extend([0; 16]);
        assert!(check_records("p", &part).is_ok());
        part.extend([0x94, 0x01, 0xFF, 0xFF, 0xFF, 0x7F]);
        let e = check_records("p", &part).unwrap_err().to_string();
        assert!(
            e.contains("record of 268435455 bytes with 0 bytes left"),
            "{e}"
        );
    }
}
