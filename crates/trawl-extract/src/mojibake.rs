//! Repairing text that was encoded to UTF-8 twice: UTF-8 bytes once read as ISO-8859-1 or
//! windows-1252 and saved again as UTF-8 (a CMS import, a mirror, a template engine), so
//! that `’` reads `â€™` (or `â\u{80}\u{99}`) and `é` reads `Ã©`. A browser shows the
//! mojibake as it is; a reader gains nothing from it, and every word beside a quote is cut.
//!
//! Hand-written: the repair needed is one reversal (chars back to the bytes a single-byte
//! charset gave them, read as UTF-8), not a general text fixer; it runs only on pages that
//! show the pattern several times, and each sequence is replaced only when its bytes are a
//! valid UTF-8 character.

use std::borrow::Cow;

/// A page is repaired when it holds at least this many double-encoded sequences: one or
/// two may be a page quoting mojibake.
const MIN_SEQUENCES: usize = 3;

/// `text` with its double-encoded sequences decoded, or `text` itself when it does not
/// look encoded twice (see `encoded_twice`).
pub(crate) fn repair(text: Cow<'_, str>) -> Cow<'_, str> {
    if !encoded_twice(text.as_bytes()) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if let Some((decoded, used)) = decode_at(&chars[i..]) {
            out.push(decoded);
            i += used;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// Whether `bytes` (UTF-8) read as text encoded twice. A sequence is a lead char `Â`..`ô`
/// (U+00C2..U+00F4, bytes `C3 82`..`C3 B4`) followed by a char that a single-byte charset
/// gives a continuation byte (U+0080..U+00BF: `C2 80`..`C2 BF`; or one of windows-1252's
/// letters and quotes, whose UTF-8 starts `C5`, `C6`, `CB` or `E2`). Text encoded twice has
/// `MIN_SEQUENCES` or more and few of those chars alone, since there each is a byte of a
/// longer character. Text in French or German has them alone (`é` or `ß` before a
/// letter) far more often than before a quote or a dash (`Straße“`): it is left as it is.
/// A cheap scan, one `memchr` over the `C3` bytes.
fn encoded_twice(bytes: &[u8]) -> bool {
    let (mut sequences, mut alone) = (0, 0);
    for at in memchr::memchr_iter(0xC3, bytes) {
        let lead = bytes.get(at + 1).copied().unwrap_or(0);
        if !(0x82..=0xB4).contains(&lead) {
            continue;
        }
        let next = bytes.get(at + 2).copied().unwrap_or(0);
        if matches!(next, 0xC2 | 0xC5 | 0xC6 | 0xCB | 0xE2) {
            sequences += 1;
        } else {
            alone += 1;
        }
    }
    sequences >= MIN_SEQUENCES && alone * 4 <= sequences
}

/// If `chars` opens with one UTF-8 character spelt as single-byte chars, that character
/// and how many chars it took.
fn decode_at(chars: &[char]) -> Option<(char, usize)> {
    let lead = byte_of(*chars.first()?)?;
    let len = match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let mut buf = [lead, 0, 0, 0];
    for (k, slot) in buf.iter_mut().enumerate().take(len).skip(1) {
        let b = byte_of(*chars.get(k)?)?;
        if !(0x80..=0xBF).contains(&b) {
            return None;
        }
        *slot = b;
    }
    let decoded = std::str::from_utf8(&buf[..len]).ok()?.chars().next()?;
    Some((decoded, len))
}

/// The byte ISO-8859-1 or windows-1252 gives `c`, if any.
fn byte_of(c: char) -> Option<u8> {
    if let Ok(b) = u8::try_from(u32::from(c)) {
        return Some(b);
    }
    // windows-1252's 0x80..0x9F block: letters, quotes and dashes.
    Some(match c {
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8A,
        '‹' => 0x8B,
        'Œ' => 0x8C,
        'Ž' => 0x8E,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9A,
        '›' => 0x9B,
        'œ' => 0x9C,
        'ž' => 0x9E,
        'Ÿ' => 0x9F,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twice(s: &str) -> String {
        // UTF-8 bytes read as ISO-8859-1, written again as UTF-8.
        s.bytes().map(char::from).collect()
    }

    #[test]
    fn text_encoded_twice_is_repaired() {
        let page =
            "<p>There\u{2019}s a caf\u{e9} \u{2014} \u{201c}open\u{201d} all week, \u{20ac}5.</p>";
        let broken = twice(page);
        assert_ne!(broken, page);
        assert_eq!(repair(Cow::Owned(broken)), page);
        // Through windows-1252 the quotes come out as `â€™`.
        let (cp1252, _, _) = encoding_rs::WINDOWS_1252.decode(page.as_bytes());
        assert_eq!(repair(cp1252), page);
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "Caf\u{e9}s, cr\u{e8}me br\u{fb}l\u{e9}e, na\u{ef}ve, \u{c9}cole, \u{c0} bient\u{f4}t.",
            "Gr\u{fc}\u{df}e aus M\u{fc}nchen \u{2013} \u{201e}Stra\u{df}e\u{201c}.",
            // Letters before quotes, as many as there are sequences, among letters alone.
            "\u{201e}Fu\u{df}\u{201c}, \u{201e}Ma\u{df}\u{201c}, \u{201e}Gru\u{df}\u{201c}: Gr\u{f6}\u{df}e, Stra\u{df}e, Bu\u{df}e, Mu\u{df}e, \u{c4}rger, \u{d6}l, \u{dc}bel, gro\u{df}, wei\u{df}, hei\u{df}.",
            // One or two sequences may be a page quoting mojibake.
            "Broken pages show \u{c3}\u{a9} for \u{e9} and \u{e2}\u{20ac}\u{2122} for a quote.",
        ] {
            assert!(matches!(repair(Cow::Borrowed(text)), Cow::Borrowed(t) if t == text));
        }
    }
}
