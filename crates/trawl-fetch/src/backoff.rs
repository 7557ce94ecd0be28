//! Per-host back-off: when a host says to wait (`Retry-After` on a 429 or 503, an
//! exhausted `x-ratelimit-remaining` with its `x-ratelimit-reset`, Stack Exchange's
//! `backoff`), every later request to it through the same fetcher (site readers, page
//! fetches, anything sharing the fetcher) waits or is refused until then, instead of
//! asking again milliseconds later.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};

/// The longest wait a host can impose: a bad or hostile header must not silence a host
/// for days.
pub const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// Hosts currently backing off and until when; clones share one table.
#[derive(Debug, Clone, Default)]
pub struct HostBackoff {
    until: Arc<Mutex<HashMap<String, SystemTime>>>,
}

impl HostBackoff {
    /// Remember that `host` asked for no requests for `wait` from `now` (capped at
    /// [`MAX_BACKOFF`]); a later end already known is kept.
    pub fn note(&self, host: &str, wait: Duration, now: SystemTime) {
        let end = now + wait.min(MAX_BACKOFF);
        let mut table = self.until.lock().unwrap_or_else(|p| p.into_inner());
        let entry = table.entry(host.to_ascii_lowercase()).or_insert(end);
        if *entry < end {
            *entry = end;
        }
    }

    /// When `host`'s back-off ends, if it has not yet.
    pub fn until(&self, host: &str, now: SystemTime) -> Option<SystemTime> {
        let table = self.until.lock().unwrap_or_else(|p| p.into_inner());
        table
            .get(&host.to_ascii_lowercase())
            .copied()
            .filter(|end| *end > now)
    }

    /// Every host backing off at `now`, soonest end first (for `trawl sites`).
    pub fn active(&self, now: SystemTime) -> Vec<(String, SystemTime)> {
        let mut table = self.until.lock().unwrap_or_else(|p| p.into_inner());
        table.retain(|_, end| *end > now);
        let mut hosts: Vec<_> = table.iter().map(|(h, e)| (h.clone(), *e)).collect();
        hosts.sort_by_key(|(h, e)| (*e, h.clone()));
        hosts
    }
}

/// `at` as an HTTP date (`Sat, 05 Dec 2026 00:10:00 GMT`), as back-off ends are shown.
pub fn http_date(at: SystemTime) -> String {
    httpdate::fmt_http_date(at)
}

/// How long an answer with `status` and `headers` asks the client to wait, if it does:
/// `Retry-After` (seconds or an HTTP date) on a 429 or 503, or, when
/// `x-ratelimit-remaining` is 0, `x-ratelimit-reset` (epoch seconds, as GitHub sends it).
pub fn requested_wait(status: u16, headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if matches!(status, 429 | 503)
        && let Some(value) = text(RETRY_AFTER.as_str())
    {
        if let Ok(secs) = value.parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        if let Ok(at) = httpdate::parse_http_date(value) {
            return Some(at.duration_since(now).unwrap_or_default());
        }
    }
    if text("x-ratelimit-remaining") == Some("0")
        && let Some(reset) = text("x-ratelimit-reset").and_then(|v| v.parse::<u64>().ok())
    {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(reset);
        return Some(at.duration_since(now).unwrap_or_default());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_seconds_and_dates_and_rate_limit_resets_are_read() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            requested_wait(429, &headers(&[("retry-after", "5")]), now),
            Some(Duration::from_secs(5))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(120));
        assert_eq!(
            requested_wait(503, &headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(120))
        );
        // GitHub's exhausted rate limit: a 403 with the reset time.
        let reset = (1_700_000_000u64 + 600).to_string();
        assert_eq!(
            requested_wait(
                403,
                &headers(&[
                    ("x-ratelimit-remaining", "0"),
                    ("x-ratelimit-reset", &reset)
                ]),
                now
            ),
            Some(Duration::from_secs(600))
        );
        // Requests left, or an ordinary answer: nothing to wait for.
        assert_eq!(
            requested_wait(
                200,
                &headers(&[
                    ("x-ratelimit-remaining", "59"),
                    ("x-ratelimit-reset", &reset)
                ]),
                now
            ),
            None
        );
        assert_eq!(
            requested_wait(200, &headers(&[("retry-after", "5")]), now),
            None
        );
    }

    #[test]
    fn a_host_backs_off_until_the_latest_end_and_is_forgotten_after() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let table = HostBackoff::default();
        table.note("API.example.org", Duration::from_secs(5), now);
        table.note("api.example.org", Duration::from_secs(2), now);
        assert_eq!(
            table.until("api.example.org", now),
            Some(now + Duration::from_secs(5))
        );
        assert_eq!(table.until("other.example.org", now), None);
        table.note("slow.example.org", Duration::from_secs(86_400 * 30), now);
        assert_eq!(
            table.until("slow.example.org", now),
            Some(now + MAX_BACKOFF)
        );
        let later = now + Duration::from_secs(6);
        assert_eq!(table.until("api.example.org", later), None);
        assert_eq!(
            table.active(later),
            vec![("slow.example.org".to_owned(), now + MAX_BACKOFF)]
        );
    }
}
