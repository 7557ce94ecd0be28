//! [`KeptLinks`] as one text, deflated, in base64 inside a JSON note: the form every store
//! wrote before SQLite kept links by reference, which Redis still writes (its hash is
//! memory, not a file, and a dictionary there would cost a round trip a link). One
//! `url\ttext` line a link, the canonical URL (or nothing) on the first line.

use std::cell::RefCell;
use std::io::Read;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use flate2::{Compress, Compression, FlushCompress, Status};

use crate::crawl_notes::{KeptLink, KeptLinks};

/// The JSON note of `links`.
#[cfg_attr(
    not(any(feature = "redis", test)),
    expect(dead_code, reason = "only Redis writes notes in this form now")
)]
pub(crate) fn to_note(links: &KeptLinks) -> serde_json::Value {
    let mut lines = String::new();
    lines.push_str(links.canonical.as_deref().unwrap_or(""));
    lines.push('\n');
    for l in &links.links {
        lines.push_str(&l.url);
        lines.push('\t');
        lines.push_str(&l.text);
        lines.push('\n');
    }
    match deflate(lines.as_bytes()) {
        Some(packed) => serde_json::json!({ "deflated": BASE64.encode(packed) }),
        None => serde_json::json!({ "lines": lines }),
    }
}

/// The links of a JSON note; `None` for a note that is not one.
pub(crate) fn from_note(v: &serde_json::Value) -> Option<KeptLinks> {
    let lines = match v.get("lines").and_then(|l| l.as_str()) {
        Some(lines) => lines.to_owned(),
        None => {
            let packed = BASE64.decode(v.get("deflated")?.as_str()?).ok()?;
            let mut lines = String::new();
            flate2::read::DeflateDecoder::new(&packed[..])
                .take(64 << 20)
                .read_to_string(&mut lines)
                .ok()?;
            lines
        }
    };
    let mut rows = lines.lines();
    let canonical = rows.next().filter(|c| !c.is_empty()).map(str::to_owned);
    let links = rows
        .filter_map(|row| {
            let (url, text) = row.split_once('\t')?;
            Some(KeptLink {
                url: url.to_owned(),
                text: text.to_owned(),
            })
        })
        .collect();
    Some(KeptLinks { canonical, links })
}

thread_local! {
    /// One compressor a thread, reset for each page: a new one allocates about 160 KB of
    /// tables, and one a page left the allocator's heap fragmented.
    static DEFLATE: RefCell<Compress> = RefCell::new(Compress::new(Compression::fast(), false));
}

fn deflate(input: &[u8]) -> Option<Vec<u8>> {
    DEFLATE.with_borrow_mut(|z| {
        z.reset();
        let mut out = Vec::with_capacity(input.len() / 3 + 64);
        loop {
            let done = usize::try_from(z.total_in()).ok()?;
            match z.compress_vec(&input[done..], &mut out, FlushCompress::Finish) {
                Ok(Status::StreamEnd) => return Some(out),
                Ok(_) => out.reserve(out.capacity().max(64)),
                Err(_) => return None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_survive_the_note() {
        let links = KeptLinks {
            canonical: Some("https://example.com/a".into()),
            links: vec![
                KeptLink {
                    url: "https://example.com/b".into(),
                    text: "B page".into(),
                },
                KeptLink {
                    url: "https://example.com/c".into(),
                    text: String::new(),
                },
            ],
        };
        assert_eq!(from_note(&to_note(&links)), Some(links));
        let bare = KeptLinks::default();
        assert_eq!(from_note(&to_note(&bare)), Some(bare));
        assert_eq!(from_note(&serde_json::json!({"other": 1})), None);
    }
}
