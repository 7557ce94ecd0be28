//! Older copies of documents: what a change-tracking read (`trawl read --changes`) keeps
//! of a page before it replaces the stored copy with a changed one, so the agent can open
//! what the page said before (`trawl open HANDLE --version N`).
//!
//! Versions of a handle are numbered from 1 in the order they were kept, and numbers are
//! never reused: the copy in the documents table is always the newest, one past the last
//! kept number. At most [`MAX_VERSIONS`] older copies are kept per handle (the oldest go
//! first), and they go with their document (deleted, evicted, pruned or cleared).
//!
//! A backend offers them through [`Store::versions`](crate::Store::versions); one that
//! does not answers `None`, and a change-tracking read there keeps no older copy.

use std::time::SystemTime;

use crate::{DocumentRecord, Result};

/// Older copies kept per handle.
pub const MAX_VERSIONS: u32 = 10;

/// One kept older copy, without its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionInfo {
    /// Its number (1 = the first kept).
    pub version: u32,
    /// When the origin answered for that copy.
    pub fetched_at: SystemTime,
    /// [`content_hash`](crate::content_hash) of its Markdown.
    pub content_hash: String,
}

/// The version calls of a store. Each is one short transaction.
pub trait VersionStore: Send + Sync {
    /// Keeps `record` as the next older copy of its handle and returns its number; drops
    /// the oldest copies beyond [`MAX_VERSIONS`].
    fn put_version(&self, record: &DocumentRecord) -> Result<u32>;

    /// Older copy `version` of `handle`, if it is kept.
    fn get_version(&self, handle: &str, version: u32) -> Result<Option<DocumentRecord>>;

    /// Every kept older copy of `handle`, oldest first.
    fn list_versions(&self, handle: &str) -> Result<Vec<VersionInfo>>;
}
