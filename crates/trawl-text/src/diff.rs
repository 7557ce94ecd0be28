//! What changed between two copies of a document: a unified diff of their Markdown, by
//! line, through the `similar` crate (Myers' algorithm with a deadline, after which it
//! settles for a coarser but still correct diff, so a huge page cannot hold a worker), and
//! how a page changed since its stored copy ([`ChangeStatus`]).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
pub const CONTEXT_LINES: usize = 3;

/// How long the diff may search for the smallest edit.
const DEADLINE: Duration = Duration::from_secs(2);

/// A unified diff and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// The unified diff (`---`/`+++` headers named `old_name`, `new_name`), empty when the
    /// texts are equal.
    pub unified: String,
    /// Lines only in the new text.
    pub added: usize,
    /// Lines only in the old text.
    pub removed: usize,
}

/// The unified diff from `old` to `new`.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> Diff {
    let diff = TextDiff::configure().timeout(DEADLINE).diff_lines(old, new);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let unified = if added + removed == 0 {
        String::new()
    } else {
        diff.unified_diff()
            .context_radius(CONTEXT_LINES)
            .header(old_name, new_name)
            .to_string()
    };
    Diff {
        unified,
        added,
        removed,
    }
}

/// How a page changed since the copy trawl had stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// Not stored before: read and stored now.
    New,
    /// The origin says (304) or shows (same Markdown) that nothing changed.
    Same,
    /// The Markdown differs; the stored copy was kept as an older version.
    Changed,
    /// The origin answers 404 or 410; the stored copy is kept.
    Removed,
}

impl ChangeStatus {
    /// The name shown and serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::New => "new",
            ChangeStatus::Same => "same",
            ChangeStatus::Changed => "changed",
            ChangeStatus::Removed => "removed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_exactly_the_edit() {
        let old = "# Prices\n\nTea costs 2 euros.\n\nCoffee costs 3 euros.\n\nCake is free.\n";
        let new = "# Prices\n\nTea costs 2 euros.\n\nCoffee costs 4 euros.\n\nCake is free.\n";
        let d = unified(old, new, "a", "b");
        assert_eq!((d.added, d.removed), (1, 1));
        let changed: Vec<&str> = d
            .unified
            .lines()
            .filter(|l| {
                (l.starts_with('+') || l.starts_with('-'))
                    && !l.starts_with("+++")
                    && !l.starts_with("---")
            })
            .collect();
        assert_eq!(
            changed,
            ["-Coffee costs 3 euros.", "+Coffee costs 4 euros."]
        );
        assert!(d.unified.starts_with("--- a\n+++ b\n@@ "), "{}", d.unified);
    }

    #[test]
    fn equal_texts_have_no_diff() {
        let d = unified("same\n", "same\n", "a", "b");
        assert_eq!(
            d,
            Diff {
                unified: String::new(),
                added: 0,
                removed: 0
            }
        );
    }
}
