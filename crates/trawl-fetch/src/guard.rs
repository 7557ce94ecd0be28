//! The Guard: decides, before every hop and again at connect time, whether a URL may be
//! fetched. Refused: non-http(s) schemes, userinfo and backslash tricks, odd spellings of IP
//! addresses, and any host whose addresses include a non-public one (see [`crate::ip`]).

use std::net::IpAddr;
use std::sync::Arc;

use ipnet::IpNet;
use trawl_core::{ErrorCode, TrawlError};
use url::{Host, Url};

use crate::ip::non_public_reason;

/// Longest URL accepted (as typed or in a `Location` header). Servers commonly refuse
/// request lines past 8-16 KiB; anything longer is a mistake or an attack on logs.
pub const MAX_URL_BYTES: usize = 16 * 1024;

/// One entry of `--allow-host`: a host name or an address range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostRule {
    /// A host name, matched exactly (case-insensitive).
    Name(String),
    /// An address or CIDR range.
    Net(IpNet),
}

impl HostRule {
    /// Parse `HOST`, `IP` or `CIDR`.
    pub fn parse(s: &str) -> Result<Self, TrawlError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(TrawlError::invalid_input("allow-host: empty value"));
        }
        if let Ok(net) = s.parse::<IpNet>() {
            return Ok(HostRule::Net(net));
        }
        let bare = s.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(HostRule::Net(IpNet::from(ip)));
        }
        let name = s.trim_end_matches('.').to_ascii_lowercase();
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
        if !valid {
            return Err(TrawlError::invalid_input(format!(
                "allow-host: {s:?} is neither a host name, an IP address nor a CIDR range"
            )));
        }
        Ok(HostRule::Name(name))
    }
}

/// What the guard lets through.
#[derive(Debug, Clone, Default)]
pub struct GuardPolicy {
    /// Opt out of the private-address checks entirely (deliberate internal use).
    pub allow_private_hosts: bool,
    /// Hosts and ranges opened one by one.
    pub allow_hosts: Vec<HostRule>,
}

impl GuardPolicy {
    fn name_allowed(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.');
        self.allow_hosts
            .iter()
            .any(|r| matches!(r, HostRule::Name(n) if n.eq_ignore_ascii_case(host)))
    }

    fn ip_allowed(&self, ip: IpAddr) -> bool {
        self.allow_hosts
            .iter()
            .any(|r| matches!(r, HostRule::Net(net) if net.contains(&ip)))
    }

    /// Check one resolved (or literal) address.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), TrawlError> {
        if self.allow_private_hosts || self.ip_allowed(ip) {
            return Ok(());
        }
        match non_public_reason(ip) {
            None => Ok(()),
            Some(why) => Err(policy(format!(
                "refused to connect to {ip}: {why} (use --allow-host to open it deliberately)"
            ))),
        }
    }
}

fn policy(message: String) -> TrawlError {
    TrawlError::new(ErrorCode::BlockedByPolicy, message)
}

/// Name lookup, injectable so tests can map names to any address without real DNS.
pub trait Lookup: Send + Sync + 'static {
    /// Resolve `host` to its addresses.
    fn lookup(
        &self,
        host: String,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'static>,
    >;
}

/// A function from a host name to its addresses is a lookup too, answered at once: the
/// shape of a fixed table (trawl-testkit's `TestNames` hands its table over this way).
impl<F> Lookup for F
where
    F: Fn(&str) -> std::io::Result<Vec<IpAddr>> + Send + Sync + 'static,
{
    fn lookup(
        &self,
        host: String,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'static>,
    > {
        let answer = self(&host);
        Box::pin(async move { answer })
    }
}

/// The system resolver (getaddrinfo through tokio).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(
        &self,
        host: String,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'static>,
    > {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// The guard: a policy plus the lookup it resolves names with.
#[derive(Clone)]
pub struct Guard {
    policy: Arc<GuardPolicy>,
    lookup: Arc<dyn Lookup>,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("policy", &self.policy)
            .finish()
    }
}

impl Guard {
    /// A guard with the system resolver.
    pub fn new(policy: GuardPolicy) -> Self {
        Self::with_lookup(policy, Arc::new(SystemLookup))
    }

    /// A guard whose lookups go through `lookup` (tests map names to any address).
    pub fn with_lookup(policy: GuardPolicy, lookup: Arc<dyn Lookup>) -> Self {
        Guard {
            policy: Arc::new(policy),
            lookup,
        }
    }

    /// The policy it enforces.
    pub fn policy(&self) -> &GuardPolicy {
        &self.policy
    }

    /// Parse and check a URL as typed by a user or found in a `Location` header.
    ///
    /// `raw` is the text before parsing: the `url` crate normalizes odd IPv4 spellings
    /// (`0x7f.1`, `2130706433`, `0177.0.0.1`, `127.1`) and backslashes, so the checks
    /// for those tricks must look at what was written.
    pub fn check_raw(&self, raw: &str, base: Option<&Url>) -> Result<Url, TrawlError> {
        let trimmed = raw.trim();
        if trimmed.len() > MAX_URL_BYTES {
            let start: String = trimmed.chars().take(60).collect();
            return Err(TrawlError::invalid_input(format!(
                "URL {start:?}… is {} bytes long; at most {MAX_URL_BYTES} are accepted",
                trimmed.len()
            )));
        }
        let url = match base {
            Some(base) => base.join(trimmed),
            None => Url::parse(trimmed),
        }
        .map_err(|e| TrawlError::invalid_input(format!("invalid URL {trimmed:?}: {e}")))?;
        if let Some(authority) = raw_authority(trimmed) {
            if authority.contains('\\') {
                return Err(policy(format!(
                    "refused {trimmed:?}: backslash in the authority (a parser-confusion trick)"
                )));
            }
            if authority.contains('@') {
                return Err(policy(format!(
                    "refused {trimmed:?}: credentials in the URL (userinfo) are not allowed"
                )));
            }
            if let Some(Host::Ipv4(ip)) = url.host() {
                let written = strip_port(authority).trim_end_matches('.');
                let written = written.to_ascii_lowercase();
                if written != ip.to_string() && !self.policy.allow_private_hosts {
                    return Err(policy(format!(
                        "refused {trimmed:?}: unusual spelling of the IP address {ip}"
                    )));
                }
            }
        }
        self.check_url(&url)?;
        Ok(url)
    }

    /// Checks that need no DNS: scheme, userinfo, literal IP addresses, `localhost` names.
    pub fn check_url(&self, url: &Url) -> Result<(), TrawlError> {
        match url.scheme() {
            "http" | "https" => {}
            other => {
                return Err(policy(format!(
                    "refused scheme {other:?}: only http and https can be fetched"
                )));
            }
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(policy(format!(
                "refused {}: credentials in the URL (userinfo) are not allowed",
                url.host_str().unwrap_or("")
            )));
        }
        match url.host() {
            None => Err(TrawlError::invalid_input(format!("URL has no host: {url}"))),
            Some(Host::Ipv4(ip)) => self.policy.check_ip(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => self.policy.check_ip(IpAddr::V6(ip)),
            Some(Host::Domain(name)) => {
                let lower = name.trim_end_matches('.').to_ascii_lowercase();
                let local_name = lower == "localhost" || lower.ends_with(".localhost");
                if local_name
                    && !self.policy.allow_private_hosts
                    && !self.policy.name_allowed(&lower)
                {
                    return Err(policy(format!(
                        "refused {name:?}: localhost names always point at this machine"
                    )));
                }
                Ok(())
            }
        }
    }

    /// Resolve `host` and check every address. Refuses when ANY address is non-public, so a
    /// name with one public and one private address cannot be used to reach the private one.
    /// The addresses returned are the ones the connection must use (no second lookup).
    pub async fn resolve_checked(&self, host: &str) -> Result<Vec<IpAddr>, TrawlError> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            self.policy.check_ip(ip)?;
            return Ok(vec![ip]);
        }
        let addrs = self.lookup.lookup(bare.to_owned()).await.map_err(|e| {
            TrawlError::new(
                ErrorCode::Upstream,
                format!("could not resolve {bare:?}: {e}"),
            )
        })?;
        if addrs.is_empty() {
            return Err(TrawlError::new(
                ErrorCode::Upstream,
                format!("{bare:?} resolved to no address"),
            ));
        }
        if self.policy.allow_private_hosts || self.policy.name_allowed(bare) {
            return Ok(addrs);
        }
        for ip in &addrs {
            self.policy.check_ip(*ip).map_err(|e| {
                policy(format!(
                    "refused {bare:?}: it resolves to {ip}; {}",
                    e.message.trim_start_matches("refused to connect to ")
                ))
            })?;
        }
        Ok(addrs)
    }
}

/// Name suffixes that only mean something inside one network.
const INTERNAL_SUFFIXES: &[&str] = &[
    "localhost",
    "local",
    "internal",
    "intranet",
    "lan",
    "home.arpa",
    "corp",
    "localdomain",
    "test",
    "invalid",
];

impl Guard {
    /// Whether `url` may be named to a third party, such as a hosted reader: its host must
    /// be a public name that resolves only to public addresses, and not one the user
    /// opened with `--allow-host`. `allow_private_hosts` and the allow-list open hosts to
    /// trawl, never to others, so both count against sharing here. With `resolve` false
    /// (a proxy resolves names), a name is judged without DNS.
    pub async fn check_shareable(&self, url: &Url, resolve: bool) -> Result<(), String> {
        let public_ip = |ip: IpAddr| -> Result<(), String> {
            if self.policy.ip_allowed(ip) {
                return Err(format!("{ip} is opened with --allow-host"));
            }
            match non_public_reason(ip) {
                Some(why) => Err(format!("{ip} is {why}")),
                None => Ok(()),
            }
        };
        let name = match url.host() {
            None => return Err("the URL has no host".to_owned()),
            Some(Host::Ipv4(ip)) => return public_ip(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => return public_ip(IpAddr::V6(ip)),
            Some(Host::Domain(name)) => name.trim_end_matches('.').to_ascii_lowercase(),
        };
        if self.policy.name_allowed(&name) {
            return Err(format!("{name} is opened with --allow-host"));
        }
        let internal = !name.contains('.')
            || INTERNAL_SUFFIXES
                .iter()
                .any(|s| name == *s || name.ends_with(&format!(".{s}")));
        if internal {
            return Err(format!("{name} is a local or internal name"));
        }
        if !resolve {
            return Ok(());
        }
        let addrs = self
            .lookup
            .lookup(name.clone())
            .await
            .map_err(|_| format!("{name} does not resolve"))?;
        if addrs.is_empty() {
            return Err(format!("{name} does not resolve"));
        }
        for ip in addrs {
            public_ip(ip).map_err(|why| format!("{name} resolves to {why}"))?;
        }
        Ok(())
    }
}

/// The authority part of an absolute URL as written (`user@host:port`), if any.
fn raw_authority(raw: &str) -> Option<&str> {
    let (_, rest) = raw.split_once("://").or_else(|| {
        // Protocol-relative `//host/...` in a Location header.
        raw.strip_prefix("//").map(|r| ("", r))
    })?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&rest[..end])
}

fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority;
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => authority,
    }
}
