//! Folding duplicate and near-duplicate documents out of multi-document answers.
//!
//! The same story syndicated on five sites, a page and its print version, a mirror: an
//! agent should read it once. Two tests, in order:
//!
//! 1. exact: the normalized texts (lower case, letters and digits only, single spaces)
//!    are equal;
//! 2. near: the MinHash estimate of the Jaccard similarity of their word 4-gram shingle
//!    sets is at least [`NEAR_DUPLICATE_JACCARD`] (0.9), from [`PERMUTATIONS`] (128) hash
//!    functions, which puts the estimate within about ±0.03 of the true value at 0.9.
//!
//! Of each group the best candidate (highest quality; on a tie, the earliest, i.e. the
//! better ranked) is kept and the others are listed as folded into it. Answers hold tens
//! of documents, so every pair is compared directly; an LSH index (what gaoya adds) pays
//! off only at thousands. Written by hand because it is this short.

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 4;
/// Number of MinHash hash functions.
pub const PERMUTATIONS: usize = 128;
/// Estimated Jaccard similarity at or above which two documents are near-duplicates.
pub const NEAR_DUPLICATE_JACCARD: f64 = 0.9;

/// A document offered for folding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate<'a> {
    /// Its text (Markdown or plain; formatting is ignored).
    pub text: &'a str,
    /// Higher is better (e.g. the extractor's quality score); decides which copy is kept.
    pub quality: f64,
}

/// A candidate folded into a kept one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Folded {
    /// Index of the folded candidate.
    pub index: usize,
    /// Index of the kept candidate it duplicates.
    pub into: usize,
    /// Estimated Jaccard similarity (1.0 for exact duplicates).
    pub similarity: f64,
    /// The normalized texts are identical.
    pub exact: bool,
}

/// The outcome: which candidates to show, and which were folded into which.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Folding {
    /// Indices of the kept candidates, in input order.
    pub kept: Vec<usize>,
    /// Folded candidates, in input order.
    pub folded: Vec<Folded>,
}

/// Folds exact and near duplicates among `candidates` (see the module docs). Candidates
/// with no words are always kept: there is nothing to compare.
pub fn fold(candidates: &[Candidate<'_>]) -> Folding {
    let prints: Vec<Fingerprint> = candidates.iter().map(|c| Fingerprint::of(c.text)).collect();
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| {
        candidates[b]
            .quality
            .total_cmp(&candidates[a].quality)
            .then(a.cmp(&b))
    });
    let mut folding = Folding::default();
    for index in order {
        let this = &prints[index];
        let best_match = folding
            .kept
            .iter()
            .filter(|_| !this.normalized.is_empty())
            .filter_map(|&kept| {
                let other = &prints[kept];
                if other.normalized == this.normalized {
                    return Some((kept, 1.0, true));
                }
                let similarity = this.signature.similarity(&other.signature);
                (similarity >= NEAR_DUPLICATE_JACCARD).then_some((kept, similarity, false))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        match best_match {
            Some((into, similarity, exact)) => folding.folded.push(Folded {
                index,
                into,
                similarity,
                exact,
            }),
            None => folding.kept.push(index),
        }
    }
    folding.kept.sort_unstable();
    folding.folded.sort_by_key(|f| f.index);
    folding
}

/// Lower case, letters and digits only, words separated by single spaces.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

struct Fingerprint {
    normalized: String,
    signature: Signature,
}

impl Fingerprint {
    fn of(text: &str) -> Self {
        Self {
            normalized: normalize(text),
            signature: Signature::of(text),
        }
    }
}

/// A MinHash signature: for each of [`PERMUTATIONS`] hash functions, the smallest hash
/// of any shingle.
///
/// The hash functions are SuperMinHash's (Ertl, 2017, arXiv:1706.05698): each shingle
/// seeds a random generator that deals it one value per slot, `j + r` to slot `p(j)` for a
/// random permutation `p` built as it goes and uniform `r` in `[0, 1)`. The dealing stops
/// once `j` passes every slot's minimum, since no later value can lower one. Past the first
/// few hundred shingles that is after one value, where the 128 independent hash functions
/// this replaced cost 128 multiply-adds a shingle (a tenth of a crawl's CPU). Two signatures
/// agree in a slot with probability the Jaccard similarity, as with independent functions,
/// and the slots are negatively correlated, so the estimate varies less on short texts.
/// Written by hand: no maintained crate implements it over a streamed shingle set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature([u64; PERMUTATIONS]);

impl Signature {
    /// The signature of `text`'s word 4-gram shingles (a text under four words is one
    /// shingle). The words are [`normalize`]'s, hashed as they are read: a crawl signs
    /// every page, and building the normalized copy first cost a tenth of the signing.
    pub fn of(text: &str) -> Self {
        Self::of_pieces([text])
    }

    /// [`Signature::of`] the pieces' concatenation, without making it (a crawl signs a
    /// page's Markdown less its link targets).
    pub fn of_pieces<'t>(pieces: impl IntoIterator<Item = &'t str>) -> Self {
        let mut sketch = Sketch::new();
        // The last four words' hashes, oldest first.
        let mut window = [0u64; SHINGLE_WORDS];
        let mut words = 0usize;
        let mut reader = WordReader::default();
        let mut on_word = |word: u64| {
            window.rotate_left(1);
            // Mixed once here, so the shingle's hash can be a cheap combination.
            window[SHINGLE_WORDS - 1] = mix(word);
            words += 1;
            if words >= SHINGLE_WORDS {
                sketch.add(shingle_hash(&window));
            }
        };
        for piece in pieces {
            reader.read(piece, &mut on_word);
        }
        reader.finish(&mut on_word);
        if (1..SHINGLE_WORDS).contains(&words) {
            sketch.add(shingle_hash(&window[SHINGLE_WORDS - words..]));
        }
        // Mixed once more, so that any few bits of a minimum (a crawl keeps one byte of
        // each) are as random as the whole.
        Self(sketch.minimums.map(mix))
    }

    /// The smallest hash of any shingle under each of the [`PERMUTATIONS`] hash functions:
    /// what an index over many signatures (a crawl's, banded for LSH) is built from.
    pub fn minimums(&self) -> &[u64; PERMUTATIONS] {
        &self.0
    }

    /// Estimated Jaccard similarity of the two shingle sets, 0..=1.
    pub fn similarity(&self, other: &Signature) -> f64 {
        let same = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        same as f64 / PERMUTATIONS as f64
    }
}

/// SuperMinHash's state while a text's shingles are added (Algorithm 1 of the paper, with
/// `j + r` held as the integer `j * 2^32 + r * 2^32`).
struct Sketch {
    /// Each slot's smallest value yet.
    minimums: [u64; PERMUTATIONS],
    /// How many slots hold a minimum whose whole part is `j` (the last entry counts the
    /// slots still empty too).
    whole_parts: [u16; PERMUTATIONS],
    /// The largest whole part of any slot's minimum: a value dealt past it lowers none.
    largest: usize,
}

impl Sketch {
    fn new() -> Self {
        let mut whole_parts = [0u16; PERMUTATIONS];
        whole_parts[PERMUTATIONS - 1] = PERMUTATIONS as u16;
        Self {
            minimums: [u64::MAX; PERMUTATIONS],
            whole_parts,
            largest: PERMUTATIONS - 1,
        }
    }

    /// Deals one shingle's values (a repeated shingle deals the same ones, so the
    /// signature is of the set).
    fn add(&mut self, shingle: u64) {
        if self.largest == 0 {
            // Every slot's minimum has whole part 0, so only `j = 0` is dealt, to slot
            // `k`: what [`Sketch::deal`] does, without its permutation's bookkeeping (most
            // of a long page's shingles; a crawl signs every page).
            let draw = mix(shingle.wrapping_add(SPLITMIX_GAMMA));
            let slot = slot_from(0, draw);
            let value = draw >> 32;
            if value < self.minimums[slot] {
                self.minimums[slot] = value;
            }
            return;
        }
        self.deal(shingle);
    }

    /// Algorithm 1's loop for one shingle.
    fn deal(&mut self, shingle: u64) {
        // The permutation starts as the identity for every shingle: a 128-byte copy, less
        // than marking which entries this shingle wrote (two tests a step) cost.
        let mut permutation = IDENTITY;
        let mut state = shingle;
        let mut j = 0usize;
        while j <= self.largest {
            // SplitMix64: the generator this shingle seeds.
            state = state.wrapping_add(SPLITMIX_GAMMA);
            let draw = mix(state);
            let fraction = draw >> 32;
            let k = slot_from(j, draw);
            // The swap of entries `j` and `k`; entry `j` is not read again (later steps
            // deal from `j + 1` on), so only `k` is written.
            let slot = usize::from(permutation[k]);
            permutation[k] = permutation[j];
            let value = ((j as u64) << 32) | fraction;
            let current = self.minimums[slot];
            if value < current {
                let was = ((current >> 32) as usize).min(PERMUTATIONS - 1);
                self.minimums[slot] = value;
                if j < was {
                    self.whole_parts[was] -= 1;
                    self.whole_parts[j] += 1;
                    while self.whole_parts[self.largest] == 0 {
                        self.largest -= 1;
                    }
                }
            }
            j += 1;
        }
    }
}

/// The identity permutation of the slots, where each shingle's dealing starts.
const IDENTITY: [u8; PERMUTATIONS] = {
    let mut identity = [0u8; PERMUTATIONS];
    let mut i = 0;
    while i < PERMUTATIONS {
        identity[i] = i as u8;
        i += 1;
    }
    identity
};

/// SplitMix64's increment: the step of the generator a shingle seeds.
const SPLITMIX_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The slot in `j..PERMUTATIONS` a draw deals to, by multiply-shift of its low half (the
/// high half is the value's fraction).
#[inline]
fn slot_from(j: usize, draw: u64) -> usize {
    j + (((draw & 0xffff_ffff) * (PERMUTATIONS - j) as u64) >> 32) as usize
}

/// FNV-1a's starting value: a word's hash before its first byte.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// One byte of FNV-1a, the hash a word is signed by.
#[inline]
fn fnv(hash: u64, byte: u8) -> u64 {
    (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
}

/// Each word of `text` as [`normalize`] cuts it (a run of letters and digits, lower
/// cased), as its FNV-1a hash.
#[cfg(test)]
fn for_each_word_hash(text: &str, mut word: impl FnMut(u64)) {
    let mut reader = WordReader::default();
    reader.read(text, &mut word);
    reader.finish(&mut word);
}

/// What a byte is to [`WordReader`]: an ASCII letter or digit lower cased (what
/// [`normalize`] keeps of it), 0 for any other ASCII byte, [`LEADS_OTHER`] for the bytes
/// of characters beyond ASCII (decoded there, at their first byte).
const WORD_BYTES: [u8; 256] = {
    let mut table = [LEADS_OTHER; 256];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_alphanumeric() {
            byte.to_ascii_lowercase()
        } else {
            0
        };
        b += 1;
    }
    table
};

/// [`WORD_BYTES`]'s mark for a byte beyond ASCII (no ASCII letter or digit is 0xFF).
const LEADS_OTHER: u8 = 0xFF;

/// Reads words as [`normalize`] cuts them (runs of letters and digits, lower cased), as
/// their FNV-1a hashes, from text given in pieces (a word may span two).
struct WordReader {
    hash: u64,
    in_word: bool,
}

impl Default for WordReader {
    fn default() -> Self {
        Self {
            hash: FNV_OFFSET,
            in_word: false,
        }
    }
}

impl WordReader {
    fn read(&mut self, text: &str, word: &mut impl FnMut(u64)) {
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            // A byte at a time, by table: ASCII is most of any page, and a crawl signs every
            // page (the tests a byte this replaces cost more than the table's one load).
            match WORD_BYTES[usize::from(bytes[at])] {
                LEADS_OTHER => {
                    let c = text[at..].chars().next().expect("at a character's start");
                    at += c.len_utf8();
                    if c.is_alphanumeric() {
                        for lower in c.to_lowercase() {
                            let mut buf = [0u8; 4];
                            for &b in lower.encode_utf8(&mut buf).as_bytes() {
                                self.hash = fnv(self.hash, b);
                            }
                        }
                        self.in_word = true;
                    } else if self.in_word {
                        self.end_word(word);
                    }
                    continue;
                }
                0 => {
                    if self.in_word {
                        self.end_word(word);
                    }
                }
                folded => {
                    self.hash = fnv(self.hash, folded);
                    self.in_word = true;
                }
            }
            at += 1;
        }
    }

    fn end_word(&mut self, word: &mut impl FnMut(u64)) {
        word(self.hash);
        self.hash = FNV_OFFSET;
        self.in_word = false;
    }

    /// Ends the last word, if the text ended inside one.
    fn finish(&mut self, word: &mut impl FnMut(u64)) {
        if self.in_word {
            self.end_word(word);
        }
    }
}

/// One hash of a shingle's (mixed) words, in order ("a b c d" and "b a c d" differ): each
/// word turned by its place. Not mixed again: the shingle seeds a generator that mixes.
fn shingle_hash(words: &[u64]) -> u64 {
    words
        .iter()
        .enumerate()
        .fold(0u64, |h, (place, &w)| h ^ w.rotate_left(16 * place as u32))
}

/// SplitMix64's finalizer: a bijection on u64 that scrambles every bit.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An original news-style story (written for this test), ~330 words.
    const STORY: &str = "\
# Council approves river path after two years of debate

The city council voted seven to two on Tuesday night to build a protected walking and
cycling path along the east bank of the river, ending a debate that began when the old
rail bridge was closed to trains two summers ago.

The path will run for just over four kilometres, from the ferry landing in the south to
the sports fields near the northern bridge. Planners say it will link three schools, the
central library and the market hall, and that most residents will live within ten
minutes' walk of an entrance.

Supporters filled the public gallery. A retired teacher told the council that her
grandchildren could not safely ride to school on the main road, and that the path would
change that. A shop owner from the market district said more people on foot and on bikes
would mean more customers, not fewer.

Opponents questioned the cost, which the city estimates at eleven million, and asked why
the money was not being spent on repairing roads first. Two councillors said they
supported the idea but wanted the northern section delayed until a flood study is
finished, because parts of the bank flooded twice last winter.

The engineering department said the design already raises the path above the level of
the worst recorded flood and uses a surface that can be cleaned quickly after high water.
Construction of the southern section is expected to start in the spring, with the full
route open within three years if funding from the regional transport fund is confirmed.

The mayor called the vote a turning point for the neighbourhoods along the river, which
have long been cut off from the water by the rail line. A public meeting on the design of
the entrances and lighting will be held next month at the central library.
";

    fn candidates<'a>(texts: &[&'a str]) -> Vec<Candidate<'a>> {
        texts
            .iter()
            .map(|&text| Candidate { text, quality: 0.5 })
            .collect()
    }

    #[test]
    #[ignore = "timing, run by hand: cargo test --release -p trawl-text signing_speed -- --ignored --nocapture"]
    fn signing_speed() {
        // The story six times (a few hundred distinct shingles, each seen six times), and
        // 2,000 words with few repeats (a long page).
        let distinct: Vec<String> = (0..2000u64)
            .map(|i| format!("w{}", mix(i) % 50_000))
            .collect();
        for (what, text) in [
            ("story x6", STORY.repeat(6)),
            ("distinct", distinct.join(" ")),
        ] {
            let start = std::time::Instant::now();
            let rounds = 2000;
            for _ in 0..rounds {
                std::hint::black_box(Signature::of(std::hint::black_box(&text)));
            }
            let words = text.split_whitespace().count();
            let per = start.elapsed().as_nanos() as f64 / rounds as f64;
            println!(
                "{what}, {words} words: {:.1} us a text, {:.1} ns a word",
                per / 1e3,
                per / words as f64
            );
        }
    }

    #[test]
    fn print_version_is_an_exact_duplicate() {
        let print = STORY.to_uppercase().replace('\n', " ").replace(',', " ,");
        let folding = fold(&candidates(&[STORY, &print]));
        assert_eq!(folding.kept, [0]);
        assert_eq!(folding.folded.len(), 1);
        let folded = folding.folded[0];
        assert_eq!((folded.index, folded.into, folded.exact), (1, 0, true));
    }

    #[test]
    fn syndicated_copy_with_a_credit_line_is_a_near_duplicate() {
        let syndicated = format!(
            "{}\nOriginally published by the City Courier.\n",
            STORY.replace("Tuesday night", "Tuesday evening")
        );
        let similarity = Signature::of(STORY).similarity(&Signature::of(&syndicated));
        assert!(similarity >= NEAR_DUPLICATE_JACCARD, "{similarity}");
        let folding = fold(&candidates(&[STORY, &syndicated]));
        assert_eq!(folding.kept, [0]);
        assert!(!folding.folded[0].exact);
    }

    #[test]
    fn the_estimate_tracks_the_true_jaccard() {
        // A masthead and a footer: true Jaccard about 0.93.
        let copy = format!(
            "Riverside Gazette | Local news\n\n{STORY}\nThis story was first published by \
             the City Courier and is republished here with permission.\n"
        );
        let shingles = |t: &str| -> std::collections::HashSet<String> {
            let n = normalize(t);
            let words: Vec<&str> = n.split(' ').collect();
            words.windows(SHINGLE_WORDS).map(|w| w.join(" ")).collect()
        };
        let (a, b) = (shingles(STORY), shingles(&copy));
        let exact = a.intersection(&b).count() as f64 / a.union(&b).count() as f64;
        let estimate = Signature::of(STORY).similarity(&Signature::of(&copy));
        assert!(
            (estimate - exact).abs() < 0.06,
            "estimate {estimate}, exact {exact}"
        );
    }

    #[test]
    fn a_rewritten_story_is_not_folded() {
        // Same event, substantially edited: two paragraphs replaced.
        let paragraphs: Vec<&str> = STORY.split("\n\n").collect();
        let rewritten = [
            paragraphs[0],
            paragraphs[1],
            "Backers of the plan crowded into the chamber, and several spoke about children \
             cycling to school and about local shops that hope for more passing trade.",
            paragraphs[3],
            "Engineers answered that the raised design had been checked against the worst \
             flood on record, and that building would start in the south next spring.",
            paragraphs[5],
            paragraphs[6],
        ]
        .join("\n\n");
        let similarity = Signature::of(STORY).similarity(&Signature::of(&rewritten));
        assert!(similarity < NEAR_DUPLICATE_JACCARD, "{similarity}");
        assert_eq!(fold(&candidates(&[STORY, &rewritten])).kept, [0, 1]);
    }

    #[test]
    fn a_different_story_on_the_same_topic_is_not_folded() {
        let other = "The regional transport fund announced on Monday which cycling projects \
            it will support this year. A river path proposed by the city is on the shortlist, \
            alongside a new bus lane on the northern bridge and lighting for the ferry landing. \
            The fund's board will make its final decision in the spring after a public \
            consultation.";
        let similarity = Signature::of(STORY).similarity(&Signature::of(other));
        assert!(similarity < 0.2, "{similarity}");
        assert_eq!(fold(&candidates(&[STORY, other])).kept, [0, 1]);
    }

    #[test]
    fn the_best_copy_is_kept_and_the_rest_point_at_it() {
        let copy = format!("{STORY}\nShare this article.");
        let texts = [
            copy.as_str(),
            STORY,
            "Unrelated short note about gardening in May.",
        ];
        let folding = fold(&[
            Candidate {
                text: texts[0],
                quality: 0.4,
            },
            Candidate {
                text: texts[1],
                quality: 0.9,
            },
            Candidate {
                text: texts[2],
                quality: 0.1,
            },
        ]);
        assert_eq!(folding.kept, [1, 2]);
        assert_eq!(folding.folded.len(), 1);
        assert_eq!((folding.folded[0].index, folding.folded[0].into), (0, 1));
    }

    #[test]
    fn ties_keep_the_better_ranked_and_groups_fold_together() {
        let a = format!("{STORY} Updated at noon.");
        let b = format!("{STORY} Updated at one.");
        let folding = fold(&candidates(&[&a, STORY, &b]));
        assert_eq!(folding.kept, [0]);
        assert!(folding.folded.iter().all(|f| f.into == 0));
    }

    /// The signature reads words as it goes; they are `normalize`'s words, hashed (the
    /// exact test compares normalized texts, the near test these hashes: the two must agree
    /// on what a word is).
    #[test]
    fn the_words_signed_are_normalizes_words() {
        let text = "  Héllo,\tWORLD—again İstanbul's 2nd-best ÆSIR\ncafé ";
        let mut streamed = Vec::new();
        for_each_word_hash(text, |h| streamed.push(h));
        let normalized: Vec<u64> = normalize(text)
            .split(' ')
            .map(|w| w.bytes().fold(FNV_OFFSET, fnv))
            .collect();
        assert_eq!(streamed, normalized);
    }

    /// `text`'s words, read whole and in two pieces cut at `cut`, are `normalize`'s.
    fn reads_as_normalize(
        text: &str,
        cut: usize,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let normalized: Vec<u64> = normalize(text)
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(|w| w.bytes().fold(FNV_OFFSET, fnv))
            .collect();
        let mut streamed = Vec::new();
        for_each_word_hash(text, |h| streamed.push(h));
        proptest::prop_assert_eq!(&streamed, &normalized);
        let mut cut = cut.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut pieces = Vec::new();
        let mut reader = WordReader::default();
        reader.read(&text[..cut], &mut |h| pieces.push(h));
        reader.read(&text[cut..], &mut |h| pieces.push(h));
        reader.finish(&mut |h| pieces.push(h));
        proptest::prop_assert_eq!(&pieces, &normalized);
        Ok(())
    }

    proptest::proptest! {
        /// Any text gives `normalize`'s words, in pieces cut anywhere.
        #[test]
        fn the_byte_reader_reads_normalizes_words(
            text in "(\\PC|[ .,\\-\\n]|[a-zA-Z0-9]{1,9}){0,40}",
            cut in 0usize..200,
        ) {
            reads_as_normalize(&text, cut)?;
        }

        /// ASCII text (read a byte at a time) too, and a piece of it beside one that is not.
        #[test]
        fn the_byte_reader_reads_ascii_as_normalize_does(
            text in "[\\x00-\\x7f]{0,120}",
            cut in 0usize..200,
        ) {
            reads_as_normalize(&text, cut)?;
            reads_as_normalize(&format!("{text}Ünïcode {text}"), cut)?;
        }
    }

    #[test]
    fn short_and_empty_texts() {
        let folding = fold(&candidates(&[
            "",
            "",
            "Hello world",
            "hello, WORLD!",
            "Goodbye",
        ]));
        assert_eq!(folding.kept, [0, 1, 2, 4], "empty texts are never folded");
        assert!(folding.folded[0].exact);
        assert_eq!(fold(&[]), Folding::default());
        assert_eq!(normalize("  Héllo,\tWORLD—again "), "héllo world again");
    }

    /// The permutations estimate without bias, short texts included: for texts of 20 to
    /// 400 words with words replaced at random, the mean error against the exact Jaccard
    /// stays within 0.02, from whole minimums and from one byte of each (as a crawl
    /// compares them), and no pair under 0.8 reads as 0.9. (A scheme whose permutations
    /// are correlated fails it; one multiply-add a permutation passed it and still ran
    /// high on a crawl's template pages, so cheaper schemes need the crawl's tests too.)
    #[test]
    fn the_estimate_is_unbiased_on_short_texts() {
        let shingles = |t: &str| -> std::collections::HashSet<String> {
            let n = normalize(t);
            let words: Vec<&str> = n.split(' ').collect();
            words.windows(SHINGLE_WORDS).map(|w| w.join(" ")).collect()
        };
        let check = |what: &str, pairs: &[(String, String)]| {
            let (mut bias, mut bytes_bias) = (0.0, 0.0);
            for (a, b) in pairs {
                let (sa, sb) = (shingles(a), shingles(b));
                let exact = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
                let (sig_a, sig_b) = (Signature::of(a), Signature::of(b));
                let estimate = sig_a.similarity(&sig_b);
                let bytes_agree = (sig_a.minimums().iter().zip(sig_b.minimums()))
                    .filter(|(x, y)| **x as u8 == **y as u8)
                    .count() as f64
                    / PERMUTATIONS as f64;
                assert!(
                    exact >= 0.8 || estimate < NEAR_DUPLICATE_JACCARD,
                    "{what}: exact {exact:.3} read as {estimate:.3}"
                );
                bias += estimate - exact;
                bytes_bias += (bytes_agree - 1.0 / 256.0) / (1.0 - 1.0 / 256.0) - exact;
            }
            let n = pairs.len() as f64;
            let (bias, bytes_bias) = (bias / n, bytes_bias / n);
            assert!(
                bias.abs() < 0.02 && bytes_bias.abs() < 0.02,
                "{what}: mean error {bias:.4}, from one byte a minimum {bytes_bias:.4}"
            );
        };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state = state.wrapping_add(SPLITMIX_GAMMA);
            mix(state)
        };
        for words in [20usize, 60, 400] {
            for changed_in_100 in [2u64, 5, 10, 20] {
                let pairs: Vec<(String, String)> = (0..100)
                    .map(|_| {
                        let a: Vec<String> =
                            (0..words).map(|_| format!("w{}", next() % 5000)).collect();
                        let b: Vec<String> = a
                            .iter()
                            .map(|w| {
                                if next() % 100 < changed_in_100 {
                                    format!("x{}", next() % 5000)
                                } else {
                                    w.clone()
                                }
                            })
                            .collect();
                        (a.join(" "), b.join(" "))
                    })
                    .collect();
                check(
                    &format!("{words} words, {changed_in_100} in 100 changed"),
                    &pairs,
                );
            }
        }
        // Pages of one template: the same words around a short body of their own (a
        // list page's heading, filters and footer around its items), where a scheme whose
        // low bits follow the shingle's (a multiply-add modulo 2^64) read pairs high.
        let template: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
        for body in [10usize, 30, 80] {
            let pairs: Vec<(String, String)> = (0..100)
                .map(|_| {
                    let page = |next: &mut dyn FnMut() -> u64| {
                        let mut words = template[..20].to_vec();
                        words.extend((0..body).map(|_| format!("b{}", next() % 50_000)));
                        words.extend_from_slice(&template[20..]);
                        words.join(" ")
                    };
                    (page(&mut next), page(&mut next))
                })
                .collect();
            check(&format!("template pages, {body}-word bodies"), &pairs);
        }
    }

    /// Pieces are signed as their concatenation, words spanning two included.
    #[test]
    fn pieces_sign_as_their_concatenation() {
        let pieces = [
            "The river pa",
            "th opens in spring; ",
            "",
            "Ça va, café au lait.",
        ];
        assert_eq!(
            Signature::of_pieces(pieces),
            Signature::of(&pieces.concat())
        );
        let (head, tail) = STORY.split_at(STORY.find("kilometres").unwrap() + 4);
        assert_eq!(Signature::of_pieces([head, tail]), Signature::of(STORY));
    }

    /// The shortcut once every minimum's whole part is 0 deals as the loop does.
    #[test]
    fn the_shortcut_deals_as_the_loop() {
        for (n, seed) in [(1u64, 1u64), (50, 2), (700, 3), (5_000, 4), (20_000, 5)] {
            let (mut fast, mut slow) = (Sketch::new(), Sketch::new());
            for i in 0..n {
                let shingle = mix(seed.wrapping_mul(1_000_003) ^ i);
                fast.add(shingle);
                slow.deal(shingle);
            }
            assert_eq!(fast.minimums, slow.minimums, "{n} shingles");
            assert_eq!(fast.largest, slow.largest, "{n} shingles");
        }
        // Long enough that the shortcut was taken.
        let mut sketch = Sketch::new();
        (0..5_000u64).for_each(|i| sketch.add(mix(i)));
        assert_eq!(sketch.largest, 0);
    }

    /// Signatures are kept in stores and compared with later crawls': the same texts give
    /// the minimums they gave when this was written (a fold of them, over texts short and
    /// long, ASCII and not).
    #[test]
    fn signatures_are_what_they_were() {
        let distinct: Vec<String> = (0..3000u64)
            .map(|i| format!("w{}", mix(i) % 50_000))
            .collect();
        let texts = [
            STORY.to_owned(),
            STORY.repeat(3),
            distinct.join(" "),
            "a b c".to_owned(),
            "Größe Ärger Öl café naïve Ωμέγα 東京 ".repeat(40),
            String::new(),
        ];
        let folded = texts.iter().fold(FNV_OFFSET, |h, text| {
            Signature::of(text)
                .minimums()
                .iter()
                .fold(h, |h, &m| (h ^ m).wrapping_mul(0x0000_0100_0000_01b3))
        });
        assert_eq!(folded, 0x8748_f083_20da_aaad, "{folded:#x}");
    }

    #[test]
    fn signatures_are_stable() {
        assert_eq!(Signature::of(STORY), Signature::of(STORY));
        assert_eq!(
            Signature::of("a b c d e").similarity(&Signature::of("a b c d e")),
            1.0
        );
    }
}
