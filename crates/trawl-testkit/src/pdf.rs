//! PDFs built by tests, hostile ones included: small files whose streams decode (or whose
//! pages draw) far more than their size. Every shape is a valid file lopdf loads, with
//! xref offsets computed, so a test shows the limit at work rather than a parse error.

use std::io::Write;

/// Deflate (zlib) `data` at the best level: a run of one byte shrinks about 1,000 times.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(data).expect("deflate into memory");
    enc.finish().expect("deflate into memory")
}

/// A stream object: `dict_entries` (without `<< >>` and `/Length`) and its data.
pub fn stream(dict_entries: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict_entries} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

/// A file of `objects` (numbered from 1; object 1 is the catalog), with a classic xref
/// table and trailer, or with `startxref` pointing at object `xref_object` when given.
pub fn file(objects: &[Vec<u8>], xref_object: Option<usize>) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let start = match xref_object {
        Some(n) => offsets[n - 1],
        None => {
            let start = out.len();
            out.extend_from_slice(
                format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
            );
            for off in &offsets {
                out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
            }
            out.extend_from_slice(
                format!("trailer\n<< /Size {} /Root 1 0 R >>\n", objects.len() + 1).as_bytes(),
            );
            start
        }
    };
    out.extend_from_slice(format!("startxref\n{start}\n%%EOF\n").as_bytes());
    out
}

const CATALOG: &str = "<< /Type /Catalog /Pages 2 0 R >>";
const PAGES: &str = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>";
const FONT: &str =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// Page 3 with content object 4, font object 5 and `xobjects` as its XObject resources.
fn page(xobjects: &str) -> Vec<u8> {
    format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> /XObject << {xobjects} >> >> >>"
    )
    .into_bytes()
}

/// Text-drawing operators, `len` bytes of them: what a real page is made of, and what
/// costs a text extractor the most memory per byte.
pub fn text_operators(len: usize) -> Vec<u8> {
    let unit = b"BT /F1 12 Tf 72 720 Td (Hello) Tj ET\n";
    unit.iter().copied().cycle().take(len).collect()
}

/// One page whose deflated content stream decodes to `decoded` bytes of text operators
/// (16 MiB fit in a 49 KB file).
pub fn content_bomb(decoded: usize) -> Vec<u8> {
    let content = stream("/Filter /FlateDecode", &deflate(&text_operators(decoded)));
    file(
        &[CATALOG.into(), PAGES.into(), page(""), content, FONT.into()],
        None,
    )
}

/// One page that draws form 6 twice, which draws form 7 twice, ... `depth` forms deep:
/// each form is a few bytes, the page draws 2^depth of them.
pub fn form_fan(depth: usize) -> Vec<u8> {
    let mut objects = vec![
        CATALOG.into(),
        PAGES.into(),
        page("/Fm 6 0 R"),
        stream("", b"/Fm Do /Fm Do"),
        FONT.into(),
    ];
    for level in 0..depth {
        let next = if level + 1 < depth {
            format!("/XObject << /Fm {} 0 R >>", 7 + level)
        } else {
            String::new()
        };
        let body: &[u8] = if level + 1 < depth {
            b"BT /F1 12 Tf (fan) Tj ET /Fm Do /Fm Do"
        } else {
            b"BT /F1 12 Tf (fan) Tj ET"
        };
        objects.push(stream(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /Font << /F1 5 0 R >> {next} >>"),
            body,
        ));
    }
    file(&objects, None)
}

/// One page that draws form 6, which draws itself.
pub fn form_loop() -> Vec<u8> {
    file(
        &[
            CATALOG.into(),
            PAGES.into(),
            page("/Fm 6 0 R"),
            stream("", b"/Fm Do"),
            FONT.into(),
            stream(
                "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /Fm 6 0 R >> >>",
                b"/Fm Do",
            ),
        ],
        None,
    )
}

/// A one-page file with an object stream (object 6) that decodes to `decoded` bytes:
/// lopdf inflates it while loading, before any object can be looked at.
pub fn object_stream_bomb(decoded: usize) -> Vec<u8> {
    let mut body = b"7 0 ".to_vec();
    let first = body.len();
    body.resize(decoded, b' ');
    let objstm = stream(
        &format!("/Type /ObjStm /N 1 /First {first} /Filter /FlateDecode"),
        &deflate(&body),
    );
    file(
        &[
            CATALOG.into(),
            PAGES.into(),
            page(""),
            stream("", b"BT /F1 12 Tf 72 720 Td (objstm) Tj ET"),
            FONT.into(),
            objstm,
        ],
        None,
    )
}

/// A file whose cross-reference is a stream (object 6) that decodes to `decoded` bytes:
/// lopdf inflates it before reading anything else. Its first entries are real.
pub fn xref_stream_bomb(decoded: usize) -> Vec<u8> {
    let objects: Vec<Vec<u8>> = vec![
        CATALOG.into(),
        PAGES.into(),
        page(""),
        stream("", b"BT /F1 12 Tf 72 720 Td (xref) Tj ET"),
        FONT.into(),
    ];
    let mut entries = vec![0u8, 0, 0, 0, 0xff, 0xff];
    // Offsets of objects 1-5 as `file` lays them out.
    let mut at = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".len();
    for (i, body) in objects.iter().enumerate() {
        entries.extend_from_slice(&[1, (at >> 16) as u8, (at >> 8) as u8, at as u8, 0, 0]);
        at += format!("{} 0 obj\n", i + 1).len() + body.len() + b"\nendobj\n".len();
    }
    entries.resize(decoded, 0);
    let xref = stream(
        &format!(
            "/Type /XRef /Size {} /W [1 3 2] /Root 1 0 R /Filter /FlateDecode",
            entries.len() / 6
        ),
        &deflate(&entries),
    );
    let mut all = objects;
    all.push(xref);
    file(&all, Some(6))
}
