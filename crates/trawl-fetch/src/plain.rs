//! Tier 0: reqwest with rustls, resolving every name through the guard.

use std::sync::Arc;

use reqwest::header::HeaderMap;
use trawl_core::{FetchedVia, TrawlError};
use url::Url;

use crate::config::FetchConfig;
use crate::guard::Guard;
use crate::resolver::GuardedResolver;
use crate::transport::{Answer, AnswerFuture, Transport, browser_headers, transport_error};

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
            .default_headers({
                let mut headers = browser_headers();
                headers.insert(
                    reqwest::header::ACCEPT_ENCODING,
                    crate::encoding::accept_encoding(),
                );
                headers
            })
            // Content codings are undone by the fetcher (`encoding`), all of them, in order.
            .no_gzip()
            .no_brotli()
            .no_zstd()
            .no_deflate()
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
            let p = reqwest::Proxy::all(proxy.as_str()).map_err(|e| {
                TrawlError::invalid_input(format!("invalid proxy: {e}")).with_causes_of(&e)
            })?;
            builder = builder.proxy(p);
        }
        let client = builder.build().map_err(|e| {
            TrawlError::internal(format!("could not build HTTP client: {e}")).with_causes_of(&e)
        })?;
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
            Ok(Answer::direct(
                status,
                headers,
                content_length,
                Box::pin(body),
            ))
        })
    }

    fn via(&self) -> FetchedVia {
        FetchedVia::Http
    }

    fn name(&self) -> &'static str {
        "http"
    }
}
