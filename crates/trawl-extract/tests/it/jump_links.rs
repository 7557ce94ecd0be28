//! A long guide's "Back to top" after each section (test page written for trawl): a link
//! that jumps back up the page moves the reader and says nothing
//! (`content::drop_jump_links`); the sections stay.

use crate::common;

const GUIDE: &str = r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Home electrical safety | City Utilities</title></head>
<body><header class="site-header" id="top"><nav><a href="/">Home</a> <a href="/safety">Safety</a></nav></header>
<main id="main-content"><article>
<h1>Home electrical safety</h1>
<p>Most fires that start in a home's wiring start in old outlets, overloaded strips and cords
run under rugs. A few checks a year prevent nearly all of them.</p>
<h2 id="outlets">Outlets</h2>
<p>Feel each outlet's cover while something heavy runs from it: a warm cover means a loose
wire behind it, and an electrician should look at it before it is used again.</p>
<p><a href="#main-content">Back to Top</a></p>
<h2 id="breakers">Breakers</h2>
<p>A breaker that trips again and again is doing its job: the circuit carries more than it
should. Move some appliances to another circuit before you reset it.</p>
<p><a href="#top">↑ Back to top</a></p>
<h2 id="cords">Cords</h2>
<p>Never run a cord under a rug or through a doorway, where it is walked on and frays, and
throw away any cord whose plug is warm to the touch.</p>
</article></main>
<footer class="site-footer"><p>City Utilities, all rights reserved.</p></footer></body></html>"##;

#[test]
fn a_back_to_top_link_is_dropped() {
    let doc = common::read_html("https://utilities.example/safety/electrical", GUIDE);
    let md = doc.markdown;
    assert!(
        md.contains("warm cover means") && md.contains("before you reset it"),
        "{md}"
    );
    assert!(md.contains("## Cords"), "{md}");
    assert!(!md.to_lowercase().contains("back to top"), "{md}");
}
