//! CPU-heavy work (extraction, PDF text, passage splitting) off the async workers: it runs
//! on tokio's blocking threads, at most one job per core at a time, so a batch read keeps
//! every core busy while a 10 MB page or a slow PDF never stalls `/healthz` or other calls.

use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Default `AgentConfig::extract_memory_bytes` (trawl-agent): what the extraction jobs of one
/// process may hold at once, by their estimated cost (1 GiB).
pub const DEFAULT_EXTRACT_MEMORY_BYTES: u64 = 1 << 30;

/// Admits extraction jobs by estimated memory, so that concurrent jobs (two PDFs, say)
/// never add up to more than the process may hold: a job waits until its cost is free. A
/// job costing more than the whole gate waits for all of it. Cheap to clone.
#[derive(Debug, Clone)]
pub struct MemoryGate {
    /// One permit per KiB; `None` admits everything.
    kib: Option<(Arc<Semaphore>, u32)>,
}

impl MemoryGate {
    /// A gate of `bytes` (0: no gate).
    pub fn new(bytes: u64) -> Self {
        let total = u32::try_from((bytes / 1024).max(1)).unwrap_or(u32::MAX >> 3);
        MemoryGate {
            kib: (bytes > 0).then(|| (Arc::new(Semaphore::new(total as usize)), total)),
        }
    }

    /// Wait until `cost` bytes are free; they are held until the permit is dropped.
    pub async fn admit(&self, cost: u64) -> Option<OwnedSemaphorePermit> {
        let (gate, total) = self.kib.as_ref()?;
        let want = u32::try_from(cost.div_ceil(1024))
            .unwrap_or(u32::MAX)
            .clamp(1, *total);
        gate.clone().acquire_many_owned(want).await.ok()
    }

    /// Bytes free now (for tests and metrics).
    pub fn available(&self) -> Option<u64> {
        self.kib
            .as_ref()
            .map(|(gate, _)| gate.available_permits() as u64 * 1024)
    }
}

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
