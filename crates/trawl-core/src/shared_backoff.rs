//! The seam for per-host back-off that holds across processes: when a host says to wait
//! (`Retry-After`, an exhausted `x-ratelimit-remaining`, Stack Exchange's `backoff`), the
//! fetcher and the search router both note it in a [`SharedBackoff`] (the store: SQLite or
//! Redis) and ask it before sending, so another `trawl` process started a moment later
//! waits too. It lives here so trawl-fetch, trawl-search and trawl-store need not depend
//! on one another; [`requested_wait`] is the one reading of the headers.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

/// What [`SharedBackoff`]'s calls return: a boxed future (object-safe without a runtime);
/// `Err` says why the shared record could not be reached.
pub type BackoffFuture<T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send>>;

/// The longest wait a host can impose: a bad or hostile header must not silence a host
/// for days.
pub const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// The wait a refusal with an exhausted `x-ratelimit-remaining` and no reset time asks
/// for: a minute, what GitHub's documentation tells clients to wait when no header says.
pub const EXHAUSTED_WITHOUT_RESET: Duration = Duration::from_secs(60);

/// Hosts backing off and until when, kept where every process on the same store sees it.
/// Hosts are lower-case; an end in the past is as good as none.
pub trait SharedBackoff: Send + Sync + fmt::Debug {
    /// Records that `host` asked for no requests before `until`; a later end already
    /// recorded is kept.
    fn note(&self, host: &str, until: SystemTime) -> BackoffFuture<()>;

    /// When `host`'s back-off ends, if after `now`.
    fn until(&self, host: &str, now: SystemTime) -> BackoffFuture<Option<SystemTime>>;

    /// Every host backing off at `now` with its end, soonest end first.
    fn active(&self, now: SystemTime) -> BackoffFuture<Vec<(String, SystemTime)>>;
}

/// How long an answer with `status` asks the client to wait, if it does, `header` giving
/// a header's value by (lower-case) name: `Retry-After` (seconds or an HTTP date) on a 429
/// or 503, or on a 403 (GitHub's secondary rate limit refuses with 403 and `Retry-After`),
/// or, when `x-ratelimit-remaining` is 0, `x-ratelimit-reset` (epoch seconds, as GitHub
/// sends it); a 403 or 429 with the limit exhausted and no reset (GitHub before 2014 sent
/// none) asks for [`EXHAUSTED_WITHOUT_RESET`]. Capped at [`MAX_BACKOFF`].
pub fn requested_wait<'a>(
    status: u16,
    header: impl Fn(&str) -> Option<&'a str>,
    now: SystemTime,
) -> Option<Duration> {
    let text = |name: &str| header(name).map(str::trim);
    let wait = if matches!(status, 403 | 429 | 503)
        && let Some(value) = text("retry-after")
    {
        if let Ok(secs) = value.parse::<u64>() {
            Some(Duration::from_secs(secs))
        } else {
            httpdate::parse_http_date(value)
                .ok()
                .map(|at| at.duration_since(now).unwrap_or_default())
        }
    } else {
        None
    };
    let exhausted = text("x-ratelimit-remaining") == Some("0");
    let wait = wait.or_else(|| {
        let reset = text("x-ratelimit-reset")?.parse::<u64>().ok()?;
        exhausted.then(|| {
            let at = SystemTime::UNIX_EPOCH + Duration::from_secs(reset);
            at.duration_since(now).unwrap_or_default()
        })
    });
    let wait = wait
        .or_else(|| (exhausted && matches!(status, 403 | 429)).then_some(EXHAUSTED_WITHOUT_RESET));
    wait.map(|w| w.min(MAX_BACKOFF))
}

/// `at` as an HTTP date (`Sat, 05 Dec 2026 00:10:00 GMT`), as back-off ends are shown.
pub fn http_date(at: SystemTime) -> String {
    httpdate::fmt_http_date(at)
}
