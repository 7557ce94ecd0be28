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
    /// The shared record's last answer for each host.
    asked: Arc<Mutex<HashMap<String, SharedAnswer>>>,
}

/// What the shared record said of a host, and when it was asked.
#[derive(Debug, Clone, Copy)]
struct SharedAnswer {
    asked_at: SystemTime,
    end: Option<SystemTime>,
}

/// How long the shared record's answer for a host is taken as still true. Asking it is a
/// store read on another thread; a crawl asked before each of its requests (1.4 % of its
/// CPU at 600 pages a second). Another process's new back-off is seen this much later at
/// most: a `Retry-After` is seconds to minutes, and the process that was told holds to it
/// at once.
const SHARED_ANSWER_FRESH: Duration = Duration::from_secs(1);

/// Hosts' answers kept before the stale ones are dropped.
const ASKED_HOSTS_KEPT: usize = 256;

impl HostBackoff {
    /// This table, also noting in and asking `shared` (another process's notes count).
    pub fn with_shared(mut self, shared: Arc<dyn SharedBackoff>) -> Self {
        self.shared = Some(shared);
        // Answers of another record (a clone's) are not this one's.
        self.asked = Arc::default();
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
            Some(shared) => self.ask_shared(shared.as_ref(), host, now).await,
            None => None,
        };
        local.max(shared).filter(|end| *end > now)
    }

    /// The shared record's end for `host`, asked again once the last answer is
    /// [`SHARED_ANSWER_FRESH`] old (or from a later clock than `now`).
    async fn ask_shared(
        &self,
        shared: &dyn SharedBackoff,
        host: String,
        now: SystemTime,
    ) -> Option<SystemTime> {
        let fresh = |asked_at: SystemTime| {
            now.duration_since(asked_at)
                .is_ok_and(|age| age < SHARED_ANSWER_FRESH)
        };
        {
            let asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(last) = asked.get(&host)
                && fresh(last.asked_at)
            {
                return last.end;
            }
        }
        let end = shared.until(&host, now).await.ok().flatten();
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        // Stale answers go once there are many: the map holds about the hosts of the last
        // second, not every host ever fetched.
        if asked.len() >= ASKED_HOSTS_KEPT {
            asked.retain(|_, last| fresh(last.asked_at));
        }
        let answer = SharedAnswer { asked_at: now, end };
        asked.insert(host, answer);
        end
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

    /// Another process's record: what it holds, and how often it was asked.
    #[derive(Debug, Default)]
    struct Record {
        ends: Mutex<HashMap<String, SystemTime>>,
        asked: std::sync::atomic::AtomicUsize,
    }

    impl SharedBackoff for Record {
        fn note(&self, host: &str, until: SystemTime) -> trawl_core::BackoffFuture<()> {
            self.ends.lock().unwrap().insert(host.to_owned(), until);
            Box::pin(async { Ok(()) })
        }
        fn until(
            &self,
            host: &str,
            now: SystemTime,
        ) -> trawl_core::BackoffFuture<Option<SystemTime>> {
            self.asked
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let end = self.ends.lock().unwrap().get(host).copied();
            Box::pin(async move { Ok(end.filter(|e| *e > now)) })
        }
        fn active(&self, _now: SystemTime) -> trawl_core::BackoffFuture<Vec<(String, SystemTime)>> {
            Box::pin(async { Ok(Vec::new()) })
        }
    }

    /// The shared record is asked once a second a host, not before every request: another
    /// process's back-off is seen within that second, this process's own at once.
    #[tokio::test]
    async fn the_shared_record_is_asked_once_a_second_a_host() {
        let record = Arc::new(Record::default());
        let table = HostBackoff::default().with_shared(record.clone());
        let asked = || record.asked.load(std::sync::atomic::Ordering::Relaxed);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        for ms in 0..10 {
            let at = now + Duration::from_millis(ms * 100);
            assert_eq!(table.until("a.example.org", at).await, None);
        }
        assert_eq!(asked(), 1, "ten requests in a second ask the record once");
        assert_eq!(table.until("b.example.org", now).await, None);
        assert_eq!(asked(), 2, "each host is asked for");

        // Another process is told to wait: seen once the answer is a second old.
        let end = now + Duration::from_secs(60);
        record.note("a.example.org", end).await.unwrap();
        let soon = now + Duration::from_millis(900);
        assert_eq!(table.until("a.example.org", soon).await, None);
        let second = now + Duration::from_secs(1);
        assert_eq!(table.until("a.example.org", second).await, Some(end));
        assert_eq!(asked(), 3);

        // This process's own back-off holds at once, whatever the record last said.
        table
            .note("b.example.org", Duration::from_secs(30), now)
            .await;
        assert_eq!(
            table.until("b.example.org", now).await,
            Some(now + Duration::from_secs(30))
        );

        // A clock that went back asks again rather than trust an answer from its future.
        let earlier = now - Duration::from_secs(5);
        table.until("a.example.org", earlier).await;
        assert_eq!(asked(), 4);
    }
}
