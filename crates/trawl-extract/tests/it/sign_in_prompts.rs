//! Sign-in prompts (test pages written for trawl): "You must log in to answer this
//! question" under a Q&A thread and "You must be logged in to post a comment" under a blog
//! post tell a visitor without an account what they cannot do, and go
//! (`content::drop_sign_in_prompts`); a how-to's step "Sign in to the portal" and a FAQ's
//! answer that names logging in stay.

use crate::common;

const QUESTION: &str = r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Why does my sourdough collapse in the oven? - Baking Q&amp;A</title></head>
<body><header class="top-bar"><a href="/">Baking Q&amp;A</a> <a href="/users/login">Log in</a></header>
<div id="content"><div id="mainbar">
<h1>Why does my sourdough collapse in the oven?</h1>
<div class="question"><p>My loaf rises well overnight in the fridge, but it spreads flat the
moment it goes into the oven, and the crumb comes out dense and gummy. What am I doing wrong?</p></div>
<h2>2 Answers</h2>
<div class="answer"><p>It is over-proofed. A cold overnight proof still ferments, only slower; if
the dough has more than doubled, the gluten is spent and cannot hold the oven spring. Shorten
the proof or use less starter.</p></div>
<div class="answer"><p>Check your hydration too: a dough wetter than your flour can absorb will
spread however well it proofed. Drop the water by five percent and see if it holds its shape.</p></div>
<h2 class="bottom-notice">You must <a href="/users/login?returnurl=/q/81">log in</a> to answer this question.</h2>
</div></div>
<footer><p>Baking Q&amp;A, content licensed CC BY-SA.</p></footer></body></html>"##;

const POST: &str = r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Pruning tomatoes - Garden Notes</title></head>
<body><main><article><h1>Pruning tomatoes</h1>
<p>Indeterminate tomatoes grow a side shoot in every leaf joint. Pinch those out while they are
small and the plant puts its strength into the fruit on the main stem instead of more leaves.</p>
<p>Stop pruning in late summer: the fruit that sets after then will not ripen before the frost,
and the leaves shade what is already there from the hottest sun.</p>
<div class="after-entry"><p class="must-log-in">You must be <a href="/wp-login.php?redirect_to=/pruning">logged in</a> to post a comment.</p></div>
</article></main></body></html>"##;

const GUIDE: &str = r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Create a storage bucket - Cloud docs</title></head>
<body><main><article><h1>Create a storage bucket</h1>
<p>A bucket holds the files your application serves. You create it once, in the console, and
name it after the project that owns it.</p>
<h2>Sign in to the console</h2>
<p>Open the console in a browser and <a href="https://console.example/login">sign in</a> with
your organization's account. Your role must allow creating buckets.</p>
<h2>Questions</h2>
<p>Where do I find my invoices? <a href="https://console.example/login">Log in</a> to view your invoices under Billing, then pick a month.</p>
</article></main></body></html>"##;

fn markdown(page: &str, url: &str) -> String {
    common::read_html(url, page).markdown
}

#[test]
fn the_prompt_under_a_thread_is_dropped_and_the_answers_stay() {
    let md = markdown(
        QUESTION,
        "https://baking.example/questions/81/sourdough-collapse",
    );
    assert!(
        md.contains("spreads flat")
            && md.contains("It is over-proofed")
            && md.contains("hydration"),
        "{md}"
    );
    assert!(!md.contains("to answer this question"), "{md}");
}

#[test]
fn the_prompt_under_a_post_is_dropped_and_the_post_stays() {
    let md = markdown(POST, "https://garden.example/pruning-tomatoes/");
    assert!(
        md.contains("side shoot") && md.contains("Stop pruning"),
        "{md}"
    );
    assert!(!md.contains("to post a comment"), "{md}");
}

#[test]
fn a_step_that_signs_in_and_an_answer_that_names_logging_in_stay() {
    let md = markdown(GUIDE, "https://docs.example/storage/create-bucket");
    assert!(md.contains("## Sign in to the console"), "{md}");
    assert!(md.contains("with your organization's account"), "{md}");
    assert!(md.contains("to view your invoices under Billing"), "{md}");
}
