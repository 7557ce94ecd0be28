//! A thread's furniture around each post (test page written for trawl): the poster's card
//! (title, join date, post count, location), the "last edited" note and the signature under
//! each post are not the discussion (`NEGATIVE_WORDS` in `boilerplate.rs`).

use crate::common;

fn post(n: u32, name: &str, title: &str, joined: &str, body: &str, signature: &str) -> String {
    format!(
        r#"<article class="message message--post"><div class="message-inner">
<div class="message-cell message-cell--user"><section class="message-user">
<div class="message-userDetails"><h4 class="message-name"><a href="/members/{name}">{name}</a></h4>
<h5 class="userTitle message-userTitle">{title}</h5></div>
<div class="message-userExtras"><dl class="pairs"><dt><i class="fa-calendar" title="Joined"></i></dt><dd>{joined}</dd></dl>
<dl class="pairs"><dt><i class="fa-comments" title="Messages"></i></dt><dd>1,204</dd></dl>
<dl class="pairs"><dt><i class="fa-map" title="Location"></i></dt><dd>West Riding of Yorkshire</dd></dl></div>
</section></div>
<div class="message-cell message-cell--main">
<header class="message-attribution message-attribution--split">
<ul class="message-attribution-main listInline"><li><a href="/threads/starter.1234/post-{n}"><time datetime="2024-06-{n}">Jun {n}, 2024</time></a></li></ul>
<ul class="message-attribution-opposite listInline"><li><a href="/posts/{n}/">#{n}</a></li></ul></header>
<div class="message-content">
<div class="bbWrapper">{body}</div>
<div class="message-lastEdit">Last edited: Mar 2, 2024</div>
<div class="message-signature"><div class="bbWrapper">{signature}</div></div>
</div></div></div></article>"#
    )
}

#[test]
fn a_posts_card_and_signature_are_not_the_thread() {
    let posts = [
        post(
            1,
            "ferncutter",
            "Senior Member",
            "Oct 25, 2017",
            "My sourdough starter smells of nail varnish after a week in the fridge. Is it dead, or only hungry? It still rises, but slowly.",
            "Bread is love made visible. Baking since 1998.",
        ),
        post(
            2,
            "ovenspring",
            "Thread Starter",
            "Jan 3, 2019",
            "Only hungry: the smell is acetone from a starved culture. Feed it twice a day at room temperature for three days and it comes back.",
            "Opinions are my own, crumb shots are my cat's.",
        ),
        post(
            3,
            "ferncutter",
            "Senior Member",
            "Oct 25, 2017",
            "Three days of feeds later it doubles in five hours and smells of yoghurt again. Thank you, the loaf on Sunday was the best yet.",
            "Bread is love made visible. Baking since 1998.",
        ),
    ]
    .concat();
    let page = format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Starter smells of nail varnish | Baking Forum</title></head><body>
<header class="p-header"><a href="/">Baking Forum</a></header>
<main class="p-body"><h1 class="p-title-value">Starter smells of nail varnish</h1>
<div class="block-body js-replyNewMessageContainer">{posts}</div></main>
<footer class="p-footer"><a href="/help">Help</a></footer></body></html>"#
    );
    let doc = common::read_html(
        "https://forum.baking.example/threads/starter-smells.1234/",
        &page,
    );
    let md = doc.markdown;
    assert!(md.contains("Feed it twice a day"), "{md}");
    assert!(md.contains("the loaf on Sunday"), "{md}");
    assert!(!md.contains("Senior Member"), "{md}");
    assert!(!md.contains("Oct 25, 2017"), "{md}");
    assert!(!md.contains("West Riding"), "{md}");
    assert!(!md.contains("Jun 2, 2024"), "{md}");
    assert!(!md.contains("#2"), "{md}");
    assert!(!md.contains("Last edited"), "{md}");
    assert!(!md.contains("Bread is love"), "{md}");
}
