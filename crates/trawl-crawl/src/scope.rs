//! What a map or crawl may visit: the start host (or its subdomains) on the start URL's
//! port, and paths that pass the `--include` / `--exclude` regular expressions.
//!
//! The port is part of the site: a crawl of a local dev server on `127.0.0.1:3000` never
//! walks into `127.0.0.1:5432` through a link, a sitemap entry, llms.txt, a robots
//! `Sitemap:` line or a redirect (every discovery path asks [`Scope::on_site`]). A URL on
//! its scheme's default port (80 for http, 443 for https) is on the site of a start URL on
//! its own default port, so a site that moves from http to https stays one site.

use std::borrow::Cow;

use regex::Regex;
use trawl_core::TrawlError;
use url::Url;

/// The part of the web one map or crawl keeps to.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The start URL's host, lower case, without a leading `www.`.
    site: String,
    /// The start URL's port when it is not its scheme's default (see [`site_port`]).
    port: Option<u16>,
    /// Further ports of the same host that belong to the site (`--allow-port`).
    ports: Vec<u16>,
    /// Only paths that start with this belong (the start URL's section), when set.
    section: Option<String>,
    subdomains: bool,
    include: Vec<Regex>,
    exclude: Vec<Regex>,
}

/// A URL's port when it is not its scheme's default: `None` for http on 80 and https on
/// 443, which count as one site.
fn site_port(url: &Url) -> Option<u16> {
    url.port()
}

/// `www.example.com` and `example.com` are one site; anything else is compared as written.
/// Borrowed from `host` unless it has upper case (the `url` crate lowercases the hosts of
/// http(s) URLs): it is asked of every link, several times.
fn bare_host(host: &str) -> Cow<'_, str> {
    match trawl_core::ascii_lowercase(host.trim_end_matches('.')) {
        Cow::Owned(host) => Cow::Owned(without_www(&host).to_owned()),
        Cow::Borrowed(host) => Cow::Borrowed(without_www(host)),
    }
}

fn without_www(host: &str) -> &str {
    match host.strip_prefix("www.") {
        Some(rest) if rest.contains('.') => rest,
        _ => host,
    }
}

fn compile(patterns: &[String], flag: &str) -> Result<Vec<Regex>, TrawlError> {
    patterns
        .iter()
        .map(|p| {
            Regex::new(p).map_err(|e| {
                TrawlError::invalid_input(format!("{flag}: {p:?} is not a regular expression: {e}"))
            })
        })
        .collect()
}

/// The section a start URL names, as Firecrawl scopes a crawl: its path (`/docs/` keeps a
/// crawl under `/docs/`), a file name at its end left off (`/docs/index.html` → `/docs/`);
/// `None` for the site's root, where every path belongs.
pub fn section_of(start: &Url) -> Option<String> {
    let path = start.path();
    let last = path.rsplit('/').next().unwrap_or("");
    let section = if last.contains('.') {
        &path[..path.len() - last.len()]
    } else {
        path
    };
    (section != "/" && !section.is_empty()).then(|| section.to_owned())
}

impl Scope {
    /// The scope of a map or crawl starting at `start`. `include` and `exclude` are regular
    /// expressions matched against the URL's path (a path passes when it matches any
    /// `include`, or there is none, and no `exclude`).
    pub fn new(
        start: &Url,
        subdomains: bool,
        include: &[String],
        exclude: &[String],
    ) -> Result<Self, TrawlError> {
        let host = start
            .host_str()
            .ok_or_else(|| TrawlError::invalid_input(format!("{start} has no host")))?;
        Ok(Scope {
            site: bare_host(host).into_owned(),
            port: site_port(start),
            ports: Vec::new(),
            section: None,
            subdomains,
            include: compile(include, "include")?,
            exclude: compile(exclude, "exclude")?,
        })
    }

    /// Whether `url` is on the site (same host, or a subdomain when allowed), over http(s).
    pub fn on_site(&self, url: &Url) -> bool {
        if !matches!(url.scheme(), "http" | "https") {
            return false;
        }
        let Some(host) = url.host_str() else {
            return false;
        };
        if site_port(url) != self.port
            && !url
                .port_or_known_default()
                .is_some_and(|p| self.ports.contains(&p))
        {
            return false;
        }
        let host = bare_host(host);
        host == self.site
            || (self.subdomains
                && host.len() > self.site.len()
                && host.ends_with(&self.site)
                && host.as_bytes()[host.len() - self.site.len() - 1] == b'.')
    }

    /// The site widened to `ports` of the same host (the start's own port always belongs).
    pub fn with_ports(mut self, ports: &[u16]) -> Self {
        self.ports = ports.to_vec();
        self
    }

    /// The site narrowed to paths starting with `section` (see [`section_of`]).
    pub fn within(mut self, section: Option<&str>) -> Self {
        self.section = section.map(str::to_owned);
        self
    }

    /// Whether the path of `url` passes the include and exclude patterns.
    pub fn path_wanted(&self, url: &Url) -> bool {
        let path = url.path();
        self.section.as_deref().is_none_or(|s| path.starts_with(s))
            && (self.include.is_empty() || self.include.iter().any(|r| r.is_match(path)))
            && !self.exclude.iter().any(|r| r.is_match(path))
    }

    /// On the site and wanted.
    pub fn contains(&self, url: &Url) -> bool {
        self.on_site(url) && self.path_wanted(url)
    }

    /// Whether include or exclude patterns were given (then pages outside them are still
    /// read for their links, but not kept; see the crawler).
    pub fn filters_paths(&self) -> bool {
        !self.include.is_empty() || !self.exclude.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bare_host` as it was before it borrowed, kept to check that the rewrite answers the
    /// same.
    fn bare_host_before(host: &str) -> String {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        match host.strip_prefix("www.") {
            Some(rest) if rest.contains('.') => rest.to_owned(),
            _ => host,
        }
    }

    proptest::proptest! {
        #[test]
        fn bare_hosts_as_before(host in "([wW]{3}\\.|[wW]{3}\\.[wW]{3}\\.)?([a-zA-Z0-9é-]{0,6}\\.?){0,3}\\.{0,2}") {
            proptest::prop_assert_eq!(bare_host(&host), bare_host_before(&host));
        }
    }

    #[test]
    fn bare_hosts_as_before_on_known_hosts() {
        for host in [
            "www.example.com",
            "WWW.Example.COM.",
            "www.",
            "www.com",
            "www.www.example.com",
            "example.com..",
            "",
            ".",
            "Www.co",
            "[::1]",
            "127.0.0.1",
            "WWW.É.x",
        ] {
            assert_eq!(bare_host(host), bare_host_before(host), "{host:?}");
        }
    }

    #[test]
    fn a_section_keeps_to_its_paths() {
        assert_eq!(section_of(&url("http://h/")), None);
        assert_eq!(section_of(&url("http://h/index.html")), None);
        assert_eq!(
            section_of(&url("http://h/docs/")).as_deref(),
            Some("/docs/")
        );
        assert_eq!(
            section_of(&url("http://h/docs/guide.html")).as_deref(),
            Some("/docs/")
        );
        assert_eq!(section_of(&url("http://h/docs")).as_deref(), Some("/docs"));
        let start = url("http://h/docs/");
        let scope = Scope::new(&start, false, &[], &[])
            .unwrap()
            .within(section_of(&start).as_deref());
        assert!(scope.contains(&url("http://h/docs/a")));
        assert!(!scope.contains(&url("http://h/blog/a")));
        assert!(scope.on_site(&url("http://h/blog/a")));
    }

    #[test]
    fn the_port_is_part_of_the_site() {
        let start = url("http://127.0.0.2:18001/docs/");
        let scope = Scope::new(&start, false, &[], &[]).unwrap();
        assert!(scope.on_site(&url("http://127.0.0.2:18001/other")));
        assert!(!scope.on_site(&url("http://127.0.0.2:18002/")));
        assert!(!scope.on_site(&url("http://127.0.0.2/")));
        let plain = Scope::new(&url("http://example.org/"), false, &[], &[]).unwrap();
        assert!(
            plain.on_site(&url("https://example.org/a")),
            "http and https on their own ports are one site"
        );
        assert!(
            plain.on_site(&url("http://example.org:80/a")),
            "the default port written out"
        );
        assert!(!plain.on_site(&url("http://example.org:8080/a")));
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn same_host_by_default_subdomains_when_asked() {
        let start = url("https://www.example.com/docs/");
        let same = Scope::new(&start, false, &[], &[]).unwrap();
        assert!(same.on_site(&url("https://example.com/a")));
        assert!(same.on_site(&url("http://www.example.com/b")));
        assert!(!same.on_site(&url("https://docs.example.com/a")));
        assert!(!same.on_site(&url("https://badexample.com/a")));
        assert!(!same.on_site(&url("ftp://example.com/a")));
        let wide = Scope::new(&start, true, &[], &[]).unwrap();
        assert!(wide.on_site(&url("https://docs.example.com/a")));
        assert!(!wide.on_site(&url("https://badexample.com/a")));
        assert!(!wide.on_site(&url("https://example.com.evil.net/a")));
    }

    #[test]
    fn include_and_exclude_match_the_path() {
        let start = url("https://example.com/");
        let scope = Scope::new(
            &start,
            false,
            &["^/docs/".to_owned()],
            &["/old/".to_owned()],
        )
        .unwrap();
        assert!(scope.contains(&url("https://example.com/docs/a")));
        assert!(!scope.contains(&url("https://example.com/blog/a")));
        assert!(!scope.contains(&url("https://example.com/docs/old/a")));
        let err = Scope::new(&start, false, &["(".to_owned()], &[]).unwrap_err();
        assert!(err.message.starts_with("include: \"(\""), "{}", err.message);
    }
}
