//! JSON-RPC 2.0 framing errors, shared by both transports: a body or line that is not JSON
//! is a parse error (-32700), JSON that is not a message an invalid request (-32600, with
//! its id when it has one), as the JSON-RPC spec and MCP's streamable HTTP transport say.
//! rmcp answers a body that is not JSON with `415 Unsupported Media Type`, so `/mcp`
//! checks bodies first ([`reject_malformed`]).

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;

/// Why a message was refused: the id to answer with, the code, the message.
#[derive(Debug)]
pub struct Refused {
    pub id: Value,
    pub code: i64,
    pub message: String,
}

impl Refused {
    /// The JSON-RPC error response.
    pub fn to_json(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
    }
}

/// One JSON-RPC message from `bytes`, or why not.
pub fn parse_message(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Refused> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| Refused {
        id: Value::Null,
        code: PARSE_ERROR,
        message: format!("Parse error: {e}"),
    })?;
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    serde_json::from_value(value).map_err(|e| Refused {
        id,
        code: INVALID_REQUEST,
        message: format!("Invalid Request: not a JSON-RPC 2.0 message ({e})"),
    })
}

/// `POST /mcp` with a JSON content type: answer a body that is not a JSON-RPC message with
/// `400` and the JSON-RPC error, instead of rmcp's `415`. Other requests pass untouched
/// (a wrong content type is still rmcp's `415`).
pub async fn reject_malformed(
    State(max_bytes): State<usize>,
    request: Request,
    next: Next,
) -> Response {
    let json_body = request.method() == Method::POST
        && request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    if !json_body {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, max_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                &Refused {
                    id: Value::Null,
                    code: INVALID_REQUEST,
                    message: format!(
                        "Invalid Request: body larger than {max_bytes} bytes (--max-message-bytes)"
                    ),
                },
            );
        }
    };
    if let Err(refused) = parse_message(&bytes) {
        return error_response(StatusCode::BAD_REQUEST, &refused);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

fn error_response(status: StatusCode, refused: &Refused) -> Response {
    let mut response = Response::new(Body::from(refused.to_json().to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_shape_errors_follow_json_rpc() {
        let err = parse_message(b"{\"jsonrpc\":").unwrap_err();
        assert_eq!((err.code, err.id.clone()), (PARSE_ERROR, Value::Null));
        let err = parse_message(b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"x\":1}").unwrap_err();
        assert_eq!((err.code, err.id.clone()), (INVALID_REQUEST, json!("a")));
        assert_eq!(err.to_json()["error"]["code"], INVALID_REQUEST);
        assert!(
            parse_message(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                .is_ok()
        );
    }
}
