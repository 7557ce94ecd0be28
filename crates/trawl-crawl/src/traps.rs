//! Trap guards: URL spaces without end that a crawler must not walk into. Each is bounded
//! and reported, never silent.
//!
//! - A very long URL (past [`TrapLimits::max_url_len`]).
//! - A path whose segments repeat (`/a/b/a/b/a/b`: relative links resolved against
//!   themselves).
//! - A chain of pages of one *shape* each leading to the next — an endless calendar
//!   (`/cal/2024/5` → `/cal/2024/6` → …), a query counter that keeps climbing
//!   (`?page=41` → `?page=42`), endless pagination. The shape is the URL with every run of
//!   digits made `#` and the query reduced to its sorted keys; a link whose shape is its
//!   parent's continues the parent's run, and a run longer than
//!   [`TrapLimits::max_shape_run`] stops there.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use url::Url;

/// Default longest URL followed (bytes).
pub const DEFAULT_MAX_URL_LEN: usize = 2048;
/// Default longest chain of same-shaped pages followed.
pub const DEFAULT_MAX_SHAPE_RUN: u32 = 25;
/// A path segment seen this many times in one path marks a loop.
const MAX_SEGMENT_REPEATS: usize = 3;

/// The bounds of the guards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrapLimits {
    /// Longest URL followed.
    pub max_url_len: usize,
    /// Longest chain of same-shaped pages followed.
    pub max_shape_run: u32,
}

impl Default for TrapLimits {
    fn default() -> Self {
        TrapLimits {
            max_url_len: DEFAULT_MAX_URL_LEN,
            max_shape_run: DEFAULT_MAX_SHAPE_RUN,
        }
    }
}

/// The URL's shape: host, path with digit runs as `#`, sorted query keys.
pub fn shape(url: &Url) -> String {
    let mut out = String::with_capacity(url.as_str().len());
    out.push_str(url.host_str().unwrap_or(""));
    let mut in_digits = false;
    for c in url.path().chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    let mut keys: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
    if !keys.is_empty() {
        keys.sort();
        keys.dedup();
        out.push('?');
        out.push_str(&keys.join("&"));
    }
    out
}

/// Why a URL is a trap, or `None`. `run` is its shape run (see [`shape_run`]).
pub fn trap(url: &Url, run: u32, limits: &TrapLimits) -> Option<String> {
    if url.as_str().len() > limits.max_url_len {
        return Some(format!(
            "trap: URL longer than {} bytes",
            limits.max_url_len
        ));
    }
    // Walked twice rather than collected: asked of every new link.
    if let Some(segments) = url.path_segments() {
        let segments = segments.filter(|s| !s.is_empty());
        for s in segments.clone() {
            if segments.clone().filter(|t| *t == s).count() >= MAX_SEGMENT_REPEATS {
                return Some(format!("trap: path segment {s:?} repeats"));
            }
        }
    }
    if run > limits.max_shape_run {
        return Some(format!(
            "trap: more than {} pages in a row of the shape {} (a calendar, counter or endless pagination)",
            limits.max_shape_run,
            shape(url)
        ));
    }
    None
}

/// The shape run of a link from a page of shape `parent_shape` with run `parent_run`.
pub fn shape_run(url: &Url, parent_shape: &str, parent_run: u32) -> u32 {
    if has_shape(url, parent_shape) {
        parent_run + 1
    } else {
        0
    }
}

/// Whether [`shape`]`(url)` is `shape`, read off `url` in place: asked of every link of
/// every page, and most links have no query, so nothing is allocated for them.
fn has_shape(url: &Url, shape: &str) -> bool {
    let Some(mut rest) = shape
        .as_bytes()
        .strip_prefix(url.host_str().unwrap_or("").as_bytes())
    else {
        return false;
    };
    let mut in_digits = false;
    for &c in url.path().as_bytes() {
        let shaped = if c.is_ascii_digit() {
            if in_digits {
                continue;
            }
            in_digits = true;
            b'#'
        } else {
            in_digits = false;
            c
        };
        match rest.split_first() {
            Some((&s, after)) if s == shaped => rest = after,
            _ => return false,
        }
    }
    let mut keys: Vec<Cow<'_, str>> = url.query_pairs().map(|(k, _)| k).collect();
    if keys.is_empty() {
        return rest.is_empty();
    }
    keys.sort();
    keys.dedup();
    let Some(mut rest) = rest.strip_prefix(b"?") else {
        return false;
    };
    for (n, key) in keys.iter().enumerate() {
        if n > 0 {
            let Some(after) = rest.strip_prefix(b"&") else {
                return false;
            };
            rest = after;
        }
        let Some(after) = rest.strip_prefix(key.as_bytes()) else {
            return false;
        };
        rest = after;
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `trap` as it was before it stopped collecting the path's segments, kept to check
    /// that the rewrite answers the same.
    fn trap_before(url: &Url, run: u32, limits: &TrapLimits) -> Option<String> {
        if url.as_str().len() > limits.max_url_len {
            return Some(format!(
                "trap: URL longer than {} bytes",
                limits.max_url_len
            ));
        }
        let segments: Vec<&str> = url
            .path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).collect())
            .unwrap_or_default();
        for s in &segments {
            if segments.iter().filter(|t| *t == s).count() >= MAX_SEGMENT_REPEATS {
                return Some(format!("trap: path segment {s:?} repeats"));
            }
        }
        if run > limits.max_shape_run {
            return Some(format!(
                "trap: more than {} pages in a row of the shape {} (a calendar, counter or endless pagination)",
                limits.max_shape_run,
                shape(url)
            ));
        }
        None
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2_000))]

        /// `shape_run` without building the link's shape answers as comparing shapes did,
        /// and `trap` as it did with the segments collected.
        #[test]
        fn shape_runs_and_traps_as_before(
            host in "(e\\.com|e\\.co|f\\.com|)",
            path in "(/(cal|a|b|x1|2024|0|9z|#|%31|é|))*/?",
            query in "(|\\?|\\?((a|b|day|view|%61|a\\+b|&|=)(=[0-9]*)?&?){0,4})",
            other in "(e\\.com|e\\.co)(/(cal|a|b|x|#|%31|é|))*(|\\?|\\?(a|b|day|&|%61|a b|=){0,4})",
            run in 0u32..30,
        ) {
            let scheme = if host.is_empty() { "i:" } else { "https://" };
            let Ok(url) = Url::parse(&format!("{scheme}{host}{path}{query}")) else {
                return Ok(());
            };
            let limits = TrapLimits { max_url_len: 40, max_shape_run: 3 };
            let mut shapes = vec![shape(&url), other];
            if let Ok(near) = Url::parse(&format!("https://{host}{path}1{query}")) {
                shapes.push(shape(&near));
            }
            for parent in &shapes {
                let before = if shape(&url) == *parent { run + 1 } else { 0 };
                proptest::prop_assert_eq!(shape_run(&url, parent, run), before, "{} {:?}", url, parent);
            }
            for limits in [limits, TrapLimits::default()] {
                proptest::prop_assert_eq!(trap(&url, run, &limits), trap_before(&url, run, &limits));
            }
        }
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn shapes_hide_numbers_and_query_values() {
        assert_eq!(
            shape(&url("https://e.com/cal/2024/05?day=3&view=m")),
            "e.com/cal/#/#?day&view"
        );
        assert_eq!(
            shape(&url("https://e.com/cal/2024/06?view=w&day=9")),
            shape(&url("https://e.com/cal/2024/05?day=3&view=m"))
        );
        assert_ne!(
            shape(&url("https://e.com/docs/1")),
            shape(&url("https://e.com/blog/1"))
        );
    }

    #[test]
    fn guards_fire_and_say_why() {
        let limits = TrapLimits {
            max_url_len: 60,
            max_shape_run: 3,
        };
        let long = url(&format!("https://e.com/{}", "x".repeat(80)));
        assert!(trap(&long, 0, &limits).unwrap().contains("longer than 60"));
        let looped = url("https://e.com/a/b/a/b/a/b");
        assert!(trap(&looped, 0, &limits).unwrap().contains("\"a\" repeats"));
        assert!(trap(&url("https://e.com/a/b/a"), 0, &limits).is_none());
        let parent = url("https://e.com/cal/2024/5");
        let next = url("https://e.com/cal/2024/6");
        let run = shape_run(&next, &shape(&parent), 3);
        assert_eq!(run, 4);
        assert!(trap(&next, run, &limits).unwrap().contains("in a row"));
        assert_eq!(
            shape_run(&url("https://e.com/about"), &shape(&parent), 3),
            0
        );
    }
}
