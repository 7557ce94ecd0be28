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
