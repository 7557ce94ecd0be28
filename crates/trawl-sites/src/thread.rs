//! Comment trees (Reddit, Hacker News) as nested Markdown lists, bounded: at most
//! [`Bounds::comments`] comments and [`Bounds::depth`] levels, with a marker saying how
//! many were left out wherever something was.

use std::fmt::Write as _;

/// How much of a thread is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Comments shown in all.
    pub comments: usize,
    /// Levels shown (1 = top-level comments only).
    pub depth: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            comments: 100,
            depth: 8,
        }
    }
}

/// One comment and its replies.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Comment {
    pub author: String,
    pub score: Option<i64>,
    pub date: Option<String>,
    pub markdown: String,
    pub replies: Vec<Comment>,
    /// Replies the site itself did not send (Reddit's `more` stubs).
    pub not_sent: u64,
    /// The thread goes on below this comment past what the site sent, count unknown
    /// (Reddit's "continue this thread" stub).
    pub continues: bool,
}

impl Comment {
    /// This comment and every reply under it.
    pub fn size(&self) -> usize {
        1 + self.replies.iter().map(Comment::size).sum::<usize>()
    }
}

/// `comments` as nested lists within `bounds`.
pub(crate) fn render(comments: &[Comment], not_sent: u64, bounds: Bounds) -> String {
    let mut w = Writer {
        out: String::new(),
        left: bounds.comments,
        bounds,
    };
    w.level(comments, not_sent, 0);
    w.out
}

struct Writer {
    out: String,
    left: usize,
    bounds: Bounds,
}

impl Writer {
    fn level(&mut self, comments: &[Comment], not_sent: u64, depth: usize) {
        let indent = "  ".repeat(depth);
        for (i, c) in comments.iter().enumerate() {
            if self.left == 0 {
                let rest: usize = comments[i..].iter().map(Comment::size).sum();
                let _ = writeln!(
                    self.out,
                    "{indent}- _… {rest} more comment(s) not loaded (limit {})_",
                    self.bounds.comments
                );
                // The level's own stubs are still said below.
                break;
            }
            self.left -= 1;
            let mut head = format!("**{}**", c.author);
            if let Some(score) = c.score {
                let _ = write!(head, " · {score} points");
            }
            if let Some(date) = &c.date {
                let _ = write!(head, " · {date}");
            }
            let _ = writeln!(self.out, "{indent}- {head}");
            for line in c.markdown.trim().lines() {
                if line.trim().is_empty() {
                    self.out.push('\n');
                } else {
                    let _ = writeln!(self.out, "{indent}  {line}");
                }
            }
            if c.replies.is_empty() && c.not_sent == 0 && !c.continues {
                continue;
            }
            if depth + 1 >= self.bounds.depth {
                let deeper: usize = c.replies.iter().map(Comment::size).sum();
                let _ = writeln!(
                    self.out,
                    "{indent}  - _… {} repl(ies) deeper not loaded (depth limit {})_",
                    deeper as u64 + c.not_sent,
                    self.bounds.depth
                );
                continue;
            }
            self.level(&c.replies, c.not_sent, depth + 1);
            if c.continues {
                let _ = writeln!(
                    self.out,
                    "{indent}  - _… the thread continues below this comment (not loaded)_"
                );
            }
        }
        if not_sent > 0 {
            let _ = writeln!(
                self.out,
                "{indent}- _… {not_sent} more repl(ies) not loaded (the site did not send them)_"
            );
        }
    }
}

/// Seconds since the epoch as an ISO 8601 UTC date-time (empty when out of range).
pub(crate) fn iso_date(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(author: &str, replies: Vec<Comment>) -> Comment {
        Comment {
            author: author.into(),
            markdown: format!("text of {author}"),
            replies,
            ..Comment::default()
        }
    }

    #[test]
    fn bounds_leave_markers_that_count_what_was_left_out() {
        let tree = vec![
            c("a", vec![c("a1", vec![c("a11", vec![])]), c("a2", vec![])]),
            c("b", vec![]),
            c("c", vec![c("c1", vec![])]),
        ];
        let out = render(
            &tree,
            0,
            Bounds {
                comments: 4,
                depth: 2,
            },
        );
        assert!(out.contains("- **a**") && out.contains("  - **a1**"));
        assert!(
            out.contains("1 repl(ies) deeper not loaded (depth limit 2)"),
            "{out}"
        );
        assert!(!out.contains("a11"));
        // a, a1, a2, b shown; c and c1 are the rest.
        assert!(
            out.contains("- _… 2 more comment(s) not loaded (limit 4)_"),
            "{out}"
        );
        let all = render(&tree, 3, Bounds::default());
        assert!(all.contains("a11") && all.contains("3 more repl(ies) not loaded"));
        assert!(!all.contains("limit"));
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(iso_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_date(1_160_423_565), "2006-10-09T19:52:45Z");
        assert_eq!(iso_date(951_782_400), "2000-02-29T00:00:00Z");
    }
}
