//! How much content one page makes pdf-extract parse, found before it parses any. It reads
//! a page's content streams as one, and on each `Do` it parses the named form or image
//! again, recursively, with no depth limit and no memory of what it has drawn: a form
//! drawn twice by a form drawn twice grows the work exponentially, and a form that draws
//! itself overflows the stack (which aborts the process, past any `catch_unwind`). Each
//! parsed byte costs it tens of bytes of memory, so the sum is what has to be bounded.
//!
//! The `Do` operators are found with a small tokenizer (strings, comments, inline images
//! skipped) rather than lopdf's content parser, which is the very thing whose memory is
//! being budgeted.

use std::collections::HashMap;

use pdf_extract::{Dictionary, Document, Object, ObjectId, Stream};

/// Why a page is not handed to pdf-extract.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Its content, forms and images counted each time they are drawn, pass the cap.
    TooLarge,
    /// A form draws itself, directly or through others.
    Loop,
}

/// The bytes pdf-extract would parse for page `page_id`, or why it must not try; `cap` 0
/// is no cap (loops are refused all the same). `decoded` holds each stream's measured
/// decoded length: a stream is decoded here (to find what it draws) only once its length
/// is known to fit.
pub(crate) fn page_cost(
    doc: &Document,
    page_id: ObjectId,
    decoded: &HashMap<ObjectId, u64>,
    cap: u64,
) -> Result<u64, Refusal> {
    let Ok(page) = doc.get_dictionary(page_id) else {
        return Ok(0);
    };
    let empty = Dictionary::new();
    let resources = inherited_resources(doc, page).unwrap_or(&empty);
    let mut walk = Walk {
        doc,
        decoded,
        cap,
        memo: HashMap::new(),
        drawing: Vec::new(),
    };
    let mut total = 0u64;
    for id in doc.get_page_contents(page_id) {
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            continue;
        };
        total = walk.add(total, walk.len(id, stream) + 1)?;
        let drawn = walk.draws(&plain(stream), resources)?;
        total = walk.add(total, drawn)?;
    }
    Ok(total)
}

/// The page's `/Resources`, looked up through its parents as pdf-extract does.
fn inherited_resources<'a>(doc: &'a Document, page: &'a Dictionary) -> Option<&'a Dictionary> {
    let mut node = page;
    for _ in 0..64 {
        if let Some(res) = node.get(b"Resources").ok().and_then(|o| as_dict(doc, o)) {
            return Some(res);
        }
        node = node.get(b"Parent").ok().and_then(|o| as_dict(doc, o))?;
    }
    None
}

fn as_dict<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Dictionary> {
    match object {
        Object::Reference(id) => doc.get_object(*id).ok()?.as_dict().ok(),
        other => other.as_dict().ok(),
    }
}

/// A stream's bytes as pdf-extract gets them: decoded, or as stored when lopdf cannot.
fn plain(stream: &Stream) -> Vec<u8> {
    stream
        .decompressed_content()
        .unwrap_or_else(|_| stream.content.clone())
}

struct Walk<'a> {
    doc: &'a Document,
    decoded: &'a HashMap<ObjectId, u64>,
    cap: u64,
    /// Cost of an XObject drawn with a given resource dictionary (by address: the
    /// document is not changed while it is walked).
    memo: HashMap<(ObjectId, usize), u64>,
    /// The XObjects being drawn, outermost first.
    drawing: Vec<(ObjectId, usize)>,
}

impl<'a> Walk<'a> {
    fn len(&self, id: ObjectId, stream: &Stream) -> u64 {
        self.decoded
            .get(&id)
            .copied()
            .unwrap_or(stream.content.len() as u64)
    }

    fn add(&self, total: u64, more: u64) -> Result<u64, Refusal> {
        let sum = total.saturating_add(more);
        if self.cap > 0 && sum > self.cap {
            return Err(Refusal::TooLarge);
        }
        Ok(sum)
    }

    /// What the `Do` operators of `content` draw, in bytes parsed.
    fn draws(&mut self, content: &[u8], resources: &'a Dictionary) -> Result<u64, Refusal> {
        let mut total = 0u64;
        let mut names = Vec::new();
        do_operands(content, |name| names.push(name.to_vec()));
        for name in names {
            // A name pdf-extract cannot resolve makes it give up on the document (it
            // panics), so it costs nothing more.
            let Some(id) = self.xobject(resources, &name) else {
                continue;
            };
            let cost = self.xobject_cost(id, resources)?;
            total = self.add(total, cost)?;
        }
        Ok(total)
    }

    fn xobject(&self, resources: &Dictionary, name: &[u8]) -> Option<ObjectId> {
        let xobjects = as_dict(self.doc, resources.get(b"XObject").ok()?)?;
        xobjects.get(name).ok()?.as_reference().ok()
    }

    fn xobject_cost(&mut self, id: ObjectId, caller: &'a Dictionary) -> Result<u64, Refusal> {
        let doc = self.doc;
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            return Ok(0);
        };
        let resources = stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|o| as_dict(doc, o))
            .unwrap_or(caller);
        let key = (id, std::ptr::from_ref(resources) as usize);
        if let Some(&cost) = self.memo.get(&key) {
            return Ok(cost);
        }
        if self.drawing.contains(&key) {
            return Err(Refusal::Loop);
        }
        let len = self.add(0, self.len(id, stream))?;
        self.drawing.push(key);
        let drawn = self.draws(&plain(stream), resources);
        self.drawing.pop();
        let cost = self.add(len, drawn?)?;
        self.memo.insert(key, cost);
        Ok(cost)
    }
}

/// PDF's delimiters (whitespace aside).
fn is_delimiter(c: u8) -> bool {
    matches!(
        c,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0')
}

/// Call `found` with the operand of every `/Name Do` in a content stream.
pub(crate) fn do_operands(content: &[u8], mut found: impl FnMut(&[u8])) {
    let mut last_name: Option<&[u8]> = None;
    let mut i = 0;
    while i < content.len() {
        let c = content[i];
        if is_space(c) {
            i += 1;
            continue;
        }
        match c {
            b'%' => {
                while i < content.len() && !matches!(content[i], b'\r' | b'\n') {
                    i += 1;
                }
            }
            b'(' => i = skip_literal_string(content, i),
            b'<' if content.get(i + 1) == Some(&b'<') => i += 2,
            b'<' => {
                i = memchr::memchr(b'>', &content[i..]).map_or(content.len(), |n| i + n + 1);
            }
            b'>' if content.get(i + 1) == Some(&b'>') => i += 2,
            b'/' => {
                let start = i + 1;
                i = start;
                while i < content.len() && !is_space(content[i]) && !is_delimiter(content[i]) {
                    i += 1;
                }
                last_name = Some(&content[start..i]);
                continue;
            }
            c if is_delimiter(c) => i += 1,
            _ => {
                let start = i;
                while i < content.len() && !is_space(content[i]) && !is_delimiter(content[i]) {
                    i += 1;
                }
                match &content[start..i] {
                    b"Do" => {
                        if let Some(name) = last_name {
                            found(&decode_name(name));
                        }
                    }
                    b"ID" => i = skip_inline_image(content, i),
                    // Numbers and the like are operands; anything else is an operator,
                    // which ends the operands before it.
                    t if t.iter().all(|b| b.is_ascii_digit() || b"+-.".contains(b)) => {
                        continue;
                    }
                    _ => {}
                }
                last_name = None;
                continue;
            }
        }
        last_name = None;
    }
}

/// A name with its `#xx` escapes decoded, as lopdf reads it.
pub(crate) fn decode_name(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let hex = raw
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (raw[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'#', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Past a `(...)` string: nested parentheses balance, a backslash escapes the next byte.
fn skip_literal_string(content: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < content.len() {
        match content[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    content.len()
}

/// Past an inline image's data: it ends at `EI` between whitespace.
fn skip_inline_image(content: &[u8], mut i: usize) -> usize {
    while let Some(n) = memchr::memmem::find(&content[i..], b"EI") {
        let at = i + n;
        let before = at.checked_sub(1).map(|b| content[b]);
        let after = content.get(at + 2).copied();
        if before.is_some_and(is_space) && after.is_none_or(is_space) {
            return at + 2;
        }
        i = at + 2;
    }
    content.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(content: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        do_operands(content, |n| {
            out.push(String::from_utf8_lossy(n).into_owned())
        });
        out
    }

    #[test]
    fn do_operators_are_found_outside_strings_comments_and_inline_images() {
        let content = b"q /Fm1 Do Q BT (a /Fake Do in a string \\) still) Tj ET % /Nope Do\n\
            BI /W 1 /H 1 ID \x00/Bin Do\x01 EI /Im#32 Do [/X] TJ 1 0 0 1 0 0 cm /Fm1\nDo";
        assert_eq!(names(content), ["Fm1", "Im2", "Fm1"]);
        // An operator between the name and `Do` leaves `Do` without an operand.
        assert!(names(b"/A cm Do").is_empty());
    }
}
