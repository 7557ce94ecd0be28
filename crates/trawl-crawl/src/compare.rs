//! A changes-crawl's part in the loop: how each page read compares with the old crawl's
//! copy (and so how it is kept), and at the end the old pages not read again and the counts.

use std::collections::HashSet;

use trawl_core::TrawlError;
use trawl_text::diff::ChangeStatus;

use crate::changes::{PageChange, change_note, summarize, unknown, unreached};
use crate::page::{Keep, Read};
use crate::report::{CrawlEvent, CrawlPage, Observer, emit};
use crate::run_state::State;

/// A changes-crawl's end: the old crawl's pages not read again are removed (only once the
/// crawl is done: a stopped one has not looked everywhere yet), then the counts, from
/// the changes kept beside the rows (so every worker and every resumption counts the same).
pub(crate) async fn compare_end(
    st: &mut State,
    observer: &Option<Observer>,
    done: bool,
) -> Result<(), TrawlError> {
    let Some(baseline) = st.baseline.clone() else {
        return Ok(());
    };
    let rows = st.journal.urls().await?;
    if done {
        let noted = st.journal.all_notes().await?;
        let noted: HashSet<&str> = noted
            .iter()
            .filter(|n| n.change.is_some())
            .map(|n| n.key.as_str())
            .collect();
        let removed = unreached(&baseline, &rows, &noted, st.summary.limit_reached);
        let notes = removed
            .iter()
            .map(|(row, change)| change_note(&row.key, &row.url, row.handle.as_deref(), change))
            .collect();
        st.journal
            .add(removed.iter().map(|(row, _)| row.clone()).collect())
            .await?;
        st.journal.notes(notes).await?;
        for (row, change) in removed {
            let page = CrawlPage {
                url: row.url,
                final_url: None,
                handle: row.handle,
                title: None,
                words: 0,
                depth: row.depth,
                http_status: None,
                status: "skipped",
                detail: row.detail,
                change: Some(change),
                diff: None,
            };
            let p = st.progress(0);
            emit(observer, CrawlEvent::Page(&page, &p));
        }
    } else {
        st.summary.notes.push(
            "the crawl did not finish: pages of the old crawl not read yet are not counted as removed"
                .into(),
        );
    }
    let notes = st.journal.all_notes().await?;
    let mut summary = summarize(&baseline.id, &notes);
    summary.unknown = unknown(&baseline, &rows, &notes);
    st.summary.changes = Some(summary);
    Ok(())
}

/// How a page read by a changes-crawl compares with the old crawl's copy, and so how it
/// is kept; a plain crawl stores it.
pub(crate) fn compared(st: &State, key: &str, read: &Read) -> (Keep, Option<PageChange>) {
    let Some(baseline) = &st.baseline else {
        // A plain crawl stores what it read; a 304 against an earlier crawl's copy only
        // renews that copy's times and validators.
        let how = if read.not_modified {
            Keep::Revalidate
        } else {
            Keep::Store
        };
        return (how, None);
    };
    let (how, status) = match &read.previous {
        _ if read.not_modified => (Keep::Revalidate, ChangeStatus::Same),
        Some(p) if p.content_hash == read.record.content_hash => (Keep::Store, ChangeStatus::Same),
        // The old copy is another URL's, which this one duplicated then: its versions are
        // that page's, not this one's.
        Some(p) if p.handle() != read.record.handle() => (Keep::Store, ChangeStatus::Changed),
        Some(p) => (Keep::Replace(p.clone()), ChangeStatus::Changed),
        // Its copy is no longer in the store: nothing to compare with.
        None if baseline.contains(key) => (Keep::Store, ChangeStatus::Changed),
        None => (Keep::Store, ChangeStatus::New),
    };
    (how, Some(PageChange::new(status)))
}

/// How a page read now as a duplicate (not stored) compares, when the old crawl met it too,
/// stored or as a duplicate: still on the site, `same` unless its content differs from the
/// old copy. `None` in a plain crawl, or for a URL the old crawl did not meet.
pub(crate) fn duplicate_change(st: &State, read: &Read) -> Option<PageChange> {
    st.baseline.as_ref()?;
    let previous = read.previous.as_ref()?;
    let same = read.not_modified || previous.content_hash == read.record.content_hash;
    Some(PageChange::new(if same {
        ChangeStatus::Same
    } else {
        ChangeStatus::Changed
    }))
}
