//! Reading a request: its JSON body (an error names the field), the base URL answers link
//! to, and a caller's `timeout` around the work.

use axum::body::Bytes;
use axum::http::{HeaderMap, header};
use serde::de::DeserializeOwned;

use super::error::CompatError;

/// `work` within a request's `timeout` (milliseconds; none: unbounded), else a `timeout`
/// error saying which work (`what`) ran out.
pub(super) async fn within<T>(
    timeout_ms: Option<u64>,
    what: impl FnOnce() -> String,
    work: impl Future<Output = Result<T, CompatError>>,
) -> Result<T, CompatError> {
    match timeout_ms {
        Some(ms) => tokio::time::timeout(std::time::Duration::from_millis(ms), work)
            .await
            .unwrap_or_else(|_| {
                Err(trawl_core::TrawlError::new(
                    trawl_core::ErrorCode::Timeout,
                    format!("{} took longer than timeout ({ms} ms)", what()),
                )
                .into())
            }),
        None => work.await,
    }
}

/// A body read as `T`, or Firecrawl's 400 naming the field that did not fit.
pub(super) fn body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, CompatError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || path.is_empty() {
            CompatError::bad_request(format!(
                "the request body is not valid JSON for this route: {inner}"
            ))
        } else {
            CompatError::bad_request(format!("{path}: {inner}"))
        }
    })
}

/// `http://host` as the client reached this server, for the `url` and `next` links.
pub(super) fn base_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{host}")
}
