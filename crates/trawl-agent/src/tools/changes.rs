//! Change tracking for `web_fetch changes=true`: read a page again (a conditional request
//! first, when the stored copy has validators), tell `new`, `same`, `changed` or `removed`,
//! diff the Markdown against the stored copy, and keep that copy as an older version
//! before the new one replaces it. The stored copy is never lost: a page gone from its
//! origin keeps it, and a copy that cannot be kept as a version is not replaced.

use std::time::{SystemTime, UNIX_EPOCH};

use trawl_core::{ErrorCode, TrawlError};
use trawl_fetch::Conditional;
use trawl_store::{DocumentRecord, Revalidation};

use super::read::{Read, attempt};
use super::types::store_error;
use super::{Agent, ChangesOut, NotStored};
use trawl_text::diff::ChangeStatus;
use trawl_text::{cpu, diff, passages};

/// A change-tracking read: the document as it now stands and what changed.
pub(crate) struct Tracked {
    pub read: Read,
    pub changes: ChangesOut,
}

fn changes(status: ChangeStatus, version: u32, previous: Option<&DocumentRecord>) -> ChangesOut {
    ChangesOut {
        change_status: status,
        version,
        previous_version: None,
        previous_fetched_at: previous.map(|p| {
            p.fetched_at
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        }),
        diff: None,
        lines_added: 0,
        lines_removed: 0,
    }
}

impl Agent {
    /// Reads `raw` again and says how it changed since the stored copy.
    pub(crate) async fn read_changes(&self, raw: &str) -> Result<Tracked, TrawlError> {
        if self.config.offline {
            return Err(TrawlError::invalid_input(
                "changes: needs the network, and this read is offline",
            ));
        }
        let url = self.guard.check_raw(raw, None)?;
        let key = url.to_string();
        let stored = self
            .store
            .run(move |s| s.get_document_by_url(&key))
            .await
            .map_err(store_error)?;
        let Some(previous) = stored else {
            let read = self.read_url(raw, true).await?;
            let version = self.current_version(read.record.handle()).await?;
            return Ok(Tracked {
                read,
                changes: changes(ChangeStatus::New, version, None),
            });
        };
        let mut prefetched = None;
        if previous.etag.is_some() || previous.last_modified.is_some() {
            let conditional = Conditional {
                etag: previous.etag.clone(),
                last_modified: previous.last_modified.clone(),
            };
            match self
                .fetcher()?
                .fetch_conditional(url.as_str(), &conditional)
                .await
            {
                Ok(page) if page.not_modified() => {
                    let revalidation = Revalidation {
                        fetched_at: SystemTime::now(),
                        expires_at: None,
                        etag: page.etag.clone(),
                        last_modified: page.last_modified.clone(),
                    };
                    return self.unchanged(previous, revalidation).await;
                }
                Ok(page) => prefetched = Some(page),
                Err(e) if e.code == ErrorCode::NotFound => return self.removed(previous).await,
                // The full read below tries every tier and reader.
                Err(_) => {}
            }
        }
        let record = match self.read_fresh_with(&url, prefetched).await {
            Ok(record) => record,
            Err(e) if e.code == ErrorCode::NotFound => return self.removed(previous).await,
            Err(e) => return Err(e),
        };
        if record.content_hash == previous.content_hash {
            // Same words under new validators: keep those.
            let not_stored = self.save_or_note(&record).await?;
            let version = self.current_version(record.handle()).await?;
            return Ok(Tracked {
                changes: changes(ChangeStatus::Same, version, Some(&previous)),
                read: Read {
                    record,
                    from_store: false,
                    not_stored,
                },
            });
        }
        let (kept, not_stored) = self.replace_keeping(&previous, &record).await?;
        let (old, new) = (
            previous.document.markdown.clone(),
            record.document.markdown.clone(),
        );
        let handle = record.handle().to_owned();
        let version = kept.map_or(1, |k| k + 1);
        let (old_name, new_name) = (
            match kept {
                Some(k) => format!("{}@v{k}", previous.handle()),
                None => format!("{} (stored)", previous.handle()),
            },
            format!("{handle}@v{version}"),
        );
        let diff = cpu::run(move || diff::unified(&old, &new, &old_name, &new_name)).await;
        let mut out = changes(ChangeStatus::Changed, version, Some(&previous));
        out.previous_version = kept;
        out.lines_added = u32::try_from(diff.added).unwrap_or(u32::MAX);
        out.lines_removed = u32::try_from(diff.removed).unwrap_or(u32::MAX);
        out.diff = Some(diff.unified);
        Ok(Tracked {
            read: Read {
                record,
                from_store: false,
                not_stored,
            },
            changes: out,
        })
    }

    /// The number the stored copy of `handle` has: one past the last older copy kept.
    async fn current_version(&self, handle: &str) -> Result<u32, TrawlError> {
        let handle = handle.to_owned();
        let last = self
            .store
            .run(move |s| match s.versions() {
                Some(v) => Ok(v.list_versions(&handle)?.last().map(|v| v.version)),
                None => Ok(None),
            })
            .await
            .map_err(store_error)?;
        Ok(last.map_or(1, |n| n + 1))
    }

    /// A 304: the stored copy is current; it gets the new times and validators.
    async fn unchanged(
        &self,
        mut previous: DocumentRecord,
        revalidation: Revalidation,
    ) -> Result<Tracked, TrawlError> {
        let handle = previous.handle().to_owned();
        let fetched_at = revalidation.fetched_at;
        let revalidated = self
            .store
            .run(move |s| s.revalidate_document(&handle, &revalidation))
            .await;
        let not_stored = match revalidated {
            Ok(_) => self.store_note.clone(),
            Err(e) => Some(NotStored::from_store_error(&e).ok_or_else(|| store_error(e))?),
        };
        let version = self.current_version(previous.handle()).await?;
        let out = changes(ChangeStatus::Same, version, Some(&previous));
        previous.fetched_at = fetched_at;
        previous.document.attempts = vec![attempt("http", "not_modified", None)];
        Ok(Tracked {
            read: Read {
                record: previous,
                from_store: true,
                not_stored,
            },
            changes: out,
        })
    }

    /// A 404 or 410: the page is gone; its stored copy stays as it was.
    async fn removed(&self, mut previous: DocumentRecord) -> Result<Tracked, TrawlError> {
        let version = self.current_version(previous.handle()).await?;
        let out = changes(ChangeStatus::Removed, version, Some(&previous));
        previous.document.attempts = vec![attempt("http", "not_found", None)];
        Ok(Tracked {
            read: Read {
                record: previous,
                from_store: true,
                not_stored: None,
            },
            changes: out,
        })
    }

    /// Keeps `previous` as an older version, then stores `record` in its place, in one trip
    /// to the store. Returns the version number `previous` got (`None` when the store keeps
    /// no versions) and, when the store cannot be written, why nothing was replaced.
    async fn replace_keeping(
        &self,
        previous: &DocumentRecord,
        record: &DocumentRecord,
    ) -> Result<(Option<u32>, Option<NotStored>), TrawlError> {
        let (previous, mut record) = (previous.clone(), record.clone());
        // The store keeps Markdown; plain text is derived on demand.
        record.document.text.clear();
        let replaced = self
            .store
            .run(move |s| {
                let kept = match s.versions() {
                    Some(v) => Some(v.put_version(&previous)?),
                    None => None,
                };
                let passages = passages::for_store(
                    record.document.title.as_deref(),
                    &record.document.markdown,
                );
                s.put_document(&record, &passages)?;
                Ok(kept)
            })
            .await;
        match replaced {
            Ok(kept) => Ok((kept, self.store_note.clone())),
            Err(e) => match NotStored::from_store_error(&e) {
                Some(note) => Ok((None, Some(note))),
                None => Err(store_error(e)),
            },
        }
    }
}
