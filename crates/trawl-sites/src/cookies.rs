//! A user's own cookies for a site (`--cookies FILE`, or `[cookies]` per site in the
//! config file), in the Netscape `cookies.txt` format browsers' exporters write. A cookie
//! goes only to the hosts its domain matches (and, from a per-site file, only to that
//! site's hosts), on its path, over HTTPS when it is marked secure, and not after it
//! expired. Values never appear in logs, errors or records: [`CookieJar`]'s `Debug`
//! prints names only, and a file that cannot be read is named without its content.
//!
//! Hand-parsed: the format is seven tab-separated fields a line, and the crates that
//! keep cookies (`cookie_store`, `reqwest`'s jar) load only their own JSON or `Set-Cookie`
//! headers, not this format.

use std::time::{SystemTime, UNIX_EPOCH};

use url::Url;

/// One cookie of a file.
#[derive(Clone, PartialEq, Eq)]
struct Cookie {
    /// Its domain, lower-case, without a leading dot.
    domain: String,
    /// Whether subdomains of `domain` get it too (a leading dot, or `TRUE`).
    subdomains: bool,
    path: String,
    secure: bool,
    /// Seconds since the epoch; 0 for a session cookie.
    expires: u64,
    name: String,
    value: String,
}

/// The cookies of one file, limited to one site when the config named one.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CookieJar {
    /// The site the config gave the file for (`example.com`: it and its subdomains).
    site: Option<String>,
    cookies: Vec<Cookie>,
}

impl std::fmt::Debug for CookieJar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<(&str, &str)> = self
            .cookies
            .iter()
            .map(|c| (c.domain.as_str(), c.name.as_str()))
            .collect();
        f.debug_struct("CookieJar")
            .field("site", &self.site)
            .field("cookies", &names)
            .finish()
    }
}

fn under(host: &str, domain: &str) -> bool {
    host == domain || host.ends_with(&format!(".{domain}"))
}

impl CookieJar {
    /// Parse a Netscape cookies file; `site` limits it to one site's hosts. A line that
    /// is not a cookie is an error naming its number (never its content, which may hold
    /// a value).
    pub fn parse(text: &str, site: Option<&str>) -> Result<Self, String> {
        let site = site.map(|s| s.trim().trim_start_matches('.').to_ascii_lowercase());
        let mut cookies = Vec::new();
        for (n, line) in text.lines().enumerate() {
            // curl and browsers' exporters mark HttpOnly cookies with this prefix.
            let line = line.strip_prefix("#HttpOnly_").unwrap_or(line);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
            let [domain, flag, path, secure, expires, name, value] = fields[..] else {
                return Err(format!(
                    "line {} is not a Netscape cookie (7 tab-separated fields)",
                    n + 1
                ));
            };
            let expires = expires
                .trim()
                .parse::<f64>()
                .map_err(|_| format!("line {}: the expiry is not a number", n + 1))?;
            let domain_lower = domain.trim().to_ascii_lowercase();
            let cookie = Cookie {
                subdomains: domain_lower.starts_with('.') || flag.eq_ignore_ascii_case("TRUE"),
                domain: domain_lower.trim_start_matches('.').to_owned(),
                path: if path.starts_with('/') {
                    path.to_owned()
                } else {
                    "/".to_owned()
                },
                secure: secure.eq_ignore_ascii_case("TRUE"),
                expires: expires.max(0.0) as u64,
                name: name.to_owned(),
                value: value.to_owned(),
            };
            // A per-site file keeps only the cookies of that site.
            if site.as_deref().is_some_and(|s| !under(&cookie.domain, s)) {
                continue;
            }
            cookies.push(cookie);
        }
        Ok(CookieJar { site, cookies })
    }

    /// How many cookies it holds.
    pub fn len(&self) -> usize {
        self.cookies.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.cookies.is_empty()
    }

    /// The `Cookie` header for a request to `url`: the cookies whose domain, path, secure
    /// flag and expiry match it, or `None` when none do (or `url` is off the jar's site).
    pub fn header_for(&self, url: &Url) -> Option<String> {
        let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
        if self.site.as_deref().is_some_and(|s| !under(&host, s)) {
            return None;
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let path = url.path();
        let pairs: Vec<String> = self
            .cookies
            .iter()
            .filter(|c| {
                let domain_ok = if c.subdomains {
                    under(&host, &c.domain)
                } else {
                    host == c.domain
                };
                let path_ok = path == c.path
                    || path.starts_with(&format!("{}/", c.path.trim_end_matches('/')))
                    || c.path == "/";
                domain_ok
                    && path_ok
                    && (!c.secure || url.scheme() == "https")
                    && (c.expires == 0 || c.expires > now)
            })
            .map(|c| format!("{}={}", c.name, c.value))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }
}

/// The header for `url` from the first of `jars` that has cookies for it, then the rest
/// (a host under two configured files gets both).
pub fn header_for(jars: &[CookieJar], url: &Url) -> Option<String> {
    let parts: Vec<String> = jars.iter().filter_map(|j| j.header_for(url)).collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Netscape HTTP Cookie File\n\
        .example.com\tTRUE\t/\tFALSE\t0\tsid\tS3CRET\n\
        #HttpOnly_shop.example.com\tFALSE\t/cart\tTRUE\t0\tcart\tC4RT\n\
        old.example.com\tFALSE\t/\tFALSE\t1\tgone\tOLD\n\
        other.org\tFALSE\t/\tFALSE\t0\tkey\tOTHER\n";

    fn at(jar: &CookieJar, raw: &str) -> Option<String> {
        jar.header_for(&Url::parse(raw).unwrap())
    }

    #[test]
    fn cookies_go_only_where_their_domain_path_and_flags_match() {
        let jar = CookieJar::parse(FILE, None).unwrap();
        assert_eq!(jar.len(), 4);
        assert_eq!(
            at(&jar, "https://example.com/").as_deref(),
            Some("sid=S3CRET")
        );
        assert_eq!(
            at(&jar, "http://www.example.com/a").as_deref(),
            Some("sid=S3CRET")
        );
        assert_eq!(
            at(&jar, "https://shop.example.com/cart/1").as_deref(),
            Some("sid=S3CRET; cart=C4RT")
        );
        // Secure: not over HTTP; path: not outside /cart; host-only: not on a subdomain.
        assert_eq!(
            at(&jar, "http://shop.example.com/cart").as_deref(),
            Some("sid=S3CRET")
        );
        assert_eq!(
            at(&jar, "https://shop.example.com/cartx").as_deref(),
            Some("sid=S3CRET")
        );
        assert_eq!(at(&jar, "https://a.other.org/"), None);
        // Expired: never sent. Look-alike hosts: nothing.
        assert_eq!(
            at(&jar, "https://old.example.com/").as_deref(),
            Some("sid=S3CRET")
        );
        assert_eq!(at(&jar, "https://evilexample.com/"), None);
        assert_eq!(at(&jar, "https://example.com.evil.net/"), None);
    }

    #[test]
    fn a_per_site_file_keeps_to_its_site() {
        let jar = CookieJar::parse(FILE, Some("example.com")).unwrap();
        assert_eq!(jar.len(), 3, "other.org's cookie is dropped");
        assert_eq!(at(&jar, "https://other.org/"), None);
        assert!(at(&jar, "https://example.com/").is_some());
    }

    #[test]
    fn a_bad_line_is_named_by_number_never_by_content_and_debug_hides_values() {
        let e = CookieJar::parse("x\tS3CRET_VALUE\n", None).unwrap_err();
        assert!(e.contains("line 1") && !e.contains("S3CRET"), "{e}");
        let jar = CookieJar::parse(FILE, None).unwrap();
        let shown = format!("{jar:?}");
        assert!(
            shown.contains("sid") && !shown.contains("S3CRET"),
            "{shown}"
        );
    }
}
