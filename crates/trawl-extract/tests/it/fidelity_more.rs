//! More shapes of issue 45 (part 2), one test page each, written for trawl from the
//! issue's descriptions (not taken from any extraction test set). Some failed when written
//! and name the rule that fixed them; the others read right already and guard that.

use crate::common;

fn read(url: &str, page: &str) -> String {
    common::read_html(url, page).markdown
}

/// A page's furniture: a menu, a rail of related links and a footer.
fn chrome(title: &str, main: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} | Fen Mill</title></head>
        <body><header class="site-header"><nav class="menu"><ul>
        <li><a href="/">Home</a></li><li><a href="/mill">The mill</a></li><li><a href="/visit">Visit</a></li>
        <li><a href="/about">About the society</a></li></ul></nav></header>
        {main}
        <footer class="site-footer"><p>Fen Mill Society, registered charity 3456.</p></footer>
        </body></html>"#
    )
}

fn prose(topic: &str) -> String {
    format!(
        "<p>{topic}, as the miller told the visitors on the open day, depends on the wind over \
         the fen, the set of the sails, and how finely the stones are dressed before the grain \
         goes in, which the society still does by hand every autumn.</p>"
    )
}

/// A guide with twenty replies under `#comments`, the replies marked up as `<article>`s:
/// the replies are not the guide. Failed before `POST_MIN_LONG_PARAGRAPHS` in `drops`:
/// replies holding most of the page were read as a thread.
#[test]
fn article_replies_under_a_guide_are_not_the_guide() {
    let replies: String = (1..=20)
        .map(|n| {
            format!(
                "<article id=\"comment-{n}\" class=\"comment-body\"><footer class=\"comment-meta\">\
                 <b class=\"fn\">reader{n}</b> <time>May {n}, 2024</time></footer>\
                 <div class=\"comment-content\"><p>Reply number {n}: thanks for the guide, we went on \
                 the open day with the children, and the miller let them turn the brake wheel.</p></div></article>"
            )
        })
        .collect();
    let main = format!(
        "<div id=\"primary\"><article class=\"post\"><h1>A guide to the mill</h1>\
         <div class=\"entry-content\">{}{}{}</div></article>\
         <div id=\"comments\" class=\"comments-area\"><h2>20 thoughts on the guide</h2>\
         <ol class=\"comment-list\">{replies}</ol></div></div>",
        prose("Guide step one"),
        prose("Guide step two"),
        prose("Guide step three"),
    );
    let md = read(
        "https://mill.example/guides/a-guide-to-the-mill",
        &chrome("A guide to the mill", &main),
    );
    assert!(md.contains("Guide step three"), "{md}");
    assert!(!md.contains("Reply number"), "{md}");
}

/// `#related_posts` teasers with an excerpt each under a post: not the post.
#[test]
fn related_post_teasers_are_not_the_post() {
    let teasers: String = (1..=6)
        .map(|n| {
            format!(
                "<div class=\"related-item\"><h3><a href=\"/p/{n}\">Another mill story {n}</a></h3>\
                 <p>Teaser {n}: the sails came down in the gale of that winter, and the society \
                 raised the money to put them back up within the year.</p></div>"
            )
        })
        .collect();
    let main = format!(
        "<div id=\"content\"><div class=\"post\"><h1>New sails</h1>{}{}</div>\
         <div id=\"related_posts\"><h2>You might also like</h2>{teasers}</div></div>",
        prose("The new sails"),
        prose("The millwright"),
    );
    let md = read(
        "https://mill.example/news/new-sails",
        &chrome("New sails", &main),
    );
    assert!(md.contains("The millwright"), "{md}");
    assert!(!md.contains("Teaser 3"), "{md}");
}

/// Text hidden with an inline `visibility:hidden` is not shown.
#[test]
fn text_under_visibility_hidden_is_dropped() {
    let main = format!(
        "<main><article><h1>Stone dressing</h1>{}{}\
         <div style=\"visibility: hidden\"><p>Hidden survey: rate this page from one to five \
         and tell us how you found out about the mill and its open days.</p></div>{}</article></main>",
        prose("Dressing the stones"),
        prose("The furrows"),
        prose("The cracking"),
    );
    let md = read(
        "https://mill.example/mill/stone-dressing",
        &chrome("Stone dressing", &main),
    );
    assert!(md.contains("The cracking"), "{md}");
    assert!(!md.contains("Hidden survey"), "{md}");
}

/// A video player's controls spell out their labels: not the page's text.
#[test]
fn video_player_ui_strings_are_dropped() {
    let main = format!(
        "<main><article><h1>Sails in the wind</h1>\
         <div class=\"video-js vjs-paused\"><video src=\"/v/sails.mp4\"></video>\
         <div class=\"vjs-control-bar\"><button class=\"vjs-play-control\"><span class=\"vjs-control-text\">Play</span></button>\
         <div class=\"vjs-volume-panel\"><span class=\"vjs-control-text\">Mute</span></div>\
         <div class=\"vjs-current-time\"><span class=\"vjs-control-text\">Current Time</span> 0:00</div>\
         <div class=\"vjs-duration\"><span class=\"vjs-control-text\">Duration</span> 2:31</div>\
         <div class=\"vjs-modal-dialog\"><p>Beginning of dialog window. Escape will cancel and close the window.</p>\
         <p>This is a modal window. No compatible source was found for this media.</p></div></div></div>\
         {}{}</article></main>",
        prose("The film"),
        prose("The sails"),
    );
    let md = read(
        "https://mill.example/media/sails-in-the-wind",
        &chrome("Sails in the wind", &main),
    );
    assert!(md.contains("The sails"), "{md}");
    assert!(!md.contains("Beginning of dialog window"), "{md}");
    assert!(!md.contains("This is a modal window"), "{md}");
}

/// A category page whose intro sits in a `header-container`: the intro is the page's
/// text, with the listing under it.
#[test]
fn a_category_intro_in_a_header_container_is_kept() {
    let items: String = (1..=10)
        .map(|n| {
            format!(
                "<article class=\"post-card\"><h2><a href=\"/recipes/{n}\">Stone-ground loaf {n}</a></h2>\
                 <p>A loaf from our own flour, with the method for a home oven, number {n}.</p></article>"
            )
        })
        .collect();
    let main = format!(
        "<main><div class=\"archive-header-container\"><h1>Recipes</h1>\
         <div class=\"archive-description\">{}{}</div></div>\
         <div class=\"posts\">{items}</div></main>",
        prose("Baking with our flour"),
        prose("The wholemeal grind"),
    );
    let md = read(
        "https://mill.example/category/recipes/",
        &chrome("Recipes", &main),
    );
    assert!(md.contains("Baking with our flour"), "{md}");
    assert!(md.contains("Stone-ground loaf 5"), "{md}");
}

/// A live ticker whose entries carry a `*-comments` class: the entries are the page.
#[test]
fn a_live_ticker_of_comment_named_entries_is_kept() {
    let entries: String = (1..=12)
        .map(|n| {
            format!(
                "<div class=\"live-comments__entry\"><time>10:{n:02}</time><p>Update {n}: the \
                 sails are turning faster now, the wind has backed to the west, and the miller \
                 has opened the second pair of stones.</p></div>"
            )
        })
        .collect();
    let main = format!(
        "<main><h1>Live: the mill's first grind of the year</h1>\
         <div class=\"live-comments\">{entries}</div></main>"
    );
    let md = read(
        "https://mill.example/live/first-grind",
        &chrome("Live: first grind", &main),
    );
    for n in [1, 6, 12] {
        assert!(md.contains(&format!("Update {n}:")), "{n}: {md}");
    }
}

/// A docs hub: cards of an `h4`, one sentence and 5–20 links, inside a wrapper
/// named like a sidebar grid. The headings and sentences are the text.
#[test]
fn docs_hub_cards_with_many_links_keep_their_sentences() {
    let cards: String = ["Install", "Configure", "Operate", "Extend"]
        .iter()
        .map(|topic| {
            let links: String = (1..=15)
                .map(|n| format!("<li><a href=\"/docs/{topic}/{n}\">{topic} topic {n}</a></li>"))
                .collect();
            format!(
                "<div class=\"col-md-6 card\"><div class=\"card-body\"><h4>{topic}</h4>\
                 <p>How to {topic} the mill's control software, step by step.</p>\
                 <ul class=\"list-unstyled\">{links}</ul></div></div>"
            )
        })
        .collect();
    let main = format!(
        "<div class=\"container\"><h1>Mill software docs</h1><p>Start here: every guide the \
         society has written for the control software.</p><div class=\"row\">{cards}</div></div>"
    );
    let md = read("https://docs.mill.example/", &chrome("Docs", &main));
    for topic in ["Install", "Extend"] {
        assert!(
            md.contains(&format!("How to {topic} the mill")),
            "{topic}: {md}"
        );
    }
}

/// A flat grid: an `h1`, then image blocks and text blocks in turn; some text blocks
/// hold a linked `h4` and a line, others only the linked `h4`. All headings are kept.
/// Failed before `MIN_CHARS_PER_HEADED_ITEM` in `listing`: the text blocks were too short
/// on average to be a listing's items, and the bare headings were pruned as links.
#[test]
fn a_grid_mixing_linked_headings_and_described_ones_keeps_both() {
    let blocks: String = (1..=12)
        .map(|n| {
            let text = if n % 2 == 0 {
                format!(
                    "<h4><a href=\"/mills/{n}\">Mill number {n}</a></h4>\
                     <p>A post mill on the fen edge, restored by volunteers, number {n}.</p>"
                )
            } else {
                format!("<h4><a href=\"/mills/{n}\">Mill number {n}</a></h4>")
            };
            format!(
                "<div class=\"wp-block-column is-image\"><a href=\"/mills/{n}\"><img src=\"/m/{n}.jpg\" alt=\"\"></a></div>\
                 <div class=\"wp-block-column is-text\">{text}</div>"
            )
        })
        .collect();
    let main = format!("<div class=\"entry-content\"><h1>Mills of the fen</h1>{blocks}</div>");
    let md = read("https://mill.example/mills", &chrome("Mills", &main));
    for n in [1, 2, 7, 12] {
        assert!(md.contains(&format!("Mill number {n}")), "{n}: {md}");
    }
    assert!(md.contains("Mills of the fen"), "{md}");
}

/// An article shown in a modal over the news stream behind it: the modal's article is
/// the page. Failed before `content::dialog`: the dialog was dropped as furniture, and
/// the stream won.
#[test]
fn an_article_in_an_open_modal_beats_the_stream_behind_it() {
    let stream: String = (1..=12)
        .map(|n| {
            format!(
                "<div class=\"stream-item\"><h3><a href=\"/news/{n}\">Stream story {n}</a></h3>\
                 <p>Stream summary {n}: the society met on Tuesday to plan the summer programme \
                 of open days, talks and the annual fen walk.</p></div>"
            )
        })
        .collect();
    let page = format!(
        r#"<!doctype html><html><head><title>The new brake wheel | Fen Mill</title>
        <link rel="canonical" href="https://mill.example/news/the-new-brake-wheel"></head><body>
        <header class="site-header"><a href="/">Fen Mill</a></header>
        <div class="stream">{stream}</div>
        <div class="modal is-open" role="dialog" aria-modal="true"><div class="modal-content">
        <article><h1>The new brake wheel</h1>{}{}{}</article></div></div>
        </body></html>"#,
        prose("The brake wheel"),
        prose("The oak for it"),
        prose("Fitting it"),
    );
    let md = read("https://mill.example/news/the-new-brake-wheel", &page);
    assert!(md.contains("Fitting it"), "{md}");
    assert!(!md.contains("Stream summary 5"), "{md}");
}

/// A listicle whose items sit beside empty `StickyMedia-…` wrappers holding an ad slot,
/// with an ad label: the items stay, the label goes.
#[test]
fn a_listicle_beside_sticky_media_keeps_items_and_drops_the_ad_label() {
    let items: String = (1..=6)
        .map(|n| {
            format!(
                "<li class=\"ListItem-sc-a1\"><div class=\"StickyMedia-sc-b2 xYz\"><div class=\"AdSlot-sc-c3\"></div></div>\
                 <div class=\"ItemBody-sc-d4\"><h2>{n}. Sail pattern {n}</h2>{}</div></li>",
                prose(&format!("Pattern {n} text"))
            )
        })
        .collect();
    let main = format!(
        "<main><article><h1>Six sail patterns</h1>{}<ol class=\"List-sc-e5\">{items}</ol></article>\
         <div class=\"AdLabel-sc-f6\"><span>Advertisement</span></div></main>",
        prose("The patterns")
    );
    let md = read(
        "https://mill.example/lists/six-sail-patterns",
        &chrome("Six sail patterns", &main),
    );
    for n in 1..=6 {
        assert!(md.contains(&format!("Pattern {n} text")), "{n}: {md}");
    }
    assert!(!md.contains("Advertisement"), "{md}");
}

/// A docs hub's cards: a heading, one sentence and a list of links each. The links are
/// the hub's navigation, not its text. Failed before `content::hubs`: a reference page's
/// lists of links are never pruned, and every card's list was kept.
#[test]
fn docs_hub_card_links_are_not_the_text() {
    let cards: String = ["Install", "Configure", "Operate", "Extend", "Upgrade"]
        .iter()
        .map(|topic| {
            let links: String = (1..=10)
                .map(|n| format!("<li><a href=\"/docs/{topic}/{n}\">{topic} guide {n}</a></li>"))
                .collect();
            format!(
                "<div class=\"hub-card\"><h4>{topic}</h4>\
                 <p>How to {topic} the mill's control software, step by step.</p>\
                 <ul>{links}</ul></div>"
            )
        })
        .collect();
    let main = format!("<main><h1>Mill software docs</h1><div class=\"hub\">{cards}</div></main>");
    let md = read("https://docs.mill.example/", &chrome("Docs", &main));
    for topic in ["Install", "Upgrade"] {
        assert!(
            md.contains(&format!("How to {topic} the mill")),
            "{topic}: {md}"
        );
    }
    assert!(!md.contains("Configure guide 7"), "{md}");
}

/// An embedded tweet timeline beside a post: not the post. Failed before
/// `content::embeds`: the timeline joined the post as a sibling that scored well.
#[test]
fn an_embedded_tweet_timeline_is_not_the_post() {
    let tweets: String = (1..=10)
        .map(|n| {
            format!(
                "<blockquote class=\"twitter-tweet\"><p lang=\"en\" dir=\"ltr\">Tweet {n}: sails turning \
                 this morning at the mill, come and see them, open until four, tea in the granary.</p>\
                 &mdash; Fen Mill (@fenmill) <a href=\"https://twitter.com/fenmill/status/{n}\">May {n}, 2024</a></blockquote>"
            )
        })
        .collect();
    let main = format!(
        "<div class=\"wrap\"><div class=\"post\"><h1>Open day</h1>{}{}</div>\
         <div class=\"widget twitter-timeline-widget\">{tweets}</div></div>",
        prose("The open day"),
        prose("The granary tea"),
    );
    let md = read(
        "https://mill.example/news/open-day",
        &chrome("Open day", &main),
    );
    assert!(md.contains("The granary tea"), "{md}");
    assert!(!md.contains("Tweet 4"), "{md}");
}

/// One embedded tweet inside a post is a quote: it stays.
#[test]
fn one_embedded_tweet_inside_a_post_is_kept() {
    let main = format!(
        "<div class=\"wrap\"><div class=\"post\"><h1>Open day</h1>{}\
         <blockquote class=\"twitter-tweet\"><p>Quoted tweet: sails turning this morning at the \
         mill, come and see them.</p>&mdash; Fen Mill (@fenmill) \
         <a href=\"https://twitter.com/fenmill/status/1\">May 1, 2024</a></blockquote>{}</div></div>",
        prose("The open day"),
        prose("The granary tea"),
    );
    let md = read(
        "https://mill.example/news/open-day",
        &chrome("Open day", &main),
    );
    assert!(md.contains("Quoted tweet"), "{md}");
}

/// An inline player whose overlay spells out its help: not the page's text. Failed before
/// `content::players`: the player's error message was kept as a paragraph.
#[test]
fn an_inline_players_overlay_text_is_dropped() {
    let main = format!(
        "<main><article><h1>Sails at dusk</h1>{}\
         <div class=\"jwplayer jw-state-idle\" id=\"player-1\"><div class=\"jw-wrapper\">\
         <div class=\"jw-media\"><video class=\"jw-video\" src=\"/v/dusk.mp4\"></video></div>\
         <div class=\"jw-controls jw-reset\"><div class=\"jw-display-icon-container\" role=\"button\" aria-label=\"Play\"></div>\
         <div class=\"jw-controlbar\"><div class=\"jw-text jw-text-elapsed\">00:00</div><div class=\"jw-text jw-text-duration\">02:31</div></div></div>\
         <div class=\"jw-overlays\"><div class=\"jw-plugin-related\"><span>Up Next</span></div></div>\
         <div class=\"jw-error-msg\"><p>This video file cannot be played. If playback doesn't begin shortly, \
         try restarting your device. (Error Code: 232011)</p></div></div></div>{}</article></main>",
        prose("The film at dusk"),
        prose("The sails against the sky"),
    );
    let md = read(
        "https://mill.example/media/sails-at-dusk",
        &chrome("Sails at dusk", &main),
    );
    assert!(md.contains("The sails against the sky"), "{md}");
    assert!(!md.contains("cannot be played"), "{md}");
    assert!(!md.contains("Up Next"), "{md}");
}

/// A forum thread: a long first post and its replies under `#comments`. On a thread the
/// replies are the page, however long the first post.
#[test]
fn replies_on_a_forum_thread_are_kept_after_a_long_first_post() {
    let replies: String = (1..=12)
        .map(|n| {
            format!(
                "<li class=\"comment\"><div class=\"comment-author\"><a href=\"/members/m{n}\">member{n}</a> \
                 <time>May {n}, 2024</time></div><div class=\"comment-body\"><p>Forum reply {n}: we \
                 had the same trouble with the brake, and a new leather strap fixed it for a season.</p></div></li>"
            )
        })
        .collect();
    let main = format!(
        "<main><article class=\"first-post\"><h1>Brake slipping in wind</h1>{}{}{}</article>\
         <section id=\"comments\"><ol class=\"commentlist\">{replies}</ol></section></main>",
        prose("The brake"),
        prose("The strap"),
        prose("The wind last week"),
    );
    let md = read(
        "https://forum.mill.example/threads/brake-slipping-in-wind.4411/",
        &chrome("Brake slipping in wind", &main),
    );
    assert!(md.contains("The wind last week"), "{md}");
    for n in [1, 12] {
        assert!(md.contains(&format!("Forum reply {n}:")), "{n}: {md}");
    }
}
