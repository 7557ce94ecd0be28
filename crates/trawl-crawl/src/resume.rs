//! What a crawl picks up from the store when it resumes (or a replica joins it): its rows
//! back in the frontier and the seen set, the counts its earlier runs kept in its summary,
//! and the pages it stored in its near-duplicate index.

use std::collections::HashSet;
use std::time::SystemTime;

use serde::Deserialize;
use trawl_core::TrawlError;
use trawl_store::{CrawlUrl, SharedStore, UrlOutcome, UrlState};
use url::Url;

use crate::run_state::State;

/// Rows left `queued` or `fetching` by a crawl that was killed: those whose document this
/// crawl already stored are done (the kill came between storing and marking); the rest
/// go back to the frontier.
pub(crate) async fn restore(
    st: &mut State,
    store: &SharedStore,
    rows: Vec<CrawlUrl>,
    created: SystemTime,
) -> Result<(), TrawlError> {
    let fetching: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r.state == UrlState::Fetching)
        .map(|r| (r.key.clone(), r.url.clone()))
        .collect();
    let stored: Vec<(String, UrlOutcome)> = store
        .run(move |s| {
            let mut out = Vec::new();
            for (key, url) in fetching {
                if let Some(rec) = s.get_document_by_url(&url)?
                    && rec.fetched_at >= created
                {
                    let d = &rec.document;
                    out.push((
                        key,
                        UrlOutcome {
                            handle: Some(d.handle.clone()),
                            title: d.title.clone(),
                            words: d.word_count as u64,
                            status: d.status,
                            detail: None,
                        },
                    ));
                }
            }
            Ok(out)
        })
        .await
        .map_err(crate::journal::store_error)?;
    let mut done_now: HashSet<String> = HashSet::new();
    for (key, outcome) in stored {
        st.journal
            .set(vec![key.clone()], UrlState::Done, outcome)
            .await?;
        done_now.insert(key);
    }
    // The rest of those being fetched are queued again, in the store too: a URL the
    // frontier spills is read back from the store's queued rows.
    let again: Vec<String> = rows
        .iter()
        .filter(|r| r.state == UrlState::Fetching && !done_now.contains(&r.key))
        .map(|r| r.key.clone())
        .collect();
    if !again.is_empty() {
        st.journal
            .set(again, UrlState::Queued, UrlOutcome::default())
            .await?;
    }
    for row in rows {
        let state = if done_now.contains(&row.key) {
            UrlState::Done
        } else if row.state == UrlState::Fetching {
            UrlState::Queued
        } else {
            row.state
        };
        match state {
            UrlState::Done => st.summary.progress.done += 1,
            UrlState::Failed => st.summary.progress.failed += 1,
            UrlState::Queued => {
                if let Ok(url) = Url::parse(&row.url) {
                    st.queue(row.key, url, row.depth, row.priority, row.run);
                    continue;
                }
            }
            _ => {}
        }
        st.seen.insert(row.key, state);
    }
    st.forget_written();
    if let Some(record) = st.journal.record().await? {
        carry_counts(st, &record.summary);
    }
    refold(st, store).await
}

/// What an earlier run counted as it met URLs and pages, from the summary it kept: a
/// resumed run does not meet them again (its pages done and failed are counted from the
/// rows instead).
#[derive(Deserialize, Default)]
#[serde(default)]
struct EarlierCounts {
    progress: EarlierProgress,
    beyond_depth: u64,
    off_site: u64,
    filtered: u64,
    disallowed: u64,
    traps: u64,
    trap_examples: Vec<String>,
    over_budget: u64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EarlierProgress {
    duplicates: u64,
}

fn carry_counts(st: &mut State, summary: &serde_json::Value) {
    let Ok(earlier) = EarlierCounts::deserialize(summary) else {
        return;
    };
    // The note an earlier run gave when it stopped keeping URLs, which this one would not.
    let budget_note =
        (earlier.over_budget > 0 && st.summary.over_budget == 0).then(|| st.over_budget_note());
    let s = &mut st.summary;
    s.progress.duplicates += earlier.progress.duplicates;
    s.beyond_depth += earlier.beyond_depth;
    s.off_site += earlier.off_site;
    s.filtered += earlier.filtered;
    s.disallowed += earlier.disallowed;
    s.traps += earlier.traps;
    s.trap_examples.extend(earlier.trap_examples);
    s.trap_examples.truncate(crate::run_state::TRAP_EXAMPLES);
    s.over_budget += earlier.over_budget;
    s.notes.extend(budget_note);
}

/// The pages a resumed crawl stored before it stopped join its near-duplicate index again
/// (it lives in memory only), so a copy of one of them met after the resume still folds.
pub(crate) async fn refold(st: &mut State, store: &SharedStore) -> Result<(), TrawlError> {
    let done: Vec<(String, String)> = st
        .journal
        .done_pages()
        .await?
        .into_iter()
        .filter_map(|u| u.handle.map(|h| (u.url, h)))
        .collect();
    // One store call a batch: signatures cost about half a millisecond a page, off the
    // async workers.
    for batch in done.chunks(256) {
        let batch = batch.to_vec();
        let kept = store
            .run(move |s| {
                let mut out: Vec<(String, String, _)> = Vec::with_capacity(batch.len());
                for (url, handle) in batch {
                    if let Some(rec) = s.get_document(&handle)? {
                        let d = &rec.document;
                        let signature =
                            crate::dedup::signature_of_markdown(&d.markdown, d.word_count);
                        out.push((url, rec.content_hash, signature));
                    }
                }
                Ok(out)
            })
            .await
            .map_err(crate::journal::store_error)?;
        for (url, hash, signature) in kept {
            st.folder.keep(&url, &hash, signature.as_deref());
        }
    }
    Ok(())
}
