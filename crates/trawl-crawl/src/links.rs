//! The links of an HTML page as a crawler needs them: every `<a href>` with its anchor
//! text (navigation and sidebars included, which extraction drops), the declared
//! canonical URL, and linked RSS/Atom feeds. Relative links resolve against `<base href>`
//! when the page sets one. The page is read by the extractor's parser
//! (`trawl_extract::page_anchors`), which sees `<a href>` (not image-map `<area>`).

use url::Url;

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
}
