//! How a tool call's outcome becomes what the client sees: a success's fenced Markdown plus
//! structured JSON, a failure's `isError` result with the Envelope's code. (Each tool's own
//! rules, for when an answer is a failure and what the log says of it, live with the tool in
//! `trawl_agent::tools`.)

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde::Serialize;
use serde_json::{Value, json};
use trawl_agent::fence::Fence;
use trawl_core::{ErrorCode, TrawlError};

use super::gate::Refusal;

/// What the log line says about one call, beyond tool and outcome.
pub(super) use trawl_agent::tools::Details;

/// The text (fenced Markdown) and the structured JSON of a successful answer.
pub(super) fn success<T: Serialize>(
    value: &T,
    present: impl FnOnce(&T, &Fence) -> String,
) -> Result<CallToolResult, TrawlError> {
    let fence = Fence::new()
        .map_err(|e| TrawlError::internal(format!("cannot draw a fence nonce: {e}")))?;
    let mut structured = serde_json::to_value(value)
        .map_err(|e| TrawlError::internal(format!("cannot serialize the answer: {e}")))?;
    fence_structured(&mut structured, &fence);
    let mut result = CallToolResult::success(vec![ContentBlock::text(present(value, &fence))]);
    // A read the store could not keep says so in `_meta` too, where clients look for
    // facts about the call rather than the page.
    if let Some(note) = structured.get("not_stored") {
        let mut meta = JsonObject::new();
        meta.insert("trawl/not_stored".into(), note.clone());
        result.meta = Some(MetaObject(meta));
    }
    result.structured_content = Some(structured);
    Ok(result)
}

/// Screenshots go after the text as MCP `image` content blocks (PNG, base64), in order.
pub(super) fn add_images(result: &mut CallToolResult, images: Vec<Vec<u8>>) {
    use base64::Engine as _;
    for png in images {
        let data = base64::engine::general_purpose::STANDARD.encode(png);
        result.content.push(ContentBlock::image(data, "image/png"));
    }
}

/// Marks an answer read while the store did not answer (a shared Redis gone away) with
/// `_meta["trawl/store_unavailable"]`, so a client knows its handles may not open later.
pub(super) fn note_store_unavailable(result: &mut CallToolResult) {
    fn mentions(value: &Value) -> bool {
        match value {
            Value::Object(map) => {
                map.get("outcome").and_then(Value::as_str)
                    == Some(trawl_agent::tools::STORE_UNAVAILABLE)
                    || map.values().any(mentions)
            }
            Value::Array(items) => items.iter().any(mentions),
            _ => false,
        }
    }
    if result.structured_content.as_ref().is_some_and(mentions) {
        let meta = result
            .meta
            .get_or_insert_with(|| MetaObject(JsonObject::new()));
        meta.0.insert(
            "trawl/store_unavailable".into(),
            json!({"note": trawl_agent::tools::STORE_UNAVAILABLE}),
        );
    }
}

/// Names each site reader that failed before a page was fetched another way under
/// `_meta["trawl/site_readers_failed"]` (reader, outcome, detail), so a client sees the
/// reader's reason (a rate limit, an expired session) without reading every attempt; and
/// each thin page or page asking to sign in under `_meta["trawl/notes"]` (url, note,
/// detail).
pub(super) fn note_site_reader_failures(result: &mut CallToolResult) {
    let Some(structured) = &result.structured_content else {
        return;
    };
    let documents: Vec<&Value> = match structured.get("results").and_then(Value::as_array) {
        Some(items) => items.iter().filter_map(|i| i.get("document")).collect(),
        None => Vec::new(),
    };
    let mut failed = Vec::new();
    let mut notes = Vec::new();
    for doc in documents {
        let attempts: Vec<trawl_core::Attempt> = doc
            .get("attempts")
            .cloned()
            .and_then(|a| serde_json::from_value(a).ok())
            .unwrap_or_default();
        let url = doc.get("final_url").cloned().unwrap_or(Value::Null);
        for a in trawl_agent::tools::thin::notes(&attempts) {
            notes.push(json!({"url": url, "note": a.outcome, "detail": a.detail}));
        }
        if doc.get("fetched_via").and_then(Value::as_str) == Some("site") {
            continue;
        }
        for a in trawl_agent::tools::render::site_reader_failures(&attempts) {
            failed.push(json!({"reader": a.reader, "outcome": a.outcome, "detail": a.detail}));
        }
    }
    for (key, list) in [
        ("trawl/site_readers_failed", failed),
        ("trawl/notes", notes),
    ] {
        if list.is_empty() {
            continue;
        }
        let meta = result
            .meta
            .get_or_insert_with(|| MetaObject(JsonObject::new()));
        meta.0.insert(key.into(), Value::Array(list));
    }
}

/// Structured content is an agent face too: page bodies (`markdown`), found passages
/// (`text`) and change diffs (`diff`) are wrapped in the same fence as the text content;
/// other strings from the web (titles, snippets, previews, passages' headings) have marker
/// look-alikes neutralized.
fn fence_structured(value: &mut serde_json::Value, fence: &Fence) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), v) {
                    ("markdown" | "text" | "diff", Value::String(s)) => *s = fence.wrap(s),
                    (
                        "title" | "snippet" | "preview" | "description" | "byline" | "site_name"
                        | "heading",
                        Value::String(s),
                    ) => {
                        *s = trawl_agent::fence::neutralize(s, Some(fence.nonce()));
                    }
                    (_, v) => fence_structured(v, fence),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| fence_structured(v, fence)),
        _ => {}
    }
}

/// An `isError` result: the code, message and causes (redacted) as text, and the code and
/// whether a retry may help under `_meta["trawl/error"]` for clients that want them as
/// data. The message and causes are in the text only: said twice, long ones would cost the
/// client twice. No `structuredContent`, since it would not match the tool's output schema.
pub(super) fn failure(err: &TrawlError) -> CallToolResult {
    let retry = if err.is_retryable() {
        " (retryable)"
    } else {
        ""
    };
    let mut text = crate::errors::error_line(
        err.code(),
        &format!("{}{retry}", clip_echoes(err.message())),
    );
    for cause in err.causes() {
        text.push_str("\ncaused by: ");
        text.push_str(&clip_echoes(&cause));
    }
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    let mut meta = rmcp::model::JsonObject::new();
    meta.insert(
        "trawl/error".into(),
        json!({"code": err.code(), "retryable": err.is_retryable()}),
    );
    result.meta = Some(MetaObject(meta));
    result
}

/// Longest quoted value an error message repeats back (a bad argument, a URL).
const MAX_ECHO_CHARS: usize = 64;
/// Longest error message, whatever it quotes.
const MAX_MESSAGE_CHARS: usize = 2_000;

/// An error message with each quoted value (`"…"`, as serde and trawl quote arguments) cut
/// to [`MAX_ECHO_CHARS`], and the whole cut to [`MAX_MESSAGE_CHARS`]: a 1 MB bad argument
/// must not come back as a 1 MB error.
pub(super) fn clip_echoes(message: &str) -> String {
    let mut out = String::new();
    let mut kept = 0usize;
    let mut push = |out: &mut String, c: char| {
        out.push(c);
        kept += 1;
        kept <= MAX_MESSAGE_CHARS
    };
    // Characters seen inside the current quoted value, when in one.
    let mut quoted: Option<usize> = None;
    let mut escaped = false;
    for c in message.chars() {
        let room = match quoted {
            None => {
                if c == '"' {
                    quoted = Some(0);
                }
                push(&mut out, c)
            }
            Some(n) if c == '"' && !escaped => {
                quoted = None;
                (n <= MAX_ECHO_CHARS || push(&mut out, '…')) && push(&mut out, '"')
            }
            Some(n) => {
                escaped = c == '\\' && !escaped;
                quoted = Some(n + 1);
                n >= MAX_ECHO_CHARS || push(&mut out, c)
            }
        };
        if !room {
            out.push('…');
            return out;
        }
    }
    if matches!(quoted, Some(n) if n > MAX_ECHO_CHARS) {
        out.push('…');
    }
    out
}

pub(super) fn refusal_error(refusal: Refusal) -> TrawlError {
    match refusal {
        Refusal::Busy { max, waited } => TrawlError::new(
            ErrorCode::RateLimited,
            format!(
                "trawl is busy: all {max} tool-call slots stayed taken for {:.1} s; retry shortly",
                waited.as_secs_f64()
            ),
        )
        .with_retryable(true),
        Refusal::ShuttingDown => TrawlError::new(
            ErrorCode::Upstream,
            "trawl is shutting down and takes no new calls; retry in a moment",
        )
        .with_retryable(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_site_reader_is_named_in_meta_when_the_page_was_fetched_instead() {
        let answer = json!({"results": [{"document": {
            "fetched_via": "http",
            "attempts": [
                {"reader": "github", "outcome": "rate_limited", "detail": "HTTP 429 Too Many Requests (Retry-After: 5)"},
                {"reader": "http", "outcome": "ok", "detail": null}
            ]
        }}]});
        let mut result = success(&answer, |_, _| String::new()).unwrap();
        note_site_reader_failures(&mut result);
        let meta = result.meta.expect("meta");
        let failed = &meta.0["trawl/site_readers_failed"];
        assert_eq!(failed[0]["reader"], "github");
        assert_eq!(failed[0]["outcome"], "rate_limited");
        assert!(failed.as_array().unwrap().len() == 1, "{failed}");
        // A page the reader read itself carries no such note.
        let read = json!({"results": [{"document": {"fetched_via": "site", "attempts": [{"reader": "github", "outcome": "ok"}]}}]});
        let mut result = success(&read, |_, _| String::new()).unwrap();
        note_site_reader_failures(&mut result);
        assert!(result.meta.is_none());
    }

    #[test]
    fn echoed_values_are_cut_and_short_messages_kept() {
        let short = "page_size_tokens: invalid type: string \"ten\", expected usize";
        assert_eq!(clip_echoes(short), short);
        let big = "A".repeat(1_000_000);
        let message = format!("handle: invalid type: string \"{big}\", expected a handle");
        let clipped = clip_echoes(&message);
        assert!(clipped.len() < 200, "{clipped}");
        assert!(clipped.ends_with("…\", expected a handle"), "{clipped}");
        let escaped = clip_echoes("bad \"a\\\"b\" here");
        assert_eq!(escaped, "bad \"a\\\"b\" here");
        let unquoted = "x".repeat(10_000);
        assert!(clip_echoes(&unquoted).chars().count() <= MAX_MESSAGE_CHARS + 2);
    }

    #[test]
    fn a_failure_says_its_message_once() {
        let err = TrawlError::invalid_input("handle: no document \"h_0123456789abcdef\" stored")
            .with_retryable(true);
        let result = failure(&err);
        let whole = serde_json::to_string(&result).unwrap();
        assert_eq!(whole.matches("h_0123456789abcdef").count(), 1, "{whole}");
        assert_eq!(result.is_error, Some(true));
        let meta = &result.meta.as_ref().unwrap().0["trawl/error"];
        assert_eq!(meta["code"], "invalid_input");
        assert_eq!(meta["retryable"], true);
        let text = result.content[0].as_text().unwrap().text.clone();
        assert!(
            text.starts_with("error[invalid_input]: handle: no document")
                && text.ends_with("(retryable)"),
            "{text}"
        );
    }

    #[test]
    fn a_failure_lists_its_causes_redacted() {
        let err = TrawlError::new(ErrorCode::HttpError, "HTTP 503 from http://github.com/a/b")
            .after(
                "site reader `github`",
                TrawlError::new(
                    ErrorCode::RateLimited,
                    "HTTP 429 from http://api.test/x?access_token=T0KEN-123",
                ),
            );
        let text = failure(&err).content[0].as_text().unwrap().text.clone();
        assert_eq!(
            text,
            "error[http_error]: HTTP 503 from http://github.com/a/b\n\
             caused by: site reader `github` failed: rate_limited: HTTP 429 from \
             http://api.test/x?access_token=****"
        );
    }
}
