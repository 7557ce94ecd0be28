//! The Envelope and the error model shared by every face.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::TrawlError;

/// Version of the JSON contract; bumped only on a breaking change of field names or meaning.
pub const CONTRACT_VERSION: &str = "1.0";

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

/// The error member of the Envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The stable error code.
    pub code: ErrorCode,
    /// A human-readable message.
    pub message: String,
    /// Whether a retry may help.
    pub retryable: bool,
    /// What led to it, outermost first, each redacted ([`TrawlError::causes`]); left out
    /// when empty, so answers without causes keep their old shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
}

impl From<TrawlError> for ErrorBody {
    fn from(e: TrawlError) -> Self {
        ErrorBody {
            code: e.code(),
            causes: e.causes().collect(),
            retryable: e.is_retryable(),
            message: e.into_message(),
        }
    }
}

impl From<ErrorBody> for TrawlError {
    /// The error back from its wire form; its causes come back as text.
    fn from(body: ErrorBody) -> Self {
        TrawlError::new(body.code, body.message)
            .with_retryable(body.retryable)
            .with_cause_texts(body.causes)
    }
}

/// Side information about how an answer was produced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// Wall-clock time the answer took, in milliseconds.
    pub elapsed_ms: u64,
    /// Free-form extra facts (tool name, engines asked, …); flattened into `meta`.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Every answer on every face: `{ contract_version, ok, data, error, meta }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    /// [`CONTRACT_VERSION`] at the time the answer was made.
    pub contract_version: String,
    /// `true` when `data` is set, `false` when `error` is.
    pub ok: bool,
    /// The answer, on success.
    pub data: Option<T>,
    /// What went wrong, on failure.
    pub error: Option<ErrorBody>,
    /// How the answer was produced (elapsed time, tool, engines, …).
    pub meta: Meta,
}

impl<T> Envelope<T> {
    /// A successful answer.
    pub fn success(data: T, meta: Meta) -> Self {
        Envelope {
            contract_version: CONTRACT_VERSION.to_owned(),
            ok: true,
            data: Some(data),
            error: None,
            meta,
        }
    }

    /// A failed answer.
    pub fn failure(error: TrawlError, meta: Meta) -> Self {
        Envelope {
            contract_version: CONTRACT_VERSION.to_owned(),
            ok: false,
            data: None,
            error: Some(error.into()),
            meta,
        }
    }

    /// Success or failure, from a `Result`.
    pub fn from_result(result: Result<T, TrawlError>, meta: Meta) -> Self {
        match result {
            Ok(data) => Self::success(data, meta),
            Err(e) => Self::failure(e, meta),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_envelope_has_stable_shape() {
        let env: Envelope<()> = Envelope::failure(
            TrawlError::new(ErrorCode::BlockedByPolicy, "refused 10.0.0.1"),
            Meta::default(),
        );
        let v = serde_json::to_value(&env).unwrap();
        assert_eq!(v["contract_version"], "1.0");
        assert_eq!(v["ok"], false);
        assert!(v["data"].is_null());
        assert_eq!(v["error"]["code"], "blocked_by_policy");
        assert_eq!(v["error"]["retryable"], false);
        assert_eq!(v["meta"]["elapsed_ms"], 0);
    }

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
