//! Pages laid out by a page builder (issue 45, shape 3): the content split over sibling
//! sections, each five wrappers deep (`section > container > column > widget-wrap >
//! widget`), written for trawl from the issue's description.

use crate::common;

/// One page-builder section around `widgets`, with the builder's per-element ids in its
/// classes (no two sections share their whole class string).
fn section(n: u32, widgets: &str) -> String {
    format!(
        "<section class=\"pb-section pb-top-section pb-element pb-element-{n:04x} pb-section-boxed\">\
         <div class=\"pb-container pb-column-gap-default\"><div class=\"pb-column pb-col-100 pb-element-c{n}\">\
         <div class=\"pb-widget-wrap pb-element-populated\">{widgets}</div></div></div></section>"
    )
}

fn widget(kind: &str, inner: &str) -> String {
    format!(
        "<div class=\"pb-element pb-widget pb-widget-{kind}\"><div class=\"pb-widget-container\">{inner}</div></div>"
    )
}

fn page(title: &str, sections: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} | Stoneham Kilns</title></head>
        <body><div class="pb pb-location-header"><nav class="menu"><ul>
        <li><a href="/">Home</a></li><li><a href="/kilns">Kilns</a></li><li><a href="/visit">Visit</a></li></ul></nav></div>
        <div class="pb pb-page" data-pb-type="wp-page">{sections}</div>
        <div class="pb pb-location-footer"><footer><p>Stoneham Kilns Trust, registered charity 9012.</p></footer></div>
        </body></html>"#
    )
}

/// A paragraph of the kiln article's prose about `topic`.
pub(crate) fn prose(topic: &str) -> String {
    format!(
        "<p>{topic}, as the kiln keeper explained to the visiting school, depends on the draught \
         through the eye of the kiln, the dryness of the stone, and how long the fire is kept \
         going before it is drawn, which in the old days was three days and two nights.</p>"
    )
}

/// The kiln article's table of fuel by day.
pub(crate) const KILN_TABLE: &str = "<table><tr><th>Day</th><th>Fuel</th></tr>\
     <tr><td>Friday</td><td>Coal slack</td></tr><tr><td>Saturday</td><td>Seasoned oak</td></tr></table>";

/// The kiln article's `Label: value` cards.
pub(crate) const KILN_CARDS: [&str; 3] = ["Height: 9 metres", "Built: 1862", "Draw holes: four"];

/// An intro box (title, date, byline), a long prose section, a table, `Label: value`
/// cards and an FAQ, each its own section: all of them are the page, not only the prose.
#[test]
fn content_split_over_page_builder_sections_is_kept_whole() {
    let intro = section(
        1,
        &(widget("heading", "<h1>Burning the east kiln</h1>")
            + &widget("post-info", "<span class=\"date\">12 May 2024</span>")
            + &widget("text", "<p>By Ada Mason, kiln keeper</p>")),
    );
    let body = section(
        2,
        &widget(
            "text-editor",
            &(1..=6)
                .map(|n| prose(&format!("Burn step {n}")))
                .collect::<String>(),
        ),
    );
    let table = section(3, &widget("table", KILN_TABLE));
    let cards = section(
        4,
        &KILN_CARDS
            .iter()
            .map(|c| widget("icon-box", &format!("<p>{c}</p>")))
            .collect::<String>(),
    );
    let faq = section(
        5,
        &widget(
            "accordion",
            "<h3>Can I watch the burn?</h3><p>Yes, from the viewing bank on the Saturday.</p>\
             <h3>Is there parking?</h3><p>Park in the lane; the yard is kept for the carts.</p>",
        ),
    );
    let html = page(
        "Burning the east kiln",
        &(intro + &body + &table + &cards + &faq),
    );
    let doc = common::read_html("https://kilns.example/burning-the-east-kiln/", &html);
    let md = doc.markdown;
    for t in [
        "Burn step 1",
        "Burn step 6",
        "12 May 2024",
        "By Ada Mason",
        "Seasoned oak",
        "Built: 1862",
        "Draw holes: four",
        "Can I watch the burn?",
        "the yard is kept for the carts",
    ] {
        assert!(md.contains(t), "{t}: {md}");
    }
    assert!(!md.contains("registered charity"), "{md}");
}

/// A service home page's feature sections: a heading and a line each.
pub(crate) const SERVICE_FEATURES: [(&str, &str); 3] = [
    (
        "Kiln surveys",
        "We survey lime kilns for owners and councils.",
    ),
    (
        "Repairs",
        "Lime mortar repairs by masons who know the stone.",
    ),
    (
        "Training",
        "Courses in lime burning for volunteers and trusts.",
    ),
];

/// A service's home page: short feature sections, then a carousel of long case-study
/// blurbs that outscores each of them alone. The features are the page too.
#[test]
fn short_feature_sections_are_kept_beside_a_carousel_of_long_blurbs() {
    let features: String = SERVICE_FEATURES
        .iter()
        .enumerate()
        .map(|(n, (h, p))| {
            section(
                10 + n as u32,
                &(widget("heading", &format!("<h2>{h}</h2>"))
                    + &widget("text", &format!("<p>{p}</p>"))),
            )
        })
        .collect();
    let slides: String = (1..=5)
        .map(|n| {
            format!(
                "<div class=\"pb-slide\"><blockquote>{}</blockquote><cite>Client {n}</cite></div>",
                prose(&format!("Case study {n}"))
            )
        })
        .collect();
    let carousel = section(20, &widget("testimonial-carousel", &slides));
    let doc = common::read_html(
        "https://kilns.example/",
        &page("Lime kiln specialists", &(features + &carousel)),
    );
    let md = doc.markdown;
    for t in [
        "We survey lime kilns",
        "Lime mortar repairs",
        "Courses in lime burning",
        "Case study 3",
    ] {
        assert!(md.contains(t), "{t}: {md}");
    }
}
