//! [`ErrorCode`]: the stable list of error codes, part of the JSON contract.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Stable error codes. Their snake_case names are part of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The request itself is malformed (bad URL, out-of-range value, …).
    InvalidInput,
    /// trawl's own policy refused it (SSRF guard, scheme, private address).
    BlockedByPolicy,
    /// The site refused it (anti-bot challenge, WAF block).
    Blocked,
    /// The site or engine rate-limited us (HTTP 429 or equivalent).
    RateLimited,
    /// A deadline passed (connect, total, or engine deadline).
    Timeout,
    /// The resource does not exist (HTTP 404/410, unknown handle).
    NotFound,
    /// Any other non-success HTTP status.
    HttpError,
    /// The body exceeded the configured size cap.
    TooLarge,
    /// The content type is not one trawl can read.
    UnsupportedContent,
    /// A PDF holds no text to read: its pages are images (a scan) with no text layer.
    /// Only OCR can read it; trawl does none. Not retryable.
    NoTextLayer,
    /// An upstream service failed (transport error, proxy down, bad response).
    Upstream,
    /// trawl's own store (a shared Redis) does not answer; retrying later may work. Also
    /// a store that cannot be used as it is (its path a directory, a corrupt file, a full
    /// disk), then not retryable: the message says what to change.
    StoreUnavailable,
    /// A bug or unexpected state inside trawl.
    Internal,
}

impl ErrorCode {
    /// The contract name, e.g. `blocked_by_policy`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::BlockedByPolicy => "blocked_by_policy",
            ErrorCode::Blocked => "blocked",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Timeout => "timeout",
            ErrorCode::NotFound => "not_found",
            ErrorCode::HttpError => "http_error",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::UnsupportedContent => "unsupported_content",
            ErrorCode::NoTextLayer => "no_text_layer",
            ErrorCode::Upstream => "upstream",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::Internal => "internal",
        }
    }

    /// Whether trying the same request again later may succeed.
    pub fn default_retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::RateLimited
                | ErrorCode::Timeout
                | ErrorCode::Upstream
                | ErrorCode::StoreUnavailable
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_serializes_to_its_name() {
        for code in [
            ErrorCode::InvalidInput,
            ErrorCode::BlockedByPolicy,
            ErrorCode::Blocked,
            ErrorCode::RateLimited,
            ErrorCode::Timeout,
            ErrorCode::NotFound,
            ErrorCode::HttpError,
            ErrorCode::TooLarge,
            ErrorCode::UnsupportedContent,
            ErrorCode::NoTextLayer,
            ErrorCode::Upstream,
            ErrorCode::StoreUnavailable,
            ErrorCode::Internal,
        ] {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
    }
}
