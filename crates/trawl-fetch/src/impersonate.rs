//! Tier 1: a client whose TLS and HTTP/2 fingerprints match a current Chrome (wreq), used
//! only after tier 0 met an anti-bot challenge. Same guard, resolver, proxy and redirect
//! handling as tier 0: only the wire fingerprint differs.

use futures_util::StreamExt;
use reqwest::header::HeaderMap;
use trawl_core::{FetchedVia, TrawlError};
use url::Url;

use crate::config::FetchConfig;
use crate::guard::Guard;
use crate::resolver::GuardedResolver;
use crate::transport::{Answer, AnswerFuture, Transport, browser_headers, transport_error};

/// The newest Chrome profile this wreq-util release carries.
const PROFILE: wreq_util::Profile = wreq_util::Profile::Chrome149;

pub(crate) struct ImpersonatingTransport {
    client: wreq::Client,
}

impl ImpersonatingTransport {
    pub(crate) fn new(
        config: &FetchConfig,
        guard: &Guard,
        proxy: Option<&Url>,
    ) -> Result<Self, TrawlError> {
        let mut builder = wreq::Client::builder()
            .emulation(PROFILE)
            .redirect(wreq::redirect::Policy::none())
            .connect_timeout(config.connect_timeout)
            .dns_resolver(GuardedResolver {
                guard: guard.clone(),
                proxy_host: proxy.and_then(|p| p.host_str().map(str::to_owned)),
            })
            .no_proxy();
        if let Some(proxy) = proxy {
            let p = wreq::Proxy::all(proxy.as_str())
                .map_err(|e| TrawlError::invalid_input(format!("invalid proxy: {e}")))?;
            builder = builder.proxy(p);
        }
        let client = builder.build().map_err(|e| {
            TrawlError::internal(format!("could not build the impersonating client: {e}"))
        })?;
        Ok(ImpersonatingTransport { client })
    }
}

impl Transport for ImpersonatingTransport {
    fn get<'a>(&'a self, url: &'a Url, extra: HeaderMap) -> AnswerFuture<'a> {
        Box::pin(async move {
            // The emulation profile sets the User-Agent and header order; only the content
            // negotiation headers and validators are added.
            let mut headers = browser_headers();
            headers.extend(extra);
            let response = self
                .client
                .get(url.as_str())
                .headers(headers)
                .send()
                .await
                .map_err(|e| transport_error(&e))?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let content_length = response.content_length();
            let body = response
                .bytes_stream()
                .map(|chunk| chunk.map_err(|e| transport_error(&e)));
            Ok(Answer::direct(
                status,
                headers,
                content_length,
                Box::pin(body),
            ))
        })
    }

    fn via(&self) -> FetchedVia {
        FetchedVia::Impersonate
    }

    fn name(&self) -> &'static str {
        "impersonate"
    }
}
