//! URL canonicalization: one spelling per page, for handles, dedup and fusion.

use url::Url;

/// Query parameters that only track the visitor and never change the page.
const TRACKING_PARAMS: &[&str] = &[
    "fbclid", "gclid", "gclsrc", "dclid", "msclkid", "yclid", "twclid", "igshid", "mkt_tok",
    "ref", "ref_src", "ref_url", "referrer", "_ga", "_gl", "_hsenc", "_hsmi", "mc_cid", "mc_eid",
    "oly_anon_id", "oly_enc_id", "vero_id", "wickedid", "spm", "scm", "share", "si",
];

/// Whether a query parameter name is a tracking parameter (case-insensitive).
pub fn is_tracking_param(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("utm_")
        || lower.starts_with("mc_")
        || lower.starts_with("pk_")
        || TRACKING_PARAMS.contains(&lower.as_str())
}

/// The canonical form of a URL: lowercase scheme and host (the `url` crate already does
/// this and drops default ports), no `www.`, no fragment, no tracking parameters, query
/// sorted, no trailing slash except for the root path.
pub fn canonical_url(url: &Url) -> Url {
    let mut out = url.clone();
    out.set_fragment(None);
    let _ = out.set_username("");
    let _ = out.set_password(None);
    if let Some(host) = out.host_str()
        && let Some(rest) = host.strip_prefix("www.")
        && rest.contains('.')
    {
        let rest = rest.to_owned();
        let _ = out.set_host(Some(&rest));
    }
    let mut pairs: Vec<(String, String)> = out
        .query_pairs()
        .filter(|(k, _)| !is_tracking_param(k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if pairs.is_empty() {
        out.set_query(None);
    } else {
        pairs.sort();
        out.query_pairs_mut().clear().extend_pairs(pairs);
    }
    let path = out.path().to_owned();
    if path.len() > 1 && path.ends_with('/') {
        out.set_path(path.trim_end_matches('/'));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        canonical_url(&Url::parse(s).unwrap()).to_string()
    }

    #[test]
    fn drops_noise() {
        assert_eq!(
            c("HTTPS://WWW.Example.COM:443/Path/?utm_source=a&z=1&a=2&fbclid=x#sec"),
            "https://example.com/Path?a=2&z=1"
        );
        assert_eq!(c("http://example.com:80/"), "http://example.com/");
        assert_eq!(c("https://www.co/"), "https://www.co/");
    }

    #[test]
    fn idempotent() {
        for s in [
            "https://www.example.com/a/b/?x=%20y&utm_medium=1",
            "http://[::1]:8080/x/",
            "https://example.com/?",
        ] {
            let once = c(s);
            assert_eq!(c(&once), once);
        }
    }
}
