//! Reading an engine's answer: status codes, rate-limit headers and parser errors become
//! typed outcomes, plus what the answer means for the API key that was used.

use std::sync::Arc;
use std::time::Duration;

/// Shared with the router (one definition for every crate: trawl_core::redact).
pub(crate) use trawl_core::error_chain;

use crate::engine::{Engine, ParseError, RawItem};
use crate::types::{OutcomeKind, SearchRequest};

/// The result of one engine call before it becomes an [`EngineOutcome`].
pub(crate) struct Attempt {
    pub(crate) kind: OutcomeKind,
    pub(crate) status: Option<u16>,
    pub(crate) detail: Option<String>,
    pub(crate) items: Vec<RawItem>,
}

impl Attempt {
    pub(crate) fn fail(kind: OutcomeKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            status: None,
            detail: Some(detail.into()),
            items: Vec::new(),
        }
    }
}

/// What an answer means for the key that was used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum KeyEvent {
    None,
    Success,
    RateLimited(Option<Duration>),
    Quota,
    Auth,
}

pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    pub(crate) truncated: bool,
}

/// Turn a response into an attempt, and say what it means for the key.
pub(crate) async fn classify(
    body_cap: usize,
    engine: &Arc<dyn Engine>,
    query: &str,
    req: &SearchRequest,
    resp: Response,
    keyed: bool,
) -> (Attempt, KeyEvent) {
    let status = resp.status;
    let header = |n: &str| {
        resp.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.trim().to_owned())
    };
    let retry_after = header("retry-after")
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_secs);
    let ra_note = retry_after
        .map(|d| format!(", retry after {} s", d.as_secs()))
        .unwrap_or_default();
    let with_status = |kind, detail: String, ev| {
        (
            Attempt {
                kind,
                status: Some(status),
                detail: Some(detail),
                items: Vec::new(),
            },
            ev,
        )
    };
    if let Some(pe) = engine.classify_status(status) {
        return from_parse_error(pe, keyed, Some(status));
    }
    match status {
        200..=299 => {}
        429 => {
            return with_status(
                OutcomeKind::RateLimited,
                format!("answered 429{ra_note}"),
                KeyEvent::RateLimited(retry_after),
            );
        }
        402 => {
            return with_status(
                OutcomeKind::QuotaExhausted,
                "answered 402 (quota or credits exhausted)".into(),
                KeyEvent::Quota,
            );
        }
        401 => {
            return with_status(
                OutcomeKind::AuthFailed,
                "answered 401 (key refused)".into(),
                KeyEvent::Auth,
            );
        }
        403 => {
            let exhausted = header("x-ratelimit-remaining").as_deref() == Some("0");
            return if exhausted || retry_after.is_some() {
                with_status(
                    OutcomeKind::RateLimited,
                    format!("answered 403 with rate-limit headers{ra_note}"),
                    KeyEvent::RateLimited(retry_after),
                )
            } else if keyed {
                with_status(
                    OutcomeKind::AuthFailed,
                    "answered 403 (key refused or not entitled)".into(),
                    KeyEvent::Auth,
                )
            } else {
                with_status(
                    OutcomeKind::Blocked,
                    "answered 403 (refused; this IP may be blocked)".into(),
                    KeyEvent::None,
                )
            };
        }
        s => {
            return with_status(
                OutcomeKind::HttpError,
                format!("answered {s}"),
                KeyEvent::None,
            );
        }
    }
    let truncated = resp.truncated;
    let note = engine.note_from_headers(&resp.headers);
    let e = engine.clone();
    let r = req.clone();
    let body = resp.body;
    // Parsing a multi-megabyte page is CPU work; keep it off the async workers.
    let q = query.to_owned();
    let parsed = tokio::task::spawn_blocking(move || {
        let parsed = e.parse_for(&body, &r);
        let mut body_note = None;
        if parsed.is_ok() {
            e.remember(&q, &r, &body);
            body_note = e.note_from_body(&body);
        }
        parsed.map(|items| (items, body_note))
    })
    .await
    .unwrap_or_else(|e| Err(ParseError::Malformed(format!("parser panicked: {e}"))));
    let cut = truncated.then(|| format!("body cut at {} bytes", body_cap));
    match parsed {
        Ok((items, body_note)) => {
            let kind = if items.is_empty() {
                OutcomeKind::Empty
            } else {
                OutcomeKind::Ok
            };
            let notes: Vec<String> = [note, body_note, cut].into_iter().flatten().collect();
            (
                Attempt {
                    kind,
                    status: None,
                    detail: (!notes.is_empty()).then(|| notes.join("; ")),
                    items,
                },
                KeyEvent::Success,
            )
        }
        Err(pe) => {
            let (mut a, ev) = from_parse_error(pe, keyed, None);
            if let Some(c) = cut {
                a.detail = Some(format!("{}; {c}", a.detail.unwrap_or_default()));
            }
            (a, ev)
        }
    }
}

fn from_parse_error(pe: ParseError, keyed: bool, status: Option<u16>) -> (Attempt, KeyEvent) {
    let (kind, ev) = match &pe {
        ParseError::Blocked(_) => (OutcomeKind::Blocked, KeyEvent::None),
        ParseError::RateLimited(_) => (OutcomeKind::RateLimited, KeyEvent::RateLimited(None)),
        ParseError::Quota(_) => (OutcomeKind::QuotaExhausted, KeyEvent::Quota),
        ParseError::Auth(_) => (OutcomeKind::AuthFailed, KeyEvent::Auth),
        ParseError::Malformed(_) => (OutcomeKind::ParseError, KeyEvent::None),
    };
    let ev = if keyed { ev } else { KeyEvent::None };
    (
        Attempt {
            kind,
            status,
            detail: Some(pe.to_string()),
            items: Vec::new(),
        },
        ev,
    )
}
