//! Lists of links inside the text (a test page written for trawl): a list whose links are
//! titles on other sites (a changelog's pull requests) is what the text refers to and
//! stays, while a rail of links within the site and a list of bare addresses still go.

use crate::common;

fn read(url: &str, page: &str) -> String {
    common::read_html(url, page).markdown
}

/// A project's monthly progress report: prose, then the pull requests merged this month,
/// each a link to the code host, then a rail of the blog's other reports. Every item of
/// the merged list is a link, so its link density pruned it whole; `is_reference_list`
/// keeps it because its links are titles on another site.
#[test]
fn a_changelog_of_off_site_links_is_kept_and_a_rail_of_own_links_is_not() {
    let merged = [
        "Support floating point types in the type comparison",
        "Allow casts between integers and pointers",
        "Fix the size of long double on every target",
        "Fix volatile loads and stores",
        "Update the bindings",
        "Split deeply nested expressions to save memory",
    ]
    .iter()
    .enumerate()
    .map(|(n, title)| {
        format!("<li><p><a href=\"https://code.example.net/acme/compiler/pull/{n}\">{title}</a></p></li>")
    })
    .collect::<String>();
    let page = format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Progress report 39</title>
        <meta property="og:type" content="article"></head><body>
        <nav class="menu"><a href="/">Home</a> <a href="/about">About</a> <a href="/archive">Archive</a></nav>
        <main><article id="post"><h1>Progress report 39</h1>
        <div class="content">
        <div class="section"><h2>What happened this month</h2>
        <p>This month the backend learned to build the standard library for two more targets, and
        the test suite now runs on every pull request, which caught three regressions before they
        were merged. Memory use went down by a third on the largest crates we build.</p>
        <p>We also moved the continuous integration to a new runner, so a full run now takes twenty
        minutes instead of an hour, and anyone can reproduce it locally with one command.</p></div>
        <div class="section"><h2>Merged this month</h2>
        <div class="ulist"><ul>{merged}</ul></div></div>
        <div class="section"><h2>Failing runs</h2>
        <ul><li><a href="https://code.example.net/acme/compiler/actions/runs/101">https://code.example.net/acme/compiler/actions/runs/101</a></li>
        <li><a href="https://code.example.net/acme/compiler/actions/runs/102">https://code.example.net/acme/compiler/actions/runs/102</a></li>
        <li><a href="https://code.example.net/acme/compiler/actions/runs/103">https://code.example.net/acme/compiler/actions/runs/103</a></li></ul></div>
        <div class="section"><h2>Thanks</h2>
        <p>Thanks to everyone who tested the nightly builds and sent reports, and to our sponsors,
        whose support pays for the machines the test suite runs on.</p></div>
        <div class="section"><h3>Earlier reports</h3><ul>
        <li><a href="https://blog.example.org/progress-report-38">Progress report 38: the new register allocator</a></li>
        <li><a href="/progress-report-37">Progress report 37: building the standard library</a></li>
        <li><a href="https://www.example.org/progress-report-36">Progress report 36: a faster test suite</a></li>
        </ul></div>
        </div></article></main>
        <footer class="site-footer"><p>Written by the compiler team.</p></footer></body></html>"#
    );
    let md = read("https://blog.example.org/progress-report-39", &page);
    assert!(md.contains("What happened this month"), "{md}");
    for title in [
        "Support floating point types in the type comparison",
        "Update the bindings",
        "Split deeply nested expressions to save memory",
    ] {
        assert!(md.contains(title), "{title:?} missing:\n{md}");
    }
    assert!(md.contains("Thanks to everyone"), "{md}");
    assert!(!md.contains("Progress report 38"), "{md}");
    assert!(!md.contains("actions/runs/102"), "{md}");
}
