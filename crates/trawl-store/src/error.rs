//! The store's one error type.

/// A boxed backend error, kept as a source so the cause chain survives.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What can go wrong in a store call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store could not be opened or created. Check the path (`--store`,
    /// `TRAWL_STORE`), that its directory is writable, and that the file is a trawl store.
    /// `source` says which: usually one of the faults below.
    #[error("cannot open the store at {location}: {source}")]
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
    /// The store's file is not a database, or is damaged.
    #[error(
        "it is corrupt (not a trawl store, or damaged); move it aside, or check it with `trawl cache doctor`"
    )]
    Corrupt(#[source] BoxError),
    /// The store's path names something that is not a file (a directory, say).
    #[error("it is not a file ({what}); point --store or TRAWL_STORE at a file")]
    NotAFile {
        /// What is there instead.
        what: &'static str,
    },
    /// The store (its file, or the directory a new one would go in) cannot be written.
    #[error("it is read-only ({0})")]
    ReadOnly(String),
    /// The disk (or the store's size limit in the backend) is full.
    #[error("its disk is full ({0})")]
    DiskFull(#[source] BoxError),
    /// The shared store (Redis) does not answer: a connect was refused or timed out, or a
    /// connection dropped. Calls fail at once while it stays down, and the next one after
    /// it is back succeeds, so retrying later may work. Check that redis-server is running
    /// and reachable.
    #[error(
        "the store at {location} does not answer (down for {:.1} s: {cause})",
        down_for.as_secs_f64()
    )]
    Unavailable {
        /// The URL, credentials masked.
        location: String,
        /// How long it has not answered.
        down_for: std::time::Duration,
        /// The last failure, in the driver's words.
        cause: String,
    },
    /// Any other failure of the backend (I/O, a lost task).
    #[error("store backend failed: {0}")]
    Backend(#[source] BoxError),
}

impl Error {
    /// Whether the same call may succeed if tried again later.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::Busy | Error::Unavailable { .. })
    }

    /// Whether the store did not answer at all (a shared Redis gone away), as opposed to
    /// answering with a fault: a read goes on from the network, and what needed the store
    /// may be asked again later.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Error::Unavailable { .. })
    }

    /// Why the store cannot be used, as a short stable word (`corrupt`, `not_a_file`,
    /// `read_only`, `disk_full`), looking through [`Error::Open`]; `None` for other errors.
    pub fn fault(&self) -> Option<&'static str> {
        match self {
            Error::Corrupt(_) => Some("corrupt"),
            Error::NotAFile { .. } => Some("not_a_file"),
            Error::ReadOnly(_) => Some("read_only"),
            Error::DiskFull(_) => Some("disk_full"),
            Error::Open { source, .. } => source.downcast_ref::<Error>().and_then(Error::fault),
            _ => None,
        }
    }

    /// Whether the store can (perhaps) still be read but cannot take writes: a read may
    /// answer without keeping what it read.
    pub fn is_unwritable(&self) -> bool {
        matches!(self.fault(), Some("read_only" | "disk_full"))
    }

    /// Whether a read may still answer with a store private to this run standing in: the
    /// store cannot take writes, or its file is corrupt. What was read is then not kept,
    /// and the answer says so. (A path that is not a file is a setting to fix: it fails.)
    pub fn is_unusable_for_writes(&self) -> bool {
        matches!(self.fault(), Some("read_only" | "disk_full" | "corrupt"))
    }
}
