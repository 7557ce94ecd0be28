//! The page-type decision on small pages written for these tests: one of each kind the
//! classifier tells apart, plus the look-alikes it must not confuse (a landing page that
//! calls itself an article or a product, a section index under a forum-like URL).

use trawl_core::PageType;
use trawl_extract::{ExtractOptions, extract};
use url::Url;

fn page_type(url: &str, html: &str) -> PageType {
    extract(
        html.as_bytes(),
        Some("text/html; charset=utf-8"),
        &Url::parse(url).unwrap(),
        &ExtractOptions::default(),
    )
    .expect("extract")
    .page_type
}

/// A paragraph long enough to count as running prose.
fn prose(topic: &str) -> String {
    format!(
        "<p>{topic} is covered here in full sentences, with the reasons, the trade-offs and an \
         example or two, the way a person writes when they explain something to a reader.</p>"
    )
}

fn page(head: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Page</title>{head}</head>\
         <body><nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav>{body}</body></html>"
    )
}

#[test]
fn news_article() {
    let head = r#"<meta property="og:type" content="article">
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
        "headline":"Council approves the new river crossing","datePublished":"2024-05-01"}</script>"#;
    let body: String = [
        "The vote",
        "The cost",
        "The timeline",
        "The objections",
        "The route",
    ]
    .iter()
    .map(|t| prose(t))
    .collect();
    let body = format!("<article><h1>Council approves the new river crossing</h1>{body}</article>");
    assert_eq!(
        page_type(
            "https://news.example.com/2024/05/01/council-approves-new-river-crossing",
            &page(head, &body)
        ),
        PageType::Article
    );
}

#[test]
fn forum_thread() {
    let posts: String = (1..=4)
        .map(|i| {
            format!(
                "<div class=\"post\" id=\"post-{i}\"><div class=\"post-author\">user{i}</div>\
                 <time datetime=\"2024-03-0{i}\">March {i}</time>\
                 <div class=\"post-body\"><p>Reply {i}: have you tried clearing the cache first?</p></div></div>"
            )
        })
        .collect();
    let body = format!("<h1>Build fails after upgrade</h1>{posts}");
    assert_eq!(
        page_type(
            "https://forum.example.org/t/build-fails-after-upgrade/4821",
            &page("", &body)
        ),
        PageType::Forum
    );
}

#[test]
fn section_index_under_a_topic_url_is_not_a_thread() {
    let items: String = (1..=8)
        .map(|i| {
            format!(
                "<li class=\"story\"><a href=\"/2024/0{i}/story-{i}\">Cloud story number {i} of the week</a></li>"
            )
        })
        .collect();
    let body = format!("<h1>Cloud</h1><ul>{items}</ul>");
    let got = page_type("https://news.example.com/topic/cloud/", &page("", &body));
    assert_ne!(got, PageType::Forum);
    assert_eq!(got, PageType::Listing);
}

#[test]
fn front_page_of_dated_entries_is_a_listing() {
    let entries: String = (1..=10)
        .map(|i| {
            format!(
                "<article class=\"entry\"><h2><a href=\"/2024/05/{i:02}/entry-{i}\">Entry {i}: what changed this week</a></h2>\
                 <time datetime=\"2024-05-{i:02}\">May {i}</time><p>A short summary of entry {i}.</p></article>"
            )
        })
        .collect();
    assert_eq!(
        page_type("https://blog.example.net/", &page("", &entries)),
        PageType::Listing
    );
}

#[test]
fn product_with_offer_markup() {
    let head = r#"<meta property="og:type" content="product">
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product",
        "name":"Trail Runner 2","offers":{"@type":"Offer","price":"89.00","priceCurrency":"USD"}}</script>"#;
    let body = "<h1>Trail Runner 2</h1><div itemprop=\"offers\"><span itemprop=\"price\">$89.00</span></div>\
                <button class=\"add-to-cart\">Add to cart</button>\
                <h2>Specifications</h2><table><tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr></table>";
    assert_eq!(
        page_type(
            "https://shop.example.com/products/trail-runner-2",
            &page(head, body)
        ),
        PageType::Product
    );
}

#[test]
fn shop_grid_is_a_collection() {
    let items: String = (1..=12)
        .map(|i| {
            format!(
                "<li class=\"product-card\"><a href=\"/products/sofa-{i}\">Linen sofa model {i}</a>\
                 <span class=\"price\">${}9.00</span></li>",
                i + 4
            )
        })
        .collect();
    let body = format!("<h1>Sofas</h1><ul class=\"grid\">{items}</ul>");
    assert_eq!(
        page_type(
            "https://shop.example.com/collections/sofas",
            &page("", &body)
        ),
        PageType::Collection
    );
}

#[test]
fn docs_page_with_code() {
    let sections: String = ["install", "configure", "run", "test"]
        .iter()
        .map(|step| {
            format!(
                "<h2>{step}</h2><p>Use <code>tool {step}</code> with the <code>--verbose</code> flag.</p>\
                 <pre><code>$ tool {step} --verbose\nok: {step} finished</code></pre>"
            )
        })
        .collect();
    let body = format!("<main><h1>Getting started</h1>{sections}</main>");
    assert_eq!(
        page_type("https://tool.example.dev/learn/start", &page("", &body)),
        PageType::Documentation
    );
}

#[test]
fn landing_page_is_a_service() {
    // CMS themes set og:type=article on every page; the path says this one sells a service.
    let head = r#"<meta property="og:type" content="article">"#;
    let body = format!(
        "<section class=\"hero\"><h1>Data analytics consulting</h1><a class=\"cta\" href=\"/contact\">Talk to us</a></section>\
         <section><h2>What we do</h2>{}{}</section><section><h2>Why us</h2>{}{}</section>",
        prose("Strategy"),
        prose("Dashboards"),
        prose("Experience"),
        prose("Our team")
    );
    assert_eq!(
        page_type(
            "https://acme.example/services/data-analytics",
            &page(head, &body)
        ),
        PageType::Service
    );
}

#[test]
fn declared_product_without_anything_for_sale_is_not_a_product() {
    // Rating-star plugins mark service pages `Product`; nothing here has a price or a cart.
    let head = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product",
        "name":"Pest control","aggregateRating":{"@type":"AggregateRating","ratingValue":"4.9"}}</script>"#;
    let body = format!(
        "<h1>Pest control in Springfield</h1>{}{}",
        prose("Inspection"),
        prose("Treatment")
    );
    assert_eq!(
        page_type("https://pests.example/springfield", &page(head, &body)),
        PageType::Service
    );
}

#[test]
fn undeclared_product_page_with_a_cart_button() {
    let body = "<h1>Trail Runner 2</h1><p class=\"price\">$89.00</p><button>Add to cart</button>\
                <p>Light, grippy, and made for long days on rough ground.</p>";
    assert_eq!(
        page_type("https://shoes.example/trail-runner-2", &page("", body)),
        PageType::Product
    );
}

#[test]
fn short_title_naming_an_index_is_a_listing() {
    let head = "<title>Remote Software Engineer Jobs | Example Board</title>";
    let body = "<h1>Remote software engineer jobs</h1><p>New roles every day.</p>";
    let html = page(head, body).replace("<title>Page</title>", "");
    assert_eq!(
        page_type("https://board.example/remote", &html),
        PageType::Listing
    );
}

/// An `og:type=article` page of prose whose title names what the business sells.
fn offering_page(title: &str, head_extra: &str) -> String {
    let head = format!(
        "<title>{title} | Acme Partners</title><meta property=\"og:type\" content=\"article\">{head_extra}"
    );
    let body: String = ["Assessment", "Roadmap", "Delivery", "Support", "Our team"]
        .iter()
        .map(|t| prose(t))
        .collect();
    page(&head, &format!("<main><h1>{title}</h1>{body}</main>")).replace("<title>Page</title>", "")
}

#[test]
fn og_article_titled_as_an_offering_is_a_service() {
    let url = "https://acme.example/cybersecurity-consulting-services-for-banks";
    assert_eq!(
        page_type(url, &offering_page("Cybersecurity Consulting Services", "")),
        PageType::Service
    );
    // A listicle about such services is an article, and so is a page that names its author.
    assert_eq!(
        page_type(
            url,
            &offering_page("12 Best Cybersecurity Consulting Services", "")
        ),
        PageType::Article
    );
    let byline = r#"<meta name="author" content="Jane Doe">"#;
    assert_eq!(
        page_type(
            url,
            &offering_page("Cybersecurity Consulting Services", byline)
        ),
        PageType::Article
    );
}

#[test]
fn an_article_declaring_several_products_is_a_review_roundup() {
    let product = |name: &str| {
        format!(
            r#"{{"@type":"Product","name":"{name}","review":{{"@type":"Review","author":"Jane Doe"}}}}"#
        )
    };
    let graph = [
        product("Quiet dishwasher"),
        product("Compact fridge"),
        product("Gas range"),
        r#"{"@type":"NewsArticle","headline":"The best appliances of the year"}"#.to_owned(),
    ]
    .join(",");
    let head = format!(
        r#"<script type="application/ld+json">{{"@context":"https://schema.org","@graph":[{graph}]}}</script>"#
    );
    let body: String = ["Dishwashers", "Fridges", "Ranges", "How we test"]
        .iter()
        .map(|t| prose(t))
        .collect();
    let body =
        format!("<article><h1>The best appliances of the year</h1><p>$499.00</p>{body}</article>");
    let url = "https://reviews.example/appliances/features/best-appliances-of-the-year";
    assert_eq!(page_type(url, &page(&head, &body)), PageType::Article);
    // One product declared alone, with a price, is that product's page.
    let head = format!(
        r#"<script type="application/ld+json">{{"@context":"https://schema.org","@graph":[{}]}}</script>"#,
        product("Quiet dishwasher")
    );
    assert_eq!(page_type(url, &page(&head, &body)), PageType::Product);
}
