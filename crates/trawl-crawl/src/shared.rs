//! A crawl several processes work on (the store shares work: Redis). Its frontier is the
//! store's queue: each process claims URLs with a lease, renews the leases of the pages it
//! is fetching, and settles each page under its lease, so every URL is fetched by one
//! process. A process that dies stops renewing; its URLs go back to the queue when their
//! leases run out and another process claims them. Here: what the loop in `run.rs` asks of
//! the store beyond that — is the crawl over, and was a lapsed URL stored already.

use std::time::{Duration, SystemTime};

use trawl_core::TrawlError;
use trawl_store::{ClaimedUrl, SharedStore, UrlOutcome, UrlState};

use crate::journal::store_error;
use crate::report::CrawlPage;
use crate::run_state::State;

/// How long a worker that found nothing to claim waits before it asks again (others may
/// be adding links, or a lease may run out).
pub(crate) const CLAIM_AGAIN: Duration = Duration::from_millis(150);

/// Counts the store's URLs into the summary; `true` when the crawl is over for every
/// process: nothing is being fetched and nothing is queued (or the page limit is reached).
pub(crate) async fn finished(st: &mut State) -> Result<bool, TrawlError> {
    let counts = st.journal.counts().await?;
    let n = |state: UrlState| {
        counts
            .iter()
            .find(|(s, _)| *s == state)
            .map_or(0, |(_, n)| *n)
    };
    st.store_queued = n(UrlState::Queued);
    let limit = st.options.limit as u64;
    Ok(n(UrlState::Fetching) == 0 && (n(UrlState::Queued) == 0 || n(UrlState::Done) >= limit))
}

/// The summary's counts from the store (every process's pages), for the crawl's end.
pub(crate) async fn count_all(st: &mut State) -> Result<(), TrawlError> {
    let counts = st.journal.counts().await?;
    let n = |state: UrlState| {
        counts
            .iter()
            .find(|(s, _)| *s == state)
            .map_or(0, |(_, n)| *n)
    };
    st.summary.progress.done = n(UrlState::Done);
    st.summary.progress.failed = n(UrlState::Failed);
    st.store_queued = n(UrlState::Queued);
    Ok(())
}

/// A URL whose earlier lease ran out may have been stored by the process that held it
/// (killed between storing the page and settling it): its document, read by this crawl,
/// settles it as done without a second request. The page's links were queued before it
/// was stored, so nothing is lost.
pub(crate) async fn stored_already(
    st: &mut State,
    store: &SharedStore,
    claimed: &ClaimedUrl,
    created: SystemTime,
) -> Result<Option<CrawlPage>, TrawlError> {
    if !claimed.lapsed {
        return Ok(None);
    }
    let url = claimed.url.url.clone();
    let record = store
        .run(move |s| s.get_document_by_url(&url))
        .await
        .map_err(store_error)?;
    let Some(record) = record.filter(|r| r.fetched_at >= created) else {
        return Ok(None);
    };
    let d = &record.document;
    let page = CrawlPage {
        url: claimed.url.url.clone(),
        final_url: (d.final_url != claimed.url.url).then(|| d.final_url.clone()),
        handle: Some(d.handle.clone()),
        title: d.title.clone(),
        words: d.word_count as u64,
        depth: claimed.url.depth,
        http_status: d.status,
        status: "done",
        detail: None,
        change: None,
        diff: None,
    };
    let outcome = UrlOutcome {
        handle: page.handle.clone(),
        title: page.title.clone(),
        words: page.words,
        status: page.http_status,
        detail: None,
    };
    let key = claimed.url.key.clone();
    if st
        .journal
        .settle(key.clone(), UrlState::Done, outcome)
        .await?
    {
        st.seen.insert(key, UrlState::Done);
        st.summary.progress.done += 1;
        // Stored by a worker that died: folded by its hash (its words are not at hand).
        st.folder.keep(&claimed.url.url, &record.content_hash, None);
    }
    Ok(Some(page))
}
