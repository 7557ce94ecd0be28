//! What a fetch gives back ([`FetchedPage`]) and the validators of a conditional request
//! ([`Conditional`]): plain data, shared by the fetcher and the escalation policy that
//! reads a page to decide whether it goes on to the browser.

use bytes::Bytes;
use trawl_core::{Attempt, FetchedVia};
use url::Url;

/// Validators for a conditional request.
#[derive(Debug, Clone, Default)]
pub struct Conditional {
    /// The `ETag` to send as `If-None-Match`.
    pub etag: Option<String>,
    /// The `Last-Modified` to send as `If-Modified-Since`.
    pub last_modified: Option<String>,
}

/// A successful fetch.
#[derive(Debug, Clone)]
pub struct FetchedPage {
    /// The URL as asked for, parsed.
    pub requested_url: Url,
    /// The URL that answered, after redirects.
    pub final_url: Url,
    /// HTTP status of the final response.
    pub status: u16,
    /// Its `Content-Type`.
    pub content_type: Option<String>,
    /// Its `ETag`, kept for revalidation.
    pub etag: Option<String>,
    /// Its `Last-Modified`, kept for revalidation.
    pub last_modified: Option<String>,
    /// Empty for a 304 Not Modified.
    pub body: Bytes,
    /// Which tier produced the answer.
    pub via: FetchedVia,
    /// Every URL that answered with a redirect, in order.
    pub redirects: Vec<Url>,
    /// Every tier tried, in order, with its outcome.
    pub attempts: Vec<Attempt>,
}

impl FetchedPage {
    /// Whether this is a 304 answer to a conditional request (the stored copy is current).
    pub fn not_modified(&self) -> bool {
        self.status == 304
    }
}
