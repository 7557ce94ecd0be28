//! A product page's headings over boxes a script fills (test page written for trawl): the
//! served page has "Frequently bought together" and "Customer questions" over empty boxes,
//! and a heading alone says nothing, so it goes (`content::drop_empty_sections`); the
//! description's headings and the tabs' titles stay.

use crate::common;

use trawl_core::PageType;

const PAGE: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Cast iron skillet, 30 cm | Kitchen Shop</title>
<meta property="og:type" content="product"></head>
<body><header class="site-header"><nav><a href="/">Home</a> <a href="/pans">Pans</a></nav></header>
<main><div class="product">
<h1>Cast iron skillet, 30 cm</h1><span class="price">£39.00</span><p class="stock">In stock</p>
<ul class="tabs"><li><h3>Details</h3></li><li><h3>Care</h3></li></ul>
<h2>Description</h2>
<p>Pre-seasoned with vegetable oil and ready to use: sear a steak, bake a cornbread or roast
vegetables, on the hob, in the oven or over a campfire.</p>
<h3>Care</h3>
<p>Wash by hand, dry at once and rub with a little oil; the seasoning gets better with every
use.</p>
<h2>Frequently bought together</h2><div class="fbt" data-widget="fbt"></div>
<h2>Customer questions</h2><div id="qna-root"></div>
</div></main>
<footer class="site-footer"><p>Kitchen Shop Ltd, all rights reserved.</p></footer></body></html>"#;

#[test]
fn a_product_pages_empty_sections_lose_their_headings() {
    let doc = common::read_html("https://kitchen.example/products/cast-iron-skillet", PAGE);
    let md = doc.markdown;
    assert_eq!(doc.page_type, PageType::Product);
    assert!(md.contains("£39.00") && md.contains("campfire"), "{md}");
    assert!(
        md.contains("## Description") && md.contains("### Care"),
        "{md}"
    );
    assert!(md.contains("Details"), "{md}");
    assert!(!md.contains("Frequently bought"), "{md}");
    assert!(!md.contains("Customer questions"), "{md}");
}
