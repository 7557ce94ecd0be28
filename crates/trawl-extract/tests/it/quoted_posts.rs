//! A reply that quotes an earlier post (a test page written for trawl): the quoted lines
//! say that post again, and the post is already there above the reply, so the copy in
//! the `<blockquote>` goes while the reply's own text and the post itself stay.

use crate::common;

fn read(url: &str, page: &str) -> String {
    common::read_html(url, page).markdown
}

fn post(id: u32, author: &str, body: &str) -> String {
    format!(
        r#"<article class="message" id="post-{id}"><div class="message-user"><a href="/members/{author}">{author}</a>
        <time datetime="2026-03-0{id}">Mar {id}, 2026</time></div>
        <div class="message-content"><div class="bbWrapper">{body}</div></div></article>"#
    )
}

/// Three posts of a thread; the second and third each quote a line of the first, shorter
/// than the 200 characters a repeated block needs elsewhere. Before `REPEATED_QUOTE_MIN`
/// both quotes stayed, so the first post's question read three times.
#[test]
fn a_reply_quoting_an_earlier_post_drops_the_quote_and_keeps_its_own_text() {
    let question = "Has anybody tried the beta of the new release on an older laptop yet?";
    let first = post(
        1,
        "harbourfan",
        &format!(
            "<p>{question}</p><p>Mine is a six year old machine with eight gigabytes of memory \
             and I would rather not find out the hard way that the new desktop is too heavy \
             for it, since I use it every day for work and cannot be without it for a week.</p>"
        ),
    );
    let second = post(
        2,
        "quaykeeper",
        &format!(
            "<blockquote class=\"bbCodeBlock--quote\"><div class=\"bbCodeBlock-content\">{question}</div></blockquote>\
             <p>Yes, on a laptop of about the same age. It runs well once the indexing has finished, \
             which took about an hour on the first day, and the battery lasts as long as before.</p>"
        ),
    );
    let third = post(
        3,
        "tidewatcher",
        &format!(
            "<blockquote class=\"bbCodeBlock--quote\"><div class=\"bbCodeBlock-content\">{question}</div></blockquote>\
             <p>Not yet, but the release notes say the memory use went down since the last version, \
             so eight gigabytes should be plenty for everyday work with a browser and mail.</p>"
        ),
    );
    let page = format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
        <title>Trying the new release on an old laptop | Harbour Forums</title></head><body>
        <nav class="menu"><a href="/">Forums</a> <a href="/whats-new">What's new</a> <a href="/members">Members</a></nav>
        <main><h1>Trying the new release on an old laptop</h1>
        <div class="block-body">{first}{second}{third}</div></main>
        <footer class="site-footer"><p>Harbour Forums, all rights reserved.</p></footer></body></html>"#
    );
    let md = read(
        "https://forums.example.org/threads/trying-the-new-release-on-an-old-laptop.4242/",
        &page,
    );
    assert_eq!(md.matches(question).count(), 1, "{md}");
    assert!(md.contains("six year old machine"), "{md}");
    assert!(
        md.contains("It runs well once the indexing has finished"),
        "{md}"
    );
    assert!(md.contains("the memory use went down"), "{md}");
}
