//! Transports: every fetch tier (plain, impersonate, render) is one implementation of
//! [`Transport`], side by side; the fetcher's escalation policy chooses between them.
//! Redirects, guard checks, the body cap and block detection are shared and live in the
//! fetcher (a browser follows its own redirects, through the guard proxy, and says so with
//! [`Answer::final_url`]).

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use futures_util::Stream;
use reqwest::header::{self, HeaderMap, HeaderValue};
use trawl_core::{ErrorCode, FetchedVia, TrawlError, error_chain};
use url::Url;

use crate::resolver::GuardRefusal;

pub(crate) type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, TrawlError>> + Send>>;

/// Status line and headers of one response, with its body still unread.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub content_length: Option<u64>,
    pub body: BodyStream,
    /// Set by a transport that followed redirects itself: where it ended up.
    pub final_url: Option<Url>,
    /// What the transport wants recorded in the attempt (refused browser requests).
    pub notes: Vec<String>,
}

impl Answer {
    /// An answer as a client library returned it, redirects not followed and nothing to note:
    /// what the plain and the impersonating transports both hand back.
    pub(crate) fn direct(
        status: u16,
        headers: HeaderMap,
        content_length: Option<u64>,
        body: BodyStream,
    ) -> Answer {
        Answer {
            status,
            headers,
            content_length,
            body,
            final_url: None,
            notes: Vec::new(),
        }
    }
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
