//! One page of a stored document, as `web_fetch` and `web_open` answer it.

use trawl_core::TrawlError;

use super::{FocusOut, PageOut, invalid};
use crate::focus;
use trawl_text::cpu;
use trawl_text::pager::{DEFAULT_PAGE_TOKENS, Pages};

/// One page of a stored document.
pub(crate) fn page_out(
    record: &trawl_store::DocumentRecord,
    from_store: bool,
    page: u32,
    page_tokens: u32,
) -> Result<PageOut, TrawlError> {
    let doc = &record.document;
    let pages = Pages::new(&doc.markdown, page_tokens as usize);
    let count = pages.count() as u32;
    let this = pages.get(page as usize).ok_or_else(|| {
        invalid(
            "page",
            format!(
                "{} has {count} page(s) at this page size; asked for page {page}",
                doc.handle
            ),
        )
    })?;
    Ok(PageOut {
        handle: doc.handle.clone(),
        url: doc.url.clone(),
        final_url: doc.final_url.clone(),
        title: doc.title.clone(),
        byline: doc.byline.clone(),
        published: doc.published.clone(),
        language: doc.language.clone(),
        site_name: doc.site_name.clone(),
        description: doc.description.clone(),
        page_type: doc.page_type,
        quality_score: doc.quality_score,
        word_count: doc.word_count,
        fetched_via: doc.fetched_via,
        status: doc.status,
        content_type: doc.content_type.clone(),
        canonical_url: doc.canonical_url.clone(),
        json_ld: doc.json_ld.clone(),
        attempts: doc.attempts.clone(),
        from_store,
        page,
        pages: count,
        markdown: this.text.to_owned(),
        focus: None,
        changes: None,
        browser: None,
        ocr: doc.ocr,
        ocr_confidence: doc.ocr_confidence,
        image: doc.image.clone(),
    })
}

/// A query-focused read of a stored document: the figures of its page 1 at the default
/// page size (so the passages' page numbers are pages `web_open` opens), and the passages
/// that best match `query` within `max_tokens` as its Markdown.
pub(crate) async fn focused_page_out(
    record: &trawl_store::DocumentRecord,
    from_store: bool,
    query: &str,
    max_tokens: u32,
) -> Result<PageOut, TrawlError> {
    let mut out = page_out(record, from_store, 1, DEFAULT_PAGE_TOKENS as u32)?;
    let (markdown, q) = (record.document.markdown.clone(), query.to_owned());
    // Splitting and ranking passages is CPU work: off the async workers.
    let focused = cpu::run(move || focus::focus(&markdown, &q, max_tokens as usize)).await;
    out.focus = Some(FocusOut::new(query, max_tokens, &focused));
    out.markdown = focused.markdown;
    Ok(out)
}
