//! Errors in Firecrawl's shape, `{"success": false, "error": "…"}`, with the HTTP status
//! its clients branch on.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use trawl_core::{ErrorCode, TrawlError};

/// A refused or failed request, as Firecrawl's clients expect it.
#[derive(Debug)]
pub struct CompatError {
    pub status: StatusCode,
    pub message: String,
    /// trawl's own error code, for clients that want more than the status.
    pub code: &'static str,
}

impl CompatError {
    pub fn bad_request(message: impl Into<String>) -> Self {
        CompatError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
            code: "invalid_input",
        }
    }

    /// A feature of Firecrawl that trawl does not have: a 400 that says so, never a
    /// silently different result.
    pub fn unsupported(what: impl std::fmt::Display) -> Self {
        CompatError {
            status: StatusCode::BAD_REQUEST,
            message: format!("{what} is not supported by trawl's Firecrawl-compatible API"),
            code: "unsupported",
        }
    }

    /// A feature this server does not enable, in Firecrawl's words for it.
    pub fn forbidden(message: impl Into<String>) -> Self {
        CompatError {
            status: StatusCode::FORBIDDEN,
            message: message.into(),
            code: "unsupported",
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        CompatError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
            code: "not_found",
        }
    }

    /// Every call slot stayed taken, or the server is shutting down.
    pub fn busy(reason: &'static str) -> Self {
        CompatError {
            status: if reason == "shutting_down" {
                StatusCode::SERVICE_UNAVAILABLE
            } else {
                StatusCode::TOO_MANY_REQUESTS
            },
            message: format!("trawl refused the call: {reason}"),
            code: reason,
        }
    }
}

/// trawl's error codes as HTTP statuses.
fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::InvalidInput => StatusCode::BAD_REQUEST,
        ErrorCode::BlockedByPolicy => StatusCode::FORBIDDEN,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::Timeout => StatusCode::REQUEST_TIMEOUT,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::UnsupportedContent => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorCode::NoTextLayer => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::Blocked | ErrorCode::HttpError | ErrorCode::Upstream => StatusCode::BAD_GATEWAY,
        ErrorCode::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<TrawlError> for CompatError {
    fn from(e: TrawlError) -> Self {
        CompatError {
            status: status_of(e.code),
            message: e.message,
            code: e.code.as_str(),
        }
    }
}

impl IntoResponse for CompatError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "success": false,
            "error": self.message,
            "code": self.code,
        });
        let mut response = json_ok(body);
        *response.status_mut() = self.status;
        response
    }
}

/// A 200 with a JSON body.
pub fn json_ok(body: serde_json::Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Routes of Firecrawl's LLM and browser features, which trawl does not have.
/// A path under `/v1/` or `/v2/` that is no route (or not with this method): a 404 in
/// Firecrawl's error shape, never an empty body.
pub async fn no_route(method: axum::http::Method, uri: axum::http::Uri) -> CompatError {
    CompatError::not_found(format!(
        "{method} {} is not a route of trawl's Firecrawl-compatible API",
        uri.path()
    ))
}

pub async fn not_offered(uri: axum::http::Uri) -> CompatError {
    CompatError::unsupported(format!(
        "{} (LLM extraction, agents, deep research and browser sessions)",
        uri.path()
    ))
}
