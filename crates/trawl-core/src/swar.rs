//! Byte classes tested eight bytes at a time, in a `u64` ("SIMD within a register").
//!
//! The scans over every page's text (word counts, visible characters, stray controls, token
//! estimates) were written as byte loops for the compiler to vectorize, and the shipped
//! binary vectorizes none: it is built for size (`opt-level = "s"`, where rustc turns the
//! loop vectorizer off) and with fat LTO (whose pre-link passes leave vectorizing to the
//! link, run at that same level). `std::arch` would need `unsafe`, which these crates
//! forbid, and memchr (which trawl uses to find bytes) neither counts bytes of a class nor
//! finds a run of them; eight bytes a step with plain integer operations is portable and
//! does not depend on what the optimizer does.
//!
//! A mask has the high bit (0x80) of each byte set where that byte is in the class, and
//! every other bit clear; each test below is exact for every byte (no carry crosses from
//! one byte into the next), so masks can be combined with `&`, `|` and `!` (then `& HIGH`),
//! and counted (by a [`Tally`]). Byte `i` of a slice is byte `i` of its word, the lowest
//! first (little-endian), so "the byte before" is a shift left by 8.

/// The high bit of every byte.
pub const HIGH: u64 = 0x8080_8080_8080_8080;
/// The low seven bits of every byte.
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// One in every byte: `ONES * b` repeats `b` eight times.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The words of `bytes`, the last one filled up with spaces (which are in no class these
/// scans look for but whitespace, and start no word).
pub fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let chunks = bytes.chunks_exact(8);
    let tail = chunks.remainder();
    let last = (!tail.is_empty()).then(|| {
        let mut padded = [b' '; 8];
        padded[..tail.len()].copy_from_slice(tail);
        u64::from_le_bytes(padded)
    });
    chunks
        .map(|c| u64::from_le_bytes(c.try_into().expect("a chunk of eight")))
        .chain(last)
}

/// The bytes equal to `byte`.
#[inline]
pub fn equal(word: u64, byte: u8) -> u64 {
    let v = word ^ (ONES * u64::from(byte));
    // The low seven bits plus 0x7F reach the high bit unless they are all zero; with the
    // byte's own high bit, that leaves the high bit clear only for a zero byte.
    !(((v & LOW7) + LOW7) | v) & HIGH
}

/// The bytes below `n`, which is at most 0x80.
#[inline]
pub fn below(word: u64, n: u8) -> u64 {
    debug_assert!(n <= 0x80);
    // The low seven bits plus (0x80 - n) reach the high bit when they are n or more.
    !(((word & LOW7) + ONES * u64::from(0x80 - n)) | word) & HIGH
}

/// ASCII whitespace as `u8::is_ascii_whitespace` has it: space, tab, newline, form feed
/// and carriage return (not the vertical tab, 0x0B).
#[inline]
pub fn ascii_space(word: u64) -> u64 {
    equal(word, b' ') | (below(word, 0x0E) & !below(word, b'\t') & !equal(word, 0x0B))
}

/// The bytes that continue a UTF-8 character (0b10xxxxxx).
#[inline]
pub fn continuation(word: u64) -> u64 {
    // The high bit set, and the bit below it (moved up by the shift) clear.
    word & !(word << 1) & HIGH
}

/// ASCII letters and digits (`u8::is_ascii_alphanumeric`). OR 0x20 takes the upper-case
/// letters, and only them, onto the lower-case ones.
#[inline]
pub fn ascii_alphanumeric(word: u64) -> u64 {
    let folded = word | (ONES * 0x20);
    let letter = below(folded, b'z' + 1) & !below(folded, b'a');
    let digit = below(word, b'9' + 1) & !below(word, b'0');
    (letter | digit) & HIGH
}

/// The word with its ASCII upper-case letters lowered (`u8::to_ascii_lowercase` on each
/// byte): a letter's high-bit mark moved down to 0x20, the bit that lowers it.
#[inline]
pub fn ascii_lowercase(word: u64) -> u64 {
    let upper = below(word, b'Z' + 1) & !below(word, b'A') & HIGH;
    word | (upper >> 2)
}

/// Counts the bytes set in masks. `count_ones` is a dozen instructions on the baseline
/// x86-64 the binary is built for (no `popcnt`); a byte lane each adds a mask's bytes in
/// one step, and the lanes are summed every 255 masks, before one could overflow.
#[derive(Debug, Default)]
pub struct Tally {
    lanes: u64,
    pending: u32,
    total: usize,
}

impl Tally {
    /// Adds the bytes set in `mask` (a mask as this module makes them).
    #[inline]
    pub fn add(&mut self, mask: u64) {
        self.lanes += mask >> 7;
        self.pending += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        // Pairs of lanes into 16-bit lanes (at most 510 each), then all four by a multiply.
        const EVEN: u64 = 0x00FF_00FF_00FF_00FF;
        let pairs = (self.lanes & EVEN) + ((self.lanes >> 8) & EVEN);
        self.total += (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize;
        self.lanes = 0;
        self.pending = 0;
    }

    /// The count.
    pub fn total(mut self) -> usize {
        self.flush();
        self.total
    }
}

/// How many runs of bytes outside `space` `bytes` holds: the words, as text split at those
/// bytes counts them. `space` gives a word's mask of separators.
pub fn count_runs(bytes: &[u8], space: impl Fn(u64) -> u64) -> usize {
    let mut count = Tally::default();
    // Before the first byte, as if a separator: a text that opens with a word counts it.
    let mut space_before = 0x80u64;
    for word in words(bytes) {
        let spaces = space(word);
        count.add(((spaces << 8) | space_before) & !spaces & HIGH);
        space_before = spaces >> 56;
    }
    count.total()
}

/// How many words `str::split_whitespace` finds in ASCII `bytes`: runs outside
/// `char::is_whitespace`, which in ASCII is `u8::is_ascii_whitespace` and the vertical tab.
pub fn ascii_words(bytes: &[u8]) -> usize {
    count_runs(bytes, |w| ascii_space(w) | equal(w, 0x0B))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A mask made byte by byte from `class`, for the word of `bytes` (eight of them).
    fn mask_of(bytes: &[u8; 8], class: impl Fn(u8) -> bool) -> u64 {
        bytes
            .iter()
            .enumerate()
            .fold(0, |m, (i, &b)| m | (u64::from(class(b)) << (8 * i + 7)))
    }

    fn runs(bytes: &[u8], space: impl Fn(u8) -> bool) -> usize {
        bytes.split(|&b| space(b)).filter(|w| !w.is_empty()).count()
    }

    /// Every byte value at every place of a word, beside every other: a test that read
    /// across bytes (a carry or a borrow) would show here.
    #[test]
    fn each_class_is_exact_for_every_byte_beside_every_other() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let bytes = [a, b, a, 0x80, b, 0xFF, 0, a];
                let word = u64::from_le_bytes(bytes);
                for c in [0, b' ', b',', 0x7F, 0xC2, 0xFF, a] {
                    assert_eq!(
                        equal(word, c),
                        mask_of(&bytes, |x| x == c),
                        "{bytes:?} = {c}"
                    );
                }
                for n in [0, 1, b'\t', 0x0E, 0x20, 0x7F, 0x80] {
                    assert_eq!(
                        below(word, n),
                        mask_of(&bytes, |x| x < n),
                        "{bytes:?} < {n}"
                    );
                }
                assert_eq!(
                    ascii_space(word),
                    mask_of(&bytes, |x| x.is_ascii_whitespace()),
                    "{bytes:?}"
                );
                assert_eq!(
                    ascii_alphanumeric(word),
                    mask_of(&bytes, |x| x.is_ascii_alphanumeric()),
                    "{bytes:?}"
                );
                assert_eq!(
                    continuation(word),
                    mask_of(&bytes, |x| x & 0xC0 == 0x80),
                    "{bytes:?}"
                );
                assert_eq!(
                    ascii_lowercase(word),
                    u64::from_le_bytes(bytes.map(|x| x.to_ascii_lowercase())),
                    "{bytes:?}"
                );
            }
        }
    }

    /// Every lane full for longer than a flush, and masks of every weight.
    #[test]
    fn a_tally_counts_as_count_ones_does() {
        let masks = [HIGH, 0, 0x80, HIGH << 8 & HIGH, 0x8000_0000_0000_0080];
        for n in [0, 1, 254, 255, 256, 510, 511, 2_000] {
            for &mask in &masks {
                let mut tally = Tally::default();
                for _ in 0..n {
                    tally.add(mask);
                }
                assert_eq!(
                    tally.total(),
                    n * mask.count_ones() as usize,
                    "{n} × {mask:#x}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn runs_are_counted_as_a_split_counts_them(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b' '), Just(b'\n'), Just(0x0Bu8), any::<u8>()],
                0..80,
            )
        ) {
            prop_assert_eq!(
                count_runs(&bytes, ascii_space),
                runs(&bytes, |b| b.is_ascii_whitespace())
            );
            let words: Vec<u64> = words(&bytes).collect();
            prop_assert_eq!(words.len(), bytes.len().div_ceil(8));
        }
    }
}
