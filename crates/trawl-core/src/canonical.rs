//! URL canonicalization: one spelling per page, for handles, dedup and fusion.

use std::borrow::Cow;

use url::Url;

/// Query parameters that only track the visitor and never change the page.
const TRACKING_PARAMS: &[&str] = &[
    "fbclid",
    "gclid",
    "gclsrc",
    "dclid",
    "msclkid",
    "yclid",
    "twclid",
    "igshid",
    "mkt_tok",
    "ref",
    "ref_src",
    "ref_url",
    "referrer",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "mc_cid",
    "mc_eid",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "wickedid",
    "spm",
    "scm",
    "share",
    "si",
    "srsltid",
    "ttclid",
    "li_fat_id",
    "epik",
    "rdt_cid",
    "s_kwcid",
    "ef_id",
    "_openstat",
    "hsa_acc",
    "hsa_cam",
    "hsa_grp",
    "hsa_ad",
    "hsa_src",
    "hsa_tgt",
    "hsa_kw",
    "hsa_mt",
    "hsa_net",
    "hsa_ver",
    "gad_source",
    "wbraid",
    "gbraid",
    "cmpid",
    "ncid",
    "ocid",
];

/// Whether a query parameter name is a tracking parameter (case-insensitive).
pub fn is_tracking_param(name: &str) -> bool {
    // Compared ignoring ASCII case rather than lowercased: asked of every query parameter
    // of every link a crawl meets, and the lists are lower-case ASCII.
    starts_with_ignore_case(name, "utm_")
        || starts_with_ignore_case(name, "mc_")
        || starts_with_ignore_case(name, "pk_")
        || TRACKING_PARAMS.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// `s` with ASCII upper case lowered, borrowed when it has none (hosts, asked of every link
/// a crawl meets, mostly have none).
pub fn ascii_lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// Whether `s` starts with `prefix`, ASCII case ignored.
fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Whether `s` ends with `suffix`, ASCII case ignored.
fn ends_with_ignore_case(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.as_bytes()[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// Words that make a query parameter a credential when they are one of its name's parts.
const CREDENTIAL_WORDS: &[&str] = &[
    "key",
    "apikey",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "signature",
    "auth",
    "credential",
    "credentials",
    "session",
    "sessionid",
    "sid",
    "jwt",
    "otp",
];

/// Whether a query parameter looks like it carries a credential: one of the parts of its
/// name (split at `_`, `-`, `.` and lower-to-upper case changes) is a credential word, so
/// `api_key`, `accessToken` and `X-Amz-Signature` are, and `keyword` or `monkey` are not.
pub fn is_credential_param(name: &str) -> bool {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | '[' | ']') || (c.is_uppercase() && prev_lower) {
            parts.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    parts.push(current);
    parts.iter().any(|p| CREDENTIAL_WORDS.contains(&p.as_str()))
}

/// The names of `url`'s query parameters that look like credentials.
pub fn credential_params(url: &Url) -> Vec<String> {
    url.query_pairs()
        .map(|(k, _)| k.into_owned())
        .filter(|k| is_credential_param(k))
        .collect()
}

/// The target of a search engine's redirect wrapper, if `url` is one:
/// DuckDuckGo `duckduckgo.com/l/?uddg=<pct>`, Yahoo `…/RU=<pct>/RK=…`,
/// Bing `bing.com/ck/a?…&u=a1<base64url>` and Google `/url?q=<pct>`.
/// Only http(s) targets are returned, so a wrapper cannot smuggle another scheme.
pub fn unwrap_redirect(url: &Url) -> Option<Url> {
    // Asked of every link (the `url` crate already lowercases the hosts of http(s) URLs).
    let host = ascii_lowercase(url.host_str()?);
    let param = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    let target = if (host == "duckduckgo.com" || host.ends_with(".duckduckgo.com"))
        && url.path() == "/l/"
    {
        param("uddg")?
    } else if host.ends_with("search.yahoo.com") && url.path().contains("/RU=") {
        let path = url.path();
        let start = path.find("/RU=")? + 4;
        let rest = &path[start..];
        let end = ["/RK=", "/RS="]
            .iter()
            .filter_map(|m| rest.find(m))
            .min()
            .unwrap_or(rest.len());
        percent_decode(&rest[..end])
    } else if (host == "bing.com" || host.ends_with(".bing.com")) && url.path() == "/ck/a" {
        let u = param("u")?;
        let encoded = u.strip_prefix("a1").unwrap_or(&u);
        String::from_utf8(base64url_decode(encoded)?).ok()?
    } else if (host == "google.com" || host.starts_with("www.google.")) && url.path() == "/url" {
        param("q").or_else(|| param("url"))?
    } else {
        return None;
    };
    let parsed = Url::parse(&target).ok()?;
    matches!(parsed.scheme(), "http" | "https").then_some(parsed)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h << 4 | l);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// URL-safe base64 (padding optional), as Bing uses in `ck/a?u=`. Hand-written because
/// trawl-core keeps its dependencies to the bare minimum.
fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Percent-encoding normalisation (RFC 3986 §6.2.2.2): decode escapes of unreserved
/// characters (`%7E` → `~`), upper-case the hex of the others and encode a stray `%` as
/// `%25`, so two spellings of one path compare equal and a second pass changes nothing.
/// A path with no `%` (and only ASCII) is its own normal form, and is borrowed.
fn normalize_percent(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| b != b'%' && b.is_ascii()) {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            let c = h << 4 | l;
            if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
                out.push(c as char);
            } else {
                out.push('%');
                out.push(b[i + 1].to_ascii_uppercase() as char);
                out.push(b[i + 2].to_ascii_uppercase() as char);
            }
            i += 3;
        } else if b[i] == b'%' {
            // A `%` that starts no escape is written as `%25`: left bare, it could meet
            // hex digits decoded just after it (`%%333` → `%33`) and form a new escape
            // that a second pass would decode (found by fuzzing).
            out.push_str("%25");
            i += 1;
        } else {
            // `s` is an ASCII URL path (the url crate percent-encodes everything else).
            out.push(b[i] as char);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// The canonical form of a URL: redirect wrappers unwrapped, lowercase scheme and host
/// (the `url` crate already does this and drops default ports), no `www.`, no fragment,
/// no tracking parameters, query sorted, percent-encoding normalised, no trailing slash
/// except for the root path.
pub fn canonical_url(url: &Url) -> Url {
    let mut out = unwrap_redirect(url).unwrap_or_else(|| url.clone());
    if out.cannot_be_a_base() {
        // `mailto:`, `data:` and other opaque URLs have no host or path to normalize, and
        // editing their query makes the `url` crate trim the path, so a second pass would
        // differ from the first (found by fuzzing). They are kept as they are.
        return out;
    }
    out.set_fragment(None);
    let _ = out.set_username("");
    let _ = out.set_password(None);
    // Every leading `www.` goes at once (`www.www.example.com` too), so a second pass
    // finds none left (found by fuzzing).
    if let Some(host) = out.host_str() {
        let mut rest = host;
        while let Some(r) = rest.strip_prefix("www.")
            && r.contains('.')
        {
            rest = r;
        }
        if rest.len() != host.len() {
            let rest = rest.to_owned();
            let _ = out.set_host(Some(&rest));
        }
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
    let normalized = normalize_percent(out.path());
    let mut path: &str = &normalized;
    if path.len() > 1 && path.ends_with('/') {
        path = path.trim_end_matches('/');
        if path.is_empty() {
            path = "/";
        }
    }
    // Most paths are canonical already: copied only to be set.
    if path != out.path() {
        let path = path.to_owned();
        out.set_path(&path);
    }
    out
}

/// Whether [`canonical_url`] would give `url` back as it is, known without making the
/// copy: no redirect wrapper, fragment, user info, query or leading `www.`, and a path of
/// ASCII with no `%` and no trailing slash (the root excepted). `false` says only that it
/// may not: a crawl asks this of every link and, when it says yes, looks the link up in
/// its seen set by the link's own text.
pub fn is_canonical(url: &Url) -> bool {
    if url.cannot_be_a_base() {
        return unwrap_redirect(url).is_none();
    }
    let path = url.path();
    !(path.len() > 1 && path.ends_with('/')) && canonical_but_trailing_slashes(url)
}

/// Whether [`canonical_url`] would change nothing of `url` (a URL with a base) but trim
/// its path's trailing slashes: what [`is_canonical`] asks, the trailing slash aside.
fn canonical_but_trailing_slashes(url: &Url) -> bool {
    url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none()
        && url.query().is_none()
        && !url.host_str().is_some_and(|h| h.starts_with("www."))
        && url.path().bytes().all(|b| b != b'%' && b.is_ascii())
        && unwrap_redirect(url).is_none()
}

/// [`canonical_url`]'s text: `url`'s own when it is canonical, a slice of it when only its
/// path's trailing slashes go (a site's section links, `/docs/s48/`), and made only for the
/// rest. A crawl keys every link it meets by it.
pub fn canonical_text(url: &Url) -> Cow<'_, str> {
    if url.cannot_be_a_base() {
        return if is_canonical(url) {
            Cow::Borrowed(url.as_str())
        } else {
            Cow::Owned(canonical_url(url).into())
        };
    }
    if canonical_but_trailing_slashes(url) {
        // Without a query or fragment the text ends with the path; all slashes trimmed
        // leave the root's (nothing is cut from a canonical URL).
        let path = url.path();
        let cut = path.len() - path.trim_end_matches('/').len().max(1);
        let text = url.as_str();
        return Cow::Borrowed(&text[..text.len() - cut]);
    }
    Cow::Owned(canonical_url(url).into())
}

/// Whether `url`'s path names another view of a page: a `print`, `printable`, `amp` or
/// `mobile` segment, a `*.amp` segment or a `print.*` one. A crawl reads such a copy after
/// the page itself, and a batch that read both keeps the page; one rule for both, so they
/// agree on what a copy is. Whole segments only: `/blueprint/` or `/mobile-apps/` are
/// pages of their own.
pub fn is_view_copy(url: &Url) -> bool {
    // ASCII case ignored in place, not lowercased: asked of every link a crawl meets.
    url.path_segments().is_some_and(|mut parts| {
        parts.any(|p| {
            ["print", "printable", "amp", "mobile"]
                .iter()
                .any(|w| p.eq_ignore_ascii_case(w))
                || ends_with_ignore_case(p, ".amp")
                || starts_with_ignore_case(p, "print.")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_lowercase_borrows_what_is_lower_case_already() {
        assert!(matches!(
            ascii_lowercase("example.com"),
            Cow::Borrowed("example.com")
        ));
        assert!(matches!(ascii_lowercase("é.example"), Cow::Borrowed(_)));
        assert_eq!(ascii_lowercase("Example.COM"), "example.com");
        assert_eq!(ascii_lowercase("É.Ex"), "É.ex");
    }

    #[test]
    fn view_copies_are_whole_segments() {
        let copy = |u: &str| is_view_copy(&Url::parse(u).unwrap());
        assert!(copy("https://example.org/print/tides"));
        assert!(copy("https://example.org/news/tides.amp"));
        assert!(copy("https://example.org/AMP/tides"));
        assert!(copy("https://example.org/tides/print.html"));
        assert!(copy("https://example.org/mobile/tides"));
        assert!(!copy("https://example.org/tides"));
        assert!(!copy("https://example.org/blueprint/tides"));
        assert!(!copy("https://example.org/mobile-apps/"));
        assert!(!copy("https://example.org/tides?print=1"));
    }

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
    fn unwraps_engine_redirects() {
        assert_eq!(
            c("https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=abc"),
            "https://example.com/a?b=1"
        );
        assert_eq!(
            c(
                "https://r.search.yahoo.com/_ylt=A;_ylu=B/RV=2/RE=1/RO=10/RU=https%3a%2f%2fmedium.com%2fx/RK=2/RS=q-"
            ),
            "https://medium.com/x"
        );
        // "https://example.org/page" in URL-safe base64 behind Bing's `a1` prefix.
        assert_eq!(
            c("https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLm9yZy9wYWdl&ntb=1"),
            "https://example.org/page"
        );
        assert_eq!(
            c("https://www.google.com/url?q=https://example.net/&sa=U"),
            "https://example.net/"
        );
        let js = Url::parse("https://duckduckgo.com/l/?uddg=javascript%3Aalert(1)").unwrap();
        assert!(unwrap_redirect(&js).is_none());
    }

    #[test]
    fn normalizes_percent_encoding() {
        assert_eq!(
            c("https://example.com/%7euser/a%2fb"),
            "https://example.com/~user/a%2Fb"
        );
        assert_eq!(c("https://example.com/a%2Db"), c("https://example.com/a-b"));
        assert_eq!(
            c("https://example.com/x/?srsltid=1&gclid=2"),
            "https://example.com/x"
        );
    }

    #[test]
    fn repeated_www_prefixes_go_at_once() {
        // Fuzzing found `ws:\rwww.www.go.#` needing two passes.
        assert_eq!(c("https://www.www.example.com/a"), "https://example.com/a");
        assert_eq!(c("ws:\rwww.www.go.#x"), c(&c("ws:\rwww.www.go.#x")));
        assert_eq!(c("https://www.www.com/"), "https://www.com/");
    }

    #[test]
    fn opaque_urls_are_kept_as_they_are() {
        // Fuzzing found `s:,A)AX /?` canonicalizing to `s:,A)AX ` and then to `s:,A)AX`.
        for s in [
            "s:,A)AX /?\u{3}",
            "mailto:a@b.example?subject=x ",
            "data:text/plain,hi #x",
        ] {
            let url = Url::parse(s).unwrap();
            let once = canonical_url(&url);
            assert_eq!(once, url, "{s:?}");
            assert_eq!(canonical_url(&once), once);
        }
    }

    #[test]
    fn percent_runs_are_idempotent() {
        // Found by the canonical fuzz target (kept as a regression seed in
        // fuzz/corpus/canonical): a path-only URL with runs of `%` before escapes of
        // digits, where decoding `%33` next to a bare `%` made a new escape.
        let found = format!(
            "I:/%%L\u{1}I\n6pk_\n\0\0%%{}%%%mc%%%%%%%%%%%%",
            "3".repeat(84)
        );
        let once = c(&found);
        assert_eq!(c(&once), once);
        assert_eq!(c("https://example.com/%%33"), "https://example.com/%253");
        assert_eq!(c("https://example.com/100%"), "https://example.com/100%25");
        assert_eq!(c("https://example.com/a%25b"), "https://example.com/a%25b");
    }

    proptest::proptest! {
        /// Percent-heavy paths and queries, on hierarchical and path-only URLs.
        #[test]
        fn percent_heavy_urls_are_idempotent(
            scheme in "(https|http|i|ws)",
            host in "(|example\\.com|www\\.a\\.b)",
            // A small alphabet of `%`, hex digits that decode to hex digits (`%33` is
            // `3`, `%46` is `F`) and separators, so runs like `%%333` come up often.
            path in "[%346eF/.]{0,40}",
            query in "[%0-9a-fA-F=&]{0,20}",
        ) {
            let text = if host.is_empty() {
                format!("{scheme}:/{path}?{query}")
            } else {
                format!("{scheme}://{host}/{path}?{query}")
            };
            if let Ok(url) = Url::parse(&text) {
                let once = canonical_url(&url);
                let twice = canonical_url(&once);
                proptest::prop_assert_eq!(once.as_str(), twice.as_str(), "{:?}", text);
            }
        }
    }

    /// The functions as they were before they stopped allocating, kept to check that the
    /// rewrites answer the same.
    mod before {
        use super::super::{TRACKING_PARAMS, base64url_decode, hex, percent_decode};
        use url::Url;

        pub fn is_tracking_param(name: &str) -> bool {
            let lower = name.to_ascii_lowercase();
            lower.starts_with("utm_")
                || lower.starts_with("mc_")
                || lower.starts_with("pk_")
                || TRACKING_PARAMS.contains(&lower.as_str())
        }

        pub fn unwrap_redirect(url: &Url) -> Option<Url> {
            let host = url.host_str()?.to_ascii_lowercase();
            let param = |name: &str| {
                url.query_pairs()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.into_owned())
            };
            let target = if (host == "duckduckgo.com" || host.ends_with(".duckduckgo.com"))
                && url.path() == "/l/"
            {
                param("uddg")?
            } else if host.ends_with("search.yahoo.com") && url.path().contains("/RU=") {
                let path = url.path();
                let start = path.find("/RU=")? + 4;
                let rest = &path[start..];
                let end = ["/RK=", "/RS="]
                    .iter()
                    .filter_map(|m| rest.find(m))
                    .min()
                    .unwrap_or(rest.len());
                percent_decode(&rest[..end])
            } else if (host == "bing.com" || host.ends_with(".bing.com")) && url.path() == "/ck/a" {
                let u = param("u")?;
                let encoded = u.strip_prefix("a1").unwrap_or(&u);
                String::from_utf8(base64url_decode(encoded)?).ok()?
            } else if (host == "google.com" || host.starts_with("www.google."))
                && url.path() == "/url"
            {
                param("q").or_else(|| param("url"))?
            } else {
                return None;
            };
            let parsed = Url::parse(&target).ok()?;
            matches!(parsed.scheme(), "http" | "https").then_some(parsed)
        }

        fn normalize_percent(s: &str) -> String {
            let b = s.as_bytes();
            let mut out = String::with_capacity(s.len());
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'%'
                    && i + 2 < b.len()
                    && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
                {
                    let c = h << 4 | l;
                    if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
                        out.push(c as char);
                    } else {
                        out.push('%');
                        out.push(b[i + 1].to_ascii_uppercase() as char);
                        out.push(b[i + 2].to_ascii_uppercase() as char);
                    }
                    i += 3;
                } else if b[i] == b'%' {
                    out.push_str("%25");
                    i += 1;
                } else {
                    out.push(b[i] as char);
                    i += 1;
                }
            }
            out
        }

        pub fn canonical_url(url: &Url) -> Url {
            let mut out = unwrap_redirect(url).unwrap_or_else(|| url.clone());
            if out.cannot_be_a_base() {
                return out;
            }
            out.set_fragment(None);
            let _ = out.set_username("");
            let _ = out.set_password(None);
            if let Some(host) = out.host_str() {
                let mut rest = host;
                while let Some(r) = rest.strip_prefix("www.")
                    && r.contains('.')
                {
                    rest = r;
                }
                if rest.len() != host.len() {
                    let rest = rest.to_owned();
                    let _ = out.set_host(Some(&rest));
                }
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
            let mut path = normalize_percent(out.path());
            if path.len() > 1 && path.ends_with('/') {
                path = path.trim_end_matches('/').to_owned();
                if path.is_empty() {
                    path.push('/');
                }
            }
            if path != out.path() {
                out.set_path(&path);
            }
            out
        }

        pub fn is_view_copy(url: &Url) -> bool {
            url.path_segments().is_some_and(|mut parts| {
                parts.any(|p| {
                    let p = p.to_ascii_lowercase();
                    matches!(p.as_str(), "print" | "printable" | "amp" | "mobile")
                        || p.ends_with(".amp")
                        || p.starts_with("print.")
                })
            })
        }
    }

    /// URLs as a crawl meets them: any case, `www.` prefixes, engine redirect wrappers,
    /// user info, view-copy segments, percent escapes, trailing slashes, tracking and other
    /// parameters, fragments.
    fn urls_met() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let scheme = "(https?|HTTP|ws|mailto|data|i)";
        let user = "(|u@|u:p@|:p@)";
        let host = "(|[wW]{3}\\.|www\\.www\\.)(example\\.com|EXAMPLE\\.org|duckduckgo\\.com|r\\.search\\.yahoo\\.com|Www\\.Bing\\.com|www\\.google\\.co\\.uk|google\\.com|co|127\\.0\\.0\\.1:8080|\\[::1\\])\\.?";
        let segment = "(print|PRINT|Printable|amp|AMP|mobile|x\\.amp|X\\.AMP|print\\.html|Print\\.|blueprint|mobile-apps|l|url|ck|a|RU=https%3a%2f%2fe\\.com%2fx|RK=2|%7e|%2F|%|%%33|%e2%82%ac|é|[a-zA-Z0-9._~-]{0,6})";
        let query = "(|\\?|\\?(([uU][tT][mM]_[a-z]*|mc_x|MC_Y|pk_z|Pk_|fbclid|FBCLID|Ref|q|url|uddg|u|z|a|api_key)=(https%3A%2F%2Fexample\\.net%2F|https://e\\.org/a|a1aHR0cHM6Ly9leGFtcGxlLm9yZy9wYWdl|javascript%3Aalert|[a-z0-9%+ ]{0,5})&?){1,4})";
        let fragment = "(|#|#top|#A%20b)";
        (
            proptest::string::string_regex(scheme).unwrap(),
            proptest::string::string_regex(user).unwrap(),
            proptest::string::string_regex(host).unwrap(),
            proptest::collection::vec(proptest::string::string_regex(segment).unwrap(), 0..5),
            proptest::string::string_regex("(|/|//)").unwrap(),
            proptest::string::string_regex(query).unwrap(),
            proptest::string::string_regex(fragment).unwrap(),
        )
            .prop_map(|(scheme, user, host, segments, tail, query, fragment)| {
                format!(
                    "{scheme}://{user}{host}/{}{tail}{query}{fragment}",
                    segments.join("/")
                )
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2_000))]

        /// The allocation-free rewrites answer as the functions they replaced.
        #[test]
        fn rewrites_answer_as_before(text in urls_met(), name in "[a-zA-Z_]{0,8}(_?)") {
            proptest::prop_assert_eq!(is_tracking_param(&name), before::is_tracking_param(&name));
            if let Ok(url) = Url::parse(&text) {
                proptest::prop_assert_eq!(
                    unwrap_redirect(&url).map(String::from),
                    before::unwrap_redirect(&url).map(String::from),
                    "{:?}", text
                );
                proptest::prop_assert_eq!(
                    canonical_url(&url),
                    before::canonical_url(&url),
                    "{:?}", text
                );
                proptest::prop_assert_eq!(
                    is_view_copy(&url),
                    before::is_view_copy(&url),
                    "{:?}", text
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2_000))]

        /// A URL said to be canonical is its own canonical form.
        #[test]
        fn a_canonical_url_is_its_own_canonical_form(text in urls_met()) {
            if let Ok(url) = Url::parse(&text)
                && is_canonical(&url)
            {
                proptest::prop_assert_eq!(canonical_url(&url), url, "{:?}", text);
            }
        }

        /// The canonical text, borrowed or sliced where it can be, is the canonical URL's.
        #[test]
        fn the_canonical_text_is_the_canonical_urls(text in urls_met()) {
            if let Ok(url) = Url::parse(&text) {
                let (made, canonical) = (canonical_text(&url), canonical_url(&url));
                proptest::prop_assert_eq!(made.as_ref(), canonical.as_str(), "{:?}", text);
            }
        }
    }

    #[test]
    fn canonical_urls_are_known_without_a_copy() {
        for text in [
            "https://example.com/",
            "https://example.com/docs/a.html",
            "http://127.0.0.1:8080/x",
            "mailto:a@b.example",
        ] {
            let url = Url::parse(text).unwrap();
            assert!(is_canonical(&url), "{text}");
            assert_eq!(canonical_url(&url), url);
        }
        for text in [
            "https://example.com/a/",
            "https://www.example.com/a",
            "https://example.com/a?x=1",
            "https://example.com/a?",
            "https://example.com/a#top",
            "https://u@example.com/a",
            "https://example.com/%7Eu",
            "https://www.google.com/url?q=https://example.net/",
            "https://duckduckgo.com/l/",
        ] {
            assert!(!is_canonical(&Url::parse(text).unwrap()), "{text}");
        }
        // Trailing slashes alone are sliced off the URL's own text; anything more is made.
        for (text, sliced) in [
            ("https://example.com/a/", true),
            ("https://example.com/docs/s48///", true),
            ("https://example.com//", true),
            ("http://127.0.0.1:8080/a/b/", true),
            ("https://example.com/a/?x=1", false),
            ("https://u@example.com/a/", false),
            ("https://www.example.com/a/", false),
            ("https://example.com/%7Eu/", false),
            (
                "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.net%2F",
                false,
            ),
        ] {
            let url = Url::parse(text).unwrap();
            let made = canonical_text(&url);
            assert_eq!(made.as_ref(), canonical_url(&url).as_str(), "{text}");
            assert_eq!(matches!(made, Cow::Borrowed(_)), sliced, "{text}");
        }
    }

    #[test]
    fn rewrites_answer_as_before_on_known_cases() {
        for name in [
            "utm_source",
            "UTM_Medium",
            "utm",
            "Mc_cid",
            "pk_",
            "FBCLID",
            "Ref",
            "refs",
            "ſi",
            "K_",
            "_GA",
            "",
            "ßhare",
        ] {
            assert_eq!(
                is_tracking_param(name),
                before::is_tracking_param(name),
                "{name}"
            );
        }
        for text in [
            "https://WWW.Example.COM:443/Path/?utm_source=a&z=1&a=2&fbclid=x#sec",
            "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=abc",
            "https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLm9yZy9wYWdl&ntb=1",
            "https://example.com/%7euser/a%2fb/",
            "https://example.com///",
            "https://example.com/a%2Db//",
            "https://example.com/caf%C3%A9/PRINT/x.AMP",
            "ws:\rwww.www.go.#x",
            "I:/%%L\u{1}I\n6pk_\n\0\0%%%%%mc%%%%",
            "mailto:a@b.example?subject=x ",
            "http://[::1]:8080/x/",
        ] {
            let url = Url::parse(text).unwrap();
            assert_eq!(canonical_url(&url), before::canonical_url(&url), "{text:?}");
            assert_eq!(is_view_copy(&url), before::is_view_copy(&url), "{text:?}");
        }
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

    #[test]
    fn credential_params_by_name_parts() {
        for name in [
            "api_key",
            "apiKey",
            "key",
            "token",
            "access_token",
            "X-Amz-Signature",
            "sig",
            "client_secret",
            "password",
            "sessionid",
        ] {
            assert!(is_credential_param(name), "{name}");
        }
        for name in [
            "q", "keyword", "keywords", "monkey", "design", "page", "sort",
        ] {
            assert!(!is_credential_param(name), "{name}");
        }
        let url = Url::parse("https://e.com/a?q=x&api_key=1&token=2&keyword=k").unwrap();
        assert_eq!(credential_params(&url), ["api_key", "token"]);
    }
}
