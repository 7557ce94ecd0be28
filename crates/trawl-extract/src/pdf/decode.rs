//! Stream decoding bounded by what it produces. lopdf decodes streams with no cap on the
//! output (a 49 KB file can inflate to gigabytes), so the PDF path measures every stream
//! here first, with decoders that stop at the budget, and only then lets lopdf decode.
//!
//! lopdf understands three filters (`FlateDecode`, with a raw-deflate retry, `LZWDecode`
//! and `ASCII85Decode`); anything else it leaves undecoded, so those three are all that
//! can grow. ASCII85 is hand-written here because lopdf keeps its decoder private and it
//! is a dozen lines.

use std::io::Read;
use std::time::Instant;

use super::PdfLimits;

/// Why a document was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Over {
    /// Its streams decode to more than `max_decoded_bytes`.
    Bytes,
    /// It took longer than `max_time`.
    Time,
}

/// What one document may still spend: decoded bytes and time.
#[derive(Debug)]
pub(crate) struct Budget {
    left: Option<u64>,
    deadline: Option<Instant>,
}

/// Output is produced in chunks of this size, so a decoder overshoots the budget by at
/// most one chunk before it is stopped.
const CHUNK: usize = 64 * 1024;

/// A decoder's output is kept up to this size, to be fed to the next filter; beyond it,
/// it is only counted. A stage that feeds another may not produce more than this.
pub(crate) const KEEP: usize = 16 << 20;

impl Budget {
    pub(crate) fn new(limits: &PdfLimits) -> Budget {
        Budget {
            left: (limits.max_decoded_bytes > 0).then_some(limits.max_decoded_bytes),
            deadline: (!limits.max_time.is_zero()).then(|| Instant::now() + limits.max_time),
        }
    }

    /// Take `n` decoded bytes from the budget.
    pub(crate) fn spend(&mut self, n: u64) -> Result<(), Over> {
        if let Some(left) = &mut self.left {
            *left = left.checked_sub(n).ok_or(Over::Bytes)?;
        }
        self.check_time()
    }

    /// Whether the document is still within its time.
    pub(crate) fn check_time(&self) -> Result<(), Over> {
        match self.deadline {
            Some(deadline) if Instant::now() > deadline => Err(Over::Time),
            _ => Ok(()),
        }
    }

    /// The most one stream may still decode to.
    fn room(&self) -> u64 {
        self.left.unwrap_or(u64::MAX)
    }
}

/// The decoded length of a stream's `data` through `filters` (in decoding order), every
/// stage's output charged to `budget`. Stops at the first filter lopdf cannot decode
/// either (what was produced up to there is all lopdf produces too). A stage that feeds
/// another may produce at most [`KEEP`] bytes.
pub(crate) fn decoded_len(
    data: &[u8],
    filters: &[&[u8]],
    budget: &mut Budget,
) -> Result<u64, Over> {
    let mut current = Decoded {
        len: data.len() as u64,
        kept: data.to_vec(),
    };
    for filter in filters {
        if !current.whole() {
            return Err(Over::Bytes);
        }
        current = match *filter {
            b"FlateDecode" => flate(&current.kept, budget)?,
            b"LZWDecode" => lzw_longer(&current.kept, budget)?,
            b"ASCII85Decode" => ascii85(&current.kept, budget)?,
            _ => break,
        };
    }
    Ok(current.len)
}

/// zlib, or raw deflate after the two header bytes when zlib gives nothing (lopdf's retry).
fn flate(data: &[u8], budget: &mut Budget) -> Result<Decoded, Over> {
    let out = capped_read(flate2::read::ZlibDecoder::new(data), budget)?;
    if out.len == 0 && data.len() > 2 {
        return capped_read(flate2::read::DeflateDecoder::new(&data[2..]), budget);
    }
    Ok(out)
}

/// Everything `reader` yields until it ends or fails, charged to the budget as it comes;
/// the first [`KEEP`] bytes are kept.
fn capped_read(mut reader: impl Read, budget: &mut Budget) -> Result<Decoded, Over> {
    let mut out = Decoded::default();
    let mut chunk = vec![0u8; CHUNK];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) | Err(_) => return Ok(out),
            Ok(n) => {
                budget.spend(n as u64)?;
                out.push(&chunk[..n]);
            }
        }
    }
}

/// A decoder's output: its length, and its first [`KEEP`] bytes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Decoded {
    pub(crate) len: u64,
    pub(crate) kept: Vec<u8>,
}

impl Decoded {
    fn push(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        let room = KEEP.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn whole(&self) -> bool {
        self.len == self.kept.len() as u64
    }
}

/// LZW as lopdf reads it (MSB first, 8-bit codes), with and without early change (the
/// PDF default is with; `/DecodeParms` can turn it off): the longer reading is charged.
fn lzw_longer(data: &[u8], budget: &mut Budget) -> Result<Decoded, Over> {
    let a = lzw(data, true, budget)?;
    let b = lzw(data, false, budget)?;
    let out = if b.len > a.len { b } else { a };
    budget.spend(out.len)?;
    Ok(out)
}

/// One LZW reading, stopped once it passes the room left in the budget (not charged).
fn lzw(data: &[u8], early_change: bool, budget: &Budget) -> Result<Decoded, Over> {
    use weezl::{BitOrder, LzwStatus, decode::Decoder};
    let mut decoder = if early_change {
        Decoder::with_tiff_size_switch(BitOrder::Msb, 8)
    } else {
        Decoder::new(BitOrder::Msb, 8)
    };
    let room = budget.room();
    let mut out = Decoded::default();
    let mut chunk = vec![0u8; CHUNK];
    let mut input = data;
    loop {
        let result = decoder.decode_bytes(input, &mut chunk);
        input = &input[result.consumed_in..];
        out.push(&chunk[..result.consumed_out]);
        if out.len > room {
            return Err(Over::Bytes);
        }
        budget.check_time()?;
        match result.status {
            Ok(LzwStatus::Ok) if result.consumed_in + result.consumed_out > 0 => {}
            _ => return Ok(out),
        }
    }
}

/// ASCII85 (`~>` ends it; `z` is four zero bytes), as lopdf decodes it.
fn ascii85(data: &[u8], budget: &mut Budget) -> Result<Decoded, Over> {
    let mut out = Vec::new();
    let (mut group, mut count) = (0u32, 0usize);
    for &c in data {
        match c {
            b'~' => break,
            b'z' if count == 0 => out.extend_from_slice(&[0; 4]),
            c if c.is_ascii_whitespace() => {}
            b'!'..=b'u' => {
                group = group.wrapping_mul(85).wrapping_add(u32::from(c - b'!'));
                count += 1;
                if count == 5 {
                    out.extend_from_slice(&group.to_be_bytes());
                    (group, count) = (0, 0);
                }
            }
            _ => break,
        }
    }
    if count > 1 {
        for _ in count..5 {
            group = group.wrapping_mul(85).wrapping_add(84);
        }
        out.extend_from_slice(&group.to_be_bytes()[..count - 1]);
    }
    budget.spend(out.len() as u64)?;
    Ok(Decoded {
        len: out.len() as u64,
        kept: out,
    })
}

/// How much the streams of a file could decode to, measured on the raw bytes before lopdf
/// parses them (it decodes cross-reference and object streams while loading, before any
/// object can be looked at). Every `stream` keyword is tried, its data taken to the end of
/// the file (so a `/Length` or an `endstream` inside the data cannot hide any of it), with
/// each decoder lopdf has, nested up to three deep as filter chains are; the longest
/// reading of each stream is charged. Encrypted data reads as noise here; those streams
/// are measured after decryption instead.
pub(crate) fn prescan(bytes: &[u8], budget: &mut Budget) -> Result<(), Over> {
    for at in memchr::memmem::find_iter(bytes, b"stream") {
        if bytes[..at].ends_with(b"end") {
            continue;
        }
        budget.check_time()?;
        let mut start = at + b"stream".len();
        while matches!(bytes.get(start), Some(b' ' | b'\t')) {
            start += 1;
        }
        match bytes.get(start..start + 2) {
            Some(b"\r\n") => start += 2,
            _ if matches!(bytes.get(start), Some(b'\n' | b'\r')) => start += 1,
            _ => continue,
        }
        sniff(&bytes[start..], 0, budget)?;
    }
    Ok(())
}

/// Charge the longest way `data` can be decoded, up to `depth` 3. Each reading is tried
/// on a scratch budget; the one that spent most is charged for real. A nested reading
/// sees the first [`KEEP`] bytes of the one outside it, enough to show a nested bomb.
fn sniff(data: &[u8], depth: u8, budget: &mut Budget) -> Result<(), Over> {
    if depth == 3 || data.is_empty() {
        return Ok(());
    }
    let mut longest: Option<Budget> = None;
    for reading in [Reading::Flate, Reading::Lzw, Reading::Ascii85] {
        let mut scratch = Budget {
            left: budget.left,
            deadline: budget.deadline,
        };
        let out = match reading {
            Reading::Flate => flate(data, &mut scratch)?,
            Reading::Lzw => lzw_longer(data, &mut scratch)?,
            Reading::Ascii85 if looks_ascii85(data) => ascii85(data, &mut scratch)?,
            Reading::Ascii85 => continue,
        };
        if out.len == 0 {
            continue;
        }
        sniff(&out.kept, depth + 1, &mut scratch)?;
        if longest.as_ref().is_none_or(|l| scratch.room() < l.room()) {
            longest = Some(scratch);
        }
    }
    if let Some(longest) = longest {
        budget.left = longest.left;
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Reading {
    Flate,
    Lzw,
    Ascii85,
}

/// ASCII85 data is printable up to `~>`; a stream of anything else is not read as it.
fn looks_ascii85(data: &[u8]) -> bool {
    data.iter()
        .take(64)
        .all(|&c| c.is_ascii_whitespace() || (b'!'..=b'u').contains(&c) || c == b'z' || c == b'~')
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::time::Duration;

    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn limits(max: u64) -> PdfLimits {
        PdfLimits {
            max_decoded_bytes: max,
            max_page_content_bytes: 0,
            max_time: Duration::ZERO,
        }
    }

    #[test]
    fn a_chain_is_decoded_in_order_within_the_budget() {
        let twice = zlib(&zlib(b"BT (hi) Tj ET"));
        let mut budget = Budget::new(&limits(1 << 20));
        let len = decoded_len(&twice, &[b"FlateDecode", b"FlateDecode"], &mut budget).unwrap();
        assert_eq!(len, b"BT (hi) Tj ET".len() as u64);
    }

    #[test]
    fn a_bomb_stops_at_the_budget_not_at_its_end() {
        let bomb = zlib(&vec![b' '; 64 << 20]);
        let mut budget = Budget::new(&limits(1 << 20));
        assert_eq!(
            decoded_len(&bomb, &[b"FlateDecode"], &mut budget),
            Err(Over::Bytes)
        );
    }

    #[test]
    fn the_prescan_finds_a_bomb_whose_length_and_endstream_lie() {
        // The data holds an `endstream` of its own and /Length says 3: neither hides the
        // 64 MiB that follow.
        let mut file = b"%PDF-1.5\n1 0 obj << /Length 3 /Filter /FlateDecode >>\nstream\n".to_vec();
        file.extend_from_slice(&zlib(&vec![b'A'; 64 << 20]));
        file.extend_from_slice(b"\nendstream\nendobj\n");
        let mut budget = Budget::new(&limits(8 << 20));
        assert_eq!(prescan(&file, &mut budget), Err(Over::Bytes));
        // A double-deflated one.
        let mut file = b"1 0 obj << >>\nstream\r\n".to_vec();
        file.extend_from_slice(&zlib(&zlib(&vec![b'A'; 64 << 20])));
        assert_eq!(
            prescan(&file, &mut Budget::new(&limits(8 << 20))),
            Err(Over::Bytes)
        );
        let small = b"1 0 obj << >>\nstream\nplain text, not compressed\nendstream";
        let mut budget = Budget::new(&limits(8 << 20));
        assert_eq!(prescan(small, &mut budget), Ok(()));
    }

    #[test]
    fn ascii85_matches_the_reference() {
        let mut budget = Budget::new(&limits(0));
        assert_eq!(
            ascii85(b"87cURD]i,\"Ebo80~>", &mut budget).unwrap().kept,
            b"Hello World!"
        );
        assert_eq!(ascii85(b"z~>", &mut budget).unwrap().kept, [0; 4]);
    }
}
