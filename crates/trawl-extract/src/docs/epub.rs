//! EPUB books: the package document (OPF) named by `META-INF/container.xml` gives the
//! title, author and date, the manifest and the spine; each spine chapter is XHTML, written
//! as Markdown by trawl's own HTML parser and writer, in spine order. The navigation
//! document is skipped (the chapters are its content).

use url::Url;

use crate::docs::budget::{DocError, Meter};
use crate::docs::package::Package;
use crate::docs::{Converted, html_to_markdown, resolve_part, xml};

pub(crate) fn convert(bytes: &[u8], url: &Url, meter: &Meter) -> Result<Converted, DocError> {
    let mut pkg = Package::open(bytes, meter, "epub")?;
    let malformed = |why: &str| DocError::Malformed {
        format: "epub",
        why: why.to_owned(),
    };
    let container = pkg
        .read_text("META-INF/container.xml")?
        .ok_or_else(|| malformed("no META-INF/container.xml"))?;
    let opf_path = {
        let doc = xml::parse(&container, "META-INF/container.xml", meter)?;
        xml::find(doc.root_element(), "rootfile")
            .and_then(|r| xml::attr(r, "full-path"))
            .map(str::to_owned)
            .ok_or_else(|| malformed("container.xml names no rootfile"))?
    };
    let opf = pkg
        .read_text(&opf_path)?
        .ok_or_else(|| malformed("the rootfile named in container.xml is missing"))?;
    let doc = xml::parse(&opf, &opf_path, meter)?;
    let root = doc.root_element();
    let mut out = Converted::default();
    if let Some(meta) = xml::child(root, "metadata") {
        let get = |name: &str| {
            xml::child(meta, name)
                .map(xml::text)
                .filter(|t| !t.is_empty())
        };
        out.title = get("title");
        out.author = {
            let authors: Vec<String> = xml::children(meta, "creator")
                .map(xml::text)
                .filter(|t| !t.is_empty())
                .collect();
            (!authors.is_empty()).then(|| authors.join(", "))
        };
        out.created = get("date");
        out.language = get("language");
        out.description = get("description");
    }
    let manifest: Vec<(String, String, String, String)> = xml::child(root, "manifest")
        .map(|m| {
            xml::children(m, "item")
                .map(|i| {
                    let a = |k: &str| xml::attr(i, k).unwrap_or("").to_owned();
                    (a("id"), a("href"), a("media-type"), a("properties"))
                })
                .collect()
        })
        .unwrap_or_default();
    let spine: Vec<String> = xml::child(root, "spine")
        .map(|s| {
            xml::children(s, "itemref")
                .filter_map(|r| xml::attr(r, "idref"))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut chapters = Vec::new();
    for idref in spine {
        meter.check_time()?;
        let Some((_, href, media, props)) = manifest.iter().find(|m| m.0 == idref) else {
            continue;
        };
        if props.split_whitespace().any(|p| p == "nav") || !media.contains("html") {
            continue;
        }
        let href = percent_encoding::percent_decode_str(href.split('#').next().unwrap_or(""))
            .decode_utf8_lossy();
        let part = resolve_part(&opf_path, &href);
        let Some(bytes) = pkg.read(&part)? else {
            continue;
        };
        let html = crate::charset::decode_html(&bytes, Some("application/xhtml+xml"));
        let base = url.join(&part).unwrap_or_else(|_| url.clone());
        let md = html_to_markdown(&html, &base);
        if !md.trim().is_empty() {
            chapters.push(md.trim_end().to_owned());
        }
    }
    out.markdown = chapters.join("\n\n");
    Ok(out)
}
