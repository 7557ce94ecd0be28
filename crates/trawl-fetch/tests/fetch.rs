//! trawl-fetch integration tests, against loopback servers only.
//!
//! - `guard`: the guard's decisions, with a fake lookup; no connection is ever made.
//! - `fetch`: real HTTP to servers on 127.0.0.x: encodings, redirects, statuses, caps,
//!   timeouts, proxies, anti-bot pages.
//! - `faults`: resets, 5xx, 429/402, truncated gzip, a 50 MB body, garbage, wrong charset.
//! - `ssrf`: the shared SSRF table (trawl_testkit::ssrf) through `Fetcher::fetch`: direct,
//!   behind every redirect status, through proxies, and a rebinding resolver.
//! - `render_cases` (feature `render`): tier 2 in Debian's chromium: script-built pages,
//!   the guard proxy against private and metadata addresses, deadlines, popups, downloads.
//! - `browse_cases` (feature `render`): screenshots and actions (`Fetcher::browse`).

/// Whether Debian's chromium is here; under CI its absence fails the test instead.
#[cfg(feature = "render")]
fn have_browser() -> bool {
    if trawl_fetch::render::find_browser(None).is_ok() {
        return true;
    }
    assert!(
        !trawl_testkit::in_ci(),
        "CI: the browser tests need Debian's chromium (apt-get install chromium)"
    );
    eprintln!("skipped: no chromium on the PATH");
    false
}

/// Tests in Debian's chromium run in the loopback-only namespace, with the browser there.
#[cfg(feature = "render")]
macro_rules! require_browser {
    () => {
        trawl_testkit::require_isolation!();
        if !crate::have_browser() {
            return;
        }
    };
}

#[cfg(feature = "render")]
mod browse_cases;
mod faults;
mod fetch_cases;
mod guard_cases;
#[cfg(feature = "render")]
mod render_cases;
mod ssrf;
