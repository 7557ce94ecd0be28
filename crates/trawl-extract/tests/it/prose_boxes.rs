//! Boxes of prose whose class names them like boilerplate (test pages written for trawl):
//! several paragraphs of link-poor running text are content, and the empty paragraphs a
//! page builder leaves as spacers do not make them read as a list of one-liners; and a
//! `<header>` inside `<main>` is the content's head, not the site's banner.

use crate::common;

fn read(url: &str, page: &str) -> String {
    common::read_html(url, page).markdown
}

/// A buyer's guide whose picks sit in `product-widget` boxes, each padded with empty
/// `<p></p>` spacers: counted as paragraphs, they made each box too thin to be prose, and
/// the class word dropped it.
#[test]
fn a_widget_of_prose_padded_with_empty_paragraphs_is_kept() {
    let widget = |name: &str, first: &str| {
        format!(
            "<div class=\"product-widget\"><div class=\"product-widget__name\">{name}</div>\
             <div class=\"product-widget__content\"><p>{first} We ran it for a month in our \
             test kitchen, through every programme it offers, and measured water, power and \
             noise on each cycle before we gave it the award, and then we lent it to a family \
             of five for a second month of real dishes, real food and real mess. It is not the \
             cheapest in its class, but over ten years it costs less to run than the models \
             that undercut it, and it was still the one our testers asked to keep when the \
             second month was over.</p><p>Its parts are easy to find when something wears out, and \
             few owners have needed a repair in the five years since it came out.</p><p></p>\
             </div><p></p><p></p><p></p><p></p><p></p></div>"
        )
    };
    let page = format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The best appliances</title>
        <meta property="og:type" content="article"></head><body>
        <nav class="menu"><a href="/">Home</a> <a href="/kitchen">Kitchen</a> <a href="/laundry">Laundry</a></nav>
        <main><article><h1>The best appliances of the year</h1>
        <p>Every year we test the new appliances in our lab and at home, and these are the ones
        that stood out, in each kind, for how well they work and how long they last.</p>
        {}{}{}
        <p>We score each one on cleaning or cooling, on noise and running costs, and on how easy
        it is to live with, then ask our readers how theirs have held up over the years.</p>
        </article></main>
        <footer class="site-footer"><p>Reviewed appliances, all rights reserved.</p></footer></body></html>"#,
        widget(
            "Quiet Dishwasher 800",
            "The quietest dishwasher we have tested cleans baked-on lasagne in one cycle."
        ),
        widget(
            "Compact Fridge 24",
            "A narrow fridge that holds a week of shopping for two at an even temperature."
        ),
        widget(
            "Steam Oven 60",
            "A steam oven that bakes bread with a crust as good as a baker's stone deck."
        ),
    );
    let md = read(
        "https://appliances.example/features/best-of-the-year",
        &page,
    );
    assert!(md.contains("baked-on lasagne"), "{md}");
    assert!(md.contains("week of shopping"), "{md}");
    assert!(md.contains("baker's stone"), "{md}");
    assert!(md.contains("running costs"), "{md}");
    assert!(!md.contains("all rights reserved"), "{md}");
}

/// A landing page's hero is a `<header>` inside `<main>`: the head of the content (its
/// heading and pitch), while the site's `<header>` outside `<main>` is still its banner.
#[test]
fn a_header_inside_main_is_the_head_of_a_landing_page() {
    let page = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Identity protection</title></head>
        <body><header class="site-header"><a href="/">Shield</a> <a href="/plans">Plans</a>
        <a href="/login">Log in to your account</a></header>
        <main class="main-wrapper"><header class="section-hero"><h1>Protection from identity theft and scams</h1>
        <p>Protect your finances and personal information in one simple plan, with alerts the
        moment your details turn up where they should not.</p><a class="btn" href="/plans">See plans</a></header>
        <section><h2>How it works</h2><p>We watch the places stolen details are traded, your bank
        and credit files, and the public records where a new address or loan would first appear,
        and we tell you within minutes, with the steps to take.</p>
        <p>If the worst happens, a case manager in your own country takes the calls, fills in the
        forms and stays with you until your accounts and your credit are yours again.</p></section>
        <section><h2>Why us</h2><p>Ten million people trust us with their identity, and our
        insurance covers up to a million in losses and the costs of putting things right.</p></section>
        </main><footer class="site-footer"><p>Shield Ltd, all rights reserved.</p></footer></body></html>"#;
    let md = read("https://shield.example/", page);
    assert!(md.contains("Protection from identity theft"), "{md}");
    assert!(md.contains("one simple plan"), "{md}");
    assert!(md.contains("case manager"), "{md}");
    assert!(!md.contains("Log in to your account"), "{md}");
    assert!(!md.contains("all rights reserved"), "{md}");
}

/// A review box named like a widget holds its verdict in two long paragraphs and then a
/// list of pros and cons, one short paragraph each: the short lines pulled the average
/// below prose, and the class word dropped the verdict with them.
#[test]
fn a_widget_with_a_verdict_above_its_pros_and_cons_is_kept() {
    let pros_cons: String = [
        "Quiet",
        "Fast",
        "Roomy",
        "Cheap to run",
        "Loud pump",
        "Slow dry",
        "Pricey",
        "Heavy",
    ]
    .iter()
    .map(|p| format!("<li><p>{p}</p></li>"))
    .collect();
    let widget = |name: &str, first: &str| {
        format!(
            "<div class=\"c-product-widget\"><div class=\"c-product-widget__name\">{name}</div>\
             <p>{first} We ran it for a month in our test kitchen, through every programme it \
             offers, and measured water, power and noise on each cycle, and then we lent it \
             to a family of five for a second month of real dishes, food and mess.</p>\
             <p>It is not the cheapest in its class, but over ten years of use it costs less to \
             run than the models that undercut it, and its parts are easy to find when \
             something wears out, which is more than we can say for its rivals. Our readers \
             who bought one five years ago say the same, and few have needed a repair.</p>\
             <ul class=\"pros-cons\">{pros_cons}</ul></div>"
        )
    };
    let page = format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The best appliances</title>
        <meta property="og:type" content="article"></head><body>
        <nav class="menu"><a href="/">Home</a> <a href="/kitchen">Kitchen</a> <a href="/laundry">Laundry</a></nav>
        <main><article><h1>The best appliances of the year</h1>
        <p>Every year we test the new appliances in our lab and at home, and these are the ones
        that stood out, in each kind, for how well they work and how long they last.</p>
        {}{}
        <p>We score each one on cleaning or cooling, on noise and running costs, and on how easy
        it is to live with, then ask our readers how theirs have held up over the years.</p>
        </article></main>
        <footer class="site-footer"><p>Reviewed appliances, all rights reserved.</p></footer></body></html>"#,
        widget(
            "Quiet Dishwasher 800",
            "The quietest dishwasher we have tested cleans baked-on lasagne in one cycle."
        ),
        widget(
            "Compact Fridge 24",
            "A narrow fridge that holds a week of shopping for two at an even temperature."
        ),
    );
    let md = read(
        "https://appliances.example/features/best-of-the-year",
        &page,
    );
    assert!(md.contains("baked-on lasagne"), "{md}");
    assert!(md.contains("week of shopping"), "{md}");
    assert!(md.contains("running costs"), "{md}");
    assert!(!md.contains("all rights reserved"), "{md}");
}
