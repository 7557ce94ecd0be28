//! `--record DIR` / `--replay DIR`: every engine's raw response saved beside the request
//! that produced it (secrets stripped), and read back instead of the network.
//!
//! Files are `<engine>-<hash>.json` (metadata) and `<engine>-<hash>.body` (raw bytes),
//! where the hash covers the engine, the query and the filters, not the base URL or the
//! key, so a recording made against the real engines replays anywhere.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use trawl_core::{SafeUrl, Scrubber};

use crate::engine::{Body, EngineRequest, Method};
use crate::types::Filters;

/// The metadata saved next to a raw body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Recording {
    pub(crate) engine: String,
    pub(crate) query: String,
    pub(crate) method: String,
    /// Request URL with userinfo and credential query values replaced by `****`.
    pub(crate) url: String,
    /// Request headers with secret values replaced by `****`.
    pub(crate) request_headers: Vec<(String, String)>,
    pub(crate) request_body: Option<serde_json::Value>,
    pub(crate) status: u16,
    pub(crate) response_headers: Vec<(String, String)>,
    /// Whether the body was cut at the size cap.
    pub(crate) truncated: bool,
}

/// The file stem for an engine and a query.
pub(crate) fn stem(engine: &str, query: &str, filters: &Filters) -> String {
    let mut h = Sha256::new();
    h.update(engine.as_bytes());
    h.update([0]);
    h.update(query.as_bytes());
    h.update([0]);
    h.update(serde_json::to_vec(filters).unwrap_or_default());
    let hex: String = h
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{engine}-{hex}")
}

const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "x-api-key",
    "x-subscription-token",
    "cookie",
    "x-csrf-token",
    "proxy-authorization",
];

/// Replace every secret in `s` with `****`, in every spelling it takes on the wire
/// (see [`trawl_core::redact::spellings`]).
pub(crate) fn scrub(s: &str, secrets: &[&str]) -> String {
    trawl_core::scrub(s, secrets)
}

/// Replace every secret in a raw body with `****` (a service may echo the request back,
/// key included, in an error message).
pub(crate) fn scrub_bytes(body: &[u8], secrets: &[&str]) -> Vec<u8> {
    Scrubber::new(secrets).scrub_bytes(body)
}

/// The request as it may be written down: secret headers and query values masked, and
/// any configured key value removed wherever it appears.
pub(crate) fn describe(
    req: &EngineRequest,
    secrets: &[&str],
) -> (String, Vec<(String, String)>, Option<serde_json::Value>) {
    let scrubber = Scrubber::new(secrets);
    // Credential parameters by name (`api_key`, `token`, …), then any key value wherever
    // else it appears.
    let url = scrubber.scrub(&SafeUrl::new(req.url.clone()).redacted());
    let headers = req
        .headers
        .iter()
        .map(|(k, v)| {
            let v = if SECRET_HEADERS.contains(&k.to_ascii_lowercase().as_str()) {
                "****".to_owned()
            } else {
                scrubber.scrub(v)
            };
            (k.clone(), v)
        })
        .collect();
    let body = req.body.as_ref().map(|b| match b {
        Body::Form(f) => serde_json::json!(f),
        Body::Json(j) => j.clone(),
    });
    let body = body.map(|b| {
        serde_json::from_str(&scrubber.scrub(&b.to_string())).unwrap_or(serde_json::Value::Null)
    });
    (url, headers, body)
}

/// Write one recording.
pub(crate) fn save(dir: &Path, stem: &str, rec: &Recording, body: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let meta = serde_json::to_vec_pretty(rec).map_err(std::io::Error::other)?;
    std::fs::write(dir.join(format!("{stem}.json")), meta)?;
    std::fs::write(dir.join(format!("{stem}.body")), body)
}

/// Whether `dir` holds any recording of `engine`.
pub(crate) fn has_any(dir: &Path, engine: &str) -> bool {
    let prefix = format!("{engine}-");
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.strip_prefix(&prefix)
                .is_some_and(|rest| rest.len() == 21 && rest.ends_with(".json"))
        })
    })
}

/// Read one recording back.
pub(crate) fn load(dir: &Path, stem: &str) -> std::io::Result<(Recording, Vec<u8>)> {
    let meta = std::fs::read(dir.join(format!("{stem}.json")))?;
    let rec: Recording = serde_json::from_slice(&meta).map_err(std::io::Error::other)?;
    let body = std::fs::read(dir.join(format!("{stem}.body")))?;
    Ok((rec, body))
}

pub(crate) fn method_name(m: Method) -> &'static str {
    match m {
        Method::Get => "GET",
        Method::Post => "POST",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_stripped() {
        let req = EngineRequest::get(
            url::Url::parse("https://serpapi.com/search.json?q=x&api_key=sk-live-123").unwrap(),
        )
        .header("Authorization", "Bearer sk-live-123")
        .header("X-Other", "has sk-live-123 inside");
        let (url, headers, _) = describe(&req, &["sk-live-123"]);
        assert!(!url.contains("sk-live"));
        assert!(url.contains("api_key=****"));
        let words = EngineRequest::get(
            url::Url::parse("https://e.test/s?keyword=rust&monkey=m&token=t0k3n").unwrap(),
        );
        let (url, _, _) = describe(&words, &[]);
        assert_eq!(url, "https://e.test/s?keyword=rust&monkey=m&token=****");
        assert!(headers.iter().all(|(_, v)| !v.contains("sk-live")));
        let post = EngineRequest::post(
            url::Url::parse("https://x/").unwrap(),
            Body::Json(serde_json::json!({"query": "q", "api_key": "sk-live-123"})),
        );
        let (_, _, body) = describe(&post, &["sk-live-123"]);
        assert!(!body.unwrap().to_string().contains("sk-live"));
    }

    #[test]
    fn bodies_and_encoded_spellings_are_scrubbed() {
        let secret = "sk/live+123 x";
        let body = b"we received: GET /s?api_key=sk%2Flive%2B123%20x and sk%2Flive%2B123+x and sk/live+123 x";
        let clean = String::from_utf8(scrub_bytes(body, &[secret])).unwrap();
        assert!(!clean.contains("live"), "{clean}");
        assert_eq!(scrub("a sk/live+123 x b", &[secret]), "a **** b");
    }

    #[test]
    fn stems_ignore_nothing_that_matters() {
        let f = Filters::default();
        assert_eq!(stem("ddg", "q", &f), stem("ddg", "q", &f));
        assert_ne!(stem("ddg", "q", &f), stem("ddg", "q2", &f));
        let mut g = f.clone();
        g.page = Some(2);
        assert_ne!(stem("ddg", "q", &f), stem("ddg", "q", &g));
    }
}
