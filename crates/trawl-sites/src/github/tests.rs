//! GitHub's parsers on real saved answers (PyGithub's replay data; dates in PROVENANCE.md).

use super::*;

fn fixture(name: &str) -> Value {
    let path = format!("{}/fixtures/github/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(&path).expect(&path)).unwrap()
}

fn target(raw: &str) -> Option<Target> {
    match route(&Url::parse(raw).unwrap())? {
        Ok(SiteTarget::GitHub(t)) => Some(t),
        other => panic!("{other:?}"),
    }
}

#[test]
fn urls_map_to_repo_thread_and_blob() {
    assert_eq!(
        target("https://github.com/PyGithub/PyGithub"),
        Some(Target::Repo {
            owner: "PyGithub".into(),
            repo: "PyGithub".into()
        })
    );
    assert_eq!(
        target("https://github.com/o/r/pull/7/files"),
        Some(Target::Thread {
            owner: "o".into(),
            repo: "r".into(),
            number: 7
        })
    );
    assert_eq!(
        target("https://github.com/o/r/blob/main/src/lib.rs"),
        Some(Target::Blob {
            owner: "o".into(),
            repo: "r".into(),
            git_ref: "main".into(),
            path: "src/lib.rs".into()
        })
    );
    assert_eq!(target("https://github.com/o/r/tree/main/src"), None);
    assert_eq!(target("https://github.com/o/r/issues/new"), None);
    assert_eq!(target("https://github.com/topics/rust"), None);
}

#[test]
fn repository_root_has_readme_description_stars_and_language() {
    // Captured 2025-01-08 (HTTP Date).
    let page = repo_page(
        &fixture("repo-pygithub-2025.json"),
        Some(&fixture("readme-pygithub-2025.json")),
    )
    .unwrap();
    assert_eq!(page.title.as_deref(), Some("PyGithub/PyGithub"));
    assert!(
        page.markdown
            .starts_with("# PyGithub/PyGithub\n\n> Typed interactions with the GitHub API v3\n")
    );
    assert!(
        page.markdown.contains("7126 stars · Python"),
        "{}",
        &page.markdown[..300]
    );
    // The README, decoded from base64.
    assert!(page.markdown.contains("# PyGitHub"));
    assert!(page.markdown.contains("pip install PyGithub"));
    let bare = repo_page(&fixture("repo-pygithub-2025.json"), None).unwrap();
    assert!(bare.markdown.contains("has no README"));
}

#[test]
fn issue_thread_has_body_and_comments_with_authors_and_dates() {
    // Issue captured 2025-08-16, its comments 2012-05-26.
    let page = thread_page(
        &fixture("issue-28-pygithub-2025.json"),
        &fixture("issue-28-comments-pygithub-2012.json"),
    )
    .unwrap();
    let md = &page.markdown;
    assert!(
        md.starts_with("# Issue created by PyGithub (#28)\n"),
        "{md}"
    );
    assert!(md.contains("opened by **jacquev6** on 2012-05-19T10:38:23Z"));
    assert!(md.contains("Body edited by PyGithub"));
    assert!(md.contains("## Comments (2)"));
    let first = md.find("### jacquev6 · 2012-05-01T22:03:59Z").expect(md);
    let second = md.find("### roskakori · 2012-05-04T19:23:57Z").expect(md);
    assert!(first < second);
    assert_eq!(page.byline.as_deref(), Some("jacquev6"));
}

#[test]
fn a_blob_is_the_raw_file() {
    let readme = std::fs::read(format!(
        "{}/fixtures/github/raw-readme-pygithub-2025.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let md = blob_page("README.md", &readme);
    assert!(md.markdown.starts_with("# PyGitHub"));
    let code = blob_page("src/lib.rs", b"fn main() {}\n");
    assert_eq!(code.markdown, "```rs\nfn main() {}\n```\n");
}

#[test]
fn the_token_goes_to_github_or_loopback_only() {
    let ok = |s: &str| may_send_token_to(&Url::parse(s).unwrap());
    assert!(ok("https://api.github.com/"));
    assert!(ok("http://127.0.0.1:9999/prefix/"));
    assert!(!ok("https://api.github.com.evil.example/"));
    assert!(!ok("https://example.com/"));
}

#[test]
fn fewer_comments_than_github_counts_are_said() {
    // Real: issue 28 counts 3 comments (2025), its saved comments answer holds 2 (2012).
    let page = thread_page(
        &fixture("issue-28-pygithub-2025.json"),
        &fixture("issue-28-comments-pygithub-2012.json"),
    )
    .unwrap();
    assert!(
        page.markdown
            .contains("_GitHub counts 3 comments; 2 shown, the rest not loaded._"),
        "{}",
        page.markdown
    );
}

#[test]
fn a_bots_html_table_becomes_markdown_and_a_markdown_comment_stays() {
    // Built in the shape of a coverage bot's comment (no saved one found): HTML table rows.
    let bot = "<h3>Coverage report</h3>\n<table><tr><th>File</th><th>Cover</th></tr>\
        <tr><td>a.py</td><td>91%</td></tr><tr><td>b.py</td><td>75%</td></tr></table>\n\
        <details><summary>Details</summary><p>All good</p></details>";
    let comments = serde_json::json!([
        {"user": {"login": "codecov[bot]", "type": "Bot"}, "created_at": "2025-01-01T00:00:00Z", "body": bot},
        {"user": {"login": "dev"}, "created_at": "2025-01-02T00:00:00Z", "body": "Looks **fine**, see <br> below"}
    ]);
    let md = thread_page(&fixture("issue-28-pygithub-2025.json"), &comments)
        .unwrap()
        .markdown;
    assert!(md.contains("| a.py | 91% |"), "{md}");
    assert!(!md.contains("<td>") && !md.contains("<table>"), "{md}");
    assert!(md.contains("Looks **fine**, see <br> below"), "{md}");
}

#[test]
fn readme_relative_links_point_at_github() {
    let at = Url::parse("https://github.com/o/r/blob/main/README.md").unwrap();
    let md = "See [the guide](docs/guide.md), ![logo](./img/logo.png), [top](#usage) \
              and [site](https://example.org/x).";
    assert_eq!(
        absolute_links(md, &at),
        "See [the guide](https://github.com/o/r/blob/main/docs/guide.md), \
         ![logo](https://github.com/o/r/blob/main/img/logo.png), [top](#usage) \
         and [site](https://example.org/x)."
    );
}

#[test]
fn a_dependency_bots_pull_request_body_is_markdown_with_its_own_markdown_kept() {
    // PyGithub's recorded answer for dependabot's pull request #3370 (2025, recorded
    // 2026): a body of Markdown lines around HTML blocks (release notes and a changelog in
    // `<details>`, lists, links, `<br />`), then a Markdown list of commands and a quote.
    let pull = fixture("pull-3370-dependabot-pygithub-2026.json");
    let md = thread_page(&pull, &serde_json::json!([])).unwrap().markdown;
    assert!(
        md.starts_with("# Bump actions/setup-python from 5 to 6 (#3370)\n"),
        "{md}"
    );
    assert!(md.contains("opened by **dependabot[bot]**"), "{md}");
    // The HTML blocks became Markdown: no tags left.
    for tag in [
        "<details",
        "<summary",
        "<li>",
        "<a href",
        "<blockquote",
        "<h2>",
        "<br",
    ] {
        assert!(!md.contains(tag), "{tag} left in:\n{md}");
    }
    assert!(
        md.contains(
            "Bumps [actions/setup-python](https://github.com/actions/setup-python) from 5 to 6."
        ),
        "{md}"
    );
    assert!(md.contains("Release notes"), "{md}");
    assert!(md.contains("Upgrade to node 24 by"), "{md}");
    assert!(
        md.contains("(https://redirect.github.com/actions/setup-python/pull/1164)"),
        "{md}"
    );
    // The Markdown between the blocks is kept line for line.
    assert!(
        md.contains("\n- `@dependabot rebase` will rebase this PR\n- `@dependabot recreate` will recreate this PR"),
        "{md}"
    );
    assert!(
        md.contains("> **Note**\n> Automatic rebases have been disabled on this pull request"),
        "{md}"
    );
    assert!(md.contains("You can trigger a rebase of this PR by commenting `@dependabot rebase`."));
    // The note on comments not shown is a paragraph of its own, not part of the quote.
    assert!(
        md.ends_with(
            "open for over 30 days.\n\n_GitHub counts 1 comments; 0 shown, the rest not loaded._\n"
        ),
        "{md}"
    );
}

#[test]
fn html_inside_fenced_code_stays_code() {
    // Built: a report with HTML blocks and a fenced example of HTML, which is code.
    let body = "<details><summary>Report</summary><p>ok</p><br></details>\n\n\
        ```html\n<table><tr><td>x</td></tr></table>\n```\n\nDone.";
    let page = Url::parse("https://github.com/o/r/issues/1").unwrap();
    let md = html_as_markdown(body, &page);
    assert!(
        md.contains("```html\n<table><tr><td>x</td></tr></table>\n```\n\nDone."),
        "{md}"
    );
    assert!(!md.contains("<details>"), "{md}");
}
