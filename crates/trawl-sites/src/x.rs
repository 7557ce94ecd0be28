//! X (Twitter) posts through the web app's GraphQL `TweetDetail`, on the user's own
//! logged-in session (`TRAWL_X_COOKIES_FILE`, read as X search reads it): the post's full
//! text, its media's alt text, the post it quotes, the posts it answers, and up to 20
//! replies nested as X threads them. Without a session the reader is skipped and the
//! generic tiers read the page; an expired session is an `auth` failure.

use std::fmt::Write as _;

use serde_json::Value;
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::client::{SiteClient, endpoint, parse_json};
use crate::page::SitePage;
use crate::spec::{self, SiteSpec, Target as SiteTarget};
use crate::thread::{self, Bounds, Comment};

/// The reader's row in the table.
pub const SPEC: SiteSpec = SiteSpec {
    name: "x",
    hosts: &[
        "x.com",
        "www.x.com",
        "mobile.x.com",
        "twitter.com",
        "www.twitter.com",
        "mobile.twitter.com",
    ],
    pattern: "x.com/USER/status/ID, twitter.com/USER/status/ID",
    reads: "the post's full text, media alt text, the quoted post, the posts it answers and up to 20 replies",
    needs: "a logged-in session's cookies file (auth_token, ct0) in TRAWL_X_COOKIES_FILE, as X search; without it the generic tiers read the page",
    base: "https://x.com/",
    confidence: "parsing high (a real TweetDetail answer, 2026-08, twscrape's tests; the quoted post on a built variant of it); getting through: low-medium (X changes the operation id and may ask for an x-client-transaction-id trawl does not compute)",
    fixtures: "crates/trawl-sites/fixtures/x (vladkens/twscrape test data)",
    route,
};

/// The GraphQL operation, as the web app names it (twscrape's, 2026-08; X changes the id
/// now and then, and the answer is then a 404).
const TWEET_DETAIL: &str = "i/api/graphql/559hs_YZNV4IgA3Z6zIIuw/TweetDetail";

/// Replies shown at most, as issue 26 bounds them.
pub const MAX_REPLIES: usize = 20;

/// The words of an `errors[].message` that mean the session is not (or no longer) good.
const AUTH_WORDS: &[&str] = &["authenticate", "csrf", "login", "bad token", "expired"];

fn route(url: &Url) -> Option<Result<SiteTarget, String>> {
    if !spec::host_matches(url.host_str()?, SPEC.hosts) {
        return None;
    }
    let id = match spec::segments(url).as_slice() {
        [_, "status" | "statuses", id, ..] | ["i", "web", "status", id, ..] => id.parse().ok(),
        _ => None,
    }?;
    Some(Ok(SiteTarget::X { id }))
}

/// An `auth` failure: the session in the cookies file is missing, expired or refused.
pub fn auth_error(why: &str) -> TrawlError {
    TrawlError::new(
        ErrorCode::Blocked,
        format!(
            "auth: the X session in {} was refused ({why}); log in again and export fresh cookies",
            trawl_core::vars::X_COOKIES_FILE
        ),
    )
}

/// Read post `id` with `session` (`auth_token=…; ct0=…`).
pub async fn read(client: &SiteClient<'_>, id: u64) -> Result<SitePage, TrawlError> {
    let Some(session) = client.config.x_session.as_deref() else {
        return Err(auth_error(&format!(
            "no session: {} is not set",
            trawl_core::vars::X_COOKIES_FILE
        )));
    };
    let variables = serde_json::json!({
        "focalTweetId": id.to_string(), "with_rux_injections": false,
        "includePromotedContent": false, "withCommunity": true,
        "withBirdwatchNotes": true, "withVoice": true, "withV2Timeline": true,
    });
    let mut url = endpoint(&client.base(&SPEC), TWEET_DETAIL)?;
    url.query_pairs_mut()
        .append_pair("variables", &variables.to_string())
        .append_pair("features", &trawl_search::engines::x::features());
    let ct0 = session
        .split(';')
        .find_map(|p| p.trim().strip_prefix("ct0="))
        .unwrap_or("")
        .to_owned();
    let headers = [
        (
            "authorization",
            trawl_search::engines::x::WEB_APP_BEARER.to_owned(),
        ),
        ("x-twitter-active-user", "yes".to_owned()),
        ("x-twitter-auth-type", "OAuth2Session".to_owned()),
        ("x-csrf-token", ct0),
        ("cookie", session.to_owned()),
    ];
    let body = client.get(&url, &headers).await.map_err(|e| {
        if e.message.contains("HTTP 401") || e.message.contains("HTTP 403") {
            auth_error(if e.message.contains("401") {
                "HTTP 401"
            } else {
                "HTTP 403"
            })
        } else {
            e
        }
    })?;
    parse(&parse_json(&body, &url)?, id)
}

/// One post as the answer gives it.
#[derive(Debug, Clone, PartialEq)]
struct Post {
    id: String,
    handle: String,
    name: String,
    date: Option<String>,
    text: String,
    likes: Option<i64>,
    /// How many replies X counts for it (more than an answer carries).
    replies: Option<u64>,
    reply_to: Option<String>,
    /// One Markdown marker per photo, video or GIF: its alt text, else its kind and link.
    media: Vec<String>,
    quoted: Option<Box<Post>>,
}

fn post(result: &Value) -> Option<Post> {
    let t = match result.get("__typename")?.as_str()? {
        "Tweet" => result,
        "TweetWithVisibilityResults" => result.get("tweet")?,
        _ => return None,
    };
    let user = &t["core"]["user_results"]["result"];
    // Newer answers moved the handle from `legacy` to `core`.
    let handle = user["core"]["screen_name"]
        .as_str()
        .or(user["legacy"]["screen_name"].as_str())?
        .to_owned();
    let name = user["core"]["name"]
        .as_str()
        .or(user["legacy"]["name"].as_str())
        .unwrap_or(&handle)
        .to_owned();
    let legacy = &t["legacy"];
    let note = &t["note_tweet"]["note_tweet_results"]["result"];
    let (mut text, links) = match note["text"].as_str() {
        Some(long) => (long.to_owned(), &note["entity_set"]["urls"]),
        None => (
            legacy["full_text"].as_str().unwrap_or("").to_owned(),
            &legacy["entities"]["urls"],
        ),
    };
    // t.co links as what they stand for (X sends both).
    for link in links.as_array().into_iter().flatten() {
        if let (Some(short), Some(long)) = (link["url"].as_str(), link["expanded_url"].as_str()) {
            text = text.replace(short, long);
        }
    }
    let media_items = legacy["extended_entities"]["media"]
        .as_array()
        .or(legacy["entities"]["media"].as_array());
    let mut media = Vec::new();
    for m in media_items.into_iter().flatten() {
        // The media's own t.co link in the text stands for the marker below.
        if let Some(short) = m["url"].as_str() {
            text = text.replace(short, "");
        }
        let link = m["expanded_url"]
            .as_str()
            .or(m["media_url_https"].as_str())
            .unwrap_or("");
        let marker = match (
            m["ext_alt_text"].as_str().map(str::trim),
            m["type"].as_str(),
        ) {
            (Some(alt), _) if !alt.is_empty() => format!("[image: {alt}]"),
            (_, Some("video")) => format!("[video]({link})"),
            (_, Some("animated_gif")) => format!("[GIF]({link})"),
            _ => format!("[photo]({link})"),
        };
        if !media.contains(&marker) {
            media.push(marker);
        }
    }
    Some(Post {
        id: t["rest_id"].as_str()?.to_owned(),
        handle,
        name,
        date: legacy["created_at"].as_str().map(iso_date),
        text,
        likes: legacy["favorite_count"].as_i64(),
        replies: legacy["reply_count"].as_u64(),
        reply_to: legacy["in_reply_to_status_id_str"]
            .as_str()
            .map(str::to_owned),
        media,
        quoted: t
            .get("quoted_status_result")
            .and_then(|q| q.get("result"))
            .and_then(post)
            .map(Box::new),
    })
}

/// X's date (`Thu Apr 20 23:21:13 +0000 2023`) as ISO 8601 UTC; kept as sent if it
/// does not parse.
fn iso_date(raw: &str) -> String {
    chrono::DateTime::parse_from_str(raw, "%a %b %d %H:%M:%S %z %Y")
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        })
        .unwrap_or_else(|_| raw.to_owned())
}

/// The post's text with a marker for each of its media, as Markdown.
fn body(p: &Post) -> String {
    let mut md = p.text.trim().to_owned();
    for marker in &p.media {
        if !md.is_empty() {
            md.push_str("\n\n");
        }
        md.push_str(marker);
    }
    md
}

fn byline(p: &Post) -> String {
    format!("{} (@{})", p.name, p.handle)
}

fn item_post(item: &Value) -> Option<Post> {
    post(item.pointer("/itemContent/tweet_results/result")?)
}

/// A `TweetDetail` answer for post `id` as Markdown: the posts it answers, the post, the
/// post it quotes, and [`MAX_REPLIES`] replies nested by whom they answer.
pub fn parse(answer: &Value, id: u64) -> Result<SitePage, TrawlError> {
    let instructions = answer
        .pointer("/data/threaded_conversation_with_injections_v2/instructions")
        .and_then(Value::as_array);
    let Some(instructions) = instructions else {
        let messages: Vec<&str> = answer["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["message"].as_str())
            .collect();
        let joined = messages.join("; ");
        let lower = joined.to_ascii_lowercase();
        if AUTH_WORDS.iter().any(|w| lower.contains(w)) {
            return Err(auth_error(&joined));
        }
        return Err(TrawlError::new(
            ErrorCode::Upstream,
            format!("X answered without the conversation of post {id} ({joined})"),
        ));
    };
    let focal_id = id.to_string();
    let mut before = Vec::new();
    let mut focal = None;
    let mut threads: Vec<Vec<Post>> = Vec::new();
    let entries = instructions
        .iter()
        .filter_map(|i| i["entries"].as_array())
        .flatten();
    for entry in entries {
        let content = &entry["content"];
        if let Some(p) = item_post(content) {
            if p.id == focal_id {
                focal = Some(p);
            } else if focal.is_none() {
                before.push(p);
            }
        } else if let Some(items) = content["items"].as_array() {
            let chain: Vec<Post> = items.iter().filter_map(|i| item_post(&i["item"])).collect();
            if !chain.is_empty() {
                threads.push(chain);
            }
        }
    }
    let focal = focal.ok_or_else(|| {
        TrawlError::new(
            ErrorCode::NotFound,
            format!("X's answer does not hold post {id} (deleted, protected or unavailable)"),
        )
    })?;
    let mut md = format!("# {}\n\n", byline(&focal));
    let _ = writeln!(
        md,
        "<https://x.com/{}/status/{}>{}{}\n",
        focal.handle,
        focal.id,
        focal
            .date
            .as_deref()
            .map(|d| format!(" · {d}"))
            .unwrap_or_default(),
        focal
            .likes
            .map(|l| format!(" · {l} likes"))
            .unwrap_or_default()
    );
    if !before.is_empty() {
        md.push_str("## In reply to\n\n");
        for p in &before {
            let _ = writeln!(
                md,
                "> **{}**: {}\n",
                byline(p),
                body(p).replace('\n', "\n> ")
            );
        }
    }
    let _ = writeln!(md, "{}\n", body(&focal));
    if let Some(q) = &focal.quoted {
        let _ = writeln!(
            md,
            "## Quoted post\n\n> **{}** <https://x.com/{}/status/{}>\n>\n> {}\n",
            byline(q),
            q.handle,
            q.id,
            body(q).replace('\n', "\n> ")
        );
    }
    let replies: Vec<Comment> = threads.into_iter().filter_map(nest).collect();
    if !replies.is_empty() {
        let count: usize = replies.iter().map(Comment::size).sum();
        let _ = writeln!(md, "## Replies ({count} in this answer)\n");
        let bounds = Bounds {
            comments: MAX_REPLIES,
            depth: Bounds::default().depth,
        };
        md.push_str(&thread::render(&replies, 0, bounds));
    }
    // X sends replies a page at a time: say when there are more than this answer holds.
    let in_answer: usize = replies.iter().map(Comment::size).sum();
    let more_pages = instructions
        .iter()
        .filter_map(|i| i["entries"].as_array())
        .flatten()
        .any(|e| e["content"]["cursorType"].as_str() == Some("Bottom"));
    match focal.replies {
        Some(total) if total as usize > in_answer || more_pages => {
            let _ = writeln!(
                md,
                "- _… X counts {total} replies; {in_answer} are in this answer, the rest not loaded_"
            );
        }
        None if more_pages => {
            md.push_str("- _… more replies on X not loaded_\n");
        }
        _ => {}
    }
    Ok(SitePage {
        title: Some(format!("{} on X", byline(&focal))),
        markdown: md,
        byline: Some(format!("@{}", focal.handle)),
        published: focal.date.clone(),
        note: None,
    })
}

/// One conversation module (a reply and the chain under it) as a comment tree: each post
/// goes under the one it answers, else under the module's first.
fn nest(chain: Vec<Post>) -> Option<Comment> {
    fn comment(p: &Post) -> Comment {
        Comment {
            author: format!("@{}", p.handle),
            // Likes, not points: said in the line's date part, where the thread puts it.
            score: None,
            date: match (&p.date, p.likes) {
                (Some(d), Some(l)) => Some(format!("{d} · {l} likes")),
                (d, None) => d.clone(),
                (None, Some(l)) => Some(format!("{l} likes")),
            },
            markdown: body(p),
            ..Comment::default()
        }
    }
    let mut iter = chain.into_iter();
    let first = iter.next()?;
    let mut root = comment(&first);
    // X sends a module's chain in order, each answering the one before: the path from the
    // root is kept so a post lands under whom it answers.
    let mut path: Vec<String> = vec![first.id.clone()];
    for p in iter {
        let depth = path
            .iter()
            .rposition(|id| p.reply_to.as_deref() == Some(id.as_str()))
            .unwrap_or(0);
        path.truncate(depth + 1);
        let mut node = &mut root;
        for _ in 0..depth {
            node = node
                .replies
                .last_mut()
                .expect("the path follows the last replies");
        }
        node.replies.push(comment(&p));
        path.push(p.id.clone());
    }
    Some(root)
}

#[cfg(test)]
mod tests;
