//! Anti-bot detection: tells a challenge (worth retrying with a browser-like client) from
//! a page, using response headers and a bounded prefix of the body.

use reqwest::header::HeaderMap;

/// How much of the body is searched for markers; challenge pages put them early.
pub const MARKER_WINDOW: usize = 64 * 1024;

/// The anti-bot vendor a block or challenge came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    /// Cloudflare (`cf-mitigated`, challenge pages).
    Cloudflare,
    /// DataDome.
    DataDome,
    /// PerimeterX (HUMAN).
    PerimeterX,
    /// Akamai Bot Manager.
    Akamai,
    /// Imperva (Incapsula).
    Imperva,
    /// DDoS-Guard.
    DdosGuard,
}

impl Vendor {
    /// The vendor's name as shown in errors.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Cloudflare => "Cloudflare",
            Vendor::DataDome => "DataDome",
            Vendor::PerimeterX => "PerimeterX",
            Vendor::Akamai => "Akamai",
            Vendor::Imperva => "Imperva",
            Vendor::DdosGuard => "DDoS-Guard",
        }
    }
}

/// A detected anti-bot response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Who blocked it.
    pub vendor: Vendor,
    /// A challenge may be passed by a browser-like client (tier 1); a hard block will not.
    pub challenge: bool,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// Whether `haystack` holds `needle`, ASCII case ignored. Runs on every page read (a 200
/// is checked for Imperva's markers too), so it jumps between the needle's first letter
/// in either case with `memchr2` and compares the rest byte by byte until one differs: a
/// window-by-window comparison of the whole needle took 40 % of a crawl's CPU.
fn contains_ci(haystack: &[u8], needle: &str) -> bool {
    let Some((&first, rest)) = needle.as_bytes().split_first() else {
        return true;
    };
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let mut from = 0;
    while let Some(i) = memchr::memchr2(lower, upper, &haystack[from..]) {
        let after = from + i + 1;
        let Some(tail) = haystack.get(after..after + rest.len()) else {
            return false;
        };
        if tail
            .iter()
            .zip(rest)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
        {
            return true;
        }
        from = after;
    }
    false
}

/// Detect an anti-bot response. Only the first `MARKER_WINDOW` (64 KiB) of `body` is read.
pub fn detect(status: u16, headers: &HeaderMap, body: &[u8]) -> Option<Block> {
    let body = &body[..body.len().min(MARKER_WINDOW)];
    let server = header(headers, "server").to_ascii_lowercase();
    let denied = matches!(status, 403 | 503 | 429);

    // Cloudflare marks its challenges explicitly; the body markers cover older setups.
    // Its interstitial's own script names (`/cdn-cgi/challenge-platform/`, `_cf_chl_opt`)
    // identify it on a denial even when a proxy in front stripped Cloudflare's headers;
    // the looser words ("just a moment") count only beside its `server` header.
    if header(headers, "cf-mitigated").eq_ignore_ascii_case("challenge")
        || (server.contains("cloudflare")
            && denied
            && (contains_ci(body, "challenge-platform")
                || contains_ci(body, "cf-chl")
                || contains_ci(body, "just a moment")
                || contains_ci(body, "attention required")))
        || (denied
            && (contains_ci(body, "/cdn-cgi/challenge-platform/")
                || contains_ci(body, "_cf_chl_opt")
                || contains_ci(body, "cf-browser-verification")))
    {
        return Some(Block {
            vendor: Vendor::Cloudflare,
            challenge: status != 429,
        });
    }
    if !header(headers, "x-datadome").is_empty()
        || server.contains("datadome")
        || (denied && contains_ci(body, "captcha-delivery.com"))
    {
        return Some(Block {
            vendor: Vendor::DataDome,
            challenge: true,
        });
    }
    if denied
        && (contains_ci(body, "px-captcha")
            || contains_ci(body, "_pxappid")
            || contains_ci(body, "perimeterx"))
    {
        return Some(Block {
            vendor: Vendor::PerimeterX,
            challenge: true,
        });
    }
    // Imperva (Incapsula) may serve its block page with HTTP 200.
    // Both markers hold "psula": one scan for it (jumping by its 'p', rarer in a page than
    // the second marker's 'i') stands for both on every page but Imperva's.
    if (contains_ci(body, "psula")
        && (contains_ci(body, "_incapsula_resource") || contains_ci(body, "incapsula incident id")))
        || (denied && header(headers, "x-cdn").eq_ignore_ascii_case("incapsula"))
    {
        return Some(Block {
            vendor: Vendor::Imperva,
            challenge: true,
        });
    }
    if server.contains("ddos-guard")
        && (denied || contains_ci(body, "ddos-guard") || contains_ci(body, "check.ddos-guard"))
    {
        return Some(Block {
            vendor: Vendor::DdosGuard,
            challenge: true,
        });
    }
    if server.contains("akamaighost")
        && status == 403
        && (contains_ci(body, "access denied") || contains_ci(body, "edgesuite.net"))
    {
        // Akamai's "Access Denied … Reference #" page is a reputation block, but a
        // browser-like TLS fingerprint is often let through, so it counts as a challenge.
        return Some(Block {
            vendor: Vendor::Akamai,
            challenge: true,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_ci_finds_a_needle_in_any_case_and_only_a_whole_one() {
        assert!(contains_ci(
            b"xx Incapsula Incident ID: 1",
            "incapsula incident id"
        ));
        assert!(contains_ci(b"_INCAPSULA_RESOURCE", "_incapsula_resource"));
        assert!(contains_ci(b"a", "a") && contains_ci(b"", ""));
        assert!(!contains_ci(
            b"incapsula incident i",
            "incapsula incident id"
        ));
        assert!(!contains_ci(b"iiiiiincapsulx", "incapsula"));
        assert!(contains_ci(b"iiiiiincapsula", "incapsula"));
    }
    use reqwest::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn recognises_each_vendor() {
        type Case<'a> = (u16, &'a [(&'a str, &'a str)], &'a str, Vendor);
        let cases: &[Case<'_>] = &[
            (
                403,
                &[("server", "cloudflare"), ("cf-mitigated", "challenge")],
                "<title>Just a moment...</title>",
                Vendor::Cloudflare,
            ),
            (
                503,
                &[("server", "cloudflare")],
                "<script src=/cdn-cgi/challenge-platform/h/b/orchestrate></script>",
                Vendor::Cloudflare,
            ),
            (403, &[("x-datadome", "protected")], "", Vendor::DataDome),
            (
                403,
                &[],
                "<div id=\"px-captcha\"></div>",
                Vendor::PerimeterX,
            ),
            (
                200,
                &[],
                "<iframe src=\"/_Incapsula_Resource?SWUDNSAI=31\"></iframe>",
                Vendor::Imperva,
            ),
            (403, &[("server", "ddos-guard")], "", Vendor::DdosGuard),
            (
                403,
                &[("server", "AkamaiGHost")],
                "<H1>Access Denied</H1> Reference #18.2",
                Vendor::Akamai,
            ),
        ];
        for (status, h, body, vendor) in cases {
            let got = detect(*status, &headers(h), body.as_bytes());
            assert_eq!(got.map(|b| b.vendor), Some(*vendor), "{vendor:?}");
        }
    }

    /// The interstitial Cloudflare serves, as a proxy that strips its headers passes it
    /// on: a bare 403 whose body alone says it is a challenge.
    const CLOUDFLARE_INTERSTITIAL: &str = r#"<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow"></head><body><div class="main-wrapper" role="main"><div class="main-content"><noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "example.org",cType: 'managed',cRay: '8f1a2b3c4d5e6f70',cH: 'x'};var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8f1a2b3c4d5e6f70';document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>"#;

    #[test]
    fn a_cloudflare_interstitial_without_its_headers_is_a_challenge() {
        let got = detect(
            403,
            &headers(&[("server", "nginx")]),
            CLOUDFLARE_INTERSTITIAL.as_bytes(),
        );
        assert_eq!(
            got,
            Some(Block {
                vendor: Vendor::Cloudflare,
                challenge: true
            })
        );
        // The same words in an article served with 200 are a page.
        assert_eq!(
            detect(200, &HeaderMap::new(), CLOUDFLARE_INTERSTITIAL.as_bytes()),
            None
        );
    }

    #[test]
    fn ordinary_pages_are_not_blocks() {
        assert_eq!(
            detect(
                200,
                &headers(&[("server", "cloudflare")]),
                b"<p>Just a moment, please read</p>"
            ),
            None
        );
        assert_eq!(
            detect(404, &headers(&[("server", "nginx")]), b"not found"),
            None
        );
        assert_eq!(
            detect(
                403,
                &headers(&[("server", "AkamaiGHost")]),
                b"forbidden by owner"
            ),
            None
        );
    }
}
