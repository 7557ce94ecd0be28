//! Per-host back-off: when a host says to wait (`Retry-After` on a 429, 503 or 403, an
//! exhausted `x-ratelimit-remaining` with its `x-ratelimit-reset` (a minute without one),
//! Stack Exchange's `backoff` and its throttle refusal's "available in N seconds"), every later request to it through the same fetcher (site readers, page
//! fetches, anything sharing the fetcher) waits or is refused until then, instead of
//! asking again milliseconds later. With a [`SharedBackoff`] (the store) it holds across
//! processes and for the search engines too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;
use trawl_core::SharedBackoff;
pub use trawl_core::{MAX_BACKOFF, http_date};

/// Hosts currently backing off and until when; clones share one table (and one shared
/// record, when there is one).
#[derive(Debug, Clone, Default)]
pub struct HostBackoff {
    until: Arc<Mutex<HashMap<String, SystemTime>>>,
    shared: Option<Arc<dyn SharedBackoff>>,
}

impl HostBackoff {
    /// This table, also noting in and asking `shared` (another process's notes count).
    pub fn with_shared(mut self, shared: Arc<dyn SharedBackoff>) -> Self {
        self.shared = Some(shared);
        self
    }

    /// Remember that `host` asked for no requests for `wait` from `now` (capped at
    /// [`MAX_BACKOFF`]); a later end already known is kept.
    pub async fn note(&self, host: &str, wait: Duration, now: SystemTime) {
        let host = host.to_ascii_lowercase();
        let end = now + wait.min(MAX_BACKOFF);
        {
            let mut table = self.until.lock().unwrap_or_else(|p| p.into_inner());
            let entry = table.entry(host.clone()).or_insert(end);
            if *entry < end {
                *entry = end;
            }
        }
        if let Some(shared) = &self.shared {
            // An unreachable store only loses the sharing; this process still waits.
            let _ = shared.note(&host, end).await;
        }
    }

    /// When `host`'s back-off ends, if it has not yet (the later of this process's and
    /// the shared record's).
    pub async fn until(&self, host: &str, now: SystemTime) -> Option<SystemTime> {
        let host = host.to_ascii_lowercase();
        let local = {
            let table = self.until.lock().unwrap_or_else(|p| p.into_inner());
            table.get(&host).copied().filter(|end| *end > now)
        };
        let shared = match &self.shared {
            Some(shared) => shared.until(&host, now).await.ok().flatten(),
            None => None,
        };
        local.max(shared).filter(|end| *end > now)
    }

    /// Every host backing off at `now`, soonest end first (for `trawl sites`).
    pub async fn active(&self, now: SystemTime) -> Vec<(String, SystemTime)> {
        let mut merged: HashMap<String, SystemTime> = {
            let mut table = self.until.lock().unwrap_or_else(|p| p.into_inner());
            table.retain(|_, end| *end > now);
            table.clone()
        };
        if let Some(shared) = &self.shared
            && let Ok(hosts) = shared.active(now).await
        {
            for (host, end) in hosts.into_iter().filter(|(_, end)| *end > now) {
                let entry = merged.entry(host).or_insert(end);
                *entry = (*entry).max(end);
            }
        }
        let mut hosts: Vec<_> = merged.into_iter().collect();
        hosts.sort_by_key(|(h, e)| (*e, h.clone()));
        hosts
    }
}

/// How long an answer with `status` and `headers` asks the client to wait, if it does
/// (see [`trawl_core::requested_wait`]).
pub fn requested_wait(status: u16, headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    trawl_core::requested_wait(
        status,
        |name| headers.get(name).and_then(|v| v.to_str().ok()),
        now,
    )
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
        // GitHub's secondary limit: a 403 with Retry-After (PyGithub's 2018 recording).
        assert_eq!(
            requested_wait(403, &headers(&[("retry-after", "60")]), now),
            Some(Duration::from_secs(60))
        );
        // An exhausted limit refused without a reset (PyGithub's 2013 recording): a minute;
        // the same headers on an answer that was served ask for nothing.
        let exhausted = headers(&[("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0")]);
        assert_eq!(
            requested_wait(403, &exhausted, now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(requested_wait(200, &exhausted, now), None);
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

    #[tokio::test]
    async fn a_host_backs_off_until_the_latest_end_and_is_forgotten_after() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let table = HostBackoff::default();
        table
            .note("API.example.org", Duration::from_secs(5), now)
            .await;
        table
            .note("api.example.org", Duration::from_secs(2), now)
            .await;
        assert_eq!(
            table.until("api.example.org", now).await,
            Some(now + Duration::from_secs(5))
        );
        assert_eq!(table.until("other.example.org", now).await, None);
        table
            .note("slow.example.org", Duration::from_secs(86_400 * 30), now)
            .await;
        assert_eq!(
            table.until("slow.example.org", now).await,
            Some(now + MAX_BACKOFF)
        );
        let later = now + Duration::from_secs(6);
        assert_eq!(table.until("api.example.org", later).await, None);
        assert_eq!(
            table.active(later).await,
            vec![("slow.example.org".to_owned(), now + MAX_BACKOFF)]
        );
    }
}
