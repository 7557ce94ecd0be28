//! Crawl and batch-scrape webhooks, opt-in, in Firecrawl's shape: a POST of
//! `{"success", "type", "id", "webhookId", "data", "metadata"}` for each event
//! (`crawl.started`, `crawl.page`, `crawl.completed`, `crawl.failed`, and the same with
//! `batch_scrape.`), narrowed by the webhook's `events` (`started`, `page`, `completed`,
//! `failed`).
//!
//! Every delivery goes through the Guard: the URL is checked when the job starts (a
//! refusal is the job's 4xx, before anything is sent), and each delivery connects only to
//! the addresses the guard resolved and checked then, following no redirect. A webhook to a
//! private or loopback address is therefore refused unless the user opened it with the
//! same allow-host the rest of trawl uses.
//!
//! With a proxy configured (`TRAWL_PROXY`), deliveries go through it like every other
//! request trawl makes, and only through it: the names resolve at the proxy, as for page
//! fetches, and a proxy that cannot carry them fails the delivery, never a direct send.
//! Headers that would change how the request is framed or routed (`Host`,
//! `Content-Length`, `Transfer-Encoding`, hop-by-hop headers) are refused by name.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use trawl_core::TrawlError;
use trawl_fetch::Guard;
use url::Url;

use super::error::CompatError;
use super::types::job_id;

/// How long one delivery may take; a receiver that does not answer in time misses it.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// A webhook as Firecrawl takes it: a URL, or an object with one.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum WebhookSpec {
    Url(String),
    Config {
        url: String,
        #[serde(default)]
        headers: HashMap<String, String>,
        #[serde(default)]
        metadata: Map<String, Value>,
        events: Option<Vec<String>>,
    },
}

/// One job's webhook, its URL already through the guard.
#[derive(Clone)]
pub struct Webhook {
    client: reqwest::Client,
    url: Url,
    headers: HashMap<String, String>,
    metadata: Map<String, Value>,
    events: Option<Vec<String>>,
    /// `crawl` or `batch_scrape`.
    kind: &'static str,
    webhook_id: String,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Its headers may carry the receiver's secret.
        f.debug_struct("Webhook")
            .field("kind", &self.kind)
            .field("host", &self.url.host_str())
            .finish_non_exhaustive()
    }
}

const EVENTS: &[&str] = &["started", "page", "completed", "failed"];

/// Headers a webhook may not set: they frame or route the request (a `Host` or a
/// `Content-Length` of the caller's would split or redirect the delivery), or belong to
/// one hop only.
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "upgrade",
    "content-type",
];

/// Refuses a header the caller may not set, or one that is not a valid header, by name.
fn check_headers(headers: &HashMap<String, String>) -> Result<(), CompatError> {
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        if RESERVED_HEADERS.contains(&lower.as_str()) {
            return Err(CompatError::bad_request(format!(
                "webhook.headers: {name} is set by trawl (it frames or routes the delivery) \
                 and cannot be given"
            )));
        }
        if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err()
            || reqwest::header::HeaderValue::from_str(value).is_err()
        {
            return Err(CompatError::bad_request(format!(
                "webhook.headers: {name:?} is not a valid header name and value"
            )));
        }
    }
    Ok(())
}

impl Webhook {
    /// The job's webhook from its request's `webhook` field (none when absent or null),
    /// refused now when the guard refuses its URL.
    pub async fn from_request(
        value: Option<&Value>,
        kind: &'static str,
        guard: &Guard,
        proxy: Option<&Url>,
    ) -> Result<Option<Webhook>, CompatError> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let spec: WebhookSpec = serde_json::from_value(value.clone()).map_err(|_| {
            CompatError::bad_request(
                "webhook: a URL, or an object with url, headers, metadata, events",
            )
        })?;
        let (raw, headers, metadata, events) = match spec {
            WebhookSpec::Url(url) => (url, HashMap::new(), Map::new(), None),
            WebhookSpec::Config {
                url,
                headers,
                metadata,
                events,
            } => (url, headers, metadata, events),
        };
        if let Some(events) = &events
            && let Some(bad) = events.iter().find(|e| !EVENTS.contains(&e.as_str()))
        {
            return Err(CompatError::bad_request(format!(
                "webhook.events: {bad:?} is not one of started, page, completed, failed"
            )));
        }
        check_headers(&headers)?;
        let url = guard.check_raw(&raw, None).map_err(webhook_refused)?;
        let host = url
            .host_str()
            .ok_or_else(|| CompatError::bad_request("webhook: the URL has no host"))?
            .to_owned();
        let builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            // No system proxy: the configured one, when there is one, is the only way out.
            .no_proxy()
            .timeout(DELIVERY_TIMEOUT);
        let builder = match proxy {
            Some(proxy) => {
                // The proxy resolves the name, as it does for page fetches; the guard has
                // checked the URL as written (a literal private address is refused above).
                let through = reqwest::Proxy::all(proxy.as_str()).map_err(|e| {
                    CompatError::bad_request(format!(
                        "webhook: the configured proxy cannot carry it ({e}); refused rather \
                         than sent around the proxy"
                    ))
                })?;
                builder.proxy(through)
            }
            None => {
                let addrs = guard
                    .resolve_checked(&host)
                    .await
                    .map_err(webhook_refused)?;
                let port = url.port_or_known_default().unwrap_or(80);
                let pinned: Vec<SocketAddr> =
                    addrs.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
                // The connection uses exactly the addresses the guard checked.
                builder.resolve_to_addrs(&host, &pinned)
            }
        };
        let client = builder
            .build()
            .map_err(|e| TrawlError::internal(format!("webhook client: {e}")).with_causes_of(&e))?;
        Ok(Some(Webhook {
            client,
            url,
            headers,
            metadata,
            events,
            kind,
            webhook_id: job_id(),
        }))
    }

    fn wants(&self, event: &str) -> bool {
        self.events
            .as_ref()
            .is_none_or(|events| events.iter().any(|e| e == event))
    }

    /// Sends `event` (`started`, `page`, …) about job `id`, unless its `events` leave it
    /// out. A receiver that fails is logged, not retried: the job goes on either way.
    pub async fn send(&self, event: &str, id: &str, data: Vec<Value>, error: Option<&str>) {
        if !self.wants(event) {
            return;
        }
        let mut body = json!({
            "success": error.is_none(),
            "type": format!("{}.{event}", self.kind),
            "id": id,
            "webhookId": self.webhook_id,
            "data": data,
            "metadata": self.metadata,
        });
        if let Some(error) = error {
            body["error"] = json!(error);
        }
        let mut request = self.client.post(self.url.clone()).json(&body);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        match request.send().await {
            Ok(response) if response.status().is_success() => {}
            Ok(response) => tracing_line(self, event, &response.status().to_string()),
            Err(e) => tracing_line(self, event, &without_url(&e)),
        }
    }
}

/// The guard's refusal of a webhook URL, named as the webhook's.
fn webhook_refused(e: TrawlError) -> CompatError {
    let mut error = CompatError::from(e);
    error.message = format!("webhook: {}", error.message);
    error
}

/// A delivery error without its URL (the webhook's path or query may hold a secret).
fn without_url(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(url) = e.url() {
        text = text.replace(url.as_str(), "the webhook");
    }
    text
}

fn tracing_line(hook: &Webhook, event: &str, why: &str) {
    eprintln!(
        "event=webhook_failed kind={} type={event} host={} why={why:?}",
        hook.kind,
        hook.url.host_str().unwrap_or("?")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_and_hop_headers_are_refused_by_name() {
        for name in [
            "Host",
            "content-length",
            "Transfer-Encoding",
            "Connection",
            "TE",
        ] {
            let headers = HashMap::from([(name.to_owned(), "x".to_owned())]);
            let e = check_headers(&headers).unwrap_err();
            assert!(e.message.contains(name), "{}", e.message);
        }
        let bad = HashMap::from([("X-Ok".to_owned(), "line\nbreak".to_owned())]);
        assert!(check_headers(&bad).is_err());
        let fine = HashMap::from([("Authorization".to_owned(), "Bearer s3".to_owned())]);
        assert!(check_headers(&fine).is_ok());
    }
}
