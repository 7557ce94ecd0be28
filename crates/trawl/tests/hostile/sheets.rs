//! Spreadsheet bombs: an ods of a few hundred bytes whose rows and cells repeat thousands
//! of times (the shape that took 2 GB, and aborted the server under 4 GiB), and an xls
//! with one cell at A1 and one at IV65536 (a dense range of 16.7 M cells), and an xlsb
//! with a cell at its far corner (row 1,048,576, column XFD). Each is read
//! within bounded memory or refused as `too_large`, naming the sheet's dimensions.

use std::io::Write;

use super::pdf::run_measured;
use crate::util::{temp_dir, trawl};

/// The bound on `trawl read`'s peak resident memory for each of them.
const PEAK_RSS: u64 = 200 << 20;

/// An ods whose one sheet has a header row, then `rows` repeated rows each holding one
/// cell repeated `columns` times.
pub(crate) fn ods_bomb(rows: u64, columns: u64) -> Vec<u8> {
    let content = format!(
        "<?xml version=\"1.0\"?><office:document-content \
         xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">\
         <office:body><office:spreadsheet><table:table table:name=\"Bomb\">\
         <table:table-row><table:table-cell><text:p>Tide</text:p></table:table-cell></table:table-row>\
         <table:table-row table:number-rows-repeated=\"{rows}\">\
         <table:table-cell table:number-columns-repeated=\"{columns}\"><text:p>seal</text:p>\
         </table:table-cell></table:table-row></table:table></office:spreadsheet></office:body>\
         </office:document-content>"
    );
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    w.start_file("mimetype", stored).unwrap();
    w.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .unwrap();
    w.start_file("content.xml", zip::write::SimpleFileOptions::default())
        .unwrap();
    w.write_all(content.as_bytes()).unwrap();
    w.finish().unwrap().into_inner()
}

fn record(kind: u16, data: &[u8]) -> Vec<u8> {
    let mut out = kind.to_le_bytes().to_vec();
    out.extend((data.len() as u16).to_le_bytes());
    out.extend(data);
    out
}

fn number(row: u16, col: u16) -> Vec<u8> {
    let mut data = row.to_le_bytes().to_vec();
    data.extend(col.to_le_bytes());
    data.extend([0u8; 2]);
    data.extend(1.5f64.to_le_bytes());
    record(0x0203, &data)
}

/// A BIFF8 workbook in a compound file: globals, then one sheet with a number at A1 and
/// one at the last row and column of the format.
pub(crate) fn xls_bomb() -> Vec<u8> {
    let bof = |kind: u16| {
        let mut data = 0x0600u16.to_le_bytes().to_vec();
        data.extend(kind.to_le_bytes());
        data.extend([0u8; 12]);
        record(0x0809, &data)
    };
    let mut stream = bof(0x0005);
    stream.extend(record(0x000A, &[]));
    stream.extend(bof(0x0010));
    stream.extend(number(0, 0));
    stream.extend(number(65_535, 255));
    stream.extend(record(0x000A, &[]));
    let mut file = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).unwrap();
    file.create_stream("/Workbook")
        .unwrap()
        .write_all(&stream)
        .unwrap();
    file.flush().unwrap();
    file.into_inner().into_inner()
}

/// One xlsb record: its type and size as the format's variable-length integers.
fn xlsb_record(kind: u32, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut varint = |mut n: u32, max: usize| {
        for _ in 0..max {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    };
    varint(kind, 2);
    varint(data.len() as u32, 4);
    out.extend(data);
    out
}

/// Where each record of an xlsb part starts, and its type.
fn xlsb_records(part: &[u8]) -> Vec<(usize, u32)> {
    let mut at = 0;
    let mut found = Vec::new();
    while at < part.len() {
        let start = at;
        let mut read = |max: usize| {
            let mut n = 0u32;
            for i in 0..max {
                let byte = part[at];
                at += 1;
                n |= u32::from(byte & 0x7f) << (7 * i);
                if byte & 0x80 == 0 {
                    break;
                }
            }
            n
        };
        let kind = read(2);
        let len = read(4) as usize;
        at += len;
        found.push((start, kind));
    }
    found
}

/// A real xlsb (calamine's `issues.xlsb`, see trawl-extract's tests/docs/PROVENANCE.md)
/// with one more cell in its first sheet: at the last row and column the format allows.
pub(crate) fn xlsb_bomb() -> Vec<u8> {
    use std::io::Read;
    let real = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../trawl-extract/tests/docs/calamine-issues.xlsb"
    ))
    .unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(real)).unwrap();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let name = entry.name().unwrap().into_owned();
        let mut part = Vec::new();
        entry.read_to_end(&mut part).unwrap();
        if name == "xl/worksheets/sheet1.bin" {
            // Before BrtEndSheetData (146): a row header for row 1,048,575, then a number
            // in its column 16,383.
            let (end, _) = *xlsb_records(&part)
                .iter()
                .find(|(_, kind)| *kind == 146)
                .unwrap();
            let mut row = 1_048_575u32.to_le_bytes().to_vec();
            row.extend([0u8; 13]);
            let mut cell = 16_383u32.to_le_bytes().to_vec();
            cell.extend([0u8; 4]);
            cell.extend(2.5f64.to_le_bytes());
            let mut far = xlsb_record(0, &row);
            far.extend(xlsb_record(5, &cell));
            part.splice(end..end, far);
        }
        w.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(&part).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn an_xlsb_with_a_cell_at_the_far_corner_reads_within_bounded_memory() {
    let dir = temp_dir();
    let path = dir.join("bomb.xlsb");
    std::fs::write(&path, xlsb_bomb()).unwrap();
    let (code, stdout, peak) = run_measured(
        trawl(&dir)
            .args(["--store", ":memory:", "read", "-q"])
            .arg(&path),
    );
    eprintln!("xlsb bomb: peak RSS {} MiB", peak >> 20);
    assert_eq!(code, 0, "{stdout}");
    assert!(peak < PEAK_RSS, "peak RSS {} MiB", peak >> 20);
    assert!(stdout.contains("## datatypes"), "{stdout}");
    assert!(
        stdout.contains("1 more rows past the first 5000 not read"),
        "{stdout}"
    );
}

#[test]
fn ods_bombs_read_within_bounded_memory() {
    let dir = temp_dir();
    for (rows, columns) in [(1_000, 16_384), (6_000, 16_384), (1_048_576, 16_384)] {
        let bomb = ods_bomb(rows, columns);
        assert!(bomb.len() < 2_000, "{} bytes", bomb.len());
        let path = dir.join(format!("bomb-{rows}.ods"));
        std::fs::write(&path, &bomb).unwrap();
        let (code, stdout, peak) = run_measured(
            trawl(&dir)
                .args([
                    "--store",
                    ":memory:",
                    "read",
                    "--json",
                    "--page-size-tokens",
                    "0",
                ])
                .arg(&path),
        );
        eprintln!("ods {rows} x {columns}: peak RSS {} MiB", peak >> 20);
        assert_eq!(code, 0, "{}", &stdout[..stdout.len().min(2_000)]);
        assert!(peak < PEAK_RSS, "{rows} rows: peak RSS {} MiB", peak >> 20);
        let envelope: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let markdown = envelope.to_string();
        assert!(markdown.contains("## Bomb"), "{}", &markdown[..2_000]);
        if rows > 5_000 {
            assert!(
                markdown.contains(&format!("{} more rows past the first 5000", rows - 5_000)),
                "{rows}: no note of the rows left out"
            );
        }
    }
}

#[test]
fn an_xls_spanning_the_whole_sheet_is_too_large() {
    let dir = temp_dir();
    let path = dir.join("bomb.xls");
    std::fs::write(&path, xls_bomb()).unwrap();
    let (code, stdout, peak) = run_measured(
        trawl(&dir)
            .args(["--store", ":memory:", "read", "--json"])
            .arg(&path),
    );
    eprintln!("xls bomb: peak RSS {} MiB", peak >> 20);
    assert_eq!(code, 1, "{stdout}");
    let envelope: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(envelope["error"]["code"], "too_large", "{envelope}");
    let message = envelope["error"]["message"].as_str().unwrap();
    assert!(message.contains("65536 rows × 256 columns"), "{message}");
    assert!(peak < PEAK_RSS, "peak RSS {} MiB", peak >> 20);
}

/// An xlsx whose shared strings part claims 10^11 strings in a few bytes (calamine reserves
/// room for what it claims: this aborted the process) is refused before it is opened.
#[test]
fn an_xlsx_claiming_a_hundred_billion_strings_is_refused() {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body) in [
        (
            "[Content_Types].xml",
            "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
             <Default Extension=\"xml\" ContentType=\"application/xml\"/></Types>",
        ),
        (
            "xl/workbook.xml",
            "<?xml version=\"1.0\"?><workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
             xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">\
             <sheets><sheet name=\"Bomb\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>",
        ),
        (
            "xl/_rels/workbook.xml.rels",
            "<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
             <Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>\
             <Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings\" Target=\"sharedStrings.xml\"/>\
             </Relationships>",
        ),
        (
            "xl/worksheets/sheet1.xml",
            "<?xml version=\"1.0\"?><worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">\
             <sheetData><row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row></sheetData></worksheet>",
        ),
        (
            "xl/sharedStrings.xml",
            "<?xml version=\"1.0\"?><sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
             count=\"1\" uniqueCount=\"100000000000\"><si><t>seal</t></si></sst>",
        ),
    ] {
        w.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(body.as_bytes()).unwrap();
    }
    let bomb = w.finish().unwrap().into_inner();
    let dir = temp_dir();
    let path = dir.join("strings.xlsx");
    std::fs::write(&path, &bomb).unwrap();
    let (code, stdout, peak) = run_measured(
        trawl(&dir)
            .args(["--store", ":memory:", "read", "--json"])
            .arg(&path),
    );
    eprintln!("xlsx strings bomb: peak RSS {} MiB", peak >> 20);
    assert_eq!(code, 1, "{stdout}");
    let envelope: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let message = envelope["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("claims 100000000000 shared strings"),
        "{message}"
    );
    assert!(peak < PEAK_RSS, "peak RSS {} MiB", peak >> 20);
}
