//! Every call of the compatible API on the request log and in `/metrics`, as a tool call
//! is: one `api_call` line (route, method, what was asked with credentials masked, status,
//! latency; never a body or a secret) and a count by route template and status.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use trawl_core::redact_url;

use crate::mcp::server::ServerState;

/// The route template a compatible-API answer came from (`/v2/crawl/{id}`), for the
/// request counter's label.
#[derive(Debug, Clone)]
pub struct ApiRoute(pub String);

/// What the logging layer needs: the server (its log) and the body limit.
#[derive(Clone)]
pub struct ApiLog {
    pub server: Arc<ServerState>,
    pub max_body_bytes: usize,
}

/// Logs one call and labels its answer with its route.
pub async fn log_call(State(log): State<ApiLog>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let method = request.method().to_string();
    // The body is read here (within the same limit the routes apply) to name what was
    // asked, then handed on unchanged.
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, log.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let body = serde_json::json!({
                "success": false,
                "error": format!("the request body is over {} bytes", log.max_body_bytes),
            });
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
        }
    };
    let subject = subject(parts.uri.path(), &route, &bytes);
    let request = Request::from_parts(parts, Body::from(bytes));
    let mut response = next.run(request).await;
    let status = response.status().as_u16();
    let mut fields: Vec<(&str, String)> = vec![("route", route.clone()), ("method", method)];
    fields.extend(subject);
    fields.push(("status", status.to_string()));
    fields.push(("latency_ms", started.elapsed().as_millis().to_string()));
    log.server.log.event("api_call", &fields);
    response.extensions_mut().insert(ApiRoute(route));
    response
}

/// What a call asked, masked: a body's `url` (or how many `urls`) and `query`, a Jina
/// route's target or query, a job's id.
fn subject(path: &str, route: &str, body: &[u8]) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(target) = path.strip_prefix("/r/") {
        out.push(("url", redact_url(target)));
    } else if route.starts_with("/s/") {
        out.push(("query", "(jina search)".to_owned()));
    } else if route.contains("{id}")
        && let Some(id) = path.rsplit('/').find(|s| s.len() >= 8)
    {
        out.push(("id", id.to_owned()));
    }
    if let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(body) {
        if let Some(url) = body.get("url").and_then(Value::as_str) {
            out.push(("url", redact_url(url)));
        }
        if let Some(urls) = body.get("urls").and_then(Value::as_array) {
            out.push(("urls", urls.len().to_string()));
        }
        if let Some(query) = body.get("query").and_then(Value::as_str) {
            out.push(("query", query.to_owned()));
        }
    }
    out
}
