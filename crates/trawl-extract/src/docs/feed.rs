//! RSS (0.9x, 1.0, 2.0) and Atom feeds: the feed's title, then each item as a `##`
//! heading linked to it, its date and author, and its summary or content as Markdown, in
//! the feed's order, at most `max_members` items.
//!
//! Hand-written over roxmltree rather than with feed-rs: the feed is parsed under the same
//! DTD refusal and node cap as every other XML part, and only four fields are needed.

use roxmltree::Node;
use url::Url;

use crate::docs::budget::{DocError, Meter};
use crate::docs::{Converted, html_to_markdown, xml};

/// Whether the body is a feed: its root element is `rss`, Atom's `feed` or RSS 1.0's
/// `rdf:RDF`, found after the XML declaration, comments and processing instructions.
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(2048)];
    let head = head
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(head)
        .trim_ascii_start();
    if !head.starts_with(b"<") {
        return false;
    }
    let has = |n: &[u8]| memchr::memmem::find(head, n).is_some();
    has(b"<rss")
        || (has(b"<feed") && has(b"http://www.w3.org/2005/Atom"))
        || (has(b"<rdf:RDF") && has(b"purl.org/rss"))
}

struct Item {
    title: String,
    link: Option<String>,
    date: Option<String>,
    author: Option<String>,
    summary: String,
}

pub(crate) fn convert(bytes: &[u8], url: &Url, meter: &Meter) -> Result<Converted, DocError> {
    let text = crate::charset::decode_html(bytes, Some("application/xml"));
    let text = text.trim_start_matches('\u{feff}');
    let doc = xml::parse(text, "feed", meter)?;
    let root = doc.root_element();
    let atom = root.tag_name().name() == "feed";
    let channel = if atom {
        Some(root)
    } else {
        xml::child(root, "channel")
    };
    let mut out = Converted::default();
    let field =
        |n: Node<'_, '_>, name: &str| xml::child(n, name).map(xml::text).filter(|t| !t.is_empty());
    if let Some(ch) = channel {
        out.title = field(ch, "title");
        out.author = xml::child(ch, "author")
            .and_then(|a| field(a, "name"))
            .or_else(|| field(ch, "managingEditor"));
        out.created = field(ch, "updated")
            .or_else(|| field(ch, "lastBuildDate"))
            .or_else(|| field(ch, "pubDate"));
    }
    // RSS 2.0 keeps items in the channel, RSS 1.0 beside it, Atom in the feed.
    let item_name = if atom { "entry" } else { "item" };
    let holders = [channel, Some(root)];
    let mut items = Vec::new();
    for holder in holders.into_iter().flatten() {
        for n in xml::children(holder, item_name) {
            if items.len() >= meter.budget.max_members {
                break;
            }
            items.push(item(n, atom, url));
        }
        if !items.is_empty() || atom {
            break;
        }
    }
    let mut md = String::new();
    if let Some(t) = &out.title {
        md.push_str(&format!("# {t}\n"));
    }
    if let Some(desc) =
        channel.and_then(|c| field(c, "description").or_else(|| field(c, "subtitle")))
    {
        md.push_str(&format!("\n{desc}\n"));
    }
    for it in items {
        meter.check_time()?;
        let title = if it.title.is_empty() {
            "(untitled)".to_owned()
        } else {
            it.title.replace(['[', ']'], "")
        };
        md.push_str("\n## ");
        match &it.link {
            Some(l) => md.push_str(&format!("[{title}]({l})")),
            None => md.push_str(&title),
        }
        md.push('\n');
        // When and by whom, on one line under the heading.
        let byline: Vec<&str> = [it.date.as_deref(), it.author.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if !byline.is_empty() {
            md.push_str(&format!("\n*{}*\n", byline.join(" · ")));
        }
        if !it.summary.trim().is_empty() {
            md.push('\n');
            md.push_str(it.summary.trim());
            md.push('\n');
        }
    }
    out.markdown = md;
    Ok(out)
}

fn item(n: Node<'_, '_>, atom: bool, base: &Url) -> Item {
    let get = |name: &str| xml::child(n, name);
    let title_node = get("title");
    let title = match title_node {
        Some(t) if matches!(xml::attr(t, "type"), Some("html" | "xhtml")) => {
            xml::fold_spaces(&html_to_markdown(&xml::text(t), base))
        }
        Some(t) => xml::text(t),
        None => String::new(),
    };
    let link = if atom {
        xml::children(n, "link")
            .find(|l| matches!(xml::attr(*l, "rel"), None | Some("alternate")))
            .and_then(|l| xml::attr(l, "href"))
            .map(str::to_owned)
    } else {
        get("link").map(xml::text).or_else(|| {
            get("guid")
                .filter(|g| xml::attr(*g, "isPermaLink") != Some("false"))
                .map(xml::text)
        })
    };
    let link = link
        .and_then(|l| base.join(l.trim()).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .map(|u| u.to_string().replace(['(', ')', ' '], "_"));
    let date = [
        "published",
        "pubDate",
        "updated",
        "date",
        "issued",
        "modified",
    ]
    .iter()
    .find_map(|name| get(name).map(xml::text).filter(|t| !t.is_empty()));
    // Atom's author/name, RSS's author (an address, often with the name in brackets) or
    // Dublin Core's creator.
    let author = get("author")
        .map(|a| xml::child(a, "name").map_or_else(|| xml::text(a), xml::text))
        .or_else(|| get("creator").map(xml::text))
        .map(|a| xml::fold_spaces(&a))
        .filter(|a| !a.is_empty());
    let summary_node = ["summary", "description", "content", "encoded"]
        .iter()
        .find_map(|name| get(name).filter(|s| !xml::text(*s).is_empty()));
    // Summaries are HTML more often than not (escaped or in CDATA): through the HTML writer.
    let summary = summary_node
        .map(|s| {
            let raw: String = s
                .descendants()
                .filter(|t| t.is_text())
                .filter_map(|t| t.text())
                .collect();
            if matches!(xml::attr(s, "type"), Some("text")) {
                xml::fold_spaces(&raw)
            } else {
                html_to_markdown(&raw, base)
            }
        })
        .unwrap_or_default();
    Item {
        title,
        link,
        date,
        author,
        summary,
    }
}
