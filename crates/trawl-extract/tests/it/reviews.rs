//! Blocks named for reviews (`review-card`, `…-review`), per page type (test pages written
//! for trawl): on a product page they are buyers' comments and go; on a service page the
//! testimonials are part of the pitch and on an article a box named for the product it
//! reviews is the article, and both stay (`Pass::reviews_are_comments`).

use crate::common;

use trawl_core::PageType;

fn read(url: &str, page: &str) -> (PageType, String) {
    let doc = common::read_html(url, page);
    (doc.page_type, doc.markdown)
}

fn page(head: &str, main: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbour Pest Control</title>{head}</head>
        <body><header class="site-header"><nav><a href="/">Home</a> <a href="/services">Services</a>
        <a href="/contact">Contact</a></nav></header>{main}
        <footer class="site-footer"><p>Harbour Pest Control Ltd, all rights reserved.</p></footer></body></html>"#
    )
}

fn testimonial(who: &str, said: &str) -> String {
    format!(
        "<div class=\"review-card\"><div class=\"review-card-content\"><p>{said}</p></div>\
         <div class=\"review-card-author\">{who}</div></div>"
    )
}

/// The testimonials on a service page are part of what the page says (with reviews read as
/// comments they all went, and the page kept only its pitch).
#[test]
fn a_service_pages_testimonials_are_kept() {
    let main = format!(
        "<main><section class=\"hero\"><h1>Pest control for homes and cafés</h1>\
         <p>We inspect, treat and follow up, with a written plan for every property and a \
         guarantee that we come back free of charge if the pests do.</p>\
         <a class=\"cta\" href=\"/contact\">Book an inspection</a></section>\
         <section class=\"testimonials\"><h2>What our customers say</h2>\
         <div class=\"testimonial-card-wr home-review-card-wr\">{}{}{}</div></section></main>",
        testimonial(
            "Dana, Springfield",
            "We had ants in the kitchen that no spray would shift; the technician found the \
             nest behind the dishwasher on the first visit and they never came back."
        ),
        testimonial(
            "Lee, Harbour Café",
            "Running a café, keeping pests out is critical, and the monthly visits with a \
             written report have kept our inspections spotless for two years."
        ),
        testimonial(
            "Sam, Old Town",
            "Friendly, on time and thorough: they explained every bait station and sealed the \
             gaps under the back door so the mice had nowhere left to come in."
        ),
    );
    let head = r#"<meta property="og:type" content="article">"#;
    let (page_type, md) = read(
        "https://pests.example/services/pest-control",
        &page(head, &main),
    );
    assert_eq!(page_type, PageType::Service);
    assert!(md.contains("first visit"), "{md}");
    assert!(md.contains("monthly visits"), "{md}");
    assert!(md.contains("bait station"), "{md}");
    assert!(md.contains("written plan"), "{md}");
    assert!(!md.contains("all rights reserved"), "{md}");
}

/// A buyers' guide gives each pick a box whose id names what it reviews
/// (`quiet-dishwasher-review`): the picks are the article.
#[test]
fn an_articles_boxes_named_for_the_product_they_review_are_kept() {
    let pick = |slug: &str, label: &str, name: &str, said: &str| {
        format!(
            "<div class=\"pick\" id=\"{slug}-review\"><div class=\"pick-label\">{label}</div>\
             <div class=\"pick-name\">{name}</div><div class=\"pick-body\"><p>{said}</p>\
             <p>We ran it for a month in our test kitchen, through every programme it offers, \
             and measured water, power and noise on each cycle before we gave it the award.</p>\
             </div><a class=\"buy\" href=\"https://shop.example/{slug}\">Buy now</a></div>"
        )
    };
    let main = format!(
        "<main><article><h1>The best appliances of the year</h1>\
         <p>Every year we test the new appliances in our lab and at home, and these are the \
         ones that stood out, in each kind, for how well they work and how long they last.</p>\
         <p>We score each one on cleaning or cooling, on noise and running costs, and on how \
         easy it is to live with, then ask our readers how theirs have held up over the years.</p>\
         {}{}<h2>How we test</h2><p>Every appliance spends at least a month in our lab, where \
         we run the same loads, the same foods and the same stopwatch on each, and then a \
         month in a tester's home, where it meets real families and real mess.</p>\
         </article></main>",
        pick(
            "quiet-dishwasher",
            "Best dishwasher",
            "Quiet Dishwasher 800",
            "The quietest dishwasher we have tested cleans baked-on lasagne in one normal \
             cycle and dries plastics without a heated rinse."
        ),
        pick(
            "compact-fridge",
            "Best small fridge",
            "Compact Fridge 24",
            "A narrow fridge that holds a week of shopping for two keeps an even temperature \
             from the top shelf to the crisper drawer."
        ),
    );
    let head = r#"<meta property="og:type" content="article">
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
        "headline":"The best appliances of the year","datePublished":"2025-11-01"}</script>"#;
    let (page_type, md) = read(
        "https://reviews.example/appliances/features/best-appliances-of-the-year",
        &page(head, &main),
    );
    assert_eq!(page_type, PageType::Article);
    assert!(md.contains("baked-on lasagne"), "{md}");
    assert!(md.contains("week of shopping"), "{md}");
}

/// On a product page the buyers' reviews are comments on it, and go.
#[test]
fn a_product_pages_customer_reviews_are_dropped() {
    let main = format!(
        "<main><div class=\"product\"><h1>Ant bait stations, pack of 12</h1>\
         <span class=\"price\">£14.99</span><p class=\"stock\">In stock</p>\
         <div class=\"description\"><p>Child-resistant bait stations for kitchens and \
         patios: the ants carry the bait back to the nest, and the colony is gone within a \
         fortnight.</p></div></div>\
         <section class=\"customer-reviews\"><h2>Reviews</h2>{}{}</section></main>",
        testimonial(
            "Dana",
            "Worked within ten days on the patio, though the lids are fiddly to open."
        ),
        testimonial(
            "Lee",
            "Arrived the next day; two stations were enough for our small flat."
        ),
    );
    let head = r#"<meta property="og:type" content="product">"#;
    let (page_type, md) = read(
        "https://shop.pests.example/products/ant-bait-stations",
        &page(head, &main),
    );
    assert_eq!(page_type, PageType::Product);
    assert!(md.contains("£14.99") && md.contains("within a"), "{md}");
    assert!(!md.contains("ten days") && !md.contains("next day"), "{md}");
}
