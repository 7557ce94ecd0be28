//! Duplicate and near-duplicate pages in a crawl: a page whose main content equals, or
//! nearly equals, one the crawl already stored is recorded as `skipped`, naming that page,
//! and not stored again (a print view, a URL with a parameter that changes nothing, the
//! same article at two paths).
//!
//! The test is trawl-text's [`neardup`](trawl_text::neardup), the one that folds
//! multi-document answers: equal Markdown (the store's content hash), or MinHash
//! signatures of the word 4-gram shingles estimating a Jaccard similarity of at least
//! [`NEAR_DUPLICATE_JACCARD`]. A crawl compares each page with thousands, not tens, so
//! instead of every pair it looks only at the pages sharing one of [`BANDS`] bands of the
//! signature with it (locality-sensitive hashing: at a similarity of 0.9 a near-duplicate
//! shares a band with probability 1 − (1 − 0.9⁸)¹⁶ ≈ 0.9999; at 0.5, ≈ 0.06). Each kept
//! page costs one byte per hash function (b-bit MinHash, b = 8) and, per band, an entry
//! in the index and a link to the band's previous page (about 450 bytes a page).
//! Written here because the index is these few lines over a signature trawl already has.

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};
use sha2::{Digest, Sha256};
use trawl_text::neardup::{NEAR_DUPLICATE_JACCARD, PERMUTATIONS, Signature};

/// Bands the signature is cut into for the index.
const BANDS: usize = 16;
/// Hash functions per band.
const ROWS: usize = PERMUTATIONS / BANDS;
/// Pages with fewer words are compared for equality only: a few words (a tag page, an
/// empty listing) are alike without being the same page.
pub(crate) const MIN_WORDS: usize = 50;

/// A text's MinHash signature, when it has words enough to compare (the tests' pages).
#[cfg(test)]
pub(crate) fn signature_of(text: &str, words: usize) -> Option<Box<Signature>> {
    (words >= MIN_WORDS).then(|| Box::new(Signature::of(text)))
}

/// A page's signature from its Markdown with the link and image targets left out (the
/// words a reader sees), when it has words enough to compare (computed off the async
/// workers, with the extraction). The store keeps the Markdown, so a resumed crawl
/// computes the same signature from a stored copy as the crawl did from the page.
pub(crate) fn signature_of_markdown(markdown: &str, words: usize) -> Option<Box<Signature>> {
    if words < MIN_WORDS {
        return None;
    }
    // The pieces between the targets, signed as if joined (without joining them).
    let mut seen = Vec::new();
    let mut rest = markdown;
    // memchr: SIMD search over the whole page, where `str::find` steps a byte at a time.
    let opener = memchr::memmem::Finder::new(b"](");
    while let Some(at) = opener.find(rest.as_bytes()) {
        seen.push(&rest[..at]);
        let target = &rest[at + 2..];
        // The target ends at its closing parenthesis; one never closed is text.
        match memchr::memchr(b')', target.as_bytes()) {
            Some(end) => rest = &target[end + 1..],
            None => {
                seen.push(&rest[at..]);
                rest = "";
            }
        }
    }
    seen.push(rest);
    Some(Box::new(Signature::of_pieces(seen)))
}

/// One stored page, as the index remembers it.
struct Kept {
    url: Box<str>,
    /// The low byte of each minimum; all zero for a page without a signature.
    bits: [u8; PERMUTATIONS],
}

/// The pages a crawl stored, by content hash and by signature band.
#[derive(Default)]
pub(crate) struct Folder {
    exact: FxHashMap<u128, u32>,
    /// Each band value's latest entry (`page * BANDS + band`).
    bands: FxHashMap<u64, u32>,
    /// Per entry, the previous entry with the same band value ([`NONE`] ends the chain):
    /// pages of one template share bands often, so a band names many pages, newest first.
    chain: Vec<u32>,
    kept: Vec<Kept>,
}

/// The end of a band's chain.
const NONE: u32 = u32::MAX;
/// Pages compared per band at most (the newest): on a site whose pages are much alike
/// every band names hundreds, and comparing them all would make a crawl quadratic.
const PER_BAND: usize = 64;

fn exact_key(content_hash: &str) -> u128 {
    // The store's hash is 32 hex digits; anything else is hashed again to fit.
    u128::from_str_radix(content_hash, 16).unwrap_or_else(|_| {
        let d = Sha256::digest(content_hash.as_bytes());
        let mut first = [0u8; 16];
        first.copy_from_slice(&d[..16]);
        u128::from_le_bytes(first)
    })
}

fn band_keys(signature: &Signature) -> impl Iterator<Item = u64> + '_ {
    signature
        .minimums()
        .chunks(ROWS)
        .enumerate()
        .map(|(band, rows)| {
            let mut h = FxHasher::default();
            band.hash(&mut h);
            rows.hash(&mut h);
            h.finish()
        })
}

fn low_bytes(signature: &Signature) -> [u8; PERMUTATIONS] {
    let mut bits = [0u8; PERMUTATIONS];
    for (b, m) in bits.iter_mut().zip(signature.minimums()) {
        *b = *m as u8;
    }
    bits
}

/// The Jaccard similarity that b-bit signatures agreeing this often estimate: two bytes
/// agree by chance one time in 256, which the estimate takes out.
fn similarity(a: &[u8; PERMUTATIONS], b: &[u8; PERMUTATIONS]) -> f64 {
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / PERMUTATIONS as f64;
    const CHANCE: f64 = 1.0 / 256.0;
    ((agree - CHANCE) / (1.0 - CHANCE)).max(0.0)
}

/// The URL a duplicate's `skipped` detail names (as [`Folder::duplicate_of`] and an alias
/// found stored write it), for a changes-crawl to tell which page it was a copy of.
pub(crate) fn duplicated_url(detail: &str) -> Option<&str> {
    let rest = detail
        .strip_prefix("duplicate of ")
        .or_else(|| detail.strip_prefix("near-duplicate of "))?;
    Some(
        rest.split_once(" (similarity ")
            .map_or(rest, |(url, _)| url),
    )
}

impl Folder {
    /// Why a page with this content is not stored: the detail of its `skipped` row, naming
    /// the stored page it duplicates. `None` when it is new.
    pub(crate) fn duplicate_of(
        &self,
        content_hash: &str,
        signature: Option<&Signature>,
    ) -> Option<String> {
        if let Some(&i) = self.exact.get(&exact_key(content_hash)) {
            return Some(format!("duplicate of {}", self.kept[i as usize].url));
        }
        let signature = signature?;
        let bits = low_bytes(signature);
        let mut best: Option<(u32, f64)> = None;
        let mut compared: Vec<u32> = Vec::new();
        for key in band_keys(signature) {
            let mut entry = self.bands.get(&key).copied().unwrap_or(NONE);
            let mut walked = 0;
            while entry != NONE && walked < PER_BAND {
                walked += 1;
                let i = entry / BANDS as u32;
                entry = self.chain[entry as usize];
                if compared.contains(&i) {
                    continue;
                }
                compared.push(i);
                let s = similarity(&bits, &self.kept[i as usize].bits);
                if s >= NEAR_DUPLICATE_JACCARD && best.is_none_or(|(_, bs)| s > bs) {
                    best = Some((i, s));
                }
            }
        }
        best.map(|(i, s)| {
            format!(
                "near-duplicate of {} (similarity {s:.2})",
                self.kept[i as usize].url
            )
        })
    }

    /// Remembers a stored page.
    pub(crate) fn keep(&mut self, url: &str, content_hash: &str, signature: Option<&Signature>) {
        let index = self.kept.len() as u32;
        self.exact.entry(exact_key(content_hash)).or_insert(index);
        let bits = match signature {
            Some(sig) => {
                for (band, key) in band_keys(sig).enumerate() {
                    let entry = index * BANDS as u32 + band as u32;
                    let previous = self.bands.insert(key, entry).unwrap_or(NONE);
                    // Entries of pages without a signature are never linked: pad to here.
                    self.chain.resize(entry as usize, NONE);
                    self.chain.push(previous);
                }
                low_bytes(sig)
            }
            None => [0; PERMUTATIONS],
        };
        self.kept.push(Kept {
            url: url.into(),
            bits,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// About 200 words of distinct prose, `seed` choosing the words.
    fn article(seed: u64) -> String {
        const WORDS: [&str; 24] = [
            "river",
            "council",
            "path",
            "bridge",
            "cycling",
            "budget",
            "vote",
            "residents",
            "summer",
            "lights",
            "bank",
            "mayor",
            "plan",
            "debate",
            "trees",
            "route",
            "safety",
            "night",
            "walkers",
            "funding",
            "design",
            "meeting",
            "north",
            "station",
        ];
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..200)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                WORDS[(x % WORDS.len() as u64) as usize]
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn sig(text: &str) -> Option<Box<Signature>> {
        signature_of(text, text.split_whitespace().count())
    }

    #[test]
    fn link_targets_are_not_part_of_a_pages_signature() {
        let story = article(3);
        let linked = story.replacen(" ", " [see](https://elsewhere.example/a/b?c=d) ", 40);
        let plain = story.replacen(" ", " see ", 40);
        let a = signature_of_markdown(&linked, 500).unwrap();
        let b = signature_of_markdown(&plain, 500).unwrap();
        assert_eq!(a.similarity(&b), 1.0);
        let with_targets = signature_of(&linked, 500).unwrap();
        assert!(with_targets.similarity(&b) < 1.0);
    }

    #[test]
    fn a_print_view_folds_into_the_article_and_another_article_does_not() {
        let mut folder = Folder::default();
        let story = article(1);
        folder.keep("https://e.com/story", "00", sig(&story).as_deref());
        let print = format!("Printed from e.com on 3 May. {story}");
        let detail = folder
            .duplicate_of("01", sig(&print).as_deref())
            .expect("the print view is a near-duplicate");
        assert!(
            detail.starts_with("near-duplicate of https://e.com/story (similarity 0.9"),
            "{detail}"
        );
        let other = article(2);
        assert_eq!(folder.duplicate_of("02", sig(&other).as_deref()), None);
    }

    #[test]
    fn equal_content_is_a_duplicate_whatever_its_length_and_short_pages_are_not_compared() {
        let mut folder = Folder::default();
        folder.keep("https://e.com/a", "abc123", None);
        assert_eq!(
            folder.duplicate_of("abc123", None).as_deref(),
            Some("duplicate of https://e.com/a")
        );
        // Two short pages alike in all but a word: kept both (no signature under MIN_WORDS).
        let short = "Posts tagged rust: none yet.";
        assert!(sig(short).is_none());
        assert_eq!(folder.duplicate_of("def456", sig(short).as_deref()), None);
    }

    #[test]
    fn the_index_finds_a_near_duplicate_among_many_pages() {
        let mut folder = Folder::default();
        for i in 0..2_000 {
            let text = article(100 + i);
            folder.keep(
                &format!("https://e.com/{i}"),
                &format!("{i:032x}"),
                sig(&text).as_deref(),
            );
        }
        let copy = format!("{} Shared from the spring campaign.", article(100 + 1_234));
        let other_hash = format!("{:032x}", u128::MAX);
        let detail = folder
            .duplicate_of(&other_hash, sig(&copy).as_deref())
            .unwrap();
        assert!(detail.contains("https://e.com/1234 "), "{detail}");
        let exact = folder.duplicate_of(&format!("{:032x}", 77), None).unwrap();
        assert_eq!(exact, "duplicate of https://e.com/77");
    }
}
