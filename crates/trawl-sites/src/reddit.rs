//! Reddit through the `.json` of a post's permalink: the post and its comments as
//! Markdown (author, score, depth shown by nesting), within the thread bounds (100
//! comments, 8 levels) and with markers where Reddit or the bounds left comments out.
//! Listings, wikis and share links are refused as `unsupported`.

use std::fmt::Write as _;

use serde_json::Value;
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::client::{SiteClient, endpoint};
use crate::page::SitePage;
use crate::spec::{self, SiteSpec, Target as SiteTarget};
use crate::thread::{self, Bounds, Comment, iso_date};

/// The reader's row in the table.
pub const SPEC: SiteSpec = SiteSpec {
    name: "reddit",
    hosts: &[
        "reddit.com",
        "www.reddit.com",
        "old.reddit.com",
        "new.reddit.com",
        "np.reddit.com",
        "m.reddit.com",
        "redd.it",
    ],
    pattern: "reddit.com/r/SUB/comments/ID/…, redd.it/ID (listings, wikis, share links: unsupported)",
    reads: "the post and its comments with authors and scores (100 comments, 8 levels, markers for the rest)",
    needs: "nothing (anonymous; Reddit may block)",
    base: "https://www.reddit.com/",
    confidence: "high for shape: four real thread answers (2023, graw's test fixtures; 2017, PRAW's cassettes: load-more and continue-this-thread stubs); a load-more stub with count 0 and listed ids seen only in a built answer; access: medium (Reddit blocks many clients)",
    fixtures: "crates/trawl-sites/fixtures/reddit (turnage/graw reddit test fixtures, praw-dev/praw cassettes)",
    route,
};

fn unsupported(what: &str) -> Option<Result<SiteTarget, String>> {
    Some(Err(format!(
        "the reddit reader reads posts and their comments; {what} are not supported"
    )))
}

fn route(url: &Url) -> Option<Result<SiteTarget, String>> {
    let host = url.host_str()?.to_ascii_lowercase();
    if !spec::host_matches(&host, SPEC.hosts) {
        return None;
    }
    let s = spec::segments(url);
    if host == "redd.it" {
        return match s.as_slice() {
            [id] => Some(Ok(SiteTarget::Reddit {
                path: format!("comments/{id}"),
            })),
            _ => None,
        };
    }
    match s.as_slice() {
        ["r", _, "comments", _, ..] | ["comments", _, ..] => {
            Some(Ok(SiteTarget::Reddit { path: s.join("/") }))
        }
        ["r", _, "s", ..] => {
            unsupported("share links (/s/…: open one in a browser for the post's URL)")
        }
        ["r", _, "wiki", ..] | ["wiki", ..] => unsupported("wikis"),
        []
        | ["r", ..]
        | ["user" | "u", ..]
        | [
            "hot" | "new" | "top" | "rising" | "best" | "controversial",
            ..,
        ] => unsupported("listings (front pages, subreddits, users)"),
        _ => None,
    }
}

/// Read the post at `path`.
pub async fn read(client: &SiteClient<'_>, path: &str) -> Result<SitePage, TrawlError> {
    let bounds = client.config.bounds;
    let url = endpoint(
        &client.base(&SPEC),
        &format!(
            "{path}/.json?raw_json=1&limit={}&depth={}",
            bounds.comments, bounds.depth
        ),
    )?;
    let answer = client.get_json(&url, &[]).await?;
    parse(&answer, bounds)
}

fn field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A listing's comments, the replies its `more` stubs stand for, and whether one of them
/// is a "continue this thread" stub (count 0, no children: replies deeper, count unknown).
fn comments(listing: Option<&Value>) -> (Vec<Comment>, u64, bool) {
    let mut out = Vec::new();
    let mut not_sent = 0;
    let mut continues = false;
    let children = listing
        .and_then(|l| l.pointer("/data/children"))
        .and_then(Value::as_array);
    for child in children.into_iter().flatten() {
        let data = &child["data"];
        match field(child, "kind") {
            Some("t1") => {
                let (replies, more, deeper) =
                    comments(data.get("replies").filter(|r| r.is_object()));
                out.push(Comment {
                    author: format!("u/{}", field(data, "author").unwrap_or("[deleted]")),
                    score: data.get("score").and_then(Value::as_i64),
                    date: data
                        .get("created_utc")
                        .and_then(Value::as_f64)
                        .map(|t| iso_date(t as i64)),
                    markdown: field(data, "body").unwrap_or("").to_owned(),
                    replies,
                    not_sent: more,
                    continues: deeper,
                });
            }
            Some("more") => {
                // `count` is often 0 while `children` lists the hidden replies' ids.
                let count = data.get("count").and_then(Value::as_u64).unwrap_or(0);
                let listed = data
                    .get("children")
                    .and_then(Value::as_array)
                    .map_or(0, |c| c.len() as u64);
                match count.max(listed) {
                    0 => continues = true,
                    n => not_sent += n,
                }
            }
            _ => {}
        }
    }
    (out, not_sent, continues)
}

/// A permalink's `.json` answer (the post listing, then the comments listing).
pub fn parse(answer: &Value, bounds: Bounds) -> Result<SitePage, TrawlError> {
    let shape = || {
        TrawlError::new(
            ErrorCode::Upstream,
            "Reddit answered with something that is not a post and its comments",
        )
    };
    let parts = answer.as_array().ok_or_else(shape)?;
    let post = parts
        .first()
        .and_then(|l| l.pointer("/data/children/0/data"))
        .ok_or_else(shape)?;
    let title = field(post, "title").unwrap_or("(untitled)").to_owned();
    let author = format!("u/{}", field(post, "author").unwrap_or("[deleted]"));
    let published = post
        .get("created_utc")
        .and_then(Value::as_f64)
        .map(|t| iso_date(t as i64));
    let mut md = format!("# {title}\n\n");
    let _ = writeln!(
        md,
        "{} · **{author}** · {} points · {} comments{}\n",
        field(post, "subreddit_name_prefixed").unwrap_or("reddit"),
        post.get("score").and_then(Value::as_i64).unwrap_or(0),
        post.get("num_comments")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        published
            .as_deref()
            .map(|d| format!(" · {d}"))
            .unwrap_or_default()
    );
    if let Some(link) = field(post, "url").filter(|_| {
        !post
            .get("is_self")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }) {
        let _ = writeln!(md, "<{link}>\n");
    }
    if let Some(text) = field(post, "selftext").filter(|t| !t.trim().is_empty()) {
        let _ = writeln!(md, "{}\n", text.trim());
    }
    let (tree, not_sent, _) = comments(parts.get(1));
    if !tree.is_empty() || not_sent > 0 {
        md.push_str("## Comments\n\n");
        md.push_str(&thread::render(&tree, not_sent, bounds));
    }
    Ok(SitePage {
        title: Some(title),
        markdown: md,
        byline: Some(author),
        published,
        note: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        // Real thread answers saved by graw's tests (2023) and PRAW's (2017), PROVENANCE.md.
        let path = format!("{}/fixtures/reddit/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn posts_are_routed_and_listings_wikis_and_share_links_refused() {
        let t = |raw: &str| route(&Url::parse(raw).unwrap());
        assert_eq!(
            t("https://www.reddit.com/r/rust/comments/abc/title/"),
            Some(Ok(SiteTarget::Reddit {
                path: "r/rust/comments/abc/title".into()
            }))
        );
        assert_eq!(
            t("https://redd.it/abc"),
            Some(Ok(SiteTarget::Reddit {
                path: "comments/abc".into()
            }))
        );
        for raw in [
            "https://www.reddit.com/r/rust/",
            "https://old.reddit.com/r/rust/top/",
            "https://www.reddit.com/user/someone",
            "https://www.reddit.com/r/rust/wiki/index",
            "https://www.reddit.com/r/rust/s/AbCdEf",
        ] {
            let why = t(raw).unwrap().unwrap_err();
            assert!(why.contains("not supported"), "{raw}: {why}");
        }
        assert_eq!(t("https://www.reddit.com/settings"), None);
    }

    #[test]
    fn a_thread_is_nested_with_authors_and_scores() {
        let page = parse(&fixture("thread-gallery-39-2023.json"), Bounds::default()).unwrap();
        let md = &page.markdown;
        assert!(
            md.starts_with("# An outfit I made for my Mata Hari cosplay"),
            "{}",
            &md[..200]
        );
        assert!(md.contains("r/crafts · **u/"));
        assert!(md.contains("## Comments"));
        // 39 comments in the answer, all under the bound of 100: no marker.
        assert_eq!(md.matches("- **u/").count(), 39, "{md}");
        assert!(!md.contains("not loaded"));
        // A reply is indented under its parent.
        assert!(md.contains("\n  - **u/"));
    }

    #[test]
    fn a_thread_longer_and_deeper_than_the_bounds_shows_the_markers() {
        // 21 comments, 5 levels deep; bounds of 10 comments and 3 levels.
        let bounds = Bounds {
            comments: 10,
            depth: 3,
        };
        let page = parse(&fixture("thread-video-depth5-2023.json"), bounds).unwrap();
        let md = &page.markdown;
        assert_eq!(md.matches("- **u/").count(), 10, "{md}");
        assert!(md.contains("deeper not loaded (depth limit 3)"), "{md}");
        assert!(md.contains("more comment(s) not loaded (limit 10)"), "{md}");
        // Nothing deeper than three levels is written.
        assert!(!md.contains("\n      - **u/"), "{md}");
    }

    #[test]
    fn more_stubs_become_markers() {
        let answer = serde_json::json!([
            {"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"title": "T", "author": "op", "score": 1, "num_comments": 9, "is_self": true, "selftext": "hi"}}]}},
            {"kind": "Listing", "data": {"children": [
                {"kind": "t1", "data": {"author": "a", "score": 2, "body": "first", "replies": {"kind": "Listing", "data": {"children": [{"kind": "more", "data": {"count": 4}}]}}}},
                {"kind": "more", "data": {"count": 3}}
            ]}}
        ]);
        let md = parse(&answer, Bounds::default()).unwrap().markdown;
        assert!(md.contains("  - _… 4 more repl(ies) not loaded"), "{md}");
        assert!(md.contains("\n- _… 3 more repl(ies) not loaded"), "{md}");
    }

    #[test]
    fn stubs_counted_by_their_children_and_continue_stubs_are_markers_and_the_bound_keeps_them() {
        // Built from Reddit's documented `more` shapes (PRAW's docs; no recording with
        // them was found): a "load more" stub with `count: 0` and two children ids, and a
        // "continue this thread" stub (`id: "_"`, no children).
        let answer = serde_json::json!([
            {"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"title": "T", "author": "op", "score": 1, "num_comments": 9, "is_self": true, "selftext": "hi"}}]}},
            {"kind": "Listing", "data": {"children": [
                {"kind": "t1", "data": {"author": "a", "score": 2, "body": "first", "replies": {"kind": "Listing", "data": {"children": [
                    {"kind": "more", "data": {"count": 0, "name": "t1__", "id": "_", "parent_id": "t1_a", "depth": 1, "children": []}}
                ]}}}},
                {"kind": "t1", "data": {"author": "b", "score": 1, "body": "second"}},
                {"kind": "more", "data": {"count": 0, "name": "t1_x1", "id": "x1", "parent_id": "t3_p", "depth": 0, "children": ["x1", "x2"]}}
            ]}}
        ]);
        let md = parse(&answer, Bounds::default()).unwrap().markdown;
        assert!(md.contains("\n- _… 2 more repl(ies) not loaded"), "{md}");
        assert!(
            md.contains("  - _… the thread continues below this comment"),
            "{md}"
        );
        // With the comment bound hit, the level's own stub is still written.
        let md = parse(
            &answer,
            Bounds {
                comments: 1,
                depth: 8,
            },
        )
        .unwrap()
        .markdown;
        assert!(
            md.contains("- _… 1 more comment(s) not loaded (limit 1)_"),
            "{md}"
        );
        assert!(md.contains("\n- _… 2 more repl(ies) not loaded"), "{md}");
    }
    #[test]
    fn a_real_answer_cut_at_ten_comments_marks_every_stub_with_its_count() {
        // PRAW's recorded answer for a 537-comment thread asked with `limit=10` (2017):
        // 10 comments and 11 `more` stubs, one the top level's own (332 more, 158 ids).
        let page = parse(
            &fixture("thread-3hahrw-limit10-praw-2017.json"),
            Bounds::default(),
        )
        .unwrap();
        let md = &page.markdown;
        assert!(md.starts_with("# Ba Dum Tsss\n"), "{md}");
        assert!(md.contains("r/funny · **u/your_local_librarian** · 29790 points · 537 comments · 2015-08-17T07:44:40Z"), "{md}");
        assert_eq!(md.matches("- **u/").count(), 10, "{md}");
        assert!(md.contains("  - **u/[deleted]** · 205 points"), "{md}");
        // Each stub where Reddit put it, counted by `count` (descendants), not by its ids.
        let markers: Vec<&str> = md
            .lines()
            .filter(|l| l.contains("not loaded (the site did not send them)"))
            .collect();
        assert_eq!(markers.len(), 11, "{md}");
        assert!(
            md.contains(
                "\n      - _… 100 more repl(ies) not loaded (the site did not send them)_\n"
            ),
            "{md}"
        );
        assert!(
            md.contains("\n    - _… 14 more repl(ies) not loaded"),
            "{md}"
        );
        assert!(
            md.ends_with("\n- _… 332 more repl(ies) not loaded (the site did not send them)_\n"),
            "{md}"
        );
        // Within a smaller bound the level's own stub is still written after the cut.
        let cut = parse(
            &fixture("thread-3hahrw-limit10-praw-2017.json"),
            Bounds {
                comments: 4,
                depth: 8,
            },
        )
        .unwrap()
        .markdown;
        assert!(
            cut.contains("- _… 5 more comment(s) not loaded (limit 4)_"),
            "{cut}"
        );
        assert!(
            cut.contains("\n- _… 332 more repl(ies) not loaded"),
            "{cut}"
        );
    }
    #[test]
    fn a_real_continue_this_thread_stub_is_a_marker() {
        // PRAW's recorded answer for a comment asked with `context=100` (2017): a chain of
        // ten comments ending in Reddit's "continue this thread" stub (`id: "_"`,
        // `count: 0`, no children) at depth 10.
        let answer = fixture("thread-6otocc-continue-praw-2017.json");
        let deep = parse(
            &answer,
            Bounds {
                comments: 100,
                depth: 12,
            },
        )
        .unwrap()
        .markdown;
        assert_eq!(deep.matches("- **u/").count(), 10, "{deep}");
        assert!(
            deep.contains(&format!(
                "\n{}- _… the thread continues below this comment (not loaded)_\n",
                "  ".repeat(10)
            )),
            "{deep}"
        );
        // Under the default depth bound the chain is cut first, and says so.
        let cut = parse(&answer, Bounds::default()).unwrap().markdown;
        assert!(cut.contains("deeper not loaded (depth limit 8)"), "{cut}");
    }
}
