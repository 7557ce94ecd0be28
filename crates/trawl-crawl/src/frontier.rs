//! The frontier in memory: URLs waiting, highest priority first, ties in the order they
//! were found (so breadth-first, whose priority is minus the depth, is first-in first-out
//! within a depth).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use url::Url;

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

#[derive(Debug, Default)]
pub(crate) struct Frontier {
    heap: BinaryHeap<Waiting>,
    next_seq: u64,
}

impl Frontier {
    pub(crate) fn push(&mut self, key: String, url: Url, depth: u32, priority: f64, run: u32) {
        self.next_seq += 1;
        self.heap.push(Waiting {
            key,
            url,
            depth,
            priority,
            run,
            seq: self.next_seq,
        });
    }

    pub(crate) fn pop(&mut self) -> Option<Waiting> {
        self.heap.pop()
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_priority_first_then_first_found() {
        let mut f = Frontier::default();
        let u = |p: &str| Url::parse(&format!("https://e.com/{p}")).unwrap();
        f.push("a".into(), u("a"), 1, -1.0, 0);
        f.push("b".into(), u("b"), 1, -1.0, 0);
        f.push("c".into(), u("c"), 0, 0.0, 0);
        f.push("d".into(), u("d"), 2, 3.5, 0);
        let order: Vec<String> = std::iter::from_fn(|| f.pop().map(|w| w.key)).collect();
        assert_eq!(order, ["d", "c", "a", "b"]);
    }
}
