//! Pages laid out by Elementor, with its own class names (issue 45, shape 3): every block
//! of the page is a `widget` (`elementor-widget elementor-widget-heading`, wrapped in an
//! `elementor-widget-container`), so the word says nothing of what the block is; the
//! widget's kind (`nav-menu`, `wp-widget-recent-posts`, `share-buttons`) and where it
//! sits (a side column beside the prose) still do. Written for trawl from the issue's
//! description.

use crate::common;
use crate::page_builder::{KILN_CARDS, KILN_TABLE, SERVICE_FEATURES, prose};

/// One top-level section of `columns`, with Elementor's per-element id in its classes.
fn section(n: u32, columns: &str) -> String {
    format!(
        "<section class=\"elementor-section elementor-top-section elementor-element \
         elementor-element-{n:06x} elementor-section-boxed elementor-section-height-default\" \
         data-id=\"{n:06x}\" data-element_type=\"section\">\
         <div class=\"elementor-container elementor-column-gap-default\">{columns}</div></section>"
    )
}

/// A column `width` per cent wide holding `widgets`.
fn column(n: u32, width: u32, widgets: &str) -> String {
    format!(
        "<div class=\"elementor-column elementor-col-{width} elementor-top-column elementor-element \
         elementor-element-c{n:05x}\" data-element_type=\"column\">\
         <div class=\"elementor-widget-wrap elementor-element-populated\">{widgets}</div></div>"
    )
}

/// A section of one full-width column.
fn full_width(n: u32, widgets: &str) -> String {
    section(n, &column(n, 100, widgets))
}

/// One widget of `kind` around `inner`.
fn widget(kind: &str, inner: &str) -> String {
    let n = inner.len() * 7 + kind.len();
    format!(
        "<div class=\"elementor-element elementor-element-w{n:05x} elementor-widget \
         elementor-widget-{kind}\" data-element_type=\"widget\" data-widget_type=\"{kind}.default\">\
         <div class=\"elementor-widget-container\">{inner}</div></div>"
    )
}

/// The site's header and footer are Elementor templates too.
fn page(title: &str, sections: &str) -> String {
    let header = widget(
        "nav-menu",
        "<nav class=\"elementor-nav-menu--main elementor-nav-menu__container\"><ul class=\"elementor-nav-menu\">\
         <li class=\"menu-item\"><a href=\"/\" class=\"elementor-item\">Home</a></li>\
         <li class=\"menu-item\"><a href=\"/kilns/\" class=\"elementor-item\">Kilns</a></li>\
         <li class=\"menu-item\"><a href=\"/visit/\" class=\"elementor-item\">Visit us</a></li></ul></nav>",
    );
    let footer = widget(
        "text-editor",
        "<p>Stoneham Kilns Trust, registered charity 9012. Lime Lane, Stoneham.</p>",
    );
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} | Stoneham Kilns</title></head>
        <body class="page-template-default page elementor-default elementor-kit-5 elementor-page elementor-page-123">
        <div data-elementor-type="header" data-elementor-id="77" class="elementor elementor-77 elementor-location-header">{header}</div>
        <div data-elementor-type="wp-page" data-elementor-id="123" class="elementor elementor-123">{sections}</div>
        <div data-elementor-type="footer" data-elementor-id="88" class="elementor elementor-88 elementor-location-footer">{footer}</div>
        </body></html>"#,
        header = full_width(0x77, &header),
        footer = full_width(0x88, &footer),
    )
}

/// The side column of an article: a heading over the trust's recent posts, its menu and
/// the share buttons, all of them Elementor widgets like the article's own blocks.
fn side_column(n: u32) -> String {
    let recent: String = [
        "Relighting the west kiln after forty years",
        "A winter of repairs to the draw holes",
        "Our new volunteers and what they learned",
        "The lime shed roof is watertight again",
        "Open days for the summer season announced",
    ]
    .iter()
    .enumerate()
    .map(|(i, t)| format!("<li><a href=\"/news/{i}/\">{t}</a></li>"))
    .collect();
    column(
        n,
        33,
        &(widget(
            "heading",
            "<h4 class=\"elementor-heading-title\">More from the trust</h4>",
        ) + &widget(
            "wp-widget-recent-posts",
            &format!("<h5>Recent Posts</h5><ul>{recent}</ul>"),
        ) + &widget(
            "nav-menu",
            "<nav class=\"elementor-nav-menu--main\"><ul class=\"elementor-nav-menu\">\
             <li><a href=\"/kilns/east/\">East kiln</a></li><li><a href=\"/kilns/west/\">West kiln</a></li>\
             <li><a href=\"/kilns/shed/\">Drying shed</a></li></ul></nav>",
        ) + &widget(
            "share-buttons",
            "<div class=\"elementor-grid\"><div class=\"elementor-grid-item\">\
             <div class=\"elementor-share-btn elementor-share-btn_facebook\" role=\"button\">\
             <span class=\"elementor-share-btn__title\">Share on Facebook</span></div></div>\
             <div class=\"elementor-grid-item\"><div class=\"elementor-share-btn elementor-share-btn_email\" \
             role=\"button\"><span class=\"elementor-share-btn__title\">Send by email</span></div></div></div>",
        )),
    )
}

/// An intro box (title, date, byline), the prose beside a side column, a table,
/// `Label: value` cards and an FAQ, each its own section: all of them are the page, not
/// only the prose; the side column (its lists by their kind, then the heading left over
/// them by where it sits), the menu and the footer are not.
#[test]
fn elementor_sections_are_kept_whole_and_its_side_column_dropped() {
    let intro = full_width(
        1,
        &(widget(
            "heading",
            "<h1 class=\"elementor-heading-title elementor-size-default\">Burning the east kiln</h1>",
        ) + &widget(
            "post-info",
            "<ul class=\"elementor-inline-items elementor-icon-list-items elementor-post-info\">\
             <li class=\"elementor-icon-list-item elementor-inline-item\"><span class=\"elementor-icon-list-text \
             elementor-post-info__item elementor-post-info__item--type-date\">12 May 2024</span></li></ul>",
        ) + &widget("text-editor", "<p>By Ada Mason, kiln keeper</p>")),
    );
    let body = section(
        2,
        &(column(
            2,
            66,
            &widget(
                "text-editor",
                &(1..=6)
                    .map(|n| prose(&format!("Burn step {n}")))
                    .collect::<String>(),
            ),
        ) + &side_column(3)),
    );
    let table = full_width(4, &widget("table", KILN_TABLE));
    let cards = full_width(
        5,
        &KILN_CARDS
            .iter()
            .map(|c| {
                widget(
                    "icon-box",
                    &format!(
                        "<div class=\"elementor-icon-box-wrapper\"><div class=\"elementor-icon-box-content\">\
                         <p class=\"elementor-icon-box-description\">{c}</p></div></div>"
                    ),
                )
            })
            .collect::<String>(),
    );
    let faq = full_width(
        6,
        &(widget(
            "heading",
            "<h2 class=\"elementor-heading-title\">Questions</h2>",
        ) + &widget(
            "toggle",
            "<div class=\"elementor-toggle\">\
                 <div class=\"elementor-toggle-item\"><div class=\"elementor-tab-title\" role=\"button\">\
                 <a class=\"elementor-toggle-title\" tabindex=\"0\">Can I watch the burn?</a></div>\
                 <div class=\"elementor-tab-content elementor-clearfix\" role=\"region\">\
                 <p>Yes, from the viewing bank on the Saturday.</p></div></div>\
                 <div class=\"elementor-toggle-item\"><div class=\"elementor-tab-title\" role=\"button\">\
                 <a class=\"elementor-toggle-title\" tabindex=\"0\">Is there parking?</a></div>\
                 <div class=\"elementor-tab-content elementor-clearfix\" role=\"region\">\
                 <p>Park in the lane; the yard is kept for the carts.</p></div></div></div>",
        )),
    );
    let html = page(
        "Burning the east kiln",
        &(intro + &body + &table + &cards + &faq),
    );
    let doc = common::read_html("https://kilns.example/burning-the-east-kiln/", &html);
    // The page's heading repeats its title: the Document carries it as `title`.
    assert_eq!(
        doc.title.as_deref(),
        Some("Burning the east kiln | Stoneham Kilns")
    );
    let md = doc.markdown;
    for t in [
        "12 May 2024",
        "By Ada Mason",
        "Burn step 1",
        "Burn step 6",
        "Seasoned oak",
        "Height: 9 metres",
        "Built: 1862",
        "Draw holes: four",
        "Can I watch the burn?",
        "the yard is kept for the carts",
    ] {
        assert!(md.contains(t), "{t}: {md}");
    }
    for t in [
        "More from the trust",
        "Recent Posts",
        "A winter of repairs",
        "Drying shed",
        "Share on Facebook",
        "Visit us",
        "registered charity",
    ] {
        assert!(!md.contains(t), "{t}: {md}");
    }
}

/// A service's home page in Elementor: short feature sections (a heading and a line
/// each), then a carousel of long case-study blurbs that outscores each of them alone.
/// The features are the page too.
#[test]
fn elementor_feature_sections_are_kept_beside_a_carousel_of_long_blurbs() {
    let features: String = SERVICE_FEATURES
        .iter()
        .enumerate()
        .map(|(n, (h, p))| {
            full_width(
                10 + n as u32,
                &(widget(
                    "heading",
                    &format!("<h2 class=\"elementor-heading-title\">{h}</h2>"),
                ) + &widget("text-editor", &format!("<p>{p}</p>"))),
            )
        })
        .collect();
    let slides: String = (1..=5)
        .map(|n| {
            format!(
                "<div class=\"swiper-slide\" role=\"group\"><div class=\"elementor-testimonial\">\
                 <div class=\"elementor-testimonial__content\"><div class=\"elementor-testimonial__text\">{}</div></div>\
                 <cite class=\"elementor-testimonial__cite\"><span class=\"elementor-testimonial__name\">Client {n}</span></cite>\
                 </div></div>",
                prose(&format!("Case study {n}"))
            )
        })
        .collect();
    let carousel = full_width(
        20,
        &widget(
            "testimonial-carousel",
            &format!(
                "<div class=\"elementor-main-swiper swiper\"><div class=\"swiper-wrapper\">{slides}</div></div>"
            ),
        ),
    );
    let doc = common::read_html(
        "https://kilns.example/",
        &page("Lime kiln specialists", &(features + &carousel)),
    );
    let md = doc.markdown;
    for t in [
        "Kiln surveys",
        "We survey lime kilns",
        "Lime mortar repairs",
        "Courses in lime burning",
        "Case study 3",
    ] {
        assert!(md.contains(t), "{t}: {md}");
    }
    for t in ["Visit us", "registered charity"] {
        assert!(!md.contains(t), "{t}: {md}");
    }
}

/// A flexbox container of Elementor's newer layout (`e-con e-parent` around two
/// `e-con e-child`), holding `inner`.
fn container(n: u32, level: &str, inner: &str) -> String {
    format!(
        "<div class=\"elementor-element elementor-element-f{n:05x} e-con-full e-flex e-con e-{level}\" \
         data-element_type=\"container\">{inner}</div>"
    )
}

/// A post laid out in flexbox containers of a single-post template: the post's text in one
/// child container, a side container beside it with a "Contact us" heading over a form, a "Latest news" heading
/// over a posts grid and a testimonial. The form and the posts go by their kind; the
/// headings and the testimonial left beside them go as the rest of that side column.
#[test]
fn elementor_side_container_beside_a_post_goes_with_its_lists() {
    let post = container(
        1,
        "child",
        &widget(
            "theme-post-content",
            &(1..=4)
                .map(|n| prose(&format!("Stacking the charge {n}")))
                .collect::<String>(),
        ),
    );
    let news: String = [
        "Relighting the west kiln after forty years",
        "A winter of repairs to the draw holes",
        "Our new volunteers and what they learned",
        "The lime shed roof is watertight again",
    ]
    .iter()
    .enumerate()
    .map(|(i, t)| {
        format!(
            "<article class=\"elementor-post elementor-grid-item\"><h3 class=\"elementor-post__title\">\
             <a href=\"/news/{i}/\">{t}</a></h3><div class=\"elementor-post__excerpt\"><p>News from the \
             kiln yard.</p></div></article>"
        )
    })
    .collect();
    let side = container(
        2,
        "child",
        &(widget(
            "heading",
            "<h3 class=\"elementor-heading-title\">Contact us</h3>",
        ) + &widget(
            "text-editor",
            "<p>Let us help! Ring the kiln office on 01632 960123 or fill in this form.</p>",
        ) + &widget(
            "form",
            "<form class=\"elementor-form\"><label for=\"n\">Your name</label><input id=\"n\" name=\"n\">\
             <label for=\"e\">Your email address</label><input id=\"e\" name=\"e\">\
             <label for=\"m\">How can the trust help you?</label><textarea id=\"m\" name=\"m\"></textarea>\
             <button type=\"submit\">Send</button></form>",
        ) + &widget(
            "heading",
            "<h3 class=\"elementor-heading-title\">Latest news</h3>",
        ) + &widget(
            "posts",
            &format!("<div class=\"elementor-posts-container elementor-grid\">{news}</div>"),
        ) + &widget(
            "testimonial",
            "<div class=\"elementor-testimonial-content\">A grand day out for the grandchildren, who \
             talked of nothing but the fire for a week, and a warm welcome from every volunteer \
             we met in the yard.</div><div class=\"elementor-testimonial-name\">Jean M.</div>",
        )),
    );
    // The single-post template around them declares itself the post (`post type-post`).
    let template = format!(
        "<div data-elementor-type=\"single-post\" class=\"elementor elementor-3902 \
         elementor-location-single post-12 post type-post status-publish hentry\">{}</div>",
        container(3, "parent", &(post + &side))
    );
    let html = page("Stacking the charge", &template);
    let doc = common::read_html("https://kilns.example/news/stacking-the-charge/", &html);
    let md = doc.markdown;
    for t in ["Stacking the charge 1", "Stacking the charge 4"] {
        assert!(md.contains(t), "{t}: {md}");
    }
    for t in [
        "Contact us",
        "Let us help!",
        "Your email address",
        "Latest news",
        "Relighting the west kiln",
        "A grand day out",
        "Visit us",
    ] {
        assert!(!md.contains(t), "{t}: {md}");
    }
}
