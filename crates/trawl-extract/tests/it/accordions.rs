//! An accordion wearing the tab strip's role (test page written for trawl): Bootstrap 3's
//! `panel-group` puts `role="tablist"` on the whole box of questions and answers, and as a
//! strip of tabs it went whole. A `tablist` with text of its own is content
//! (`is_accordion` in `content/drops.rs`); a strip of a few words a tab still goes.

use crate::common;

fn panel(n: u32, question: &str, answer: &str) -> String {
    format!(
        r##"<div class="panel panel-default"><div class="panel-heading" role="tab" id="h{n}">
        <h4 class="panel-title"><a role="button" data-toggle="collapse" href="#c{n}">{question}</a></h4></div>
        <div id="c{n}" class="panel-collapse collapse" aria-labelledby="h{n}"><div class="panel-body">
        <p>{answer}</p></div></div></div>"##
    )
}

#[test]
fn an_accordion_with_the_tablist_role_is_kept() {
    let page = format!(
        r##"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookkeeping for small firms</title></head>
        <body><header class="site-header"><nav><a href="/">Home</a> <a href="/services">Services</a></nav></header>
        <main><h1>Bookkeeping for small firms</h1>
        <p>We keep your books, file your returns and tell you each month where the money went, so
        that you can run the firm instead of chasing receipts.</p>
        <h2>What you get</h2>
        <p>A named bookkeeper who knows your trade, a monthly report of profit, cash and what
        customers owe you, and a reminder a week before every deadline the tax office sets.</p>
        <p>Payroll for up to twenty staff, pension enrolment and the year-end forms, done in the
        same package and at the same fixed monthly fee, whatever the month brings.</p>
        <p>When the year closes we prepare the accounts, agree them with you line by line and
        file them, and we answer the tax office's letters on your behalf.</p>
        <ul class="nav nav-tabs" role="tablist"><li role="presentation"><a href="#monthly" role="tab">Monthly</a></li>
        <li role="presentation"><a href="#yearly" role="tab">Yearly</a></li></ul>
        <h2>Questions we are asked</h2>
        <div class="panel-group" id="accordion" role="tablist" aria-multiselectable="true">{}{}{}</div>
        </main><footer><p>Ledger &amp; Co, all rights reserved.</p></footer></body></html>"##,
        panel(
            1,
            "Which software do you use?",
            "Whatever you use already: we work in the common accounting packages and move you \
             to one only if you ask."
        ),
        panel(
            2,
            "How do I send you receipts?",
            "Photograph them with your phone and forward them to your own inbox address; we \
             match each one to its bank line the same week."
        ),
        panel(
            3,
            "Can you file my VAT return?",
            "Yes, every quarter, and we send you the figures to approve three days before the \
             deadline."
        ),
    );
    let doc = common::read_html("https://ledger.example/services/bookkeeping", &page);
    let md = doc.markdown;
    assert!(md.contains("chasing receipts"), "{md}");
    assert!(md.contains("common accounting packages"), "{md}");
    assert!(md.contains("bank line the same week"), "{md}");
    assert!(md.contains("three days before"), "{md}");
    assert!(!md.contains("Yearly"), "{md}");
}
