//! CSV and TSV as a GFM table. The charset comes from a BOM, then UTF-16 without one (NULs
//! in every other byte), then the Content-Type, then valid UTF-8, then chardetng's guess
//! (Shift-JIS, Windows-1252, …). The delimiter is the one of `,` `;` `\t` `|` that splits
//! the first lines most evenly.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

use crate::docs::budget::Meter;
use crate::docs::{Converted, gfm};

/// The text of a CSV body, decoded.
pub(crate) fn decode(bytes: &[u8], content_type: Option<&str>) -> String {
    if let Some((enc, bom)) = Encoding::for_bom(bytes) {
        return enc
            .decode_without_bom_handling(&bytes[bom..])
            .0
            .into_owned();
    }
    if let Some(enc) = utf16_without_bom(bytes) {
        return enc.decode_without_bom_handling(bytes).0.into_owned();
    }
    let declared = content_type
        .and_then(|ct| {
            ct.split(';')
                .skip(1)
                .find_map(|p| p.trim().strip_prefix("charset="))
        })
        .and_then(|l| Encoding::for_label(l.trim_matches('"').as_bytes()));
    if let Some(enc) = declared {
        return enc.decode_without_bom_handling(bytes).0.into_owned();
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_owned();
    }
    let mut det = EncodingDetector::new(Iso2022JpDetection::Deny);
    det.feed(bytes, true);
    let enc = det.guess(None, Utf8Detection::Allow);
    let enc = if enc == UTF_8 {
        encoding_rs::WINDOWS_1252
    } else {
        enc
    };
    enc.decode_without_bom_handling(bytes).0.into_owned()
}

/// Text written as UTF-16 without a BOM has a NUL in most even (BE) or odd (LE) bytes.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = &bytes[..bytes.len().min(4096) & !1];
    if sample.len() < 4 {
        return None;
    }
    let pairs = sample.len() / 2;
    let even = sample.iter().step_by(2).filter(|&&b| b == 0).count();
    let odd = sample
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|&&b| b == 0)
        .count();
    if odd * 10 >= pairs * 7 && even * 10 < pairs {
        Some(UTF_16LE)
    } else if even * 10 >= pairs * 7 && odd * 10 < pairs {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// The delimiter that splits the first lines into the same, largest number of fields.
fn delimiter(text: &str) -> u8 {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(10)
        .collect();
    let mut best = (b',', 0usize);
    for d in [b',', b';', b'\t', b'|'] {
        let counts: Vec<usize> = lines
            .iter()
            .map(|l| l.bytes().filter(|&b| b == d).count())
            .collect();
        let Some(&first) = counts.first() else {
            continue;
        };
        if first > 0 && counts.iter().all(|&c| c == first) && first > best.1 {
            best = (d, first);
        }
    }
    best.0
}

pub(crate) fn convert(
    bytes: &[u8],
    content_type: Option<&str>,
    tab: bool,
    meter: &Meter,
) -> Converted {
    let text = decode(bytes, content_type);
    let delim = if tab { b'\t' } else { delimiter(&text) };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let cap = meter.budget.max_rows + 1;
    let mut rows = Vec::new();
    let mut more = 0u64;
    for record in reader.records() {
        // A broken quote swallows the rest of the file into one field; the rows before it
        // are still a table.
        let Ok(record) = record else { break };
        if rows.len() >= cap {
            more += 1;
            continue;
        }
        rows.push(
            record
                .iter()
                .take(meter.budget.max_columns + 1)
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        );
    }
    let mut markdown = gfm::table(&rows, meter.budget.max_rows, meter.budget.max_columns);
    if more > 0 {
        markdown.push_str(&format!(
            "\n*({more} more rows past the first {} not read)*\n",
            meter.budget.max_rows
        ));
    }
    Converted {
        markdown,
        ..Converted::default()
    }
}
