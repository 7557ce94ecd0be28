//! The TLS client configuration every HTTPS client in trawl shares.
//!
//! The roots are Mozilla's, compiled in (`webpki-roots`): building them costs no file
//! reads and no certificate parsing, so a command pays nothing for TLS until it makes a
//! request. The system store (`/etc/ssl/certs`, or `SSL_CERT_FILE`/`SSL_CERT_DIR`) is
//! added only when asked for ([`TlsRoots::WithSystem`]): loading it reads and parses a few
//! hundred files, which used to be most of a short command's CPU.

use std::sync::{Arc, OnceLock};

use rustls::RootCertStore;
use trawl_core::TrawlError;

/// Which certificate authorities HTTPS clients trust.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TlsRoots {
    /// Mozilla's roots, compiled in.
    #[default]
    Bundled,
    /// Mozilla's roots plus the operating system's store (for private or corporate CAs).
    WithSystem,
}

/// A rustls configuration for reqwest's `tls_backend_preconfigured`: the roots asked for,
/// ALPN for HTTP/2 and HTTP/1.1 (what reqwest sets on configurations it builds itself).
///
/// Built once per process for each kind of roots; later calls clone it (the roots sit
/// behind an `Arc`, so a clone is cheap).
pub fn client_config(roots: TlsRoots) -> Result<rustls::ClientConfig, TrawlError> {
    static BUNDLED: OnceLock<rustls::ClientConfig> = OnceLock::new();
    static WITH_SYSTEM: OnceLock<rustls::ClientConfig> = OnceLock::new();
    let cell = match roots {
        TlsRoots::Bundled => &BUNDLED,
        TlsRoots::WithSystem => &WITH_SYSTEM,
    };
    if let Some(config) = cell.get() {
        return Ok(config.clone());
    }
    let built = build(roots)?;
    Ok(cell.get_or_init(|| built).clone())
}

fn build(roots: TlsRoots) -> Result<rustls::ClientConfig, TrawlError> {
    let mut store = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if roots == TlsRoots::WithSystem {
        // Unreadable entries are skipped, as the platform verifier does: one bad file in
        // the system store must not take HTTPS down.
        let native = rustls_native_certs::load_native_certs();
        store.add_parsable_certificates(native.certs);
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TrawlError::internal(format!("TLS configuration: {e}")).with_causes_of(&e))?
        .with_root_certificates(store)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_roots_are_mozillas_and_offer_h2() {
        let config = client_config(TlsRoots::Bundled).unwrap();
        assert_eq!(
            config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        // The same configuration comes back on the second call (built once).
        let again = client_config(TlsRoots::Bundled).unwrap();
        assert_eq!(again.alpn_protocols, config.alpn_protocols);
        assert!(webpki_roots::TLS_SERVER_ROOTS.len() > 100);
    }
}
