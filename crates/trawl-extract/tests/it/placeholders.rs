//! A shop's product page as its server sends it (test page written for trawl): the
//! carousels a script fills ("Frequently bought together", "Guests also viewed") hold a
//! "Loading content" spinner and tiles titled "Loading...", and no items. The words say
//! nothing (`content::drop_placeholders`), and the headings over them head nothing once
//! they are gone; the description, its price and its care notes stay.

use crate::common;

use trawl_core::PageType;

const PAGE: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Enameled Dutch oven, 5.5 qt | Homewares</title>
<meta property="og:type" content="product"></head>
<body><header class="site-header"><nav><a href="/">Home</a> <a href="/kitchen">Kitchen</a></nav></header>
<main><div class="product">
<h1>Enameled Dutch oven, 5.5 qt</h1><span class="price">$79.99</span>
<h2>About this item</h2>
<p>Cast iron under a chip-resistant enamel: it browns, braises and bakes bread, and goes from
the hob to the oven to the table without a second pot.</p>
<h3>Care</h3>
<p>Let it cool before washing, wash by hand with warm soapy water, and dry it well before it
goes back in the cupboard.</p>
<h2>Frequently bought together</h2>
<div class="carousel-status"><span role="alert">Loading content</span></div>
<h2>Guests also viewed</h2>
<ul class="carousel"><li><div class="tile"><h3>Loading...</h3><div class="tile-box"></div></div></li>
<li><div class="tile"><h3>Loading...</h3><div class="tile-box"></div></div></li>
<li><div class="tile"><h3>Loading...</h3><div class="tile-box"></div></div></li></ul>
</div></main>
<footer class="site-footer"><p>Homewares Inc., all rights reserved.</p></footer></body></html>"#;

#[test]
fn a_scripts_loading_placeholders_are_dropped() {
    let doc = common::read_html("https://homewares.example/p/dutch-oven-5-5-qt", PAGE);
    let md = doc.markdown;
    assert_eq!(doc.page_type, PageType::Product);
    assert!(md.contains("$79.99") && md.contains("second pot"), "{md}");
    assert!(
        md.contains("### Care") && md.contains("back in the cupboard"),
        "{md}"
    );
    assert!(!md.contains("Loading"), "{md}");
    assert!(!md.contains("Frequently bought together"), "{md}");
    assert!(!md.contains("Guests also viewed"), "{md}");
}
