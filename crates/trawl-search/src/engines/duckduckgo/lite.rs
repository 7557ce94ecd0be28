//! DuckDuckGo's lite endpoint (`lite.duckduckgo.com/lite/`): the second transport, asked
//! when the html endpoint refuses (202, a challenge, or its bare home page). Its results
//! are table rows: a row with `a.result-link`, then a `td.result-snippet` row, then a
//! `span.link-text` row; sponsored rows carry `tr.result-sponsored`.

use scraper::ElementRef;

use super::region_code;
use crate::engines::prelude::*;
use crate::html::{absolute, document, empty_page, first_text, sel, text_of, unwrap_href};

/// The request for one query: the lite form, POSTed as a browser does.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut form = vec![
        ("q".to_owned(), with_site(query, f)),
        ("kl".to_owned(), region_code(req)),
    ];
    if let Some(fr) = f.freshness {
        form.push(("df".into(), fr.letter().into()));
    }
    if f.page() > 1 {
        // The lite "Next Page" form: offsets 10, 25, 40, … as on the html endpoint.
        let s = 10 + (f.page() - 2) * 15;
        form.push(("s".into(), s.to_string()));
        form.push(("dc".into(), (s + 1).to_string()));
        form.push(("v".into(), "l".into()));
        form.push(("o".into(), "json".into()));
        form.push(("api".into(), "d.js".into()));
    }
    EngineRequest::post(endpoint(ctx.base, "/lite/"), Body::Form(form))
        .header("Referer", "https://lite.duckduckgo.com/")
        .header("Sec-Fetch-Dest", "document")
        .header("Sec-Fetch-Mode", "navigate")
        .header("Sec-Fetch-Site", "same-origin")
}

/// Parse a lite results page: each `a.result-link` row starts a result, the snippet row
/// after it completes it; sponsored rows and DuckDuckGo's own ad links are skipped.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let doc = document(body);
    let link_sel = sel("a.result-link");
    let snippet_sel = sel("td.result-snippet");
    let mut out: Vec<RawItem> = Vec::new();
    // Whether the rows now being read belong to a kept result (not an ad).
    let mut open = false;
    for row in doc.select(&sel("tr")) {
        if let Some(a) = row.select(&link_sel).next() {
            open = false;
            if is_sponsored(row) {
                continue;
            }
            let Some(href) = a.value().attr("href").and_then(|h| absolute(h, ORIGIN)) else {
                continue;
            };
            let url = unwrap_href(&href);
            if url.contains("duckduckgo.com/y.js") {
                continue;
            }
            out.push(RawItem::new(url, text_of(a), String::new()));
            open = true;
        } else if open
            && row.select(&snippet_sel).next().is_some()
            && let Some(last) = out.last_mut()
        {
            last.snippet = first_text(row, &snippet_sel);
        }
    }
    if out.is_empty() {
        empty_page(&doc, &[], &["No results.", "No more results."])?;
    }
    Ok(out)
}

const ORIGIN: &str = "https://duckduckgo.com";

fn is_sponsored(row: ElementRef<'_>) -> bool {
    row.value().classes().any(|c| c == "result-sponsored")
}

/// The lite transport, as data. It is not in the engine list: it answers for
/// `duckduckgo` (its own `TRAWL_DUCKDUCKGO_LITE_URL` moves it, for tests).
pub const SPEC: EngineSpec = EngineSpec {
    name: "duckduckgo_lite",
    group: "bing",
    filters: Capabilities::named("all"),
    base: "https://lite.duckduckgo.com",
    browser_like: true,
    confidence: "high for parsing (1 real lite page, 2026)",
    fixtures: "tested on 1 real saved lite page (2026)",
    ..EngineSpec::new(
        "duckduckgo_lite",
        "https://lite.duckduckgo.com",
        request,
        parse,
    )
};
