//! Engines and the hosts' back-off (see [`trawl_core::SharedBackoff`]): an engine's host
//! that asked to be left alone (to a page read, a site reader, or an engine call, in this
//! process or another on the same store) is not sent to until then; an engine's
//! `Retry-After` or exhausted rate limit is noted for everyone. A keyed engine's limit is
//! its key's (kept in the key state, the next key tried), so it notes nothing.

use std::time::SystemTime;

use trawl_core::SharedBackoff;
use url::Url;

use crate::classify::{Attempt, Response};
use crate::types::OutcomeKind;

/// Before sending to `url`: a `rate_limited` attempt saying until when, if its host is
/// backing off. An unreachable record lets the call go.
pub(crate) async fn before(backoff: &dyn SharedBackoff, url: &Url) -> Result<(), Attempt> {
    let Some(host) = url.host_str() else {
        return Ok(());
    };
    let now = SystemTime::now();
    let Ok(Some(until)) = backoff.until(host, now).await else {
        return Ok(());
    };
    let wait = until.duration_since(now).unwrap_or_default();
    Err(Attempt::fail(
        OutcomeKind::RateLimited,
        format!(
            "{host} asked to be left alone until {} ({} from now); not sent",
            trawl_core::http_date(until),
            trawl_core::spoken_duration(wait)
        ),
    ))
}

/// After `url` answered `resp`: note the wait it asked for, if any.
pub(crate) async fn after(backoff: &dyn SharedBackoff, url: &Url, resp: &Response) {
    let Some(host) = url.host_str() else {
        return;
    };
    let now = SystemTime::now();
    let header = |name: &str| {
        resp.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    if let Some(wait) = trawl_core::requested_wait(resp.status, header, now)
        && !wait.is_zero()
    {
        let _ = backoff.note(host, now + wait).await;
    }
}
