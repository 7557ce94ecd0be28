//! The store's one error type.

/// A boxed backend error, kept as a source so the cause chain survives.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What can go wrong in a store call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store could not be opened or created. Check the path (`--store`,
    /// `TRAWL_STORE`), that its directory is writable, and that the file is a trawl store.
    #[error("cannot open store at {location}")]
    Open {
        /// The path (or URL) that was opened.
        location: String,
        /// What went wrong underneath.
        #[source]
        source: BoxError,
    },
    /// The store was written by a newer trawl. Upgrade, or point `--store` elsewhere.
    #[error("store schema version {found} is newer than this trawl understands ({supported})")]
    SchemaTooNew {
        /// The store's schema version.
        found: u32,
        /// The newest version this build knows.
        supported: u32,
    },
    /// Another writer held the store for longer than the busy timeout. Retrying may work.
    #[error("store is busy: another writer held it past the busy timeout")]
    Busy,
    /// A find query with no words in it.
    #[error("find query has no words to search for")]
    EmptyQuery,
    /// A stored value did not decode (written by an incompatible version, or damaged).
    #[error("stored {what} could not be decoded")]
    Decode {
        /// What was being decoded (`document`, `search result`, `key state`).
        what: &'static str,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// Any other failure of the backend (I/O, corruption, a lost task).
    #[error("store backend failed")]
    Backend(#[source] BoxError),
}

impl Error {
    /// Whether the same call may succeed if tried again later.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::Busy)
    }
}
