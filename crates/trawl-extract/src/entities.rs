//! Character references: decoding `&name;`, `&#NN;` and `&#xHH;` in text and attribute
//! values. Named references come from the WHATWG table as web_atoms (html5ever's) carries it.

use memchr::memchr2;
use web_atoms::NAMED_ENTITIES;

/// The offset of the first byte in `bytes` that decoding may change: `&` (a reference) or
/// 0xC2 (the lead byte of NBSP and the soft hyphen). Before it, decoding is a copy.
#[inline]
pub(crate) fn find_special(bytes: &[u8]) -> Option<usize> {
    memchr2(b'&', 0xC2, bytes)
}

/// Append `s` to `out` with character references decoded. In text, NBSP becomes a plain
/// space (the Markdown writer collapses whitespace anyway) and soft hyphens are removed.
pub(crate) fn decode_into(s: &str, out: &mut String, in_attribute: bool) {
    let bytes = s.as_bytes();
    let mut pos = 0;
    loop {
        let Some(off) = find_special(&bytes[pos..]) else {
            out.push_str(&s[pos..]);
            return;
        };
        let at = pos + off;
        out.push_str(&s[pos..at]);
        if bytes[at] == 0xC2 {
            // U+00A0 is C2 A0 in UTF-8, the soft hyphen U+00AD is C2 AD: in text the first
            // is a space and the second nothing (it only marks where a word may break).
            if bytes.get(at + 1) == Some(&0xA0) && !in_attribute {
                out.push(' ');
            } else if bytes.get(at + 1) == Some(&0xAD) && !in_attribute {
            } else {
                out.push_str(&s[at..at + 2]);
            }
            pos = at + 2;
            continue;
        }
        match decode_reference(&bytes[at + 1..], in_attribute) {
            Some((ch, used)) => {
                match ch {
                    Decoded::Char('\u{a0}') if !in_attribute => out.push(' '),
                    Decoded::Char('\u{ad}') if !in_attribute => {}
                    Decoded::Char(c) => out.push(c),
                    Decoded::Pair(a, b) => {
                        out.push(a);
                        out.push(b);
                    }
                }
                pos = at + 1 + used;
            }
            None => {
                out.push('&');
                pos = at + 1;
            }
        }
    }
}

enum Decoded {
    Char(char),
    /// A few names stand for two code points (`&NotEqualTilde;`).
    Pair(char, char),
}

/// Decode the reference after an `&`: returns the text and how many bytes it used.
fn decode_reference(rest: &[u8], in_attribute: bool) -> Option<(Decoded, usize)> {
    if rest.first() == Some(&b'#') {
        let (hex, start) = match rest.get(1) {
            Some(b'x' | b'X') => (true, 2),
            _ => (false, 1),
        };
        let mut end = start;
        let mut value: u32 = 0;
        while end < rest.len() && end - start < 8 {
            let digit = match (hex, rest[end]) {
                (_, b @ b'0'..=b'9') => (b - b'0') as u32,
                (true, b @ b'a'..=b'f') => (b - b'a' + 10) as u32,
                (true, b @ b'A'..=b'F') => (b - b'A' + 10) as u32,
                _ => break,
            };
            value = value * if hex { 16 } else { 10 } + digit;
            end += 1;
        }
        if end == start {
            return None;
        }
        if rest.get(end) == Some(&b';') {
            end += 1;
        }
        let ch = match value {
            0 => '\u{fffd}',
            // Windows-1252 remapping of C1 controls, as browsers do.
            0x80..=0x9f => windows_1252_c1(value),
            v => char::from_u32(v).unwrap_or('\u{fffd}'),
        };
        return Some((Decoded::Char(ch), end));
    }
    decode_named(rest, in_attribute)
}

/// A named reference, by the WHATWG table (web_atoms carries all 2,231 names, the legacy
/// ones also without `;`). As the spec says: the longest name that matches wins; a legacy
/// name without `;` in an attribute is left alone when `=` or a letter or digit follows it
/// (`href="?a=1&copy=2"` keeps `&copy=2`).
fn decode_named(rest: &[u8], in_attribute: bool) -> Option<(Decoded, usize)> {
    let mut run = 0;
    while run < rest.len() && run < 40 && rest[run].is_ascii_alphanumeric() {
        run += 1;
    }
    if run == 0 {
        return None;
    }
    let lookup = |len: usize| -> Option<(u32, u32)> {
        let key = std::str::from_utf8(&rest[..len]).ok()?;
        NAMED_ENTITIES.get(key).copied().filter(|&(c, _)| c != 0)
    };
    let (found, used) = match rest.get(run) {
        Some(b';') => lookup(run + 1).map(|v| (v, run + 1)),
        _ => None,
    }
    .or_else(|| {
        (1..=run)
            .rev()
            .find_map(|len| lookup(len).map(|v| (v, len)))
    })?;
    let legacy = rest[used - 1] != b';';
    if legacy
        && in_attribute
        && rest
            .get(used)
            .is_some_and(|&b| b == b'=' || b.is_ascii_alphanumeric())
    {
        return None;
    }
    let first = char::from_u32(found.0)?;
    match char::from_u32(found.1).filter(|_| found.1 != 0) {
        None => Some((Decoded::Char(first), used)),
        Some(second) => Some((Decoded::Pair(first, second), used)),
    }
}

fn windows_1252_c1(v: u32) -> char {
    const TABLE: [u16; 32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    char::from_u32(TABLE[(v - 0x80) as usize] as u32).unwrap_or('\u{fffd}')
}

#[cfg(test)]
mod tests {
    use super::decode_into;

    fn text(s: &str) -> String {
        let mut out = String::new();
        decode_into(s, &mut out, false);
        out
    }

    fn attr(s: &str) -> String {
        let mut out = String::new();
        decode_into(s, &mut out, true);
        out
    }

    #[test]
    fn every_html5_name_is_known() {
        assert_eq!(
            text("a &leq; b &rightarrow; c&hairsp;d"),
            "a ≤ b → c\u{200a}d"
        );
        assert_eq!(text("&NotEqualTilde;"), "\u{2242}\u{338}");
        assert_eq!(text("&amp;&lt;&gt;&quot;&apos;"), "&<>\"'");
        assert_eq!(text("Donau&shy;dampf\u{ad}schiff"), "Donaudampfschiff");
    }

    #[test]
    fn legacy_names_without_semicolon() {
        // Longest legacy prefix, in text.
        assert_eq!(text("&copy 2024"), "© 2024");
        assert_eq!(text("&notit;"), "¬it;");
        // Not legacy: left as written.
        assert_eq!(text("&hellip and"), "&hellip and");
        assert_eq!(text("&unknown;"), "&unknown;");
    }

    #[test]
    fn attribute_rule_for_legacy_names() {
        assert_eq!(attr("?a=1&copy=2"), "?a=1&copy=2");
        assert_eq!(attr("?a=1&copyx"), "?a=1&copyx");
        assert_eq!(attr("?a=1&copy;=2"), "?a=1©=2");
        assert_eq!(attr("x&amp;y"), "x&y");
        assert_eq!(attr("x&amp y"), "x& y");
    }
}
