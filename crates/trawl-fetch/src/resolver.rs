//! Connect-time enforcement: reqwest asks this resolver for every name it connects to, and
//! gets only addresses the guard has checked. The lookup happens once, here, and the
//! connection uses exactly these addresses: there is no second lookup to rebind.

use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::guard::Guard;

pub(crate) struct GuardedResolver {
    pub(crate) guard: Guard,
    /// The proxy's own host name, which is the user's deliberate choice and may be private.
    pub(crate) proxy_host: Option<String>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        let host = name.as_str().to_owned();
        let is_proxy = self
            .proxy_host
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case(&host));
        Box::pin(async move {
            let ips = if is_proxy {
                tokio::net::lookup_host((host.as_str(), 0))
                    .await?
                    .map(|a| a.ip())
                    .collect()
            } else {
                guard.resolve_checked(&host).await.map_err(|e| {
                    Box::new(GuardRefusal(e)) as Box<dyn std::error::Error + Send + Sync>
                })?
            };
            let addrs: Addrs = Box::new(
                ips.into_iter()
                    .map(|ip| SocketAddr::new(ip, 0))
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            Ok(addrs)
        })
    }
}

/// A refusal raised inside reqwest's connector; recovered from the error chain by the fetcher.
#[derive(Debug)]
pub(crate) struct GuardRefusal(pub(crate) trawl_core::TrawlError);

impl std::fmt::Display for GuardRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for GuardRefusal {}
