//! A PDF's own metadata: the document information dictionary (`/Title`, `/Author`,
//! `/Subject`, `/CreationDate`) and the catalog's `/Lang`, for the front block a document's
//! Markdown opens with. Names that writers fill in by themselves (`Microsoft Word -
//! report.docx`, `untitled`) are not titles and are left out.

use pdf_extract::{Document, Object};

/// What a PDF says of itself; each field only when it holds something.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PdfInfo {
    pub(crate) title: Option<String>,
    pub(crate) author: Option<String>,
    /// `/CreationDate` as ISO 8601 (`2024-03-05`, or with its time and offset).
    pub(crate) created: Option<String>,
    pub(crate) language: Option<String>,
    /// `/Subject`.
    pub(crate) description: Option<String>,
}

/// Longest value kept: an info string is metadata, not a text to read.
const MAX_CHARS: usize = 512;

pub(crate) fn info(doc: &Document) -> PdfInfo {
    let resolve = |o: &Object| match o {
        Object::Reference(id) => doc.get_object(*id).ok().cloned(),
        other => Some(other.clone()),
    };
    let dict = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(resolve)
        .and_then(|o| o.as_dict().ok().cloned());
    let field = |key: &[u8]| -> Option<String> {
        let value = resolve(dict.as_ref()?.get(key).ok()?)?;
        let text = text_string(value.as_str().ok()?);
        let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text: String = text.chars().take(MAX_CHARS).collect();
        (!text.is_empty() && !placeholder(&text)).then_some(text)
    };
    let language = doc
        .catalog()
        .ok()
        .and_then(|c| c.get(b"Lang").ok())
        .and_then(resolve)
        .and_then(|o| o.as_str().ok().map(text_string))
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty() && l.len() <= 35);
    PdfInfo {
        title: field(b"Title").filter(|t| !generated_title(t)),
        author: field(b"Author"),
        created: field(b"CreationDate").and_then(|d| pdf_date(&d)),
        language,
        description: field(b"Subject"),
    }
}

/// A PDF text string: UTF-16BE after its byte-order mark, UTF-8 after its mark (PDF 2.0),
/// else PDFDocEncoding, which matches Latin-1 for the letters titles use.
fn text_string(bytes: &[u8]) -> String {
    if let Some(utf16) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = utf16
            .chunks_exact(2)
            .map(|p| u16::from_be_bytes([p[0], p[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(utf8) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(utf8).into_owned();
    }
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// A value a writing program puts where the author gave none: reportlab's
/// `(unspecified)` and `(anonymous)`, and their plain forms.
fn placeholder(value: &str) -> bool {
    let bare = value.trim_start_matches('(').trim_end_matches(')');
    ["unspecified", "anonymous", "unknown", "none", "n/a"]
        .iter()
        .any(|p| bare.eq_ignore_ascii_case(p))
}

/// A title the writing program made up: a file name, a template's name, a placeholder.
fn generated_title(title: &str) -> bool {
    let lower = title.to_ascii_lowercase();
    let file_like = [
        ".doc", ".docx", ".pdf", ".indd", ".tex", ".dvi", ".odt", ".rtf", ".ps",
    ]
    .iter()
    .any(|ext| lower.ends_with(ext));
    file_like
        || lower.starts_with("microsoft word - ")
        || lower.starts_with("microsoft powerpoint - ")
        || matches!(
            lower.as_str(),
            "untitled" | "title" | "document" | "no title"
        )
}

/// `D:YYYYMMDDHHmmSSOHH'mm'` (every part after the year optional) as ISO 8601: the date,
/// and the time with its offset when the string has them.
fn pdf_date(raw: &str) -> Option<String> {
    let s = raw.trim().strip_prefix("D:").unwrap_or(raw.trim());
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() < 4 {
        return None;
    }
    let part = |at: usize, default: &'static str| digits.get(at..at + 2).unwrap_or(default);
    let (year, month, day) = (&digits[..4], part(4, "01"), part(6, "01"));
    let valid =
        matches!(month.parse::<u8>(), Ok(1..=12)) && matches!(day.parse::<u8>(), Ok(1..=31));
    if !valid {
        return None;
    }
    if digits.len() < 12 {
        return Some(format!("{year}-{month}-{day}"));
    }
    let (hour, minute, second) = (part(8, "00"), part(10, "00"), part(12, "00"));
    let rest = &s[digits.len()..];
    let offset = match rest.chars().next() {
        Some('Z') => "Z".to_owned(),
        Some(sign @ ('+' | '-')) => {
            let o: String = rest[1..].chars().filter(char::is_ascii_digit).collect();
            match (o.get(..2), o.get(2..4)) {
                (Some(h), m) => format!("{sign}{h}:{}", m.unwrap_or("00")),
                _ => String::new(),
            }
        }
        _ => String::new(),
    };
    Some(format!(
        "{year}-{month}-{day}T{hour}:{minute}:{second}{offset}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_iso() {
        assert_eq!(
            pdf_date("D:20240305141500+01'00'").as_deref(),
            Some("2024-03-05T14:15:00+01:00")
        );
        assert_eq!(
            pdf_date("D:20240305141500Z").as_deref(),
            Some("2024-03-05T14:15:00Z")
        );
        assert_eq!(pdf_date("D:20240305").as_deref(), Some("2024-03-05"));
        assert_eq!(pdf_date("D:2024").as_deref(), Some("2024-01-01"));
        assert_eq!(pdf_date("D:20241305"), None);
        assert_eq!(pdf_date("yesterday"), None);
    }

    #[test]
    fn text_strings_decode_by_their_mark() {
        assert_eq!(text_string(b"\xFE\xFF\x00T\x00\xE9"), "Té");
        assert_eq!(text_string(b"\xEF\xBB\xBFT\xC3\xA9"), "Té");
        assert_eq!(text_string(b"T\xE9"), "Té");
    }

    #[test]
    fn made_up_titles_are_not_titles() {
        assert!(generated_title("Microsoft Word - tides.docx"));
        assert!(generated_title("report_final.pdf"));
        assert!(generated_title("Untitled"));
        assert!(!generated_title("Tide tables for the coming season"));
        assert!(placeholder("(unspecified)") && placeholder("anonymous"));
        assert!(!placeholder("Harbour Office"));
    }
}
