//! The frontier and the seen set, kept small in memory so a crawl that finds 100,000 URLs
//! costs little more than one that finds 1,000.
//!
//! [`Frontier`]: URLs waiting, highest priority first, ties in the order they were found (so
//! breadth-first, whose priority is minus the depth, is first-in first-out within a depth).
//! When the crawl's rows are kept in the store, only the best [`Frontier::cap`] URLs stay in
//! memory; the rest are *spilled* (their `queued` rows are in the store already) and read
//! back, in the order they were found, when memory runs dry.
//!
//! [`Seen`]: the URLs met, by a 128-bit digest of its canonical form (16 bytes a URL
//! instead of the string), with their state. A spilled URL leaves it too (its row in the
//! store says it was seen), so what a crawl holds in memory does not grow with the URLs
//! it has found and not yet fetched; the crawler asks the store about a URL it does not
//! find here once any has been spilled.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use siphasher::sip128::{Hasher128, SipHasher13};
use trawl_store::UrlState;
use url::Url;

/// URLs kept in memory when the rest can be read back from the store.
pub(crate) const MEMORY_CAP: usize = 4_096;

/// One URL waiting to be fetched.
#[derive(Debug, Clone)]
pub(crate) struct Waiting {
    pub(crate) key: String,
    pub(crate) url: Url,
    pub(crate) depth: u32,
    pub(crate) priority: f64,
    pub(crate) run: u32,
    seq: u64,
}

impl Waiting {
    /// A URL claimed from a shared crawl's queue in the store (not from a frontier here).
    pub(crate) fn claimed(key: String, url: Url, depth: u32, priority: f64, run: u32) -> Self {
        Waiting {
            key,
            url,
            depth,
            priority,
            run,
            seq: 0,
        }
    }
}

impl PartialEq for Waiting {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Waiting {}
impl PartialOrd for Waiting {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Waiting {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

#[derive(Debug)]
pub(crate) struct Frontier {
    heap: BinaryHeap<Waiting>,
    next_seq: u64,
    cap: usize,
    spilled: usize,
}

impl Default for Frontier {
    fn default() -> Self {
        Frontier::with_cap(usize::MAX)
    }
}

impl Frontier {
    /// A frontier that keeps at most about `cap` URLs in memory (twice that between trims).
    pub(crate) fn with_cap(cap: usize) -> Self {
        Frontier {
            heap: BinaryHeap::new(),
            next_seq: 0,
            cap: cap.max(1),
            spilled: 0,
        }
    }

    /// Adds a URL; returns the keys of the URLs this spilled (in the store only now), if any.
    #[must_use = "spilled URLs must leave the seen set too"]
    pub(crate) fn push(
        &mut self,
        key: String,
        url: Url,
        depth: u32,
        priority: f64,
        run: u32,
    ) -> Vec<String> {
        self.next_seq += 1;
        self.heap.push(Waiting {
            key,
            url,
            depth,
            priority,
            run,
            seq: self.next_seq,
        });
        if self.heap.len() >= self.cap.saturating_mul(2) {
            // Keep the best `cap`; the rest wait in the store only. In place, in the heap's
            // own buffer: a new half (0.6 MB at the default cap) made at every spill, and the
            // heap's buffer grown again after it, left glibc's arenas 2 MiB larger on a crawl
            // of 100,000 URLs found (measured; the live heap was the same).
            let mut all = std::mem::take(&mut self.heap).into_vec();
            all.select_nth_unstable_by(self.cap, |a, b| b.cmp(a));
            let spilled: Vec<String> = all.drain(self.cap..).map(|w| w.key).collect();
            self.spilled += spilled.len();
            self.heap = all.into();
            return spilled;
        }
        Vec::new()
    }

    pub(crate) fn pop(&mut self) -> Option<Waiting> {
        self.heap.pop()
    }

    /// URLs waiting, in memory and spilled.
    pub(crate) fn len(&self) -> usize {
        self.heap.len() + self.spilled
    }

    /// URLs kept in memory (about).
    pub(crate) fn cap(&self) -> usize {
        self.cap
    }

    /// URLs waiting in the store only.
    pub(crate) fn spilled(&self) -> usize {
        self.spilled
    }

    /// Nothing waits in memory, but some do in the store.
    pub(crate) fn wants_refill(&self) -> bool {
        self.heap.is_empty() && self.spilled > 0
    }

    /// `n` spilled URLs came back (pushed again), or turned out gone.
    pub(crate) fn unspill(&mut self, n: usize) {
        self.spilled = self.spilled.saturating_sub(n);
    }
}

/// Every URL a crawl has met, with its state.
#[derive(Debug)]
pub(crate) struct Seen {
    // The digests are uniform already: Fx's multiply is all the hashing they need. Bytes,
    // not a u128, so an entry is 17 bytes rather than a u128's 16-aligned 32 (measured:
    // the seen set was 4.3 MB of a 100,000-URL crawl's 19 MB heap).
    states: FxHashMap<[u8; 16], UrlState>,
    /// The digest's secret key, drawn for each seen set.
    key: (u64, u64),
}

impl Default for Seen {
    fn default() -> Self {
        use std::hash::BuildHasher;
        // std's RandomState is seeded from the OS's randomness.
        let random = std::hash::RandomState::new();
        Seen {
            states: FxHashMap::default(),
            key: (random.hash_one(1u8), random.hash_one(2u8)),
        }
    }
}

impl Seen {
    /// A URL's identity in the seen set: a 128-bit SipHash-1-3 of its canonical form under
    /// the set's secret key. By chance two URLs share one about 1 in 10^29 in a crawl of a
    /// million URLs; on purpose, a page cannot make two collide (the crawl would skip one as
    /// seen) without the key. Every link of every page is digested: SipHash costs a
    /// fraction of the SHA-256 it replaces.
    fn digest(&self, key: &str) -> [u8; 16] {
        let mut hasher = SipHasher13::new_with_keys(self.key.0, self.key.1);
        std::hash::Hasher::write(&mut hasher, key.as_bytes());
        u128::from(hasher.finish128()).to_le_bytes()
    }

    pub(crate) fn get(&self, key: &str) -> Option<&UrlState> {
        self.states.get(&self.digest(key))
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.states.contains_key(&self.digest(key))
    }

    pub(crate) fn insert(&mut self, key: impl AsRef<str>, state: UrlState) {
        let digest = self.digest(key.as_ref());
        self.states.insert(digest, state);
    }

    /// Forgets URLs that wait in the store only (spilled).
    pub(crate) fn forget(&mut self, keys: &[String]) {
        for k in keys {
            let digest = self.digest(k);
            self.states.remove(&digest);
        }
        // A map emptied of most of its entries keeps its buckets: give them back.
        if self.states.capacity() > 4 * self.states.len().max(1024) {
            self.states.shrink_to_fit();
        }
    }

    /// URLs held in memory.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_priority_first_then_first_found() {
        let mut f = Frontier::default();
        let u = |p: &str| Url::parse(&format!("https://e.com/{p}")).unwrap();
        for (k, depth, p) in [("a", 1, -1.0), ("b", 1, -1.0), ("c", 0, 0.0), ("d", 2, 3.5)] {
            assert!(f.push(k.into(), u(k), depth, p, 0).is_empty());
        }
        let order: Vec<String> = std::iter::from_fn(|| f.pop().map(|w| w.key)).collect();
        assert_eq!(order, ["d", "c", "a", "b"]);
    }

    #[test]
    fn a_capped_frontier_keeps_the_best_and_counts_the_rest() {
        let mut f = Frontier::with_cap(3);
        let u = |p: &str| Url::parse(&format!("https://e.com/{p}")).unwrap();
        let mut spilled = Vec::new();
        for (i, p) in [-3.0, -1.0, -2.0, 0.0, -1.0, -4.0].into_iter().enumerate() {
            spilled.extend(f.push(format!("k{i}"), u(&format!("p{i}")), 1, p, 0));
        }
        spilled.sort();
        assert_eq!(spilled, ["k0", "k2", "k5"]);
        assert_eq!(f.len(), 6);
        assert_eq!(f.spilled(), 3);
        let order: Vec<String> = std::iter::from_fn(|| f.pop().map(|w| w.key)).collect();
        assert_eq!(order, ["k3", "k1", "k4"]);
        assert!(f.wants_refill());
        f.unspill(3);
        assert_eq!(f.len(), 0);
        assert!(!f.wants_refill());
    }

    /// A spill trims the heap in its own buffer: filled again, it neither grows nor is
    /// copied, and what stays is still the best, the first found among equals.
    #[test]
    fn a_spill_keeps_the_heaps_buffer() {
        let mut f = Frontier::with_cap(64);
        let u = Url::parse("https://e.com/").unwrap();
        let mut spilled = 0;
        for i in 0..128 {
            spilled += f.push(format!("k{i:03}"), u.clone(), 1, -1.0, 0).len();
        }
        assert_eq!((spilled, f.spilled()), (64, 64));
        let buffer = f.heap.capacity();
        assert!(buffer >= 128, "{buffer}");
        for i in 128..192 {
            spilled += f.push(format!("k{i:03}"), u.clone(), 1, -1.0, 0).len();
        }
        assert_eq!((spilled, f.spilled()), (128, 128));
        assert_eq!(f.heap.capacity(), buffer);
        let order: Vec<String> = std::iter::from_fn(|| f.pop().map(|w| w.key)).collect();
        let first: Vec<String> = (0..64).map(|i| format!("k{i:03}")).collect();
        assert_eq!(order, first);
    }

    #[test]
    fn seen_tells_urls_apart_by_digest() {
        let mut s = Seen::default();
        s.insert("https://e.com/a", UrlState::Queued);
        s.insert("https://e.com/b", UrlState::Done);
        assert_eq!(s.get("https://e.com/a"), Some(&UrlState::Queued));
        assert_eq!(s.get("https://e.com/b"), Some(&UrlState::Done));
        assert!(!s.contains_key("https://e.com/c"));
        s.insert("https://e.com/a", UrlState::Fetching);
        assert_eq!(s.get("https://e.com/a"), Some(&UrlState::Fetching));
        s.forget(&["https://e.com/a".to_owned()]);
        assert!(!s.contains_key("https://e.com/a"));
        assert_eq!(s.len(), 1);
    }

    /// Each seen set keys its digests afresh: what collides in one (by chance) does not in
    /// another, and no page can know the key.
    #[test]
    fn seen_sets_digest_under_keys_of_their_own() {
        let (a, b) = (Seen::default(), Seen::default());
        assert_ne!(a.key, b.key);
        assert_ne!(a.digest("https://e.com/a"), b.digest("https://e.com/a"));
        assert_eq!(a.digest("https://e.com/a"), a.digest("https://e.com/a"));
        let digests: std::collections::HashSet<[u8; 16]> = (0..100_000)
            .map(|i| a.digest(&format!("https://e.com/{i}")))
            .collect();
        assert_eq!(digests.len(), 100_000);
    }
}
