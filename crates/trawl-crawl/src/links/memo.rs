//! Links resolved before, for the next page of the same site: a site's menu, its sections
//! and its footer are on every page, and resolving each of their links again (parsing the
//! joined URL) was about 2 % of a crawl's CPU. Only links whose target depends on the base's
//! scheme and authority alone are kept: path-absolute (`/docs/`) and scheme-relative
//! (`//host/`) ones, and absolute `http(s)://` ones. A relative link (`page-2.html`)
//! depends on the base's path, which changes from page to page.
//!
//! A link is kept once it has been seen twice, so the links met once (a blog's article
//! list) cost a hash, not a copy; both sets are bounded and emptied when full. One memo
//! for the process, locked a link at a time (a URL is parsed outside the lock): a memo a
//! thread, on tokio's many blocking threads, held 4 MiB more at a crawl's peak.

use std::hash::BuildHasher;
use std::sync::{LazyLock, Mutex};

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use url::{Position, Url};

/// Resolved links the process keeps: about 200 bytes each.
const RESOLVED_KEPT: usize = 1024;

/// Links seen once the process remembers (by hash), to know a second sighting.
const SIGHTINGS_KEPT: usize = 8192;

struct Resolved {
    /// The base up to its path (scheme, user, host, port), and the link as written.
    origin: Box<str>,
    href: Box<str>,
    url: Option<Url>,
}

#[derive(Default)]
struct Memo {
    /// By the hash of (origin, href); an entry whose strings differ is another link.
    resolved: FxHashMap<u64, Resolved>,
    sighted: FxHashSet<u64>,
}

static MEMO: LazyLock<Mutex<Memo>> = LazyLock::new(Mutex::default);

/// Whether `href` (trimmed) resolves the same against every base of one scheme and
/// authority.
pub(super) fn keeps(href: &str) -> bool {
    href.starts_with('/') || href.starts_with("http://") || href.starts_with("https://")
}

/// `resolve()` of a link [`keeps`] accepts, from the memo when it was resolved twice before.
pub(super) fn resolved(
    base: &Url,
    href: &str,
    resolve: impl FnOnce() -> Option<Url>,
) -> Option<Url> {
    let origin = &base[..Position::BeforePath];
    let hash = FxBuildHasher.hash_one((origin, href));
    let seen_before = {
        let mut memo = crate::lock::lock(&MEMO);
        if let Some(r) = memo.resolved.get(&hash) {
            if *r.origin == *origin && *r.href == *href {
                return r.url.clone();
            }
            // Another link of the same hash: resolved each time, never kept.
            drop(memo);
            return resolve();
        }
        let first = memo.sighted.insert(hash);
        if memo.sighted.len() >= SIGHTINGS_KEPT {
            memo.sighted.clear();
        }
        !first
    };
    let url = resolve();
    if seen_before {
        let mut memo = crate::lock::lock(&MEMO);
        if memo.resolved.len() >= RESOLVED_KEPT {
            memo.resolved.clear();
        }
        memo.resolved.entry(hash).or_insert_with(|| Resolved {
            origin: origin.into(),
            href: href.into(),
            url: url.clone(),
        });
    }
    url
}

#[cfg(test)]
pub(super) fn kept() -> usize {
    crate::lock::lock(&MEMO).resolved.len()
}
