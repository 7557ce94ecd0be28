//! Short answers folded behind the button that names them (test page written for trawl):
//! the disclosure pattern, `<button aria-controls="a1">` over `<div id="a1" hidden>`, folds
//! one-line answers that are shorter than what folded text otherwise needs. A hidden block
//! its toggle says it opens is folded text from 40 characters (`CONTROLLED_PROSE_CHARS` in
//! `content/folded.rs`); a hidden block nothing opens still goes.

use crate::common;

fn item(n: u32, question: &str, answer: &str) -> String {
    format!(
        r#"<div class="faq-item"><button type="button" aria-expanded="false" aria-controls="a{n}">{question}</button>
        <div id="a{n}" hidden><p>{answer}</p></div></div>"#
    )
}

#[test]
fn short_answers_behind_their_toggles_are_kept() {
    let page = format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Evening pottery course</title></head>
        <body><header class="site-header"><nav><a href="/">Home</a> <a href="/courses">Courses</a></nav></header>
        <main><h1>Evening pottery course</h1>
        <p>Eight Tuesday evenings at the wheel, from centring the clay to glazing your own set of
        bowls, in a studio of six wheels and one patient teacher.</p>
        <p>Every class starts with a short demonstration and ends with the kiln loaded: you take
        home what you made, fired and glazed, in the week after the course.</p>
        <h2>Questions</h2>{}{}{}
        <div id="signup-modal" hidden><p>Sign up for our newsletter and hear about new courses,
        open studio nights and seconds sales before anyone else does.</p></div>
        </main><footer><p>Clay Rooms, all rights reserved.</p></footer></body></html>"#,
        item(
            1,
            "Do I need any experience?",
            "None at all: the first evening is spent learning to centre."
        ),
        item(
            2,
            "What should I wear?",
            "Old clothes and short nails; aprons are on the hooks by the sink."
        ),
        item(
            3,
            "Is the clay included?",
            "Yes, ten kilos of stoneware and all the glazes are in the fee."
        ),
    );
    let doc = common::read_html("https://clayrooms.example/courses/evening-pottery", &page);
    let md = doc.markdown;
    assert!(md.contains("one patient teacher"), "{md}");
    assert!(md.contains("learning to centre"), "{md}");
    assert!(md.contains("aprons are on the hooks"), "{md}");
    assert!(md.contains("ten kilos of stoneware"), "{md}");
    assert!(!md.contains("seconds sales"), "{md}");
}
