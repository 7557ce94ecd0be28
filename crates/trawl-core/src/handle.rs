//! Handles: the short, human-readable, stable name of a document.

use sha2::{Digest, Sha256};

use crate::canonical_url;

/// `host~<12 hex of SHA-256(canonical URL)>`, e.g. `example.com~3f1a9c0b2d4e`.
///
/// The host part is for people; the hash part makes it unique. The same page reached by
/// `http://WWW.Example.com/a?utm_source=x#top` and `https://example.com/a` shares a handle
/// only if their canonical forms match (scheme is kept, so those two differ).
pub fn handle_for_url(url: &url::Url) -> String {
    let canonical = canonical_url(url);
    let digest = Sha256::digest(canonical.as_str().as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    let host = canonical
        .host_str()
        .map(|h| h.trim_matches(['[', ']']).replace(':', "-"))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "local".to_owned());
    format!("{host}~{hex}")
}

/// Whether `s` has the shape of a handle (used to tell handles from URLs in inputs).
pub fn is_valid_handle(s: &str) -> bool {
    let Some((host, hex)) = s.rsplit_once('~') else {
        return false;
    };
    !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_'))
        && hex.len() == 12
        && hex
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> String {
        handle_for_url(&url::Url::parse(s).unwrap())
    }

    #[test]
    fn stable_across_tracking_noise() {
        assert_eq!(
            h("https://www.Example.com/a/?utm_source=x&b=2&a=1#frag"),
            h("https://example.com/a?a=1&b=2")
        );
        assert_ne!(h("https://example.com/a"), h("https://example.com/b"));
    }

    #[test]
    fn has_the_documented_shape() {
        let handle = h("https://docs.rs/tokio/latest/tokio/");
        assert!(handle.starts_with("docs.rs~"), "{handle}");
        assert!(is_valid_handle(&handle), "{handle}");
        assert!(!is_valid_handle("https://docs.rs/"));
        assert!(!is_valid_handle("docs.rs~XYZ"));
        assert!(is_valid_handle(&h("http://[::1]:8080/x")));
    }
}
