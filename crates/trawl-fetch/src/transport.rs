//! Transports: the one thing that differs between fetch tiers is the HTTP client that sends
//! a single GET. Redirects, guard checks, the body cap and block detection are shared and
//! live in the fetcher.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::Stream;
use reqwest::header::{self, HeaderMap, HeaderValue};
use trawl_core::{ErrorCode, FetchedVia, TrawlError};
use url::Url;

use crate::fetcher::FetchConfig;
use crate::guard::Guard;
use crate::resolver::{GuardRefusal, GuardedResolver};

pub(crate) type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, TrawlError>> + Send>>;

/// Status line and headers of one response, with its body still unread.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub content_length: Option<u64>,
    pub body: BodyStream,
}

pub(crate) type AnswerFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Answer, TrawlError>> + Send + 'a>>;

/// Sends one GET without following redirects.
pub(crate) trait Transport: Send + Sync {
    fn get<'a>(&'a self, url: &'a Url, extra: HeaderMap) -> AnswerFuture<'a>;
    fn via(&self) -> FetchedVia;
    fn name(&self) -> &'static str;
}

pub(crate) fn browser_headers() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static(
            "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.8,text/plain;q=0.7,*/*;q=0.5",
        ),
    );
    headers.insert(
        header::ACCEPT_LANGUAGE,
        HeaderValue::from_static("en-US,en;q=0.9"),
    );
    headers
}

/// Tier 0: reqwest with rustls.
pub(crate) struct PlainTransport {
    client: reqwest::Client,
}

impl PlainTransport {
    pub(crate) fn new(
        config: &FetchConfig,
        guard: &Guard,
        proxy: Option<&Url>,
    ) -> Result<Self, TrawlError> {
        let mut builder = reqwest::Client::builder()
            .tls_backend_preconfigured(crate::tls::client_config(config.tls_roots)?)
            .user_agent(config.user_agent.clone())
            .default_headers(browser_headers())
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.connect_timeout)
            .dns_resolver(Arc::new(GuardedResolver {
                guard: guard.clone(),
                proxy_host: proxy.and_then(|p| p.host_str().map(str::to_owned)),
            }))
            // No system proxy: a proxy is used only when configured, and then it is the
            // only way out (a dead proxy fails closed; there is no direct fallback).
            .no_proxy();
        if let Some(proxy) = proxy {
            let p = reqwest::Proxy::all(proxy.as_str())
                .map_err(|e| TrawlError::invalid_input(format!("invalid proxy: {e}")))?;
            builder = builder.proxy(p);
        }
        let client = builder
            .build()
            .map_err(|e| TrawlError::internal(format!("could not build HTTP client: {e}")))?;
        Ok(PlainTransport { client })
    }
}

impl Transport for PlainTransport {
    fn get<'a>(&'a self, url: &'a Url, extra: HeaderMap) -> AnswerFuture<'a> {
        Box::pin(async move {
            let response = self
                .client
                .get(url.clone())
                .headers(extra)
                .send()
                .await
                .map_err(|e| transport_error(&e))?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let content_length = response.content_length();
            let body = futures_util::stream::unfold(Some(response), |state| async move {
                let mut response = state?;
                match response.chunk().await {
                    Ok(Some(chunk)) => Some((Ok(chunk), Some(response))),
                    Ok(None) => None,
                    Err(e) => Some((Err(transport_error(&e)), None)),
                }
            });
            Ok(Answer {
                status,
                headers,
                content_length,
                body: Box::pin(body),
            })
        })
    }

    fn via(&self) -> FetchedVia {
        FetchedVia::Http
    }

    fn name(&self) -> &'static str {
        "http"
    }
}

/// Map a client error, recovering a guard refusal raised inside the connector.
pub(crate) fn transport_error(e: &(dyn std::error::Error + 'static)) -> TrawlError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut timed_out = false;
    let mut connect = false;
    while let Some(err) = source {
        if let Some(refusal) = err.downcast_ref::<GuardRefusal>() {
            return refusal.0.clone();
        }
        if let Some(r) = err.downcast_ref::<reqwest::Error>() {
            timed_out |= r.is_timeout();
            connect |= r.is_connect();
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            timed_out |= io.kind() == std::io::ErrorKind::TimedOut;
        }
        source = err.source();
    }
    let chain = error_chain(e);
    if timed_out || chain.contains("timed out") {
        TrawlError::new(ErrorCode::Timeout, format!("timed out: {chain}"))
    } else if connect {
        TrawlError::new(ErrorCode::Upstream, format!("could not connect: {chain}"))
    } else {
        TrawlError::new(ErrorCode::Upstream, chain)
    }
}

/// The whole cause chain, since clients' top-level messages are terse.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let msg = s.to_string();
        if !out.contains(&msg) {
            out.push_str(": ");
            out.push_str(&msg);
        }
        source = s.source();
    }
    out
}
