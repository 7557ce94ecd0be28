//! Parsers for the files a site publishes to list its pages: sitemaps (plain or gzipped,
//! `urlset` and `sitemapindex`), RSS and Atom feeds, and `/llms.txt`. Bytes in, entries
//! out; no network.

use std::io::Read;
use std::ops::ControlFlow;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use url::Url;

/// The sitemaps protocol's limit on an uncompressed sitemap (50 MiB); a gzipped file that
/// inflates past it is cut there (a gzip bomb stops at the cap).
pub const MAX_SITEMAP_BYTES: u64 = 50 * 1024 * 1024;

/// What kind of listing a file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListingKind {
    /// A sitemap `urlset`: page URLs.
    Urlset,
    /// A `sitemapindex`: URLs of further sitemaps.
    SitemapIndex,
    /// An RSS feed.
    Rss,
    /// An Atom feed.
    Atom,
    /// None of these.
    Unknown,
}

/// One URL a listing names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// The URL as written.
    pub loc: String,
    /// `lastmod`, `updated` or `pubDate`, as written.
    pub lastmod: Option<String>,
    /// A title, when the listing gives one (feeds, news sitemaps, llms.txt).
    pub title: Option<String>,
}

/// A parsed sitemap or feed.
#[derive(Debug, Clone)]
pub struct Listing {
    /// What the file was.
    pub kind: ListingKind,
    /// Its entries, in order.
    pub entries: Vec<Entry>,
}

/// Inflate `body` when it is gzipped (by its magic bytes, whatever the headers said),
/// capped at [`MAX_SITEMAP_BYTES`].
pub fn maybe_gunzip(body: &[u8]) -> Result<Vec<u8>, String> {
    if !body.starts_with(&[0x1f, 0x8b]) {
        return Ok(body.to_vec());
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .take(MAX_SITEMAP_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("bad gzip: {e}"))?;
    if out.len() as u64 > MAX_SITEMAP_BYTES {
        return Err(format!(
            "inflates past the sitemap limit of {MAX_SITEMAP_BYTES} bytes"
        ));
    }
    Ok(out)
}

fn local(name: &str) -> String {
    match name.rsplit_once(':') {
        Some((_, l)) => l.to_ascii_lowercase(),
        None => name.to_ascii_lowercase(),
    }
}

fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (local(a.key.as_ref()) == name).then(|| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.clone().into_owned())
        })
    })
}

/// Parse a sitemap (`urlset` or `sitemapindex`) or a feed (RSS, Atom). Gzip is undone
/// first. Malformed XML keeps what was read before the fault.
pub fn parse_listing(body: &[u8]) -> Result<Listing, String> {
    let mut entries = Vec::new();
    let kind = visit_listing(body, |_, entry| {
        entries.push(entry);
        ControlFlow::Continue(())
    })?;
    Ok(Listing { kind, entries })
}

/// Inflated bytes counted as they are read; past [`MAX_SITEMAP_BYTES`] reading fails.
struct Capped<R> {
    inner: R,
    read: u64,
    over: bool,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > MAX_SITEMAP_BYTES {
            self.over = true;
            return Err(std::io::Error::other("past the sitemap limit"));
        }
        Ok(n)
    }
}

/// Each entry of a sitemap or feed handed to `visit` as it is read, gzip undone on the way:
/// neither the inflated file nor its entries are held, so a sitemap of millions of URLs
/// costs what `visit` keeps. `visit` answers `Break` to stop reading. Malformed XML ends
/// the walk, keeping what was visited; inflating past [`MAX_SITEMAP_BYTES`] is an error
/// (after what was read before it was visited).
pub fn visit_listing(
    body: &[u8],
    mut visit: impl FnMut(ListingKind, Entry) -> ControlFlow<()>,
) -> Result<ListingKind, String> {
    let source: Box<dyn Read + '_> = if body.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(body))
    } else {
        Box::new(body)
    };
    let capped = Capped {
        inner: source,
        read: 0,
        over: false,
    };
    let mut reader = Reader::from_reader(std::io::BufReader::new(capped));
    let mut buf = Vec::new();
    let mut kind = ListingKind::Unknown;
    // The entry being read (inside <url>, <sitemap>, <item> or <entry>).
    let mut current: Option<Entry> = None;
    let mut field: Option<String> = None;
    let mut text = String::new();
    // A read error ends the walk: what was read before the fault is kept.
    while let Ok(ev) = reader.read_event_into(&mut buf) {
        match ev {
            Event::Start(e) | Event::Empty(e) => {
                let name = local(e.name().as_ref());
                if kind == ListingKind::Unknown {
                    kind = match name.as_str() {
                        "urlset" => ListingKind::Urlset,
                        "sitemapindex" => ListingKind::SitemapIndex,
                        "rss" | "rdf" => ListingKind::Rss,
                        "feed" => ListingKind::Atom,
                        _ => ListingKind::Unknown,
                    };
                }
                let opens_entry = matches!(
                    (kind, name.as_str()),
                    (ListingKind::Urlset, "url")
                        | (ListingKind::SitemapIndex, "sitemap")
                        | (ListingKind::Rss, "item")
                        | (ListingKind::Atom, "entry")
                );
                if opens_entry {
                    current = Some(Entry::default());
                } else if let Some(entry) = current.as_mut() {
                    // Atom's link is an attribute; the alternate (or only) link is the page.
                    if kind == ListingKind::Atom && name == "link" {
                        let rel = attr(&e, "rel").unwrap_or_else(|| "alternate".into());
                        if rel == "alternate"
                            && entry.loc.is_empty()
                            && let Some(href) = attr(&e, "href")
                        {
                            entry.loc = href;
                        }
                    }
                    field = Some(name);
                    text.clear();
                }
            }
            Event::Text(t) if field.is_some() => {
                text.push_str(&t);
            }
            Event::CData(t) if field.is_some() => {
                text.push_str(&t);
            }
            Event::GeneralRef(r) if field.is_some() => {
                let c = r
                    .resolve_char_ref()
                    .ok()
                    .flatten()
                    .or_else(|| quick_xml::escape::resolve_xml_entity(&r)?.chars().next());
                if let Some(c) = c {
                    text.push(c);
                }
            }
            Event::End(e) => {
                let name = local(e.name().as_ref());
                if let Some(entry) = current.as_mut() {
                    if field.as_deref() == Some(name.as_str()) {
                        let value = text.trim().to_owned();
                        if !value.is_empty() {
                            match name.as_str() {
                                "loc" | "link" if entry.loc.is_empty() => entry.loc = value,
                                "lastmod" | "updated" | "pubdate" | "published"
                                    if entry.lastmod.is_none() =>
                                {
                                    entry.lastmod = Some(value)
                                }
                                "title" if entry.title.is_none() => entry.title = Some(value),
                                _ => {}
                            }
                        }
                        field = None;
                        text.clear();
                    }
                    let closes_entry = matches!(
                        (kind, name.as_str()),
                        (ListingKind::Urlset, "url")
                            | (ListingKind::SitemapIndex, "sitemap")
                            | (ListingKind::Rss, "item")
                            | (ListingKind::Atom, "entry")
                    );
                    if closes_entry
                        && let Some(entry) = current.take()
                        && !entry.loc.is_empty()
                        && visit(kind, entry).is_break()
                    {
                        return Ok(kind);
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if reader.get_ref().get_ref().over {
        return Err(format!(
            "inflates past the sitemap limit of {MAX_SITEMAP_BYTES} bytes"
        ));
    }
    Ok(kind)
}

/// The links of an `/llms.txt` (Markdown: `- [Title](url): notes`), resolved against
/// `base`. Only http(s) links are kept.
pub fn parse_llms_txt(text: &str, base: &Url) -> Vec<Entry> {
    // Hand-written: a Markdown parser would be a large dependency for one link shape.
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find("](") else {
                break;
            };
            let title = after[..close].trim();
            let target = &after[close + 2..];
            let Some(end) = target.find(')') else {
                break;
            };
            let href = target[..end].split_whitespace().next().unwrap_or("");
            if let Ok(url) = base.join(href)
                && matches!(url.scheme(), "http" | "https")
            {
                out.push(Entry {
                    loc: url.to_string(),
                    lastmod: None,
                    title: (!title.is_empty()).then(|| title.to_owned()),
                });
            }
            rest = &target[end + 1..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn urlset_with_lastmod_and_entities() {
        let xml = br#"<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/a?x=1&amp;y=2</loc><lastmod>2024-05-01</lastmod></url>
  <url><loc> https://example.com/b </loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
</urlset>"#;
        let l = parse_listing(xml).unwrap();
        assert_eq!(l.kind, ListingKind::Urlset);
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.entries[0].loc, "https://example.com/a?x=1&y=2");
        assert_eq!(l.entries[0].lastmod.as_deref(), Some("2024-05-01"));
        assert_eq!(l.entries[1].loc, "https://example.com/b");
    }

    #[test]
    fn gzipped_sitemap_index() {
        let xml = br#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://example.com/s1.xml.gz</loc><lastmod>2024-02-02</lastmod></sitemap>
</sitemapindex>"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(xml).unwrap();
        let l = parse_listing(&gz.finish().unwrap()).unwrap();
        assert_eq!(l.kind, ListingKind::SitemapIndex);
        assert_eq!(l.entries[0].loc, "https://example.com/s1.xml.gz");
    }

    #[test]
    fn gzip_bomb_stops_at_the_cap() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![b' '; 1024 * 1024];
        for _ in 0..51 {
            gz.write_all(&zeros).unwrap();
        }
        let err = maybe_gunzip(&gz.finish().unwrap()).unwrap_err();
        assert!(err.contains("sitemap limit"), "{err}");
    }

    #[test]
    fn rss_and_atom_items() {
        let rss = br#"<rss version="2.0"><channel><title>Blog</title><link>https://example.com/</link>
<item><title>First &amp; best</title><link>https://example.com/p/1</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
<item><title><![CDATA[Second]]></title><link>https://example.com/p/2</link></item>
</channel></rss>"#;
        let l = parse_listing(rss).unwrap();
        assert_eq!(l.kind, ListingKind::Rss);
        assert_eq!(l.entries.len(), 2, "the channel's own link is not an item");
        assert_eq!(l.entries[0].title.as_deref(), Some("First & best"));
        assert_eq!(l.entries[1].title.as_deref(), Some("Second"));
        let atom = br#"<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
<entry><title>A</title><link rel="edit" href="https://example.com/edit/a"/><link href="https://example.com/a"/><updated>2024-03-03T00:00:00Z</updated></entry>
</feed>"#;
        let l = parse_listing(atom).unwrap();
        assert_eq!(l.kind, ListingKind::Atom);
        assert_eq!(l.entries[0].loc, "https://example.com/a");
        assert_eq!(
            l.entries[0].lastmod.as_deref(),
            Some("2024-03-03T00:00:00Z")
        );
    }

    #[test]
    fn llms_txt_links() {
        let base = Url::parse("https://example.com/llms.txt").unwrap();
        let text = "# Site\n\n- [Getting started](/docs/start): intro\n- [API](https://example.com/api \"t\") and [mail](mailto:a@b)\n";
        let e = parse_llms_txt(text, &base);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].loc, "https://example.com/docs/start");
        assert_eq!(e[0].title.as_deref(), Some("Getting started"));
        assert_eq!(e[1].loc, "https://example.com/api");
    }
}
