//! The links of an HTML page as a crawler needs them: every `<a href>` with its anchor
//! text (navigation and sidebars included, which extraction drops), the declared
//! canonical URL, and linked RSS/Atom feeds. Relative links resolve against `<base href>`
//! when the page sets one. The page is read by the extractor's parser
//! (`trawl_extract::page_anchors`), which sees `<a href>` (not image-map `<area>`).

use url::Url;

mod memo;

/// One outgoing link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Absolute http(s) URL, fragment removed.
    pub url: Url,
    /// The anchor's visible text, whitespace collapsed (may be empty).
    pub text: String,
}

/// What a page says about other URLs.
#[derive(Debug, Clone, Default)]
pub struct PageLinks {
    /// Outgoing links in document order (duplicates kept: the first anchor text wins later).
    pub links: Vec<Link>,
    /// `<link rel=canonical>`, resolved.
    pub canonical: Option<Url>,
    /// Linked RSS and Atom feeds.
    pub feeds: Vec<Url>,
}

fn resolve(base: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    if memo::keeps(href) {
        return memo::resolved(base, href, || join(base, href));
    }
    join(base, href)
}

/// `href` joined to `base`: an http(s) URL without its fragment.
fn join(base: &Url, href: &str) -> Option<Url> {
    let mut url = base.join(href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// The links of `html`, a page that answered at `page_url`.
pub fn page_links(html: &str, page_url: &Url) -> PageLinks {
    links_of(trawl_extract::page_anchors(html), page_url)
}

/// The links a page wrote (as the extractor read them), resolved against `page_url` (or
/// the page's `<base href>`).
pub fn links_of(written: trawl_extract::PageAnchors, page_url: &Url) -> PageLinks {
    let base = written
        .base
        .as_deref()
        .and_then(|h| resolve(page_url, h))
        .unwrap_or_else(|| page_url.clone());
    let mut out = PageLinks::default();
    for a in written.anchors {
        if let Some(url) = resolve(&base, &a.href) {
            out.links.push(Link { url, text: a.text });
        }
    }
    for l in &written.link_tags {
        let rels: Vec<&str> = l.rel.split_whitespace().collect();
        let Some(url) = resolve(&base, &l.href) else {
            continue;
        };
        if rels.contains(&"canonical") && out.canonical.is_none() {
            out.canonical = Some(url);
        } else if rels.contains(&"alternate") && (l.kind.contains("rss") || l.kind.contains("atom"))
        {
            out.feeds.push(url);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_canonical_feeds_and_base() {
        let html = r##"<html><head>
<base href="https://example.com/docs/">
<link rel="canonical" href="/docs/intro">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="stylesheet" href="/s.css">
</head><body>
<nav><a href="a">  Alpha
  page </a><a href="#top">top</a><a href="mailto:x@y">mail</a></nav>
<a href="https://other.org/x#frag">Other</a><a href="javascript:void(0)">js</a>
</body></html>"##;
        let page = Url::parse("https://example.com/docs/intro?x=1").unwrap();
        let l = page_links(html, &page);
        let urls: Vec<&str> = l.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(urls, ["https://example.com/docs/a", "https://other.org/x"]);
        assert_eq!(l.links[0].text, "Alpha page");
        assert_eq!(
            l.canonical.unwrap().as_str(),
            "https://example.com/docs/intro"
        );
        assert_eq!(l.feeds[0].as_str(), "https://example.com/feed.xml");
    }

    /// A link resolved from the memo is the link `Url::join` makes, whatever the base: the
    /// memo is keyed by the base's scheme and authority, which is all a path-absolute,
    /// scheme-relative or absolute link takes from it (asked three times, so the third
    /// answer comes from the memo). The memo stays within its bound however many links it
    /// meets, and links resolve right across its emptying. One test: the memo is the
    /// process's.
    #[test]
    fn links_from_the_memo_are_the_links_joined() {
        let bases = [
            "https://example.com/docs/a/page.html?q=1#top",
            "https://example.com/other/",
            "https://user:pw@example.com/x",
            "https://example.com:8443/docs/",
            "http://example.com/docs/",
            "https://EXAMPLE.com./docs/",
            "https://sub.example.com/docs/",
            "http://127.0.0.1:8080/a/b",
        ];
        let hrefs = [
            "/docs/s48/",
            "/docs/../up/./x?q=a b#frag",
            "/\\evil.example/x",
            "//cdn.example.net/lib",
            "//",
            "/%zz/ü/\t/",
            "/#only",
            "https://other.org/x#frag",
            "http://other.org",
            "https://[::1]:99/v6",
            "https://bad host/",
            "http://",
            "/ spaced /",
        ];
        for _ in 0..3 {
            for b in bases {
                let base = Url::parse(b).unwrap();
                for h in hrefs {
                    assert!(memo::keeps(h.trim()), "{h}");
                    assert_eq!(resolve(&base, h), join(&base, h.trim()), "{b} + {h}");
                }
            }
        }
        let base = Url::parse(bases[0]).unwrap();
        let from_memo = memo::resolved(&base, hrefs[0], || panic!("not from the memo"));
        assert_eq!(from_memo, join(&base, hrefs[0]));

        for round in 0..3 {
            for i in 0..3000 {
                let href = format!("/p/{i}");
                let url = resolve(&base, &href).unwrap();
                assert_eq!(
                    url.as_str(),
                    format!("https://example.com/p/{i}"),
                    "{round}"
                );
                assert!(memo::kept() <= 1024);
            }
        }
    }
}
