//! robots.txt as RFC 9309 reads it, through `texting_robots`: the group for trawl's
//! product token (or `*`), `Allow`/`Disallow` with wildcards, `Crawl-delay`, and the
//! `Sitemap:` lines. How the file's own fetch ended decides the rest (RFC 9309 §2.3.1):
//! a 4xx means no rules, a 5xx or a network failure means "disallow everything".

use std::time::Duration;

use texting_robots::Robot;
use trawl_core::ErrorCode;
use trawl_fetch::Fetcher;
use url::Url;

/// The product token trawl matches `User-agent:` lines against.
pub const ROBOTS_AGENT: &str = "trawl";

/// RFC 9309 asks crawlers to parse at least 500 KiB; the rest is ignored.
const MAX_ROBOTS_BYTES: usize = 512 * 1024;

/// The longest `Crawl-delay` honoured as written; longer ones are cut to this (a site that
/// asks for an hour between pages would make any crawl useless, and is reported).
pub const MAX_CRAWL_DELAY: Duration = Duration::from_secs(60);

/// How the robots.txt of one origin came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsStatus {
    /// Fetched and parsed: its rules apply.
    Parsed,
    /// Answered 4xx (or empty): no rules, everything allowed.
    Missing,
    /// Answered 5xx or could not be reached: everything disallowed (RFC 9309 §2.3.1.4).
    Unreachable(String),
    /// Not consulted (`--ignore-robots`).
    Ignored,
}

/// The rules of one origin.
#[derive(Debug)]
pub struct Robots {
    robot: Option<Robot>,
    /// How the fetch came out.
    pub status: RobotsStatus,
}

impl Robots {
    /// Rules that allow everything, for `--ignore-robots`.
    pub fn ignored() -> Self {
        Robots {
            robot: None,
            status: RobotsStatus::Ignored,
        }
    }

    /// Parse a robots.txt body.
    pub fn parse(body: &[u8]) -> Self {
        let body = &body[..body.len().min(MAX_ROBOTS_BYTES)];
        match Robot::new(ROBOTS_AGENT, body) {
            Ok(robot) => Robots {
                robot: Some(robot),
                status: RobotsStatus::Parsed,
            },
            // texting_robots refuses only what it cannot read at all: treat it as no rules.
            Err(_) => Robots {
                robot: None,
                status: RobotsStatus::Missing,
            },
        }
    }

    /// Fetch and parse `/robots.txt` of `origin` (any URL of the origin).
    pub async fn fetch(fetcher: &Fetcher, origin: &Url) -> Self {
        let mut url = origin.clone();
        url.set_path("/robots.txt");
        url.set_query(None);
        url.set_fragment(None);
        match fetcher.fetch(url.as_str()).await {
            Ok(page) => Robots::parse(&page.body),
            Err(e) => match e.code {
                ErrorCode::NotFound => Robots {
                    robot: None,
                    status: RobotsStatus::Missing,
                },
                // A 5xx is retryable; other 4xx answers (401, 403, …) mean "no rules".
                ErrorCode::HttpError if !e.retryable => Robots {
                    robot: None,
                    status: RobotsStatus::Missing,
                },
                _ => Robots {
                    robot: None,
                    status: RobotsStatus::Unreachable(e.message),
                },
            },
        }
    }

    /// Whether `url` may be fetched.
    pub fn allowed(&self, url: &Url) -> bool {
        match (&self.status, &self.robot) {
            (RobotsStatus::Unreachable(_), _) => false,
            (_, Some(robot)) => robot.allowed(url.as_str()),
            _ => true,
        }
    }

    /// The group's `Crawl-delay`, capped at [`MAX_CRAWL_DELAY`].
    pub fn crawl_delay(&self) -> Option<Duration> {
        let secs = self.robot.as_ref()?.delay?;
        (secs.is_finite() && secs > 0.0)
            .then(|| Duration::from_secs_f64(f64::from(secs)).min(MAX_CRAWL_DELAY))
    }

    /// The `Sitemap:` URLs the file lists (they apply to every agent).
    pub fn sitemaps(&self) -> &[String] {
        self.robot.as_ref().map_or(&[], |r| r.sitemaps.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn group_rules_delay_and_sitemaps() {
        let txt = b"User-agent: *\nDisallow: /private/\nAllow: /private/open\nCrawl-delay: 0.5\n\nUser-agent: otherbot\nDisallow: /\n\nSitemap: https://example.com/sitemap_index.xml\n";
        let r = Robots::parse(txt);
        assert_eq!(r.status, RobotsStatus::Parsed);
        assert!(r.allowed(&url("https://example.com/docs/a")));
        assert!(!r.allowed(&url("https://example.com/private/x")));
        assert!(r.allowed(&url("https://example.com/private/open")));
        assert_eq!(r.crawl_delay(), Some(Duration::from_millis(500)));
        assert_eq!(r.sitemaps(), ["https://example.com/sitemap_index.xml"]);
    }

    #[test]
    fn trawls_own_group_wins_over_star() {
        let txt = b"User-agent: *\nAllow: /\n\nUser-agent: trawl\nDisallow: /no-trawl\n";
        let r = Robots::parse(txt);
        assert!(!r.allowed(&url("https://example.com/no-trawl/a")));
        assert!(r.allowed(&url("https://example.com/ok")));
    }

    #[test]
    fn huge_delay_is_capped_and_unreachable_disallows() {
        let r = Robots::parse(b"User-agent: *\nCrawl-delay: 100000\n");
        assert_eq!(r.crawl_delay(), Some(MAX_CRAWL_DELAY));
        let down = Robots {
            robot: None,
            status: RobotsStatus::Unreachable("HTTP 503".into()),
        };
        assert!(!down.allowed(&url("https://example.com/")));
        assert!(Robots::ignored().allowed(&url("https://example.com/")));
    }
}
