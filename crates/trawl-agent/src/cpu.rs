//! CPU-heavy work (extraction, PDF text, passage splitting) off the async workers: it runs
//! on tokio's blocking threads, at most one job per core at a time, so a batch read keeps
//! every core busy while a 10 MB page or a slow PDF never stalls `/healthz` or other calls.

use std::sync::{Arc, OnceLock};

use tokio::sync::Semaphore;

/// One slot per core.
fn slots() -> &'static Arc<Semaphore> {
    static SLOTS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    SLOTS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Arc::new(Semaphore::new(cores))
    })
}

/// Run `work` on the blocking pool once a core's slot is free; a panic in it is re-raised
/// here.
pub async fn run<T, F>(work: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let slot = slots().clone().acquire_owned().await;
    let job = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        work()
    });
    match job.await {
        Ok(value) => value,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("a CPU job was cancelled: {e}"),
    }
}

/// Test hook: when `TRAWL_TEST_HOLD_EXTRACT` names a FIFO and the page's path contains
/// `hold`, the extraction blocks until a writer has opened the FIFO and closed it again.
/// Tests use it to hold one extraction in place (no timer) and check that the server still
/// answers everything else.
pub(crate) fn test_hold(url: &url::Url) {
    if !url.path().contains("hold") {
        return;
    }
    if let Some(fifo) = std::env::var_os(trawl_core::vars::TEST_HOLD_EXTRACT) {
        let _ = std::fs::read(fifo);
    }
}

/// Run a synchronous store call from async code without stalling the worker it is on: on
/// a multi-threaded runtime the worker hands its other tasks to a new one first.
pub fn blocking_in_place<T>(call: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(call)
        }
        _ => call(),
    }
}
