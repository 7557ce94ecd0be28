//! Connect-time enforcement: the HTTP client asks this resolver for every name it connects
//! to, and gets only addresses the guard has checked. The lookup happens once, here, and the
//! connection uses exactly these addresses: there is no second lookup to rebind.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

use crate::guard::Guard;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Resolved = Pin<Box<dyn Future<Output = Result<Vec<SocketAddr>, BoxError>> + Send>>;

#[derive(Clone)]
pub(crate) struct GuardedResolver {
    pub(crate) guard: Guard,
    /// The proxy's own host name, which is the user's deliberate choice and may be private.
    pub(crate) proxy_host: Option<String>,
}

impl GuardedResolver {
    fn resolve_name(&self, host: &str) -> Resolved {
        let guard = self.guard.clone();
        let host = host.to_owned();
        let is_proxy = self
            .proxy_host
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case(&host));
        Box::pin(async move {
            let ips: Vec<std::net::IpAddr> = if is_proxy {
                tokio::net::lookup_host((host.as_str(), 0))
                    .await?
                    .map(|a| a.ip())
                    .collect()
            } else {
                guard
                    .resolve_checked(&host)
                    .await
                    .map_err(|e| Box::new(GuardRefusal(e)) as BoxError)?
            };
            Ok(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect())
        })
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let fut = self.resolve_name(name.as_str());
        Box::pin(async move {
            let addrs = fut.await?;
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(feature = "impersonate")]
impl wreq::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: wreq::dns::Name) -> wreq::dns::Resolving {
        let fut = self.resolve_name(name.as_str());
        Box::pin(async move {
            let addrs = fut.await?;
            Ok(Box::new(addrs.into_iter()) as wreq::dns::Addrs)
        })
    }
}

/// A refusal raised inside the client's connector; recovered from the error chain.
#[derive(Debug)]
pub(crate) struct GuardRefusal(pub(crate) trawl_core::TrawlError);

impl std::fmt::Display for GuardRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for GuardRefusal {}
