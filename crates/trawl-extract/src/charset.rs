//! Turning fetched bytes into text: which encoding, then decoding.
//!
//! The order follows the HTML spec's encoding sniffing, simplified: a byte-order mark,
//! then the `charset` of the Content-Type header, then a `<meta charset>` or
//! `<meta http-equiv=content-type>` in the first bytes, then valid UTF-8, then chardetng's
//! guess. One departure: a declared single-byte legacy charset (ISO-8859-1, windows-1252,
//! KOI8-R...) on bytes that are valid UTF-8 is not believed (see `declared`). Decoding
//! never fails: bad sequences become U+FFFD.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8};

/// How far into the body a `<meta>` charset declaration is looked for. The spec says 1024
/// bytes; pages with long inline `<head>` scripts push it further, so look a little more.
const META_PRESCAN_BYTES: usize = 2048;

/// Decode an HTML (or text) body to a `String`, picking the encoding as browsers do.
pub fn decode_html(bytes: &[u8], content_type: Option<&str>) -> String {
    decode_html_borrowed(bytes, content_type).into_owned()
}

/// `decode_html` without the copy when the bytes are already valid UTF-8 (most pages):
/// a page is hundreds of kilobytes, and the parser only reads it.
pub(crate) fn decode_html_borrowed<'a>(
    bytes: &'a [u8],
    content_type: Option<&str>,
) -> std::borrow::Cow<'a, str> {
    let (encoding, skip, valid) = sniff(bytes, content_type);
    if let Some(text) = valid {
        return std::borrow::Cow::Borrowed(text);
    }
    let (text, _) = encoding.decode_without_bom_handling(&bytes[skip..]);
    text
}

/// The encoding `decode_html` would use, and how many BOM bytes to skip.
pub fn sniff_encoding(bytes: &[u8], content_type: Option<&str>) -> (&'static Encoding, usize) {
    let (encoding, skip, _) = sniff(bytes, content_type);
    (encoding, skip)
}

/// `sniff_encoding`, and the text when the answer came from checking that the bytes are
/// UTF-8: a page is not validated twice.
fn sniff<'a>(
    bytes: &'a [u8],
    content_type: Option<&str>,
) -> (&'static Encoding, usize, Option<&'a str>) {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return (encoding, bom_len, None);
    }
    if let Some(encoding) = content_type
        .and_then(charset_param)
        .and_then(|l| Encoding::for_label(l.as_bytes()))
    {
        return declared(encoding, bytes);
    }
    let head = &bytes[..bytes.len().min(META_PRESCAN_BYTES)];
    if let Some(encoding) = meta_charset(head) {
        return declared(encoding, bytes);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (UTF_8, 0, Some(text));
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    // A megabyte is plenty to guess from and keeps a huge body cheap.
    detector.feed(&bytes[..bytes.len().min(1 << 20)], true);
    (detector.guess(None, Utf8Detection::Allow), 0, None)
}

/// The encoding a page declares, unless it declares a single-byte legacy charset and its
/// bytes are valid UTF-8: then they are read as UTF-8. Text in a single-byte charset is
/// next to never valid UTF-8 once it has a byte above 0x7F (an `é` alone, `0xE9`, is not),
/// while UTF-8 pages that declare ISO-8859-1 are common (a server's or a template's default
/// left in place, often beside a later `<meta charset="utf-8">`); read as declared, their
/// quotes become `â€™`. On ASCII-only bytes both readings give the same text.
fn declared<'a>(
    encoding: &'static Encoding,
    bytes: &'a [u8],
) -> (&'static Encoding, usize, Option<&'a str>) {
    let encoding = ascii_compatible(encoding);
    if encoding.is_single_byte()
        && let Ok(text) = std::str::from_utf8(bytes)
    {
        return (UTF_8, 0, Some(text));
    }
    (encoding, 0, None)
}

/// A page that declares UTF-16 in ASCII-compatible bytes is not UTF-16 (the spec says to
/// read it as UTF-8); the same for x-user-defined.
fn ascii_compatible(encoding: &'static Encoding) -> &'static Encoding {
    if encoding.is_ascii_compatible() {
        encoding
    } else {
        UTF_8
    }
}

/// `charset` parameter of a Content-Type value.
pub(crate) fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| {
            value
                .trim()
                .trim_matches(|c| c == '"' || c == '\'')
                .to_owned()
        })
    })
}

/// Find a charset declared by a `<meta>` tag in `head`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    while let Some(off) = memchr::memmem::find(&head[pos..], b"<meta") {
        let start = pos + off + 5;
        let end = memchr::memchr(b'>', &head[start..]).map_or(head.len(), |o| start + o);
        let tag = head[start..end].to_ascii_lowercase();
        if let Some(at) = memchr::memmem::find(&tag, b"charset") {
            let rest = &tag[at + 7..];
            let rest = rest.trim_ascii_start();
            if let Some(rest) = rest.strip_prefix(b"=") {
                let rest = rest.trim_ascii_start();
                let rest = rest
                    .strip_prefix(b"\"")
                    .or_else(|| rest.strip_prefix(b"'"))
                    .unwrap_or(rest);
                let label_end = rest
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
                    .unwrap_or(rest.len());
                if let Some(encoding) = Encoding::for_label(&rest[..label_end]) {
                    return Some(encoding);
                }
            }
        }
        pos = end.max(start);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_charset_wins_over_meta() {
        let bytes = b"<meta charset=utf-8><p>\xe9t\xe9</p>";
        assert_eq!(
            decode_html(bytes, Some("text/html; charset=ISO-8859-1")),
            "<meta charset=utf-8><p>été</p>"
        );
    }

    #[test]
    fn declared_latin1_on_valid_utf8_is_read_as_utf8() {
        // A template's old ISO-8859-1 declaration before the page's own `<meta charset>`:
        // the first declaration wins the prescan, the bytes are UTF-8.
        let page = "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\
                    <meta charset=\"utf-8\"><p>It\u{2019}s a caf\u{e9}</p>";
        assert_eq!(decode_html(page.as_bytes(), Some("text/html")), page);
        // The same from a server's header.
        let page = "<p>It\u{2019}s a caf\u{e9}</p>";
        assert_eq!(
            decode_html(page.as_bytes(), Some("text/html; charset=ISO-8859-1")),
            page
        );
        assert_eq!(
            sniff_encoding(page.as_bytes(), Some("text/html; charset=windows-1252")).0,
            UTF_8
        );
        // A multi-byte legacy declaration is believed as before.
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("<p>日本語</p>");
        assert_eq!(
            decode_html(&sjis, Some("text/html; charset=shift_jis")),
            "<p>日本語</p>"
        );
    }

    #[test]
    fn meta_http_equiv_is_read() {
        let bytes = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>";
        assert!(decode_html(bytes, Some("text/html")).contains("Привет"));
    }

    #[test]
    fn bom_wins() {
        let bytes = b"\xef\xbb\xbf<p>ok</p>";
        assert_eq!(
            decode_html(bytes, Some("text/html; charset=windows-1252")),
            "<p>ok</p>"
        );
    }

    #[test]
    fn undeclared_cyrillic_is_detected() {
        let text = "Съешь же ещё этих мягких французских булок, да выпей чаю. ".repeat(20);
        let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(&text);
        assert_eq!(decode_html(&bytes, None), text);
    }

    #[test]
    fn charset_param_is_parsed() {
        assert_eq!(
            charset_param("text/html; Charset=\"UTF-8\"").as_deref(),
            Some("UTF-8")
        );
        assert_eq!(charset_param("text/html"), None);
    }
}
