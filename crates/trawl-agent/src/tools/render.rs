//! Markdown for agents. Everything that came from the web (page text, titles, snippets,
//! passages) is inside one fence per response; trawl's own words (headers, hints) are
//! outside it, so an agent can tell data from guidance.

use std::fmt::Write;

use trawl_search::{OutcomeKind, Provenance, SearchData};
use trawl_text::diff::ChangeStatus;

use super::{FetchOut, OpenOut, PageOut, SitesOut};
use crate::fence::{Fence, neutralize};

/// Text from the web kept on one line (a title, a snippet) and neutralized; outside a
/// fence (an input URL echoed in a failure) it cannot forge a marker or a header.
fn one_line(text: &str, fence: &Fence) -> String {
    neutralize(text, Some(fence.nonce()))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A search answer: hits (fenced) then one line per engine.
pub fn search_markdown(data: &SearchData, fence: &Fence) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Search results for: {}", one_line(&data.query, fence));
    let mut body = String::new();
    if data.hits.is_empty() {
        body.push_str("(no results)\n");
    }
    for hit in &data.hits {
        let engines: Vec<String> = hit.provenance.iter().map(Provenance::label).collect();
        let _ = writeln!(body, "{}. {}", hit.rank, one_line(&hit.title, fence));
        let _ = writeln!(body, "   {}", hit.url);
        if !hit.snippet.is_empty() {
            let _ = writeln!(body, "   {}", one_line(&hit.snippet, fence));
        }
        if let Some(preview) = &hit.preview {
            let _ = writeln!(body, "   preview: {}", one_line(preview, fence));
        }
        let _ = write!(
            body,
            "   engines: {} · score {:.4}",
            engines.join(", "),
            hit.fused_score
        );
        if let Some(handle) = &hit.handle {
            let _ = write!(body, " · handle {handle}");
        }
        body.push('\n');
    }
    out.push_str(&fence.wrap(&body));
    out.push_str("Engines: ");
    let engines: Vec<String> = data
        .engines
        .iter()
        .map(|e| {
            let outcome = serde_json::to_value(e.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            if e.outcome == OutcomeKind::Ok {
                format!("{} ok({}) {}ms", e.engine, e.count, e.latency_ms)
            } else {
                format!("{} {outcome} {}ms", e.engine, e.latency_ms)
            }
        })
        .collect();
    out.push_str(&engines.join(", "));
    out.push('\n');
    if !data.hits.is_empty() {
        out.push_str("Read one: web_fetch url=<url> (or handle=<handle> when given).\n");
    }
    out
}

/// One line per site reader that failed before the page was fetched another way, so the
/// reason (a rate limit, an expired session, a changed API) is seen, not only the page:
/// `via reddit reader: rate_limited: HTTP 429 … → fetched the page instead`.
fn reader_fallbacks(out: &mut String, doc: &PageOut, fence: &Fence) {
    for note in super::thin::notes(&doc.attempts) {
        let _ = writeln!(
            out,
            "note: {}: {}",
            note.outcome,
            one_line(note.detail.as_deref().unwrap_or(""), fence)
        );
    }
    if doc.fetched_via == trawl_core::FetchedVia::Site {
        return;
    }
    for failed in site_reader_failures(&doc.attempts) {
        let reason = match &failed.detail {
            Some(detail) if !detail.starts_with(&failed.outcome) => {
                format!("{}: {detail}", failed.outcome)
            }
            Some(detail) => detail.clone(),
            None => failed.outcome.clone(),
        };
        let _ = writeln!(
            out,
            "via {} reader: {} → fetched the page instead",
            failed.reader,
            one_line(&reason, fence)
        );
    }
}

/// The attempts of site readers (`trawl sites`) that were sent and failed.
pub fn site_reader_failures(
    attempts: &[trawl_core::Attempt],
) -> impl Iterator<Item = &trawl_core::Attempt> {
    attempts.iter().filter(|a| {
        trawl_sites::by_name(&a.reader).is_some()
            && !matches!(a.outcome.as_str(), "ok" | "not_sent")
    })
}

/// trawl's own header of a page: its handle, URL and figures. The title is the page's
/// words, so it opens the fenced text instead ([`fenced_page`]).
fn page_header(out: &mut String, doc: &PageOut, fence: &Fence) {
    let _ = writeln!(out, "# {}", doc.handle);
    let _ = writeln!(out, "url: {}", doc.final_url);
    let _ = writeln!(
        out,
        "handle: {} · page {}/{} · {} words · via {} · quality {:.2}",
        doc.handle,
        doc.page,
        doc.pages,
        doc.word_count,
        serde_json::to_value(doc.fetched_via)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        doc.quality_score
    );
    reader_fallbacks(out, doc, fence);
    browser_lines(out, doc, fence);
    ocr_lines(out, doc);
}

/// How an image or a scan was read. Only figures trawl measured or parsed are shown here;
/// the camera's name is the file's own words and stays in the JSON.
fn ocr_lines(out: &mut String, doc: &PageOut) {
    if doc.ocr {
        let confidence = doc
            .ocr_confidence
            .map(|c| format!(", mean word confidence {c:.1} %"))
            .unwrap_or_default();
        let _ = writeln!(out, "ocr: read by tesseract{confidence}");
    }
    if let Some(image) = &doc.image {
        let mut line = format!(
            "image: {} × {} {}",
            image.width,
            image.height,
            image.format.to_uppercase()
        );
        if let Some(taken) = &image.taken {
            let _ = write!(line, " · taken {taken}");
        }
        if image.gps {
            line.push_str(" · records a GPS position (not shown)");
        }
        let _ = writeln!(out, "{line}");
    }
}

/// A read in the browser: the actions done and the screenshots taken (trawl's words),
/// then each `scrape` action's page, fenced like the page itself.
fn browser_lines(out: &mut String, doc: &PageOut, fence: &Fence) {
    let Some(browser) = &doc.browser else { return };
    if !browser.done.is_empty() {
        let _ = writeln!(
            out,
            "browser: {}",
            one_line(&browser.done.join("; "), fence)
        );
    }
    for shot in &browser.screenshots {
        let _ = write!(
            out,
            "screenshot: {}x{} PNG, {} bytes{}",
            shot.width,
            shot.height,
            shot.bytes,
            if shot.full_page { ", full page" } else { "" }
        );
        if let Some(height) = shot.cut_from {
            let _ = write!(out, " (cut at {} of {height} px)", shot.height);
        }
        if let Some(action) = shot.action {
            let _ = write!(out, " · action {action}");
        }
        out.push('\n');
    }
    for scrape in &browser.scrapes {
        let _ = writeln!(
            out,
            "scrape at action {}: {}",
            scrape.action,
            one_line(&scrape.url, fence)
        );
        out.push_str(&fence.wrap(&scrape.markdown));
        out.push('\n');
    }
}

/// What the page says of itself, shown above its text: title, author and date.
#[derive(Default)]
struct Masthead<'a> {
    title: Option<&'a str>,
    byline: Option<&'a str>,
    published: Option<&'a str>,
}

impl<'a> Masthead<'a> {
    fn of(doc: &'a PageOut) -> Self {
        Masthead {
            title: doc.title.as_deref(),
            byline: doc.byline.as_deref(),
            published: doc.published.as_deref(),
        }
    }
}

/// A page's masthead (each on one line) and text, in one fence: all of it came from the
/// page.
fn fenced_page(masthead: Masthead<'_>, markdown: &str, fence: &Fence) -> String {
    let mut head = String::new();
    for (label, value) in [
        ("title", masthead.title),
        ("by", masthead.byline),
        ("published", masthead.published),
    ] {
        if let Some(value) = value.filter(|v| !v.trim().is_empty()) {
            let _ = writeln!(head, "{label}: {}", one_line(value, fence));
        }
    }
    if head.is_empty() {
        fence.wrap(markdown)
    } else {
        fence.wrap(&format!("{head}\n{markdown}"))
    }
}

/// Who reads the hints outside the fence: an agent calls tools, a person types commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Voice {
    /// MCP: hints name tool calls (`web_open handle=… page=3`).
    Agent,
    /// The CLI: hints name commands (`trawl open HANDLE --page 3`).
    Person,
}

fn page_footer(out: &mut String, handle: &str, page: u32, pages: u32, voice: Voice) {
    if page < pages {
        let next = page + 1;
        let _ = match voice {
            Voice::Agent => writeln!(
                out,
                "More: web_open handle={handle} page={next} (of {pages}), or web_open handle={handle} find=<words>."
            ),
            Voice::Person => writeln!(
                out,
                "More: trawl open {handle} --page {next} (of {pages}), or trawl open {handle} --find WORDS."
            ),
        };
    }
}

/// A `web_fetch` answer: each document's header, fenced page, and where to go next.
pub fn fetch_markdown(out_data: &FetchOut, fence: &Fence) -> String {
    fetch_markdown_as(out_data, fence, Voice::Agent)
}

/// [`fetch_markdown`] with the hints spoken to `voice`.
pub fn fetch_markdown_as(out_data: &FetchOut, fence: &Fence, voice: Voice) -> String {
    let mut out = String::new();
    for item in &out_data.results {
        match (&item.document, &item.error) {
            (Some(doc), _) if doc.focus.is_some() => focused_document(&mut out, doc, fence, voice),
            (Some(doc), _) if doc.changes.is_some() => {
                tracked_document(&mut out, doc, fence, voice)
            }
            (Some(doc), _) => {
                page_header(&mut out, doc, fence);
                out.push_str(&fenced_page(Masthead::of(doc), &doc.markdown, fence));
                page_footer(&mut out, &doc.handle, doc.page, doc.pages, voice);
            }
            (None, Some(e)) => {
                let _ = writeln!(out, "# failed: {}", one_line(&item.input, fence));
                let _ = writeln!(out, "error[{}]: {}", e.code, one_line(&e.message, fence));
            }
            (None, None) => {}
        }
        out.push('\n');
    }
    for f in &out_data.folded {
        let _ = writeln!(out, "folded: {} is a near-duplicate of {}", f.url, f.into);
    }
    out
}

fn via(doc: &PageOut) -> String {
    serde_json::to_value(doc.fetched_via)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A query-focused read: what was given of how much, the passages (fenced), and how to
/// open what was left out.
fn focused_document(out: &mut String, doc: &PageOut, fence: &Fence, voice: Voice) {
    let Some(focus) = &doc.focus else { return };
    let _ = writeln!(out, "# {}", doc.handle);
    let _ = writeln!(out, "url: {}", doc.final_url);
    let _ = writeln!(
        out,
        "handle: {} · focused on \"{}\": {} of {} tokens, {} passage(s) · via {} · quality {:.2}",
        doc.handle,
        one_line(&focus.query, fence),
        focus.tokens,
        focus.document_tokens,
        focus.passages.len(),
        via(doc),
        doc.quality_score
    );
    reader_fallbacks(out, doc, fence);
    if !focus.matched {
        out.push_str("No passage holds a word of the query: the document's opening is given.\n");
    }
    out.push_str(&fenced_page(Masthead::of(doc), &doc.markdown, fence));
    if focus.left_out_tokens > 0 {
        let handle = &doc.handle;
        let _ = write!(
            out,
            "Left out: {} tokens ({} passage(s)), marked [… …] with their pages. ",
            focus.left_out_tokens, focus.left_out_passages
        );
        // A one-page document opens whole; "page N (of 1)" would only puzzle.
        let _ = match (voice, doc.pages) {
            (Voice::Agent, 0 | 1) => writeln!(
                out,
                "Open it whole: web_open handle={handle}, or web_open handle={handle} find=<words>."
            ),
            (Voice::Person, 0 | 1) => writeln!(
                out,
                "Open it whole: trawl open {handle}, or trawl open {handle} --find WORDS."
            ),
            (Voice::Agent, pages) => writeln!(
                out,
                "Open the rest: web_open handle={handle} page=N (of {pages}), or web_open handle={handle} find=<words>."
            ),
            (Voice::Person, pages) => writeln!(
                out,
                "Open the rest: trawl open {handle} --page N (of {pages}), or trawl open {handle} --find WORDS."
            ),
        };
    }
}

/// A change-tracking read: the status, then the new page (new) or the diff (changed),
/// fenced, and where the copies are.
fn tracked_document(out: &mut String, doc: &PageOut, fence: &Fence, voice: Voice) {
    let Some(changes) = &doc.changes else { return };
    let handle = &doc.handle;
    let open = |version: Option<u32>| match (voice, version) {
        (Voice::Agent, Some(v)) => format!("web_open handle={handle} version={v}"),
        (Voice::Agent, None) => format!("web_open handle={handle}"),
        (Voice::Person, Some(v)) => format!("trawl open {handle} --version {v}"),
        (Voice::Person, None) => format!("trawl open {handle}"),
    };
    let _ = writeln!(out, "# {handle}");
    let _ = writeln!(out, "url: {}", doc.final_url);
    let status = changes.change_status.as_str();
    let _ = writeln!(
        out,
        "handle: {handle} · change_status: {status} · version {} · {} words · via {}",
        changes.version,
        doc.word_count,
        via(doc)
    );
    reader_fallbacks(out, doc, fence);
    match changes.change_status {
        ChangeStatus::New => {
            let _ = writeln!(
                out,
                "First read of this page: stored as version {}.",
                changes.version
            );
            out.push_str(&fenced_page(Masthead::of(doc), &doc.markdown, fence));
            page_footer(out, handle, doc.page, doc.pages, voice);
        }
        ChangeStatus::Same => {
            let _ = writeln!(
                out,
                "Unchanged since the stored copy; read it with {}.",
                open(None)
            );
        }
        ChangeStatus::Removed => {
            let _ = writeln!(
                out,
                "The page is gone (404 or 410); the stored copy stays: {}.",
                open(None)
            );
        }
        ChangeStatus::Changed => {
            let _ = writeln!(
                out,
                "Changed: {} line(s) added, {} removed. The diff (stored copy → new copy):",
                changes.lines_added, changes.lines_removed
            );
            let diff = changes.diff.as_deref().unwrap_or("");
            // The page's own code fences must not close the diff's.
            let ticks = "`".repeat(longest_backtick_run(diff).max(2) + 1);
            let body = format!("{ticks}diff\n{}\n{ticks}", diff.trim_end());
            out.push_str(&fenced_page(Masthead::of(doc), &body, fence));
            let previous = match changes.previous_version {
                Some(v) => format!("; the one before: {}", open(Some(v))),
                None => "; the one before was not kept (this store keeps no versions)".to_owned(),
            };
            let _ = writeln!(out, "The new copy: {}{previous}.", open(None));
        }
    }
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// A `web_open` answer: a page, or the passages matching `find`.
pub fn open_markdown(data: &OpenOut, fence: &Fence) -> String {
    open_markdown_as(data, fence, Voice::Agent)
}

/// [`open_markdown`] with the hints spoken to `voice`.
pub fn open_markdown_as(data: &OpenOut, fence: &Fence, voice: Voice) -> String {
    let mut out = String::new();
    if let Some(passages) = &data.passages {
        let _ = writeln!(
            out,
            "Passages matching: {} ({} found{})",
            one_line(data.find.as_deref().unwrap_or(""), fence),
            passages.len(),
            match (&data.handle, &data.crawl) {
                (Some(h), _) => format!(" in {h}"),
                (None, Some(id)) => format!(" in the pages of crawl {}", one_line(id, fence)),
                (None, None) => " in every stored document".to_owned(),
            }
        );
        if passages.is_empty() {
            // Nothing to fence: say so, and how to look otherwise.
            out.push_str(match voice {
                Voice::Agent => "No passage holds these words. Try other words, or all=true.\n",
                Voice::Person => "No passage holds these words. Try other words, or --all.\n",
            });
            return out;
        }
        let mut body = String::new();
        // Best first: the rank says it. BM25 scores are only comparable within one
        // search and are tiny on a small store, so they are left to the JSON.
        for (rank, p) in passages.iter().enumerate() {
            // Which document, by its title and address (inside the fence: the site's words).
            let named = match (&p.title, &p.url) {
                (Some(t), Some(u)) => format!("{} · {u} · ", one_line(t, fence)),
                (None, Some(u)) => format!("{u} · "),
                _ => String::new(),
            };
            let _ = writeln!(
                body,
                "[#{} · {named}{} page {}]",
                rank + 1,
                p.handle,
                p.page
            );
            body.push_str(p.text.trim());
            body.push_str("\n\n");
        }
        out.push_str(&fence.wrap(&body));
        out.push_str(match voice {
            Voice::Agent => "Open a page: web_open handle=<handle> page=<page>.\n",
            Voice::Person => "Open a page: trawl open HANDLE --page N.\n",
        });
        return out;
    }
    let handle = data.handle.as_deref().unwrap_or("");
    let (page, pages) = (data.page.unwrap_or(1), data.pages.unwrap_or(1));
    let _ = writeln!(out, "# {handle}");
    if let Some(url) = &data.url {
        let _ = writeln!(out, "url: {url}");
    }
    match data.version {
        Some(v) => {
            let _ = writeln!(out, "handle: {handle} · version {v} · page {page}/{pages}");
        }
        None => {
            let _ = writeln!(out, "handle: {handle} · page {page}/{pages}");
        }
    }
    let masthead = Masthead {
        title: data.title.as_deref(),
        ..Masthead::default()
    };
    out.push_str(&fenced_page(
        masthead,
        data.markdown.as_deref().unwrap_or(""),
        fence,
    ));
    match data.version {
        Some(v) if page < pages => {
            let next = page + 1;
            let _ = match voice {
                Voice::Agent => writeln!(
                    out,
                    "More: web_open handle={handle} version={v} page={next} (of {pages})."
                ),
                Voice::Person => writeln!(
                    out,
                    "More: trawl open {handle} --version {v} --page {next} (of {pages})."
                ),
            };
        }
        Some(_) => {}
        None => page_footer(&mut out, handle, page, pages, voice),
    }
    out
}

/// The site memory: one line per site. Hosts come from URLs that were read, so they are
/// neutralized like any other web text shown outside a fence.
pub fn sites_markdown(data: &SitesOut, fence: &Fence) -> String {
    let mut out = String::new();
    if let Some(n) = data.forgotten {
        let _ = writeln!(out, "Forgot {n} site(s).");
    }
    // After a reset the list is what is left of the site reset, not the whole memory.
    if data.sites.is_empty() && data.forgotten.is_none() {
        out.push_str("No site is remembered.\n");
    }
    if !data.backing_off.is_empty() {
        out.push_str("Backing off (requests wait up to half the timeout, or are refused):\n");
        for b in &data.backing_off {
            let _ = writeln!(
                out,
                "- {}: until {} ({} s from now)",
                one_line(&b.host, fence),
                b.until,
                b.seconds_left
            );
        }
    }
    if !data.readers.is_empty() {
        // trawl's own table, not page text: outside the fence.
        out.push_str(
            "Site readers (chosen by URL before the generic tiers; `pin SITE http` reads a site generically):\n",
        );
        for r in &data.readers {
            let _ = writeln!(
                out,
                "- {}: {} → {}; needs {}; parser confidence {}",
                r.name, r.pattern, r.reads, r.needs, r.confidence
            );
        }
        if !data.sites.is_empty() {
            out.push_str("Remembered sites:\n");
        }
    }
    for s in &data.sites {
        let tiers: Vec<String> = s
            .tiers
            .iter()
            .map(|t| format!("{} {} ok, {} failed", t.reader, t.ok, t.failed))
            .collect();
        let _ = writeln!(
            out,
            "- {}: {}{}{}",
            one_line(&s.site, fence),
            s.reader,
            if s.pinned { " (pinned)" } else { "" },
            if tiers.is_empty() {
                String::new()
            } else {
                format!("; {}", tiers.join("; "))
            }
        );
    }
    out
}
