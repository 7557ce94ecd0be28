//! The Envelope shared by every face, and the wire form of its error ([`ErrorBody`]).

use serde::{Deserialize, Serialize};

use crate::code::ErrorCode;
use crate::error::TrawlError;

/// Version of the JSON contract; bumped only on a breaking change of field names or meaning.
pub const CONTRACT_VERSION: &str = "1.0";

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
    fn causes_survive_the_wire_form() {
        let e = TrawlError::new(ErrorCode::HttpError, "503").after(
            "site reader `github`",
            TrawlError::new(ErrorCode::Timeout, "slow"),
        );
        let body = ErrorBody::from(e.clone());
        assert_eq!(body.causes.len(), 1);
        assert_eq!(TrawlError::from(body), e);
        assert_ne!(e, TrawlError::new(ErrorCode::HttpError, "503"));
    }

    #[test]
    fn an_error_without_causes_keeps_the_old_shape() {
        let v = serde_json::to_value(ErrorBody::from(TrawlError::internal("x"))).unwrap();
        assert!(v.get("causes").is_none(), "{v}");
        let back: ErrorBody =
            serde_json::from_str(r#"{"code":"internal","message":"x","retryable":false}"#).unwrap();
        assert!(back.causes.is_empty());
    }
}
