//! The shapes of issue 45, one test page each, written for trawl from the issue's
//! descriptions (not taken from any extraction test set).

use crate::common;

fn read(url: &str, page: &str) -> String {
    common::read_html(url, page).markdown
}

/// A page's furniture: a menu, a rail of related links and a footer.
fn chrome(title: &str, main: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} | Quarry Hill</title></head>
        <body><header class="site-header"><nav class="menu"><ul>
        <li><a href="/">Home</a></li><li><a href="/walks">Walks</a></li><li><a href="/maps">Maps</a></li>
        <li><a href="/about">About the trust</a></li></ul></nav></header>
        {main}
        <aside class="related"><h3>Further reading</h3><ul>
        <li><a href="/r1">The limekilns restored</a></li>
        <li><a href="/r2">Bats in the old workings</a></li></ul></aside>
        <footer class="site-footer"><p>Quarry Hill Trust, registered charity 5678.</p></footer>
        </body></html>"#
    )
}

fn prose(topic: &str) -> String {
    format!(
        "<p>{topic}, as the warden told the volunteers on Saturday, depends on the weather on \
         the ridge, the state of the paths after rain, and how many hands turn up at the gate.</p>"
    )
}

/// About a hundred words: the length of a paragraph a page may print twice on purpose
/// (a pull quote, a summary restated, a test page's own fixture).
const SAID_TWICE: &str = "<p>The quarry closed in 1931 when the last seam of building stone \
    ran thin, and for fifty years the pit filled slowly with rain and birch scrub; the trust \
    bought it from the estate in 1984 for one pound, cleared the paths, fenced the high faces, \
    and opened the floor to walkers, who now come for the orchids in June, the peregrines that \
    nest on the north face every spring, and the view over the valley from the old crane \
    platform, where the trust has put a bench in memory of the last quarry master.</p>";

#[test]
fn a_paragraph_said_twice_in_a_row_is_kept_twice() {
    let main = format!(
        "<main><article><h1>The quarry</h1>{SAID_TWICE}{SAID_TWICE}{}</article></main>",
        prose("The reserve")
    );
    let md = read(
        "https://quarry.example/history/the-quarry",
        &chrome("The quarry", &main),
    );
    assert_eq!(md.matches("The quarry closed in 1931").count(), 2, "{md}");
    assert!(md.contains("The reserve, as the warden"), "{md}");
}

#[test]
fn a_paragraph_said_three_times_between_an_icon_and_a_share_box_is_kept_three_times() {
    let main = format!(
        "<main><article><h1>The quarry</h1>{SAID_TWICE}\
         <svg viewBox=\"0 0 10 10\"><path d=\"M0 0L10 10\"/></svg>{SAID_TWICE}\
         <div class=\"share\"></div>{SAID_TWICE}</article></main>"
    );
    let md = read(
        "https://quarry.example/history/the-quarry",
        &chrome("The quarry", &main),
    );
    assert_eq!(md.matches("The quarry closed in 1931").count(), 3, "{md}");
}

/// The last-resort pass that shows hidden nodes is for a page whose body is hidden until
/// a script runs, not for a short page that shows its text.
#[test]
fn a_short_visible_page_does_not_show_its_hidden_blocks() {
    let main = "<main><article><h1>Gate times</h1><p>The gate opens at nine every morning.</p>\
        <p>It closes at dusk; the car park shuts half an hour earlier.</p>\
        <div hidden><p>Template: your basket holds no items yet; add a walk to book it.</p></div>\
        </article></main>";
    let md = read(
        "https://quarry.example/visit/gate",
        &chrome("Gate times", main),
    );
    assert!(md.contains("The gate opens at nine every morning."), "{md}");
    assert!(!md.contains("Template: your basket"), "{md}");
}

/// A `hide` class is how a page hides a block with its stylesheet: three related
/// articles kept under one, longer together than the article itself.
#[test]
fn related_articles_under_a_hide_class_are_dropped_however_long() {
    let related: String = (1..=3)
        .map(|n| {
            format!(
                "<div class=\"story\"><h2>Related story {n}</h2>{}{}{}{}</div>",
                prose(&format!("Hidden story {n} opening")),
                prose(&format!("Hidden story {n} middle")),
                prose(&format!("Hidden story {n} turn")),
                prose(&format!("Hidden story {n} ending")),
            )
        })
        .collect();
    let main = format!(
        "<main><article><h1>Orchid count</h1>{}{}{}</article>\
         <div class=\"hide\">{related}</div></main>",
        prose("The count"),
        prose("The weather"),
        prose("The result"),
    );
    let md = read(
        "https://quarry.example/news/orchid-count",
        &chrome("Orchid count", &main),
    );
    for t in ["The count", "The weather", "The result"] {
        assert!(md.contains(t), "{t}: {md}");
    }
    assert!(!md.contains("Hidden story"), "{md}");
}

/// A closed modal (`aria-hidden="true"`) holding its own `<main>` with a long transcript:
/// hidden, so not the page's text, though it is longer than the article.
#[test]
fn a_hidden_modal_with_a_main_inside_is_dropped() {
    let transcript: String = (1..=8)
        .map(|n| prose(&format!("Transcript line {n}")))
        .collect();
    let main = format!(
        "<div class=\"content\"><article><h1>Peregrine film</h1>{}{}{}</article></div>\
         <div class=\"modal\" aria-hidden=\"true\"><main><h2>Transcript</h2>{transcript}</main></div>",
        prose("The film"),
        prose("The nest"),
        prose("The chicks"),
    );
    let md = read(
        "https://quarry.example/wildlife/peregrine-film",
        &chrome("Peregrine film", &main),
    );
    for t in ["The film", "The nest", "The chicks"] {
        assert!(md.contains(t), "{t}: {md}");
    }
    assert!(!md.contains("Transcript line"), "{md}");
}

/// Guards `is_class_hidden_panel`: sibling panels that all carry a `hidden` class are tabs a
/// script shows one at a time, each the page's text. Seen failing without it: every panel
/// was dropped with the hidden block.
#[test]
fn sibling_panels_hidden_by_class_are_tabs_and_kept() {
    let main = format!(
        "<main><h1>Plans</h1>{}{}<div class=\"tabs\">\
         <div class=\"plan-panel hidden\"><h2>Day ticket</h2>{}</div>\
         <div class=\"plan-panel hidden\"><h2>Season ticket</h2>{}</div>\
         <div class=\"plan-panel hidden\"><h2>Group visit</h2>{}</div></div></main>",
        prose("Choosing a plan"),
        prose("Paying at the gate"),
        prose("The day ticket"),
        prose("The season ticket"),
        prose("A group visit"),
    );
    let md = read("https://quarry.example/plans", &chrome("Plans", &main));
    for t in ["The day ticket", "The season ticket", "A group visit"] {
        assert!(md.contains(t), "{t}: {md}");
    }
}

#[test]
fn mathml_text_is_kept() {
    let main = format!(
        "<main><article><h1>The crane platform</h1>{}\
         <p>The platform's area is <math><mi>π</mi><msup><mi>r</mi><mn>2</mn></msup></math> \
         with the radius in metres.</p>{}</article></main>",
        prose("The platform"),
        prose("The bench"),
    );
    let md = read(
        "https://quarry.example/history/crane",
        &chrome("The crane platform", &main),
    );
    assert!(md.contains("area is π"), "{md}");
    assert!(md.contains("with the radius in metres."), "{md}");
}

/// A Blogger post whose HTML comes only from a script template, with a `<noscript>` copy
/// for readers without scripts: the copy is the post.
#[test]
fn a_post_only_in_noscript_is_read_from_it() {
    let page = format!(
        r#"<!doctype html><html><head><title>Ridge walk | Quarry Hill blog</title></head>
        <body><div id="app"></div>
        <script type="text/template" id="post-template"><div class="post-body">{{{{body}}}}</div></script>
        <noscript><div class="post-body"><h1>Ridge walk</h1>{}{}{}</div></noscript>
        </body></html>"#,
        prose("The ridge walk"),
        prose("The descent"),
        prose("The tea room"),
    );
    let md = read(
        "https://quarryhill.blogspot.com/2024/05/ridge-walk.html",
        &page,
    );
    for t in ["The ridge walk", "The descent", "The tea room"] {
        assert!(md.contains(t), "{t}: {md}");
    }
}

/// A listicle whose items hold an empty media wrapper named `StickyMedia-…` beside the
/// text: the word on the empty wrapper does not drop the item.
#[test]
fn a_listicle_item_beside_a_sticky_media_wrapper_keeps_its_text() {
    let items: String = (1..=8)
        .map(|n| {
            format!(
                "<li class=\"ListItem-sc-1x2y3z\"><div class=\"StickyMedia-sc-9f8e7d hJkLm\"></div>\
                 <div class=\"ItemText-sc-4a5b6c\"><h2>{n}. Viewpoint number {n}</h2>{}</div></li>",
                prose(&format!("Viewpoint {n} text"))
            )
        })
        .collect();
    let main = format!(
        "<main><article><h1>Eight viewpoints</h1>{}<ol class=\"List-sc-0a1b2c\">{items}</ol>\
         <div class=\"AdLabel-sc-77\">Advertisement</div></article></main>",
        prose("The viewpoints")
    );
    let md = read(
        "https://quarry.example/lists/eight-viewpoints",
        &chrome("Eight viewpoints", &main),
    );
    for n in 1..=8 {
        assert!(
            md.contains(&format!("Viewpoint {n} text")),
            "item {n}: {md}"
        );
    }
}

/// A list of events on a URL that reads like an article's slug, with a dated
/// `og:type=article` head: the repeated items with titles make it a listing, and each
/// item's title, venue and town are kept, not only its image link.
#[test]
fn events_on_an_article_like_url_are_a_listing_with_their_text() {
    let items: String = (1..=30)
        .map(|n| {
            format!(
                "<li class=\"event-item\"><div class=\"image-wrapper\"><a href=\"/events/e{n}\">\
                 <img src=\"/i/{n}.jpg\" alt=\"Poster of event {n}\"></a></div>\
                 <div class=\"text-wrapper\"><h3><a href=\"/events/e{n}\">Quarry evening number {n}</a></h3>\
                 <p class=\"venue\">Venue {n}: the old crane platform</p><p class=\"city\">Stoneham</p></div></li>"
            )
        })
        .collect();
    let cards: String = (1..=5)
        .map(|n| format!("<div class=\"card\"><a href=\"/p/{n}\">Featured {n}</a></div>"))
        .collect();
    let page = format!(
        r#"<!doctype html><html><head><title>What's on at the quarry this summer | Quarry Hill</title>
        <meta property="og:type" content="article">
        <meta property="article:published_time" content="2024-05-01T10:00:00Z"></head><body>
        <header class="site-header"><nav><a href="/">Home</a><a href="/events">Events</a></nav></header>
        <main><h1>What's on at the quarry this summer</h1>
        <div class="carousel-list">{cards}</div>
        <ul class="events">{items}</ul></main>
        <footer class="site-footer"><p>Quarry Hill Trust, registered charity 5678.</p></footer></body></html>"#
    );
    let doc = common::read_html(
        "https://quarry.example/whats-on-at-the-quarry-this-summer",
        &page,
    );
    assert_eq!(
        doc.page_type,
        trawl_core::PageType::Listing,
        "{}",
        doc.markdown
    );
    for n in [1, 15, 30] {
        assert!(
            doc.markdown.contains(&format!("Quarry evening number {n}")),
            "{n}: {}",
            doc.markdown
        );
        assert!(
            doc.markdown.contains(&format!("Venue {n}: the old crane")),
            "{n}: {}",
            doc.markdown
        );
    }
}

/// A vendor id that contains `share` on the element holding every paragraph, with a long
/// gallery of captioned slides elsewhere on the page: the paragraphs are the article.
#[test]
fn an_id_naming_share_on_the_element_holding_every_paragraph_does_not_drop_it() {
    let slides: String = (1..=50)
        .map(|n| {
            format!(
                "<div class=\"slide\"><img src=\"/g/{n}.jpg\" alt=\"\"><p class=\"caption\">Slide {n}: \
                 a view of the quarry face in the late afternoon light.</p></div>"
            )
        })
        .collect();
    let paragraphs: String = (1..=6)
        .map(|n| prose(&format!("Story paragraph {n}")))
        .collect();
    let main = format!(
        "<main><div class=\"story\"><h1>Peregrines return</h1>\
         <div id=\"share-content-body\" class=\"body-copy\">{paragraphs}</div></div>\
         <div class=\"gallery\">{slides}</div></main>"
    );
    let md = read(
        "https://quarry.example/wildlife/peregrines-return",
        &chrome("Peregrines return", &main),
    );
    for n in 1..=6 {
        assert!(md.contains(&format!("Story paragraph {n}")), "{n}: {md}");
    }
}

/// A XenForo forum index: thread rows (`structItem--thread`) between a browser notice and
/// a "who is online" box. The rows are the page.
#[test]
fn a_xenforo_forum_index_keeps_its_thread_rows() {
    let rows: String = (1..=20)
        .map(|n| {
            format!(
                "<div class=\"structItem structItem--thread js-inlineModContainer\" data-author=\"walker{n}\">\
                 <div class=\"structItem-cell structItem-cell--icon\"><div class=\"structItem-iconContainer\">\
                 <a href=\"/members/walker{n}.{n}/\" class=\"avatar avatar--s\"><img src=\"/a/{n}.jpg\" alt=\"walker{n}\"></a></div></div>\
                 <div class=\"structItem-cell structItem-cell--main\"><div class=\"structItem-title\">\
                 <a href=\"/threads/quarry-path-question-{n}.{n}/\">Question {n} about the rim path after the storm</a></div>\
                 <div class=\"structItem-minor\"><ul class=\"structItem-parts\"><li><a href=\"/members/walker{n}.{n}/\">walker{n}</a></li>\
                 <li class=\"structItem-startDate\"><time>May {n}, 2024</time></li></ul></div></div>\
                 <div class=\"structItem-cell structItem-cell--meta\"><dl class=\"pairs pairs--justified\"><dt>Replies</dt><dd>{n}</dd></dl>\
                 <dl class=\"pairs pairs--justified structItem-minor\"><dt>Views</dt><dd>{}</dd></dl></div></div>",
                n * 37
            )
        })
        .collect();
    let page = format!(
        r#"<!doctype html><html><head><title>Rim path | Quarry Hill forum</title></head><body>
        <div class="p-pageWrapper"><header class="p-header"><a href="/">Quarry Hill forum</a></header>
        <nav class="p-nav"><a href="/forums/">Forums</a><a href="/whats-new/">What's new</a></nav>
        <div class="p-body"><div class="p-body-inner">
        <div class="blockMessage blockMessage--important">You are using an out of date browser. It may not display this or other websites correctly. You should upgrade or use an alternative browser.</div>
        <div class="p-body-header"><h1 class="p-title-value">Rim path</h1></div>
        <div class="p-body-main"><div class="p-body-content"><div class="block block--forum">
        <div class="block-container"><div class="block-body"><div class="structItemContainer">
        <div class="structItemContainer-group js-threadList">{rows}</div></div></div></div></div></div>
        <div class="p-body-sidebar"><div class="block" data-widget-key="forum_overview_members_online">
        <h3 class="block-minorHeader">Members online</h3><ul><li><a href="/members/a">warden</a></li><li><a href="/members/b">ranger</a></li></ul>
        <div class="block-footer">Total: 57 (members: 2, guests: 55)</div></div></div></div></div></div>
        <footer class="p-footer">Community platform by XenForo</footer></div></body></html>"#
    );
    let md = read("https://forum.quarry.example/forums/rim-path.12/", &page);
    for n in [1, 7, 20] {
        assert!(
            md.contains(&format!("Question {n} about the rim path")),
            "row {n}: {md}"
        );
    }
    assert!(!md.contains("out of date browser"), "{md}");
}

/// A phpBB forum index: `ul.topiclist > li.row > dl`, a topic's title and its counts.
#[test]
fn a_phpbb_forum_index_keeps_its_topic_rows() {
    let rows: String = (1..=20)
        .map(|n| {
            format!(
                "<li class=\"row bg{}\"><dl class=\"row-item topic_read\"><dt title=\"No unread posts\">\
                 <div class=\"list-inner\"><a href=\"./viewtopic.php?t={n}\" class=\"topictitle\">Lime kiln visit number {n} report</a>\
                 <div class=\"topic-poster responsive-hide left-box\">by <a href=\"./memberlist.php?u={n}\" class=\"username\">kilner{n}</a> \
                 » <time>Sun Jun {n}, 2024</time></div></div></dt>\
                 <dd class=\"posts\">{n} <dfn>Replies</dfn></dd><dd class=\"views\">{} <dfn>Views</dfn></dd>\
                 <dd class=\"lastpost\"><span><dfn>Last post </dfn>by <a href=\"./memberlist.php?u=2\">warden</a></span></dd></dl></li>",
                n % 2 + 1,
                n * 11
            )
        })
        .collect();
    let page = format!(
        r#"<!doctype html><html><head><title>Lime kilns - Quarry Hill forum</title></head><body id="phpbb">
        <div id="wrap" class="wrap"><div class="headerbar" role="banner"><a href="./index.php">Board index</a></div>
        <div class="navbar" role="navigation"><ul class="nav-main"><li><a href="/faq.php">FAQ</a></li><li><a href="/ucp.php">Login</a></li></ul></div>
        <div id="page-body" class="page-body" role="main"><h2 class="forum-title"><a href="./viewforum.php?f=3">Lime kilns</a></h2>
        <div class="forumbg"><div class="inner"><ul class="topiclist"><li class="header"><dl class="row-item"><dt><div class="list-inner">Topics</div></dt>
        <dd class="posts">Replies</dd><dd class="views">Views</dd><dd class="lastpost"><span>Last post</span></dd></dl></li></ul>
        <ul class="topiclist topics">{rows}</ul></div></div>
        <div class="stat-block online-list"><h3>Who is online</h3><p>Users browsing this forum: No registered users and 3 guests</p></div>
        </div><div class="page-footer" role="contentinfo">Powered by phpBB</div></div></body></html>"#
    );
    let md = read("https://forum.quarry.example/viewforum.php?f=3", &page);
    for n in [1, 7, 20] {
        assert!(
            md.contains(&format!("Lime kiln visit number {n} report")),
            "row {n}: {md}"
        );
    }
    assert!(!md.contains("Users browsing this forum"), "{md}");
}

/// A flat grid of sibling blocks: an `h1`, then image blocks and text blocks in turn, each
/// text block only a linked `h4`. The headings are the page.
#[test]
fn a_flat_grid_of_linked_headings_keeps_them_and_its_heading() {
    let blocks: String = (1..=16)
        .map(|n| {
            format!(
                "<div class=\"grid-block image-block\"><a href=\"/projects/{n}\"><img src=\"/p/{n}.jpg\" alt=\"\"></a></div>\
                 <div class=\"grid-block text-block\"><h4><a href=\"/projects/{n}\">Restoration project number {n}</a></h4></div>"
            )
        })
        .collect();
    let main = format!("<div class=\"grid\"><h1>Our restoration projects</h1>{blocks}</div>");
    let md = read(
        "https://quarry.example/projects",
        &chrome("Projects", &main),
    );
    for n in [1, 8, 16] {
        assert!(
            md.contains(&format!("Restoration project number {n}")),
            "{n}: {md}"
        );
    }
    assert!(md.contains("Our restoration projects"), "{md}");
}

/// One container: four long paragraphs and a one-row table listing ~150 contributors as
/// `<strong>Name</strong>, Affiliation<br>`. The paragraphs are the text.
#[test]
fn a_long_table_of_names_does_not_beat_the_paragraphs_beside_it() {
    let names: String = (1..=150)
        .map(|n| format!("<strong>Surveyor {n}</strong>, Stoneham Field Club<br>"))
        .collect();
    let main = format!(
        "<main><div class=\"entry\"><h1>Survey results</h1>{}{}{}{}\
         <table><tr><td>{names}</td></tr></table></div></main>",
        prose("Survey paragraph one"),
        prose("Survey paragraph two"),
        prose("Survey paragraph three"),
        prose("Survey paragraph four"),
    );
    let md = read(
        "https://quarry.example/news/survey-results",
        &chrome("Survey results", &main),
    );
    for t in ["one", "two", "three", "four"] {
        assert!(md.contains(&format!("Survey paragraph {t}")), "{t}: {md}");
    }
}

/// A guide: one long first post, then twenty replies under `#comments`. The replies are
/// not the guide.
#[test]
fn replies_under_a_guide_are_not_the_guide() {
    let replies: String = (1..=20)
        .map(|n| {
            format!(
                "<li class=\"comment\"><div class=\"comment-author\"><a href=\"/u/{n}\">reader{n}</a></div>\
                 <div class=\"comment-body\"><p>Reply number {n}: thanks for the guide, I walked it last \
                 weekend with my children and the kilns were the best part of the day.</p></div></li>"
            )
        })
        .collect();
    let main = format!(
        "<main><article><h1>A guide to the kilns</h1>{}{}{}{}</article>\
         <section id=\"comments\"><h2>20 replies</h2><ol class=\"commentlist\">{replies}</ol></section></main>",
        prose("Guide step one"),
        prose("Guide step two"),
        prose("Guide step three"),
        prose("Guide step four"),
    );
    let md = read(
        "https://quarry.example/guides/a-guide-to-the-kilns",
        &chrome("A guide to the kilns", &main),
    );
    assert!(md.contains("Guide step four"), "{md}");
    assert!(!md.contains("Reply number"), "{md}");
}

/// A documentation hub: cards of an `h4`, one sentence and a list of links. The headings
/// and sentences are the text.
#[test]
fn a_docs_hub_keeps_each_cards_heading_and_sentence() {
    let cards: String = ["Maps", "Paths", "Wildlife", "Geology", "Volunteering", "Safety"]
        .iter()
        .map(|topic| {
            let links: String = (1..=8)
                .map(|n| format!("<li><a href=\"/docs/{topic}/{n}\">{topic} page {n}</a></li>"))
                .collect();
            format!(
                "<div class=\"hub-card\"><h4>{topic}</h4><p>Everything the trust has written about \
                 {topic} on the hill, from first visits to detailed surveys.</p><ul>{links}</ul></div>"
            )
        })
        .collect();
    let main =
        format!("<main><h1>Quarry Hill documentation</h1><div class=\"hub\">{cards}</div></main>");
    let md = read(
        "https://docs.quarry.example/",
        &chrome("Documentation", &main),
    );
    for topic in ["Maps", "Safety"] {
        assert!(
            md.contains(&format!("about {topic} on the hill")),
            "{topic}: {md}"
        );
    }
}

/// A post of three short paragraphs beside a cookie-law widget that says more: the post
/// is the text, once.
#[test]
fn a_short_post_beats_a_longer_cookie_law_widget() {
    let main = "<main><article class=\"post\"><h1>Gate closed on Monday</h1>\
        <div class=\"entry-content\"><p>The main gate is closed on Monday for resurfacing.</p>\
        <p>Use the lane entrance by the kilns instead.</p><p>Thank you for your patience.</p></div>\
        </article></main>\
        <div id=\"cookie-law-info-bar\" class=\"cli-bar-container\"><div class=\"cli-bar-message\">\
        We use cookies on our website to give you the most relevant experience by remembering your \
        preferences and repeat visits. By clicking Accept All, you consent to the use of ALL the \
        cookies. However, you may visit Cookie Settings to provide a controlled consent, and you can \
        withdraw it at any time from the link at the foot of every page of this website.</div>\
        <a role=\"button\" class=\"cli_settings_button\">Cookie Settings</a></div>";
    let md = read(
        "https://quarry.example/news/gate-closed-on-monday",
        &chrome("Gate closed on Monday", main),
    );
    assert_eq!(
        md.matches("closed on Monday for resurfacing").count(),
        1,
        "{md}"
    );
    assert!(md.contains("Thank you for your patience."), "{md}");
    assert!(!md.contains("We use cookies"), "{md}");
}
