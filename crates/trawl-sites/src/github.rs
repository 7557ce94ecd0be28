//! GitHub through its REST API (`api.github.com`): a repository's root gives its README
//! with the description, stars and language; an issue or pull request gives the thread
//! (body and comments, with authors and dates); a blob gives the raw file. A token
//! (`GITHUB_TOKEN`, else `gh auth token`) raises the rate limit and is sent only to
//! GitHub's API host or a loopback stand-in for it.

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::client::{SiteClient, endpoint, parse_json};
use crate::page::SitePage;
use crate::spec::{self, SiteSpec, Target as SiteTarget};

/// The reader's row in the table.
pub const SPEC: SiteSpec = SiteSpec {
    name: "github",
    hosts: &["github.com", "www.github.com"],
    pattern: "github.com/OWNER/REPO, …/issues/N, …/pull/N, …/blob/REF/PATH",
    reads: "README + description, stars, language; issue or PR thread with authors and dates; raw file",
    needs: "nothing (optional GITHUB_TOKEN, or a logged-in `gh`)",
    base: "https://api.github.com/",
    confidence: "high: stable versioned API; real responses from PyGithub's replay data (repository and README 2025-01, issue 2025-08, its comments 2012, a dependabot pull request with HTML blocks 2026-01, the primary and secondary rate-limit 403s 2013 and 2018); a bot comment of HTML tables only built",
    fixtures: "crates/trawl-sites/fixtures/github (PyGithub tests/ReplayData)",
    route,
};

pub use crate::spec::GitHubTarget as Target;

/// Top-level paths of github.com that are not owners.
const NOT_OWNERS: &[&str] = &[
    "about",
    "apps",
    "collections",
    "customer-stories",
    "enterprise",
    "events",
    "explore",
    "features",
    "login",
    "join",
    "marketplace",
    "new",
    "notifications",
    "orgs",
    "organizations",
    "pricing",
    "pulls",
    "issues",
    "search",
    "settings",
    "sponsors",
    "topics",
    "trending",
    "users",
    "codespaces",
    "site",
    "security",
];

fn route(url: &Url) -> Option<Result<SiteTarget, String>> {
    if !spec::host_matches(url.host_str()?, SPEC.hosts) {
        return None;
    }
    let s = spec::segments(url);
    let (owner, repo) = match s.as_slice() {
        [owner, repo, ..] if !NOT_OWNERS.contains(owner) => (
            (*owner).to_owned(),
            repo.trim_end_matches(".git").to_owned(),
        ),
        _ => return None,
    };
    let target = match &s[2..] {
        [] => Target::Repo { owner, repo },
        ["issues" | "pull", n, ..] => Target::Thread {
            owner,
            repo,
            number: n.parse().ok()?,
        },
        ["blob", git_ref, path @ ..] if !path.is_empty() => Target::Blob {
            owner,
            repo,
            git_ref: (*git_ref).to_owned(),
            path: path.join("/"),
        },
        _ => return None,
    };
    Some(Ok(SiteTarget::GitHub(target)))
}

/// Whether a token may go to `base`: GitHub's API host, or this machine (a test's
/// stand-in). A base moved anywhere else gets no token.
pub fn may_send_token_to(base: &Url) -> bool {
    match base.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("api.github.com"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn headers(client: &SiteClient<'_>, base: &Url, accept: &str) -> Vec<(&'static str, String)> {
    let mut h = vec![
        ("accept", accept.to_owned()),
        ("x-github-api-version", "2022-11-28".to_owned()),
    ];
    if let Some(token) = &client.config.github_token
        && may_send_token_to(base)
    {
        h.push(("authorization", format!("Bearer {token}")));
    }
    h
}

const JSON: &str = "application/vnd.github+json";

/// Read `target` through the API.
pub async fn read(client: &SiteClient<'_>, target: &Target) -> Result<SitePage, TrawlError> {
    let base = client.base(&SPEC);
    let json = headers(client, &base, JSON);
    match target {
        Target::Repo { owner, repo } => {
            let repo_path = format!("repos/{}/{}", seg(owner), seg(repo));
            let about = client
                .get_json(&endpoint(&base, &repo_path)?, &json)
                .await?;
            let readme_url = endpoint(&base, &format!("{repo_path}/readme"))?;
            let readme = match client.get(&readme_url, &json).await {
                Ok(body) => Some(parse_json(&body, &readme_url)?),
                Err(e) if e.code == ErrorCode::NotFound => None,
                Err(e) => return Err(e),
            };
            repo_page(&about, readme.as_ref())
        }
        Target::Thread {
            owner,
            repo,
            number,
        } => {
            let issue_path = format!("repos/{}/{}/issues/{number}", seg(owner), seg(repo));
            let issue = client
                .get_json(&endpoint(&base, &issue_path)?, &json)
                .await?;
            // A page holds at most 100 comments: read pages up to the thread bound.
            let mut comments = Vec::new();
            let pages = client.config.bounds.comments.div_ceil(PER_PAGE).max(1);
            for page in 1..=pages {
                let answer = client
                    .get_json(
                        &endpoint(
                            &base,
                            &format!("{issue_path}/comments?per_page={PER_PAGE}&page={page}"),
                        )?,
                        &json,
                    )
                    .await?;
                let got = answer
                    .as_array()
                    .ok_or_else(|| shape("a list of comments"))?;
                let full = got.len() == PER_PAGE;
                comments.extend(got.iter().cloned());
                if !full {
                    break;
                }
            }
            thread_page(&issue, &Value::Array(comments))
        }
        Target::Blob {
            owner,
            repo,
            git_ref,
            path,
        } => {
            let file_path: Vec<String> = path.split('/').map(seg).collect();
            let url = endpoint(
                &base,
                &format!(
                    "repos/{}/{}/contents/{}?ref={}",
                    seg(owner),
                    seg(repo),
                    file_path.join("/"),
                    seg(git_ref)
                ),
            )?;
            let raw = client
                .get(&url, &headers(client, &base, "application/vnd.github.raw"))
                .await?;
            Ok(blob_page(path, &raw))
        }
    }
}

/// Comments GitHub sends a page at most.
const PER_PAGE: usize = 100;

/// One path segment, percent-encoded.
fn seg(s: impl AsRef<str>) -> String {
    percent_encoding::utf8_percent_encode(s.as_ref(), percent_encoding::NON_ALPHANUMERIC)
        .to_string()
        .replace("%2D", "-")
        .replace("%2E", ".")
        .replace("%5F", "_")
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn login(v: &Value) -> String {
    v.pointer("/user/login")
        .and_then(Value::as_str)
        .unwrap_or("ghost")
        .to_owned()
}

fn shape(what: &str) -> TrawlError {
    TrawlError::new(
        ErrorCode::Upstream,
        format!("GitHub's API answered without {what}"),
    )
}

/// A repository's answer and its README's (`GET /repos/O/R`, `GET /repos/O/R/readme`).
pub fn repo_page(about: &Value, readme: Option<&Value>) -> Result<SitePage, TrawlError> {
    let name = text(about, "full_name").ok_or_else(|| shape("a repository's full_name"))?;
    let mut md = format!("# {name}\n\n");
    if let Some(d) = text(about, "description") {
        let _ = writeln!(md, "> {d}\n");
    }
    let mut facts = Vec::new();
    if let Some(stars) = about.get("stargazers_count").and_then(Value::as_u64) {
        facts.push(format!("{stars} stars"));
    }
    if let Some(lang) = text(about, "language") {
        facts.push(lang);
    }
    if let Some(l) = about.pointer("/license/spdx_id").and_then(Value::as_str) {
        facts.push(format!("licence {l}"));
    }
    if let Some(b) = text(about, "default_branch") {
        facts.push(format!("default branch {b}"));
    }
    if let Some(topics) = about.get("topics").and_then(Value::as_array)
        && !topics.is_empty()
    {
        let t: Vec<&str> = topics.iter().filter_map(Value::as_str).collect();
        facts.push(format!("topics: {}", t.join(", ")));
    }
    if !facts.is_empty() {
        let _ = writeln!(md, "{}\n", facts.join(" · "));
    }
    match readme {
        Some(r) => {
            let readme = decode_content(r)?;
            let readme = match r
                .get("html_url")
                .and_then(Value::as_str)
                .and_then(|u| Url::parse(u).ok())
            {
                Some(at) => absolute_links(&readme, &at),
                None => readme,
            };
            let _ = writeln!(md, "---\n\n{}", readme.trim());
        }
        None => md.push_str("_This repository has no README._\n"),
    }
    Ok(SitePage {
        title: Some(name),
        markdown: md,
        byline: about
            .pointer("/owner/login")
            .and_then(Value::as_str)
            .map(str::to_owned),
        published: text(about, "created_at"),
        note: None,
    })
}

/// Markdown links and images (`](target)`) relative to the README made absolute against
/// where GitHub shows it (`html_url`), so `docs/guide.md` still leads somewhere when read
/// elsewhere. Anchors (`#…`) and links with a scheme stay as written.
fn absolute_links(md: &str, at: &Url) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(open) = rest.find("](") {
        let (before, after) = rest.split_at(open + 2);
        out.push_str(before);
        let end = after.find([')', ' ']).unwrap_or(after.len());
        let target = &after[..end];
        let relative = !target.is_empty()
            && !target.starts_with('#')
            && !target.contains("://")
            && !target.starts_with("mailto:");
        match at.join(target).ok().filter(|_| relative) {
            Some(url) => out.push_str(url.as_str()),
            None => out.push_str(target),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The text of a contents answer (`content`, base64 with line breaks).
fn decode_content(v: &Value) -> Result<String, TrawlError> {
    let content = text(v, "content").ok_or_else(|| shape("a README's content"))?;
    if v.get("encoding").and_then(Value::as_str) != Some("base64") {
        return Err(shape("base64 content"));
    }
    let packed: String = content.split_whitespace().collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(packed)
        .map_err(|e| {
            TrawlError::new(
                ErrorCode::Upstream,
                format!("GitHub sent a README that is not base64: {e}"),
            )
        })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// An issue's answer and its comments' (`GET …/issues/N`, `GET …/issues/N/comments`).
pub fn thread_page(issue: &Value, comments: &Value) -> Result<SitePage, TrawlError> {
    let title = text(issue, "title").ok_or_else(|| shape("an issue's title"))?;
    let number = issue.get("number").and_then(Value::as_u64).unwrap_or(0);
    let kind = if issue.get("pull_request").is_some() {
        "pull request"
    } else {
        "issue"
    };
    let author = login(issue);
    let opened = text(issue, "created_at");
    let mut md = format!("# {title} (#{number})\n\n");
    let _ = writeln!(
        md,
        "{kind} · {} · opened by **{author}**{}\n",
        text(issue, "state").unwrap_or_else(|| "unknown state".into()),
        opened
            .as_deref()
            .map(|d| format!(" on {d}"))
            .unwrap_or_default()
    );
    let page = text(issue, "html_url")
        .and_then(|u| Url::parse(&u).ok())
        .unwrap_or_else(|| Url::parse("https://github.com/").expect("a URL"));
    match text(issue, "body").filter(|b| !b.trim().is_empty()) {
        Some(body) => md.push_str(&html_as_markdown(&body, &page)),
        None => md.push_str("_No description._"),
    }
    md.push('\n');
    let list = comments
        .as_array()
        .ok_or_else(|| shape("a list of comments"))?;
    if !list.is_empty() {
        let _ = writeln!(md, "\n## Comments ({})\n", list.len());
    }
    for c in list {
        let body = text(c, "body").unwrap_or_default();
        let _ = writeln!(
            md,
            "### {}{}\n\n{}\n",
            login(c),
            text(c, "created_at")
                .map(|d| format!(" · {d}"))
                .unwrap_or_default(),
            html_as_markdown(&body, &page)
        );
    }
    // GitHub counts the comments on the issue; fewer came (deleted since, or past the
    // pages read).
    if let Some(counted) = issue.get("comments").and_then(Value::as_u64)
        && counted > list.len() as u64
    {
        if !md.ends_with("\n\n") {
            md.push('\n');
        }
        let _ = writeln!(
            md,
            "_GitHub counts {counted} comments; {} shown, the rest not loaded._",
            list.len()
        );
    }
    Ok(SitePage {
        title: Some(format!("{title} (#{number})")),
        markdown: md,
        byline: Some(author),
        published: opened,
        note: None,
    })
}

/// A body with much HTML in it (a bot's report tables, `<details>` boxes, a dependency
/// bot's release notes) as Markdown; a body written in Markdown stays as it is. GitHub
/// renders such a body as Markdown holding HTML blocks: a line opening a block-level tag
/// starts one and a blank line ends it (CommonMark's rule). Each HTML block is converted;
/// the Markdown around it (lists, quotes, fenced code) is kept line for line.
fn html_as_markdown(body: &str, page: &Url) -> String {
    const TAGS: &[&str] = &[
        "<table", "<tr", "<td", "<th", "<details", "<summary", "<div", "<p>", "<br",
    ];
    let tags: usize = TAGS.iter().map(|t| body.matches(t).count()).sum();
    if tags < 5 {
        return body.to_owned();
    }
    let mut out = String::new();
    let mut html = String::new();
    let mut fence: Option<&str> = None;
    let flush = |html: &mut String, out: &mut String| {
        let converted = trawl_extract::fragment_to_markdown(html, page);
        html.clear();
        let converted = converted.trim();
        if converted.is_empty() {
            return;
        }
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(converted);
        out.push_str("\n\n");
    };
    for line in body.lines() {
        let t = line.trim_start();
        if !html.is_empty() {
            if t.is_empty() {
                flush(&mut html, &mut out);
            } else {
                html.push_str(line);
                html.push('\n');
            }
            continue;
        }
        if let Some(mark) = fence {
            if t.starts_with(mark) {
                fence = None;
            }
        } else if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
        } else if opens_html_block(t) {
            html.push_str(line);
            html.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !html.is_empty() {
        flush(&mut html, &mut out);
    }
    let mut tidy = String::with_capacity(out.len());
    let mut blank = 0;
    for line in out.trim().lines() {
        blank = if line.trim().is_empty() { blank + 1 } else { 0 };
        if blank < 2 {
            tidy.push_str(line);
            tidy.push('\n');
        }
    }
    tidy.trim_end().to_owned()
}

/// Whether a Markdown line opens an HTML block: a block-level tag (or its end tag) first
/// on the line.
fn opens_html_block(line: &str) -> bool {
    const BLOCK: &[&str] = &[
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "center",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "img",
        "li",
        "ol",
        "p",
        "picture",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ];
    let Some(rest) = line.strip_prefix('<') else {
        return false;
    };
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    let name: String = rest
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    let after = rest[name.len()..].chars().next();
    BLOCK.contains(&name.as_str()) && matches!(after, None | Some(' ' | '>' | '/' | '\t'))
}

/// A raw file: Markdown as it is, anything else fenced with its extension as the language.
pub fn blob_page(path: &str, raw: &[u8]) -> SitePage {
    let body = String::from_utf8_lossy(raw);
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    let markdown = match ext.as_deref() {
        Some("md" | "markdown") => body.into_owned(),
        other => {
            let fence = if body.contains("```") { "````" } else { "```" };
            format!(
                "{fence}{}\n{}\n{fence}\n",
                other.unwrap_or(""),
                body.trim_end()
            )
        }
    };
    SitePage {
        title: Some(path.to_owned()),
        markdown,
        ..SitePage::default()
    }
}

#[cfg(test)]
mod tests;
