//! A changes-crawl (`trawl crawl --changes ID`): the site crawled again with an ended
//! crawl's options, every page compared with what that crawl stored. A page is `new` (not
//! in the old crawl), `same` (a 304 to a conditional request, or the same Markdown),
//! `changed` (the stored copy kept as an older version first, as `read --changes` keeps
//! it, and a line diff answered), or `removed` (404/410 now, or no longer reached; its
//! stored copy stays).
//!
//! A 304 has no body to find links in, so every crawl keeps each page's links beside its
//! row ([`PageNotes`]); a page the old crawl kept no links for is fetched in full. Each
//! page's change is kept beside its row too, so a resumed changes-crawl, and every worker
//! of a shared one, counts the same.
//!
//! Here is what is kept and compared (the old crawl's pages, the notes, the counts);
//! `compare.rs` is the crawl loop's part, `Crawler::changes_options` sets one up.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use trawl_core::{ErrorCode, TrawlError, canonical_url};
use trawl_fetch::Conditional;
use trawl_store::{
    CrawlUrl, DocumentRecord, KeptLink, KeptLinks, PageNotes, SharedStore, UrlState,
};
use trawl_text::diff::ChangeStatus;
use url::Url;

use crate::change_summary::{ChangeSummary, RemovedPage};
use crate::dedup::duplicated_url;
use crate::journal::store_error;
use crate::links::{Link, PageLinks};

/// Links kept per page (the rest are left to the full fetch a later crawl makes when the
/// page changes).
const MAX_KEPT_LINKS: usize = 2_000;

/// URLs named per kind in a summary (the counts cover all of them).
const MAX_LISTED: usize = 100;

/// The old crawl's pages, by canonical key.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    /// The crawl compared with.
    pub(crate) id: String,
    /// Key → (URL, handle) of every page it stored.
    pages: HashMap<String, (String, String)>,
    /// Key → the key of the stored page it was a duplicate of: which of two URLs carrying
    /// one page is stored depends on which answered first, so it may flip between crawls.
    duplicates: HashMap<String, String>,
}

/// What the old crawl stored of one page, read before the page is fetched again.
pub(crate) struct Previous {
    pub(crate) record: DocumentRecord,
    /// Its links, when the old crawl kept them.
    pub(crate) links: Option<PageLinks>,
}

impl Previous {
    /// The validators to ask with: only when the links are kept too (a 304 must be able
    /// to go on crawling from them).
    pub(crate) fn conditional(&self) -> Conditional {
        if self.links.is_none() {
            return Conditional::default();
        }
        Conditional {
            etag: self.record.etag.clone(),
            last_modified: self.record.last_modified.clone(),
        }
    }
}

/// One page's change, shown with it (and kept beside its row, with its URL).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageChange {
    /// new, same, changed or removed.
    pub change_status: ChangeStatus,
    /// Changed: lines only in the new copy.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lines_added: u32,
    /// Changed: lines only in the old copy.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lines_removed: u32,
    /// Changed: the version number the old copy was kept as (`open HANDLE --version N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version: Option<u32>,
    /// Removed: why (gone from the site, or no longer reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A change as kept beside its row: with the page's URL, for the summary's lists.
#[derive(Serialize, Deserialize)]
struct KeptChange {
    url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    handle: Option<String>,
    #[serde(flatten)]
    change: PageChange,
}

impl PageChange {
    pub(crate) fn new(status: ChangeStatus) -> Self {
        PageChange {
            change_status: status,
            lines_added: 0,
            lines_removed: 0,
            previous_version: None,
            why: None,
        }
    }
}

impl Baseline {
    /// The pages crawl `id` stored; refuses a crawl unknown or still running.
    pub(crate) async fn load(store: &SharedStore, id: &str) -> Result<Baseline, TrawlError> {
        let key = id.to_owned();
        let rows = store
            .run(move |s| {
                let Some(c) = s.crawl_state() else {
                    return Ok(None);
                };
                let done = c.crawl_urls(&key, &[UrlState::Done], 0, 0)?;
                let skipped = c.crawl_urls(&key, &[UrlState::Skipped], 0, 0)?;
                Ok(Some((done, skipped)))
            })
            .await
            .map_err(store_error)?
            .ok_or_else(|| {
                TrawlError::invalid_input(
                    "this store does not keep crawls, so none can be compared",
                )
            })?;
        let (done, skipped) = rows;
        let pages: HashMap<String, (String, String)> = done
            .into_iter()
            .filter_map(|r| Some((r.key, (r.url, r.handle?))))
            .collect();
        let duplicates = skipped
            .into_iter()
            .filter_map(|r| {
                let original = duplicated_url(r.detail.as_deref()?)?;
                let original = canonical_url(&Url::parse(original).ok()?).to_string();
                pages.contains_key(&original).then_some((r.key, original))
            })
            .collect();
        Ok(Baseline {
            id: id.to_owned(),
            pages,
            duplicates,
        })
    }

    pub(crate) fn contains(&self, key: &str) -> bool {
        self.pages.contains_key(key)
    }

    pub(crate) fn handle(&self, key: &str) -> Option<&str> {
        self.pages.get(key).map(|(_, h)| h.as_str())
    }

    /// The stored copy of the old crawl's page `key`, with its links; for a page the old
    /// crawl met as a duplicate, the copy of the page it duplicated, without links (so not
    /// asked for conditionally: the validators are another URL's). `None` for a page the
    /// old crawl did not meet, or whose copy is no longer in the store.
    pub(crate) async fn previous(
        &self,
        store: &SharedStore,
        key: &str,
    ) -> Result<Option<Previous>, TrawlError> {
        if let Some(original) = self.duplicates.get(key) {
            let Some((_, handle)) = self.pages.get(original) else {
                return Ok(None);
            };
            let handle = handle.clone();
            let record = store
                .run(move |s| s.get_document(&handle))
                .await
                .map_err(store_error)?;
            return Ok(record.map(|record| Previous {
                record,
                links: None,
            }));
        }
        let Some((_, handle)) = self.pages.get(key) else {
            return Ok(None);
        };
        let (id, key, handle) = (self.id.clone(), key.to_owned(), handle.clone());
        let (record, notes) = store
            .run(move |s| {
                let record = s.get_document(&handle)?;
                let notes = match s.crawl_state() {
                    Some(c) => c.page_notes(&id, std::slice::from_ref(&key))?,
                    None => Vec::new(),
                };
                Ok((record, notes))
            })
            .await
            .map_err(store_error)?;
        let links = notes
            .into_iter()
            .next()
            .and_then(|n| n.links)
            .map(links_from_note);
        Ok(record.map(|record| Previous { record, links }))
    }
}

/// A page's links as kept, for a later changes-crawl to go on from after a `304`: those
/// `keep` wants (the crawl's own site: others are never followed) and the canonical URL.
/// `None` for a page that sent no validators: it is never asked for conditionally, so
/// never answers `304`, and its links are read from it again. The store packs them (on
/// SQLite, by reference to each distinct link of the crawl).
pub(crate) fn links_note(
    links: &PageLinks,
    validated: bool,
    keep: impl Fn(&Url) -> bool,
) -> Option<KeptLinks> {
    if !validated {
        return None;
    }
    // Anchor text comes whitespace-collapsed, so the search (memchr's, where `replace` with
    // a set of chars stepped a char at a time: 1 % of a crawl's CPU) seldom finds one.
    let one_line = |s: &str| match memchr::memchr3(b'\t', b'\n', b'\r', s.as_bytes()) {
        None => s.to_owned(),
        Some(_) => s.replace(['\t', '\n', '\r'], " "),
    };
    let mut kept = Vec::with_capacity(links.links.len().min(MAX_KEPT_LINKS));
    kept.extend(
        links
            .links
            .iter()
            .filter(|l| keep(&l.url))
            .take(MAX_KEPT_LINKS)
            .map(|l| KeptLink {
                url: l.url.as_str().to_owned(),
                text: one_line(&l.text),
            }),
    );
    Some(KeptLinks {
        canonical: links.canonical.as_ref().map(|c| c.as_str().to_owned()),
        links: kept,
    })
}

fn links_from_note(kept: KeptLinks) -> PageLinks {
    PageLinks {
        links: kept
            .links
            .into_iter()
            .filter_map(|l| {
                Some(Link {
                    url: Url::parse(&l.url).ok()?,
                    text: l.text,
                })
            })
            .collect(),
        canonical: kept.canonical.and_then(|c| Url::parse(&c).ok()),
        feeds: Vec::new(),
    }
}

/// The note that keeps `change` of page `url` (stored under `handle`) beside row `key`.
pub(crate) fn change_note(
    key: &str,
    url: &str,
    handle: Option<&str>,
    change: &PageChange,
) -> PageNotes {
    let kept = KeptChange {
        url: url.to_owned(),
        handle: handle.map(str::to_owned),
        change: change.clone(),
    };
    PageNotes {
        key: key.to_owned(),
        links: None,
        change: serde_json::to_value(kept).ok(),
    }
}

/// Whether a failed fetch says the page is gone (404 or 410).
pub(crate) fn gone(e: &TrawlError) -> bool {
    e.code == ErrorCode::NotFound
}

/// Rows and changes for the old crawl's pages this crawl did not read: never reached (no
/// longer linked, or past the page limit), or reached but not read (robots.txt, a filter).
/// A page read now as a duplicate has its change noted already (`noted`): it is still on
/// the site. Their stored copies stay; the rows carry the old handles.
pub(crate) fn unreached(
    baseline: &Baseline,
    rows: &[CrawlUrl],
    noted: &HashSet<&str>,
    limit_reached: bool,
) -> Vec<(CrawlUrl, PageChange)> {
    let by_key: HashMap<&str, &CrawlUrl> = rows.iter().map(|r| (r.key.as_str(), r)).collect();
    let mut out = Vec::new();
    let mut keys: Vec<&String> = baseline.pages.keys().collect();
    keys.sort();
    for key in keys {
        let (url, handle) = &baseline.pages[key];
        let why = match by_key.get(key.as_str()) {
            None if limit_reached => "not reached: the page limit was reached first".to_owned(),
            None => "no longer linked from the pages crawled".to_owned(),
            Some(r)
                if r.state == UrlState::Skipped
                    && r.handle.is_none()
                    && !noted.contains(key.as_str()) =>
            {
                format!("not read now: {}", r.detail.as_deref().unwrap_or("skipped"))
            }
            Some(_) => continue,
        };
        let row = crate::journal::skipped_row(
            key.clone(),
            url.clone(),
            0,
            handle.clone(),
            format!("removed: {why}"),
        );
        let mut change = PageChange::new(ChangeStatus::Removed);
        change.why = Some(why);
        out.push((row, change));
    }
    out
}

/// The counts and lists of a changes-crawl, from the changes kept beside its rows.
pub(crate) fn summarize(compared_with: &str, notes: &[PageNotes]) -> ChangeSummary {
    let mut s = ChangeSummary {
        compared_with: compared_with.to_owned(),
        ..ChangeSummary::default()
    };
    let mut seen = HashSet::new();
    for n in notes {
        let Some(KeptChange {
            url,
            handle,
            change,
        }) = n
            .change
            .as_ref()
            .and_then(|c| serde_json::from_value::<KeptChange>(c.clone()).ok())
        else {
            continue;
        };
        if !seen.insert(n.key.clone()) {
            continue;
        }
        match change.change_status {
            ChangeStatus::New => s.new += 1,
            ChangeStatus::Same => s.same += 1,
            ChangeStatus::Changed => {
                s.changed += 1;
                if s.changed_urls.len() < MAX_LISTED {
                    s.changed_urls.push(url);
                }
            }
            ChangeStatus::Removed => {
                s.removed += 1;
                if s.removed_pages.len() < MAX_LISTED {
                    s.removed_pages.push(RemovedPage {
                        url,
                        handle,
                        why: change.why.unwrap_or_default(),
                    });
                }
            }
        }
    }
    s
}

/// The changes kept for `keys` of crawl `id` (all when empty), by key.
pub async fn page_changes(
    store: &SharedStore,
    id: &str,
    keys: Vec<String>,
) -> Result<HashMap<String, PageChange>, TrawlError> {
    let id = id.to_owned();
    let notes = store
        .run(move |s| match s.crawl_state() {
            Some(c) => c.page_notes(&id, &keys),
            None => Ok(Vec::new()),
        })
        .await
        .map_err(store_error)?;
    Ok(notes
        .into_iter()
        .filter_map(|n| {
            let kept: KeptChange = serde_json::from_value(n.change?).ok()?;
            Some((n.key, kept.change))
        })
        .collect())
}

/// How many of the old crawl's pages failed now with no change noted (not a 404/410).
pub(crate) fn unknown(baseline: &Baseline, rows: &[CrawlUrl], notes: &[PageNotes]) -> u64 {
    let noted: HashSet<&str> = notes
        .iter()
        .filter(|n| n.change.is_some())
        .map(|n| n.key.as_str())
        .collect();
    rows.iter()
        .filter(|r| {
            r.state == UrlState::Failed
                && baseline.contains(&r.key)
                && !noted.contains(r.key.as_str())
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &str, state: UrlState, handle: Option<&str>, detail: Option<&str>) -> CrawlUrl {
        CrawlUrl {
            key: key.into(),
            url: key.into(),
            depth: 1,
            priority: 0.0,
            run: 0,
            state,
            handle: handle.map(Into::into),
            title: None,
            words: 0,
            status: None,
            detail: detail.map(Into::into),
        }
    }

    #[test]
    fn links_survive_being_kept() {
        let base = Url::parse("https://example.com/").unwrap();
        let links = PageLinks {
            links: vec![Link {
                url: base.join("/a").unwrap(),
                text: "A page".into(),
            }],
            canonical: Some(base.clone()),
            feeds: Vec::new(),
        };
        let back = links_from_note(links_note(&links, true, |_| true).unwrap());
        let none = links_from_note(links_note(&links, true, |_| false).unwrap());
        assert!(none.links.is_empty());
        assert_eq!(back.links, links.links);
        assert_eq!(back.canonical, links.canonical);
        // A page that sent no validators never answers 304: nothing is kept.
        assert!(links_note(&links, false, |_| true).is_none());
        // Anchor text with a tab or a line break stays one line.
        let odd = PageLinks {
            links: vec![Link {
                url: base.join("/b").unwrap(),
                text: "two\tparts\nand\rlines".into(),
            }],
            canonical: None,
            feeds: Vec::new(),
        };
        let back = links_from_note(links_note(&odd, true, |_| true).unwrap());
        assert_eq!(back.links.len(), 1);
        assert_eq!(back.links[0].text, "two parts and lines");
        assert_eq!(back.canonical, None);
    }

    #[test]
    fn pages_not_read_again_are_removed_and_say_why() {
        let mut baseline = Baseline {
            id: "c-old".into(),
            ..Baseline::default()
        };
        for k in ["https://x/a", "https://x/b", "https://x/c", "https://x/d"] {
            baseline
                .pages
                .insert(k.into(), (k.into(), format!("h-{k}")));
        }
        let rows = vec![
            row("https://x/a", UrlState::Done, Some("h"), None),
            row("https://x/b", UrlState::Failed, Some("h"), None),
            row(
                "https://x/c",
                UrlState::Skipped,
                None,
                Some("disallowed by robots.txt"),
            ),
        ];
        let out = unreached(&baseline, &rows, &HashSet::new(), false);
        let whys: Vec<(&str, &str)> = out
            .iter()
            .map(|(r, c)| (r.key.as_str(), c.why.as_deref().unwrap()))
            .collect();
        assert_eq!(
            whys,
            [
                ("https://x/c", "not read now: disallowed by robots.txt"),
                ("https://x/d", "no longer linked from the pages crawled"),
            ]
        );
        assert_eq!(out[1].0.handle.as_deref(), Some("h-https://x/d"));
        let limited = unreached(&baseline, &rows, &HashSet::new(), true);
        // A page read now as a duplicate, its change noted: not removed.
        let noted = HashSet::from(["https://x/c"]);
        let kept = unreached(&baseline, &rows, &noted, false);
        assert_eq!(
            kept.len(),
            1,
            "{:?}",
            kept.iter().map(|(r, _)| &r.key).collect::<Vec<_>>()
        );
        assert!(limited[1].1.why.as_deref().unwrap().contains("page limit"));
        // /b failed: unknown, unless its failure was noted as removed (a 404).
        assert_eq!(unknown(&baseline, &rows, &[]), 1);
        let gone = change_note(
            "https://x/b",
            "https://x/b",
            None,
            &PageChange::new(ChangeStatus::Removed),
        );
        assert_eq!(unknown(&baseline, &rows, &[gone]), 0);
    }

    #[test]
    fn the_summary_counts_each_page_once() {
        let mut changed = PageChange::new(ChangeStatus::Changed);
        changed.lines_added = 2;
        let notes: Vec<PageNotes> = [
            ("a", PageChange::new(ChangeStatus::New)),
            ("b", changed),
            ("c", PageChange::new(ChangeStatus::Same)),
            ("c", PageChange::new(ChangeStatus::Same)),
        ]
        .iter()
        .map(|(k, c)| change_note(k, &format!("https://x/{k}"), None, c))
        .collect();
        let s = summarize("c-old", &notes);
        assert_eq!((s.new, s.same, s.changed, s.removed), (1, 1, 1, 0));
        assert_eq!(s.changed_urls, ["https://x/b"]);
    }
}
