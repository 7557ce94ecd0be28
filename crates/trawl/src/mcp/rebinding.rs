//! DNS-rebinding checks for the routes rmcp does not serve (`/metrics`): the same `Host`
//! and `Origin` rules rmcp applies to `/mcp`, from the same lists. Written here because
//! rmcp keeps its checks private to its service.

use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};
use axum::http::uri::Authority;

/// Who may ask: `Host` names (empty = any) and browser origins.
#[derive(Debug, Clone, Default)]
pub struct RebindingPolicy {
    pub hosts: Vec<String>,
    pub origins: Vec<String>,
}

/// Lower-cased host without IPv6 brackets, and the port if given.
fn authority(raw: &str) -> Option<(String, Option<u16>)> {
    let a = Authority::try_from(raw.trim()).ok()?;
    let host = a
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    Some((host, a.port_u16()))
}

/// An allowed-host entry: an authority, or a bare IPv6 address (which is not one).
fn allowed_host(entry: &str) -> Option<(String, Option<u16>)> {
    let bare = entry.trim().trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<std::net::Ipv6Addr>() {
        Ok(_) => Some((bare.to_ascii_lowercase(), None)),
        Err(_) => authority(entry),
    }
}

/// `scheme://host[:port]` split; `:*` (any port) and no port both match every port.
fn origin(raw: &str) -> Option<(String, String, Option<u16>)> {
    let (scheme, rest) = raw.trim().split_once("://")?;
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(":*").unwrap_or(rest);
    let (host, port) = authority(rest)?;
    Some((scheme.to_ascii_lowercase(), host, port))
}

impl RebindingPolicy {
    /// Why a request with these headers is refused, if it is.
    pub fn refusal(&self, headers: &HeaderMap) -> Option<&'static str> {
        if !self.hosts.is_empty() {
            let Some((host, port)) = headers
                .get(HOST)
                .and_then(|v| v.to_str().ok())
                .and_then(authority)
            else {
                return Some("Forbidden: Host header is missing or malformed");
            };
            let allowed = self
                .hosts
                .iter()
                .filter_map(|h| allowed_host(h))
                .any(|(h, p)| h == host && p.is_none_or(|p| Some(p) == port));
            if !allowed {
                return Some("Forbidden: Host header is not allowed");
            }
        }
        // No Origin: not a browser page, nothing more to check.
        let value = headers.get(ORIGIN)?;
        let Some((scheme, host, port)) = value.to_str().ok().and_then(origin) else {
            return Some("Forbidden: Origin header is malformed");
        };
        let allowed = self.origins.iter().any(|raw| {
            let any_port = raw.trim().ends_with(":*");
            origin(raw).is_some_and(|(s, h, p)| {
                s == scheme && h == host && (any_port || p.is_none() || p == port)
            })
        });
        (!allowed).then_some("Forbidden: Origin header is not allowed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn hosts_and_origins_as_rmcp_checks_them() {
        let p = RebindingPolicy {
            hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            origins: vec![
                "http://localhost:*".into(),
                "https://app.example.com".into(),
            ],
        };
        assert_eq!(p.refusal(&headers(&[("host", "127.0.0.1:8787")])), None);
        assert_eq!(p.refusal(&headers(&[("host", "[::1]:8787")])), None);
        assert!(p.refusal(&headers(&[("host", "evil.example")])).is_some());
        assert!(p.refusal(&headers(&[])).is_some());
        let ok = [("host", "localhost:1"), ("origin", "http://localhost:3000")];
        assert_eq!(p.refusal(&headers(&ok)), None);
        let app = [("host", "localhost"), ("origin", "https://app.example.com")];
        assert_eq!(p.refusal(&headers(&app)), None);
        let evil = [("host", "localhost"), ("origin", "http://evil.example")];
        assert!(p.refusal(&headers(&evil)).is_some());
        let any = RebindingPolicy {
            hosts: Vec::new(),
            origins: Vec::new(),
        };
        assert_eq!(any.refusal(&headers(&[("host", "anything")])), None);
    }
}
