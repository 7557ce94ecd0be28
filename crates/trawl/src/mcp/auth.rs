//! Who may talk to `trawl serve`: the bearer token (from `TRAWL_TOKEN` or `--token-file`),
//! compared in constant time, and the rule that an unauthenticated server only listens on
//! loopback unless the operator says `--insecure-no-auth`.

use std::net::SocketAddr;
use std::path::Path;

use sha2::{Digest, Sha256};
use trawl_core::{TrawlError, vars};

/// The token clients must present as `Authorization: Bearer <token>`.
///
/// Only its SHA-256 digest is kept, so the token itself can't end up in a log or a `Debug`
/// print, and comparing two digests of fixed length leaks neither the token's length nor
/// how many leading bytes matched.
#[derive(Clone)]
pub struct BearerToken {
    digest: [u8; 32],
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(****)")
    }
}

impl BearerToken {
    /// A token from its text; surrounding whitespace (a file's trailing newline) is ignored.
    pub fn new(token: &str) -> Result<Self, TrawlError> {
        let token = token.trim();
        if token.is_empty() {
            return Err(TrawlError::invalid_input("the bearer token is empty"));
        }
        Ok(BearerToken {
            digest: Sha256::digest(token.as_bytes()).into(),
        })
    }

    /// Read the token from a file (its first line, trimmed).
    pub fn from_file(path: &Path) -> Result<Self, TrawlError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            TrawlError::invalid_input(format!("token file {}: {e}", path.display()))
        })?;
        let first = text.lines().next().unwrap_or("");
        Self::new(first).map_err(|_| {
            TrawlError::invalid_input(format!("token file {} is empty", path.display()))
        })
    }

    /// Whether an `Authorization` header value carries this token.
    pub fn accepts(&self, authorization: Option<&[u8]>) -> bool {
        let Some(value) = authorization else {
            return false;
        };
        let Ok(value) = std::str::from_utf8(value) else {
            return false;
        };
        let Some((scheme, presented)) = value.trim().split_once(' ') else {
            return false;
        };
        if !scheme.eq_ignore_ascii_case("bearer") {
            return false;
        }
        let presented: [u8; 32] = Sha256::digest(presented.trim().as_bytes()).into();
        constant_time_eq(&self.digest, &presented)
    }
}

/// Compare without an early exit, so timing does not tell how many bytes matched.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// Decide whether `trawl serve` may listen on `addr` with this auth setup.
pub fn check_bind_policy(
    addr: SocketAddr,
    token: Option<&BearerToken>,
    insecure_no_auth: bool,
) -> Result<(), TrawlError> {
    if token.is_some() || insecure_no_auth || addr.ip().is_loopback() {
        return Ok(());
    }
    Err(TrawlError::invalid_input(format!(
        "refusing to listen on {addr} without a token: anyone who can reach it could use this \
         server; set {} or --token-file, listen on 127.0.0.1, or pass \
         --insecure-no-auth if something in front of trawl already authenticates",
        vars::TOKEN
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_only_the_right_bearer_token() {
        let token = BearerToken::new("s3cret\n").unwrap();
        assert!(token.accepts(Some(b"Bearer s3cret")));
        assert!(token.accepts(Some(b"bearer   s3cret ")));
        assert!(!token.accepts(Some(b"Bearer wrong")));
        assert!(!token.accepts(Some(b"Bearer s3cret2")));
        assert!(!token.accepts(Some(b"Basic s3cret")));
        assert!(!token.accepts(Some(b"s3cret")));
        assert!(!token.accepts(None));
        assert!(BearerToken::new("  ").is_err());
        assert_eq!(format!("{token:?}"), "BearerToken(****)");
    }

    #[test]
    fn unauthenticated_servers_stay_on_loopback() {
        let lo: SocketAddr = "127.0.0.1:8787".parse().unwrap();
        let lo6: SocketAddr = "[::1]:8787".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:8787".parse().unwrap();
        let token = BearerToken::new("t").unwrap();
        assert!(check_bind_policy(lo, None, false).is_ok());
        assert!(check_bind_policy(lo6, None, false).is_ok());
        assert!(check_bind_policy(any, None, false).is_err());
        assert!(check_bind_policy(any, Some(&token), false).is_ok());
        assert!(check_bind_policy(any, None, true).is_ok());
    }
}
