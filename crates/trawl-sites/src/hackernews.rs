//! Hacker News through Algolia's items API (`hn.algolia.com/api/v1/items/ID`): an item
//! (story or comment) and its whole comment tree in one answer, shown within the thread
//! bounds.

use std::fmt::Write as _;

use serde_json::Value;
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::client::{SiteClient, endpoint};
use crate::page::SitePage;
use crate::spec::{self, SiteSpec, Target as SiteTarget};
use crate::thread::{self, Bounds, Comment};

/// The reader's row in the table.
pub const SPEC: SiteSpec = SiteSpec {
    name: "hackernews",
    hosts: &["news.ycombinator.com"],
    pattern: "news.ycombinator.com/item?id=N",
    reads: "the story (title, link, points, author, date) and its comment tree (100 comments, 8 levels)",
    needs: "nothing",
    base: "https://hn.algolia.com/",
    confidence: "high: stable API; two real item answers (2014, a comment with two replies; 2026, an Ask HN story with its text and 24 comments six levels deep, cut from 781); deleted comments and polls not seen in a saved answer",
    fixtures: "crates/trawl-sites/fixtures/hackernews (fraction/node-hacker-news-api test fixtures, a probe's dump in cynox-66/oaos-config)",
    route,
};

fn route(url: &Url) -> Option<Result<SiteTarget, String>> {
    if !spec::host_matches(url.host_str()?, SPEC.hosts) || url.path() != "/item" {
        return None;
    }
    let id = url
        .query_pairs()
        .find(|(k, _)| k == "id")
        .and_then(|(_, v)| v.parse().ok())?;
    Some(Ok(SiteTarget::HackerNews { id }))
}

/// Read item `id`.
pub async fn read(client: &SiteClient<'_>, id: u64) -> Result<SitePage, TrawlError> {
    let url = endpoint(&client.base(&SPEC), &format!("api/v1/items/{id}"))?;
    let item = client.get_json(&url, &[]).await?;
    parse(&item, client.config.bounds)
}

fn html(v: &Value) -> String {
    let base = Url::parse("https://news.ycombinator.com/").expect("a URL");
    v.get("text")
        .and_then(Value::as_str)
        .map(|h| trawl_extract::fragment_to_markdown(h, &base))
        .unwrap_or_default()
}

fn comment(v: &Value) -> Comment {
    Comment {
        author: v
            .get("author")
            .and_then(Value::as_str)
            .unwrap_or("[deleted]")
            .to_owned(),
        score: v.get("points").and_then(Value::as_i64),
        date: v
            .get("created_at")
            .and_then(Value::as_str)
            .map(str::to_owned),
        markdown: html(v),
        replies: children(v),
        not_sent: 0,
        continues: false,
    }
}

fn children(v: &Value) -> Vec<Comment> {
    v.get("children")
        .and_then(Value::as_array)
        .map(|c| c.iter().map(comment).collect())
        .unwrap_or_default()
}

/// An items answer as Markdown within `bounds`.
pub fn parse(item: &Value, bounds: Bounds) -> Result<SitePage, TrawlError> {
    let id = item.get("id").and_then(Value::as_u64).ok_or_else(|| {
        TrawlError::new(
            ErrorCode::Upstream,
            "Hacker News' API answered without an item id",
        )
    })?;
    let root = comment(item);
    let title = item
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| format!("Comment by {} (item {id})", root.author));
    let mut md = format!("# {title}\n\n");
    if let Some(link) = item.get("url").and_then(Value::as_str) {
        let _ = writeln!(md, "<{link}>\n");
    }
    let _ = writeln!(
        md,
        "{} · **{}**{}\n",
        item.get("type").and_then(Value::as_str).unwrap_or("item"),
        root.author,
        [
            root.score.map(|p| format!(" · {p} points")),
            root.date.as_ref().map(|d| format!(" · {d}"))
        ]
        .into_iter()
        .flatten()
        .collect::<String>()
    );
    if !root.markdown.trim().is_empty() {
        let _ = writeln!(md, "{}\n", root.markdown.trim());
    }
    let count: usize = root.replies.iter().map(Comment::size).sum();
    if count > 0 {
        let _ = writeln!(md, "## Comments ({count})\n");
        md.push_str(&thread::render(&root.replies, 0, bounds));
    }
    Ok(SitePage {
        title: Some(title),
        markdown: md,
        byline: Some(root.author),
        published: root.date,
        note: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Value {
        // A real items answer for item 17, saved 2014-06 (PROVENANCE.md).
        let path = format!(
            "{}/fixtures/hackernews/item-17-2014.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn an_item_url_is_routed_by_its_id() {
        let url = Url::parse("https://news.ycombinator.com/item?id=17").unwrap();
        assert_eq!(route(&url), Some(Ok(SiteTarget::HackerNews { id: 17 })));
        let front = Url::parse("https://news.ycombinator.com/item").unwrap();
        assert_eq!(route(&front), None);
    }

    #[test]
    fn the_thread_is_nested_with_authors_and_dates() {
        let page = parse(&fixture(), Bounds::default()).unwrap();
        let md = &page.markdown;
        assert!(md.starts_with("# Comment by pg (item 17)\n"), "{md}");
        assert!(md.contains("Is there anywhere to eat on Sandhill Road?"));
        assert!(md.contains("## Comments (2)"));
        assert!(
            md.contains("- **dmon** · 4 points · 2007-02-25T22:18:23.000Z\n  sure\n"),
            "{md}"
        );
        assert!(md.contains("- **Arrington**"));
        assert_eq!(page.byline.as_deref(), Some("pg"));
        let cut = parse(
            &fixture(),
            Bounds {
                comments: 1,
                depth: 8,
            },
        )
        .unwrap();
        assert!(
            cut.markdown
                .contains("1 more comment(s) not loaded (limit 1)")
        );
        assert!(!cut.markdown.contains("Arrington"));
    }
    fn ask_hn() -> Value {
        // A real items answer for an Ask HN story (2020, saved 2026), its first seven
        // top-level comments kept whole (PROVENANCE.md).
        let path = format!(
            "{}/fixtures/hackernews/item-22665398-ask-hn-2026.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn an_ask_hn_story_reads_with_its_text_decoded_and_every_level_of_its_thread() {
        let page = parse(&ask_hn(), Bounds::default()).unwrap();
        let md = &page.markdown;
        assert!(
            md.starts_with("# Ask HN: Who is hiring right now?\n"),
            "{md}"
        );
        // No link of its own (`url: null`): no link line.
        assert!(!md.contains("<null>") && !md.contains("\n<http"), "{md}");
        assert!(md.contains("story · **whoishiring** · 1083 points · 2020-03-23T16:13:49.000Z"));
        // The story's own text, its entities and escaped slashes decoded, <i> kept.
        assert!(md.contains("There's a corresponding thread for job seekers here: [https://news.ycombinator.com/item?id=22665396](https://news.ycombinator.com/item?id=22665396)"), "{md}");
        assert!(
            md.contains("When remote work is *not* an option, include ONSITE. Don't include both!")
        );
        assert!(md.contains("## Comments (24)"), "{md}");
        assert_eq!(md.matches("- **").count(), 24);
        // HN shortens a long link's text; the whole address stays the target.
        assert!(md.contains("[https://www.foxbusiness.com/markets/dominos-hiring-coronavir...](https://www.foxbusiness.com/markets/dominos-hiring-coronavirus-demand)"), "{md}");
        assert!(md.contains("Open Source & Gaming are both areas known for low salaries. What salary range is the \"Graphics Developer\" opening in?"));
        assert!(
            !md.contains("&#x27;")
                && !md.contains("&quot;")
                && !md.contains("&amp;")
                && !md.contains("&#x2F;"),
            "{md}"
        );
        // Six levels deep, each under its parent.
        assert!(md.contains("\n          - **awnfuron** · 2020-03-23T17:37:16.000Z\n            Fair enough. Thank you.\n"), "{md}");
        // Paragraphs of one comment stay inside its list item.
        assert!(
            md.contains("\n\n  CodeWeavers is hiring skilled C programmers"),
            "{md}"
        );
        let cut = parse(
            &ask_hn(),
            Bounds {
                comments: 8,
                depth: 3,
            },
        )
        .unwrap()
        .markdown;
        assert_eq!(cut.matches("- **").count(), 8, "{cut}");
        assert!(
            cut.contains("3 repl(ies) deeper not loaded (depth limit 3)"),
            "{cut}"
        );
        assert!(
            cut.contains("more comment(s) not loaded (limit 8)"),
            "{cut}"
        );
        assert!(!cut.contains("Fair enough"), "{cut}");
    }
}
