//! Parts of the agent and the crawler built on first use.
//!
//! A command that only opens a stored document needs no HTTP client, no TLS
//! configuration and no search engines; building them anyway was most of what a short
//! command cost. Each part is built the first time a tool needs it, once, and shared by
//! every clone of the agent afterwards.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::TrawlError;

type Build<T> = Box<dyn FnOnce() -> Result<T, TrawlError> + Send>;

/// A value built by a closure the first time it is asked for. A failed build is not
/// retried: every later call gets the same error, as an eager build would have given.
pub struct Lazy<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    value: OnceLock<Result<T, TrawlError>>,
    build: Mutex<Option<Build<T>>>,
}

impl<T> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lazy")
            .field("built", &self.inner.value.get().is_some())
            .finish()
    }
}

impl<T> Lazy<T> {
    /// A value that `build` makes on first use.
    pub fn new(build: impl FnOnce() -> Result<T, TrawlError> + Send + 'static) -> Self {
        Self {
            inner: Arc::new(Inner {
                value: OnceLock::new(),
                build: Mutex::new(Some(Box::new(build))),
            }),
        }
    }

    /// A value that is already built.
    pub fn ready(value: T) -> Self {
        let cell = OnceLock::new();
        let _ = cell.set(Ok(value));
        Self {
            inner: Arc::new(Inner {
                value: cell,
                build: Mutex::new(None),
            }),
        }
    }

    /// The value, building it now if this is the first use.
    pub fn get(&self) -> Result<&T, TrawlError> {
        let result = self.inner.value.get_or_init(|| {
            let build = self
                .inner
                .build
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            match build {
                Some(build) => build(),
                None => Err(TrawlError::internal("a lazily built part was lost")),
            }
        });
        result.as_ref().map_err(Clone::clone)
    }

    /// The value if it has been built (without building it).
    pub fn built(&self) -> Option<&T> {
        self.inner.value.get().and_then(|r| r.as_ref().ok())
    }

    /// Whether the value has been built (or its build failed).
    pub fn is_built(&self) -> bool {
        self.inner.value.get().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn builds_once_on_first_use_and_shares_with_clones() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&calls);
        let lazy = Lazy::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(42)
        });
        let clone = lazy.clone();
        assert!(!lazy.is_built());
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert_eq!(*clone.get().unwrap(), 42);
        assert_eq!(*lazy.get().unwrap(), 42);
        assert!(lazy.is_built());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_failed_build_keeps_its_error() {
        let lazy: Lazy<u8> = Lazy::new(|| Err(TrawlError::invalid_input("bad proxy")));
        assert_eq!(lazy.get().unwrap_err().message, "bad proxy");
        assert_eq!(lazy.get().unwrap_err().message, "bad proxy");
        assert_eq!(*Lazy::ready(7u8).get().unwrap(), 7);
    }
}
