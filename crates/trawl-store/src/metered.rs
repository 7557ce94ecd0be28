//! A [`Store`] wrapper that times every call and counts failures, for `/metrics`.
//!
//! The figures are process-wide (one store per process), so the HTTP server can render
//! them without being handed the store: [`render_metrics`].

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::{
    CachedSearch, DocumentRecord, FindScope, KeyState, Passage, PassageHit, PruneReport, Result,
    Revalidation, Section, SiteReader, Store, StoreStats, TierStat,
};

/// Upper bounds of the store-call latency buckets, in seconds.
const BUCKETS: [f64; 10] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5,
];

#[derive(Debug)]
struct Figures {
    backend: OnceLock<&'static str>,
    calls: AtomicU64,
    errors: AtomicU64,
    /// Non-cumulative count per bucket; the last is `+Inf`.
    buckets: [AtomicU64; BUCKETS.len() + 1],
    micros_sum: AtomicU64,
}

static FIGURES: Figures = Figures {
    backend: OnceLock::new(),
    calls: AtomicU64::new(0),
    errors: AtomicU64::new(0),
    buckets: [const { AtomicU64::new(0) }; BUCKETS.len() + 1],
    micros_sum: AtomicU64::new(0),
};

fn observe(elapsed: Duration, failed: bool) {
    let secs = elapsed.as_secs_f64();
    let slot = BUCKETS
        .iter()
        .position(|le| secs <= *le)
        .unwrap_or(BUCKETS.len());
    FIGURES.buckets[slot].fetch_add(1, Ordering::Relaxed);
    FIGURES.calls.fetch_add(1, Ordering::Relaxed);
    FIGURES
        .micros_sum
        .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    if failed {
        FIGURES.errors.fetch_add(1, Ordering::Relaxed);
    }
}

/// The store's latency histogram and error count in the Prometheus text format, or an
/// empty string when no [`MeteredStore`] was made in this process.
pub fn render_metrics() -> String {
    let Some(backend) = FIGURES.backend.get() else {
        return String::new();
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# HELP trawl_store_call_seconds Latency of store calls.\n# TYPE trawl_store_call_seconds histogram"
    );
    let mut cumulative = 0;
    for (i, le) in BUCKETS.iter().enumerate() {
        cumulative += FIGURES.buckets[i].load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "trawl_store_call_seconds_bucket{{backend=\"{backend}\",le=\"{le}\"}} {cumulative}"
        );
    }
    let calls = FIGURES.calls.load(Ordering::Relaxed);
    let sum = FIGURES.micros_sum.load(Ordering::Relaxed) as f64 / 1e6;
    let _ = writeln!(
        out,
        "trawl_store_call_seconds_bucket{{backend=\"{backend}\",le=\"+Inf\"}} {calls}\n\
         trawl_store_call_seconds_sum{{backend=\"{backend}\"}} {sum}\n\
         trawl_store_call_seconds_count{{backend=\"{backend}\"}} {calls}"
    );
    let _ = writeln!(
        out,
        "# HELP trawl_store_errors_total Store calls that failed (backend unreachable, busy, damaged data).\n\
         # TYPE trawl_store_errors_total counter\n\
         trawl_store_errors_total{{backend=\"{backend}\"}} {}",
        FIGURES.errors.load(Ordering::Relaxed)
    );
    out
}

/// Times every call of the store it wraps (see [`render_metrics`]).
#[derive(Debug)]
pub struct MeteredStore {
    inner: Arc<dyn Store>,
}

impl MeteredStore {
    /// Meters `inner`, labelled `backend` (`sqlite`, `redis`, `memory`) in the metrics.
    pub fn new(inner: Arc<dyn Store>, backend: &'static str) -> Self {
        let _ = FIGURES.backend.set(backend);
        Self { inner }
    }

    fn timed<T>(&self, f: impl FnOnce(&dyn Store) -> Result<T>) -> Result<T> {
        let start = Instant::now();
        let result = f(&*self.inner);
        observe(start.elapsed(), result.is_err());
        result
    }
}

impl Store for MeteredStore {
    // Crawl-state calls go straight to the backend (they are not timed).
    fn crawl_state(&self) -> Option<&dyn crate::CrawlStore> {
        self.inner.crawl_state()
    }
    // So do the back-off calls.
    fn backoffs(&self) -> Option<&dyn crate::HostBackoffStore> {
        self.inner.backoffs()
    }
    // So do the version calls.
    fn versions(&self) -> Option<&dyn crate::VersionStore> {
        self.inner.versions()
    }
    // A batch's calls are timed one by one, as they are made.
    fn batch(&self, jobs: Vec<crate::BatchJob<'_>>) -> Vec<Result<()>> {
        self.inner.batch(jobs)
    }
    fn put_document(&self, record: &DocumentRecord, passages: &[Passage]) -> Result<()> {
        self.timed(|s| s.put_document(record, passages))
    }
    fn get_document(&self, handle: &str) -> Result<Option<DocumentRecord>> {
        self.timed(|s| s.get_document(handle))
    }
    fn get_document_by_url(&self, url: &str) -> Result<Option<DocumentRecord>> {
        self.timed(|s| s.get_document_by_url(url))
    }
    fn revalidate_document(&self, handle: &str, revalidation: &Revalidation) -> Result<bool> {
        self.timed(|s| s.revalidate_document(handle, revalidation))
    }
    fn delete_document(&self, handle: &str) -> Result<bool> {
        self.timed(|s| s.delete_document(handle))
    }
    fn find(&self, query: &str, scope: FindScope<'_>, limit: usize) -> Result<Vec<PassageHit>> {
        self.timed(|s| s.find(query, scope, limit))
    }
    fn get_search(&self, key: &str) -> Result<Option<CachedSearch>> {
        self.timed(|s| s.get_search(key))
    }
    fn put_search(
        &self,
        key: &str,
        value: &serde_json::Value,
        ttl: Option<Duration>,
    ) -> Result<()> {
        self.timed(|s| s.put_search(key, value, ttl))
    }
    fn get_key_state(&self, provider: &str, fingerprint: &str) -> Result<Option<KeyState>> {
        self.timed(|s| s.get_key_state(provider, fingerprint))
    }
    fn put_key_state(
        &self,
        provider: &str,
        fingerprint: &str,
        state: &serde_json::Value,
    ) -> Result<()> {
        self.timed(|s| s.put_key_state(provider, fingerprint, state))
    }
    fn key_states(&self, provider: &str) -> Result<Vec<KeyState>> {
        self.timed(|s| s.key_states(provider))
    }
    fn get_site_reader(&self, site: &str) -> Result<Option<SiteReader>> {
        self.timed(|s| s.get_site_reader(site))
    }
    fn put_site_reader(&self, site: &str, reader: &str) -> Result<()> {
        self.timed(|s| s.put_site_reader(site, reader))
    }
    fn pin_site_reader(&self, site: &str, reader: &str) -> Result<()> {
        self.timed(|s| s.pin_site_reader(site, reader))
    }
    fn site_readers(&self) -> Result<Vec<(String, SiteReader)>> {
        self.timed(|s| s.site_readers())
    }
    fn forget_site(&self, site: &str) -> Result<bool> {
        self.timed(|s| s.forget_site(site))
    }
    fn count_site_attempts(&self, site: &str, attempts: &[(String, bool)]) -> Result<()> {
        self.timed(|s| s.count_site_attempts(site, attempts))
    }
    fn site_tier_stats(&self, site: &str) -> Result<Vec<TierStat>> {
        self.timed(|s| s.site_tier_stats(site))
    }
    fn stats(&self) -> Result<StoreStats> {
        self.timed(|s| s.stats())
    }
    fn clear(&self, sections: &[Section]) -> Result<u64> {
        self.timed(|s| s.clear(sections))
    }
    fn prune(&self) -> Result<PruneReport> {
        self.timed(|s| s.prune())
    }
}
