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
