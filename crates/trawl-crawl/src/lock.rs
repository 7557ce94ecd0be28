//! Locking the crawl's shared state so that a panic elsewhere does not make it unusable.

/// A mutex's guard whether or not a thread panicked while holding it: the crawl's shared
/// state (its writer's first error, the running crawls, URLs waiting for their rows) stays
/// usable after a task's panic, which is reported where it happened.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
