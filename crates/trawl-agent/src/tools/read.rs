//! The read pipeline for one URL: store → (conditional) fetch → extract → fallback readers
//! → store. Every step's outcome is kept in the Document's `attempts`.

use std::time::{Duration, SystemTime};

use trawl_core::{Attempt, Document, ErrorCode, TrawlError, TriedFirst, handle_for_url};
use trawl_extract::extract;
use trawl_fetch::{Conditional, FetchedPage, Tier};
use trawl_store::{DocumentRecord, Revalidation};
use url::Url;

use super::readers::{self, ReaderKind};
use super::types::store_error;
use super::{Agent, NotStored};
use trawl_text::{cpu, passages};

/// A document as the tools use it, and whether it came from the store without a request.
pub(crate) struct Read {
    pub record: DocumentRecord,
    pub from_store: bool,
    /// Why the read was not kept, when the store could not take it.
    pub not_stored: Option<NotStored>,
}

/// The attempt recorded when the store did not answer: the page was read from the
/// network and may not be kept (its handle may not open later).
fn store_unavailable(why: String) -> Attempt {
    attempt("store", STORE_UNAVAILABLE, Some(why))
}

/// The outcome of a store that did not answer, as attempts and `meta` carry it.
pub const STORE_UNAVAILABLE: &str = "store_unavailable";

/// Errors after which a hosted reader may still get the page.
fn worth_a_fallback(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Blocked
            | ErrorCode::RateLimited
            | ErrorCode::HttpError
            | ErrorCode::Timeout
            | ErrorCode::Upstream
    )
}

pub(crate) fn attempt(reader: &str, outcome: &str, detail: Option<String>) -> Attempt {
    Attempt {
        reader: reader.to_owned(),
        outcome: outcome.to_owned(),
        detail,
    }
}

impl Agent {
    /// Is this document too thin to be the page's main content?
    fn too_thin(&self, doc: &Document) -> bool {
        doc.markdown.trim().chars().count() < self.config.min_chars
            || doc.quality_score < self.config.min_quality
    }

    /// Read `raw` (a URL as given), using the store when it can.
    pub(crate) async fn read_url(&self, raw: &str, fresh: bool) -> Result<Read, TrawlError> {
        // Refuse bad and forbidden URLs before looking anything up.
        let url = self.guard.check_raw(raw, None)?;
        let key = url.to_string();
        // A store that does not answer (a shared Redis gone away) must not stop reads: the
        // page is read from the network and the answer says the store was unavailable.
        let mut store_trouble: Option<String> = None;
        let stored = match self.store.run(move |s| s.get_document_by_url(&key)).await {
            Ok(stored) => stored,
            Err(e) if self.config.offline => return Err(store_error(e)),
            Err(e) => {
                store_trouble = Some(store_error(e).message);
                None
            }
        };
        let now = SystemTime::now();
        // A copy read with the other comments choice is not this read's answer (offline,
        // it is still the only one there is).
        let wanted_comments = self.config.extract.include_comments;
        let stored =
            stored.filter(|r| self.config.offline || r.document.with_comments == wanted_comments);
        if self.config.offline {
            return match stored {
                Some(record) => Ok(Read {
                    record,
                    from_store: true,
                    not_stored: None,
                }),
                None => Err(TrawlError::new(
                    ErrorCode::NotFound,
                    format!("{url} is not in the store (offline mode)"),
                )),
            };
        }
        if let Some(record) = &stored
            && !fresh
            && record.is_fresh(now)
        {
            return Ok(Read {
                record: record.clone(),
                from_store: true,
                not_stored: None,
            });
        }
        // Stale copy with validators: ask the origin whether it changed.
        if let Some(record) =
            stored.filter(|r| !fresh && (r.etag.is_some() || r.last_modified.is_some()))
        {
            let conditional = Conditional {
                etag: record.etag.clone(),
                last_modified: record.last_modified.clone(),
            };
            if let Ok(page) = self
                .page_fetcher()?
                .fetch_conditional(url.as_str(), &conditional)
                .await
                && page.not_modified()
            {
                let handle = record.document.handle.clone();
                let revalidation = Revalidation {
                    fetched_at: now,
                    expires_at: None,
                    etag: page.etag.clone(),
                    last_modified: page.last_modified.clone(),
                };
                let mut record = record;
                let revalidated = self
                    .store
                    .run(move |s| s.revalidate_document(&handle, &revalidation))
                    .await;
                let mut not_stored = self.store_note.clone();
                if let Err(e) = revalidated {
                    match NotStored::from_store_error(&e) {
                        // The store holds the page but cannot take writes: say so.
                        Some(note) => not_stored = Some(note),
                        // The store did not answer (a shared Redis gone away).
                        None => {
                            record.document.attempts =
                                vec![store_unavailable(store_error(e).message)];
                            return Ok(Read {
                                record,
                                from_store: true,
                                not_stored: None,
                            });
                        }
                    }
                }
                record.fetched_at = now;
                record.document.attempts = vec![attempt("http", "not_modified", None)];
                return Ok(Read {
                    record,
                    from_store: true,
                    not_stored,
                });
            }
        }
        let mut record = self.read_fresh(&url).await?;
        // A store that cannot take writes (read-only, disk full) gives a `not_stored` note;
        // one that does not answer at all gives a `store_unavailable` attempt. Either way
        // the page is returned.
        let not_stored = match self.put(&record).await {
            Ok(()) => self.store_note.clone(),
            Err(e) => match NotStored::from_store_error(&e) {
                Some(note) => Some(note),
                None => {
                    store_trouble.get_or_insert(store_error(e).message);
                    None
                }
            },
        };
        if let Some(why) = store_trouble {
            record.document.attempts.push(store_unavailable(why));
        }
        Ok(Read {
            record,
            from_store: false,
            not_stored,
        })
    }

    /// Read with the site memory: start where the last success for this site started (or
    /// where the user pinned it), and remember what worked this time.
    async fn read_fresh(&self, url: &Url) -> Result<DocumentRecord, TrawlError> {
        self.read_fresh_with(url, None).await
    }

    /// [`Self::read_fresh`], with the answer to a request already made (a conditional one
    /// that the origin answered in full): it stands in for the plain tier's fetch.
    pub(crate) async fn read_fresh_with(
        &self,
        url: &Url,
        prefetched: Option<FetchedPage>,
    ) -> Result<DocumentRecord, TrawlError> {
        let site = url.host_str().unwrap_or("").to_owned();
        let key = site.clone();
        let remembered = self
            .store
            .run(move |s| s.get_site_reader(&key))
            .await
            .ok()
            .flatten();
        let pinned = remembered.as_ref().is_some_and(|r| r.pinned);
        let start = remembered.map(|r| r.reader);
        let record = self
            .read_pipeline(url, start.as_deref(), pinned, prefetched)
            .await?;
        let counted = super::sites::counted_attempts(&record.document.attempts);
        let winner = record
            .document
            .attempts
            .iter()
            .rev()
            .find(|a| a.outcome == "ok")
            .map(|a| a.reader.clone())
            .filter(|w| !pinned && start.as_deref() != Some(w.as_str()));
        if !counted.is_empty() || winner.is_some() {
            // One trip to the store for both. Losing a count only makes `trawl sites` a
            // little less exact; losing the winner only costs one extra attempt next time.
            let _ = self
                .store
                .run(move |s| {
                    if !counted.is_empty() {
                        let _ = s.count_site_attempts(&site, &counted);
                    }
                    if let Some(winner) = winner {
                        let _ = s.put_site_reader(&site, &winner);
                    }
                    Ok(())
                })
                .await;
        }
        Ok(record)
    }

    /// A fetched page as a Document: a login wall is refused, not read; extraction (PDF
    /// text included) is CPU work, run off the async workers within the memory budget.
    pub(crate) async fn extract_fetched(
        &self,
        url: &Url,
        page: &FetchedPage,
    ) -> Result<Document, TrawlError> {
        // A login or "open in app" wall is not the page's content.
        if let Some(wall) = trawl_sites::login_wall(&page.final_url, &page.body) {
            return Err(TrawlError::new(
                ErrorCode::Blocked,
                format!("blocked: login wall ({wall}) at {}", page.final_url),
            ));
        }
        let (body, content_type, final_url) = (
            page.body.clone(),
            page.content_type.clone(),
            page.final_url.clone(),
        );
        let options = self.config.extract.clone();
        let cost = trawl_extract::estimated_memory(&body, content_type.as_deref(), &options);
        let admitted = self.memory.admit(cost).await;
        let mut doc = cpu::run(move || {
            // Held until the job ends, even if the call that asked for it is gone.
            let _admitted = admitted;
            test_hold(&final_url);
            extract(&body, content_type.as_deref(), &final_url, &options)
        })
        .await?;
        doc.url = url.to_string();
        doc.final_url = page.final_url.to_string();
        doc.handle = handle_for_url(&page.final_url);
        doc.status = Some(page.status);
        doc.fetched_via = page.via;
        doc.content_type = page.content_type.clone();
        doc.with_comments = self.config.extract.include_comments;
        Ok(doc)
    }

    /// Fetch and extract, then fall back to hosted readers when that failed or is thin.
    async fn read_pipeline(
        &self,
        url: &Url,
        remembered: Option<&str>,
        pinned: bool,
        prefetched: Option<FetchedPage>,
    ) -> Result<DocumentRecord, TrawlError> {
        let mut attempts = Vec::new();
        // Ways of reading that failed before the last one: causes of the error, if any.
        let mut failed: Vec<TriedFirst> = Vec::new();
        if let Some(record) = self
            .site_reader(url, remembered, pinned, &mut attempts, &mut failed)
            .await?
        {
            return Ok(record);
        }
        let disclosure = readers::Disclosure::assess(self.fetcher.get()?, url, &self.readers).await;
        // A site where a hosted reader worked last time gets that reader first.
        let first_reader = remembered
            .and_then(ReaderKind::parse)
            .and_then(|k| self.readers.iter().find(|r| r.kind == k))
            .filter(|r| disclosure.refusal(r).is_none());
        if let Some(reader) = first_reader {
            match readers::read_with(self.http.get()?, reader, url, self.config.reader_timeout)
                .await
            {
                Ok(page) if page.markdown.trim().chars().count() >= self.config.min_chars => {
                    attempts.push(attempt(
                        reader.kind.name(),
                        "ok",
                        Some(
                            if pinned {
                                "pinned for this site"
                            } else {
                                "remembered for this site"
                            }
                            .into(),
                        ),
                    ));
                    let doc = self.reader_document(url, reader.kind, page, attempts);
                    return Ok(self.record(doc, None));
                }
                Ok(_) => attempts.push(attempt(reader.kind.name(), "too_thin", None)),
                Err(e) => {
                    attempts.push(attempt(
                        reader.kind.name(),
                        e.code.as_str(),
                        Some(e.message.clone()),
                    ));
                    failed.push(hosted_reader_failed(reader.kind, e));
                }
            }
        }
        let tier = match remembered {
            Some("impersonate") => Tier::Impersonate,
            Some("render") => Tier::Render,
            _ => Tier::Plain,
        };
        let local: Result<(Document, FetchedPage), TrawlError> = async {
            let page = match prefetched.filter(|_| tier == Tier::Plain) {
                Some(page) => page,
                None => {
                    self.read_fetcher(tier)?
                        .fetch_from(url.as_str(), &Conditional::default(), tier)
                        .await?
                }
            };
            let doc = self.extract_fetched(url, &page).await?;
            Ok((doc, page))
        }
        .await;
        let local = match local {
            Ok((mut doc, page)) => {
                attempts.extend(page.attempts.iter().cloned());
                if !self.too_thin(&doc) || self.readers.is_empty() {
                    doc.attempts = attempts;
                    doc.attempts.extend(super::thin::note(&doc));
                    return Ok(self.record(doc, Some(&page)));
                }
                attempts.push(attempt(
                    "extract",
                    "too_thin",
                    Some(format!(
                        "{} chars, quality {:.2}",
                        doc.markdown.trim().chars().count(),
                        doc.quality_score
                    )),
                ));
                Some((doc, page))
            }
            Err(e) => {
                attempts.push(attempt("http", e.code.as_str(), Some(e.message.clone())));
                if !worth_a_fallback(e.code) || self.readers.is_empty() {
                    return Err(with_failures(e, failed));
                }
                failed.push(TriedFirst {
                    tried: "the page fetch".to_owned(),
                    error: e,
                });
                None
            }
        };
        for reader in self
            .readers
            .iter()
            .filter(|r| Some(r.kind) != first_reader.map(|f| f.kind))
        {
            let name = reader.kind.name();
            if let Some(why) = disclosure.refusal(reader) {
                attempts.push(attempt(name, "not_sent", Some(why)));
                continue;
            }
            match readers::read_with(self.http.get()?, reader, url, self.config.reader_timeout)
                .await
            {
                Ok(page)
                    if page.markdown.trim().chars().count()
                        >= self.config.min_chars.min(
                            local
                                .as_ref()
                                .map_or(usize::MAX, |(d, _)| d.markdown.trim().chars().count() + 1),
                        ) =>
                {
                    attempts.push(attempt(name, "ok", None));
                    let doc = self.reader_document(url, reader.kind, page, attempts);
                    return Ok(self.record(doc, None));
                }
                Ok(_) => attempts.push(attempt(name, "too_thin", None)),
                Err(e) => {
                    attempts.push(attempt(name, e.code.as_str(), Some(e.message.clone())));
                    failed.push(hosted_reader_failed(reader.kind, e));
                }
            }
        }
        match local {
            // Every reader failed: the thin local copy is still the best there is.
            Some((mut doc, page)) => {
                doc.attempts = attempts;
                doc.attempts.extend(super::thin::note(&doc));
                Ok(self.record(doc, Some(&page)))
            }
            None => {
                let first = attempts.first().cloned();
                let code = first
                    .as_ref()
                    .and_then(|a| error_code(&a.outcome))
                    .unwrap_or(ErrorCode::Upstream);
                let summary: Vec<String> = attempts
                    .iter()
                    .map(|a| {
                        format!(
                            "{}: {}{}",
                            a.reader,
                            a.outcome,
                            a.detail
                                .as_deref()
                                .map(|d| format!(" ({d})"))
                                .unwrap_or_default()
                        )
                    })
                    .collect();
                Err(with_failures(
                    TrawlError::new(
                        code,
                        format!("every reader failed for {url}: {}", summary.join("; ")),
                    ),
                    failed,
                ))
            }
        }
    }

    /// The fetcher of a read's own fetch starting at `tier`: one from the plain tier keeps
    /// an error status's page where [`Agent::keeping_error_pages`] asked (the page a plain
    /// fetch with error pages would answer; another tier's answer may differ from it).
    fn read_fetcher(&self, tier: Tier) -> Result<trawl_fetch::Fetcher, TrawlError> {
        let fetcher = self.page_fetcher()?;
        Ok(match &self.kept_error_page {
            Some(keep) if tier == Tier::Plain => fetcher.keeping_error_pages(keep.clone()),
            _ => fetcher,
        })
    }

    fn reader_document(
        &self,
        url: &Url,
        kind: ReaderKind,
        page: readers::ReaderPage,
        attempts: Vec<Attempt>,
    ) -> Document {
        let final_url = page
            .final_url
            .as_deref()
            .and_then(|u| Url::parse(u).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .unwrap_or_else(|| url.clone());
        let markdown = page.markdown.trim().to_owned();
        let mut doc = Document {
            url: url.to_string(),
            handle: handle_for_url(&final_url),
            final_url: final_url.to_string(),
            title: page.title,
            word_count: markdown.split_whitespace().count(),
            // The reader chose the main content; trawl cannot score it further.
            quality_score: 0.6,
            text: String::new(),
            markdown,
            fetched_via: kind.fetched_via(),
            content_type: Some("text/markdown".to_owned()),
            attempts,
            // The hosted reader chose what to keep; the copy answers the read that asked.
            with_comments: self.config.extract.include_comments,
            ..Document::default()
        };
        doc.cap_metadata();
        doc
    }

    fn record(&self, document: Document, page: Option<&FetchedPage>) -> DocumentRecord {
        let mut record = DocumentRecord::new(document, SystemTime::now());
        if let Some(page) = page {
            record.etag = page.etag.clone();
            record.last_modified = page.last_modified.clone();
        }
        record
    }

    pub(crate) async fn save(&self, record: &DocumentRecord) -> Result<(), TrawlError> {
        self.put(record).await.map_err(store_error)
    }

    /// Keep `record`; when the store cannot take writes (read-only, disk full) the read
    /// still answers, with the note that says why it was not kept.
    pub(crate) async fn save_or_note(
        &self,
        record: &DocumentRecord,
    ) -> Result<Option<NotStored>, TrawlError> {
        match self.put(record).await {
            Ok(()) => Ok(self.store_note.clone()),
            Err(e) => match NotStored::from_store_error(&e) {
                Some(note) => Ok(Some(note)),
                None => Err(store_error(e)),
            },
        }
    }

    pub(crate) async fn put(&self, record: &DocumentRecord) -> Result<(), trawl_store::Error> {
        let mut record = record.clone();
        // The store keeps Markdown; plain text is derived on demand.
        record.document.text.clear();
        self.store
            .run(move |s| {
                // Splitting is CPU work too; it runs here, on the store's blocking thread.
                let passages = passages::for_store(
                    record.document.title.as_deref(),
                    &record.document.markdown,
                );
                s.put_document(&record, &passages)
            })
            .await
    }

    /// A stored document by handle.
    pub(crate) async fn stored(&self, handle: &str) -> Result<DocumentRecord, TrawlError> {
        let h = handle.to_owned();
        self.store
            .run(move |s| s.get_document(&h))
            .await
            .map_err(store_error)?
            .ok_or_else(|| {
                TrawlError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no stored document with handle {handle}; read it first with web_fetch"
                    ),
                )
            })
    }
}

/// `error`, with the ways of reading that failed before it kept as its causes, in the
/// order they were tried.
fn with_failures(error: TrawlError, failed: Vec<TriedFirst>) -> TrawlError {
    failed.into_iter().fold(error, TrawlError::caused_by)
}

fn hosted_reader_failed(kind: ReaderKind, error: TrawlError) -> TriedFirst {
    TriedFirst {
        tried: format!("hosted reader `{}`", kind.name()),
        error,
    }
}

fn error_code(name: &str) -> Option<ErrorCode> {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
}

/// How long a hosted reader may take.
pub(crate) const DEFAULT_READER_TIMEOUT: Duration = Duration::from_secs(30);

/// Test hook, in debug builds only (the ones `cargo test` runs): when
/// `TRAWL_TEST_HOLD_EXTRACT` names a FIFO and the page's path contains `hold`, that
/// extraction blocks until a writer has opened the FIFO and closed it again. Tests use it
/// to hold one extraction in place (no timer) and check that the server still answers
/// everything else. A release build has no such hook.
fn test_hold(url: &url::Url) {
    #[cfg(debug_assertions)]
    if url.path().contains("hold")
        && let Some(fifo) = std::env::var_os(trawl_core::vars::TEST_HOLD_EXTRACT)
    {
        let _ = std::fs::read(fifo);
    }
    #[cfg(not(debug_assertions))]
    let _ = url;
}
