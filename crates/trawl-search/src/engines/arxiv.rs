//! arXiv (`export.arxiv.org/api/query`), Atom. Handles both the old (to 2025-08) and the
//! new (from 2025-11) feed formats: links are found by `/abs/` and `/pdf/` in the href,
//! not by `rel`/`title`, which the new format dropped.

use quick_xml::Reader;
use quick_xml::events::Event;

use super::prelude::*;

/// One arXiv paper with its typed fields (also put in `RawItem::extra`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Paper {
    /// `http://arxiv.org/abs/<id>vN`.
    pub id: String,
    /// Title, whitespace collapsed.
    pub title: String,
    /// The abstract.
    pub summary: String,
    /// Author names.
    pub authors: Vec<String>,
    /// Every category term.
    pub categories: Vec<String>,
    /// `arxiv:primary_category`.
    pub primary_category: Option<String>,
    /// First version date.
    pub published: Option<String>,
    /// Latest version date.
    pub updated: Option<String>,
    /// Abstract page.
    pub abs_url: Option<String>,
    /// PDF.
    pub pdf_url: Option<String>,
    /// DOI, when the authors gave one.
    pub doi: Option<String>,
    /// Author comment.
    pub comment: Option<String>,
    /// Journal reference.
    pub journal_ref: Option<String>,
}

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut sq = search_query(query);
    if let Some(fr) = f.freshness {
        let from = super::yyyymmdd_days_ago(fr.days());
        let to = super::yyyymmdd_days_ago(0);
        sq = format!("({sq}) AND submittedDate:[{from}0000 TO {to}2359]");
    }
    let p = [
        ("search_query", sq),
        ("start", ((f.page() - 1) * 10).to_string()),
        ("max_results", "10".to_owned()),
    ];
    EngineRequest::get(endpoint_with(ctx.base, "/api/query", &p))
}

/// Parse a response into items.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    Ok(parse_papers(body)?
        .into_iter()
        .map(|p| {
            let url = p.abs_url.clone().unwrap_or_else(|| p.id.clone());
            RawItem::new(url, p.title.clone(), p.summary.clone())
                .dated(p.published.clone())
                .with_extra(serde_json::to_value(&p).ok())
        })
        .collect())
}

/// The `search_query` for free text: every word must match somewhere (`all:a AND all:b`);
/// a query that already uses arXiv's field syntax (`ti:`, `au:`, `cat:`, …) is kept.
pub fn search_query(query: &str) -> String {
    let fielded = [
        "ti:", "au:", "abs:", "co:", "jr:", "cat:", "rn:", "all:", "id:",
    ]
    .iter()
    .any(|p| query.contains(p));
    if fielded {
        return query.to_owned();
    }
    let words: Vec<String> = query
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '.'))
        .filter(|w| !w.is_empty())
        .map(|w| format!("all:{w}"))
        .collect();
    if words.is_empty() {
        format!("all:{query}")
    } else {
        words.join(" AND ")
    }
}

/// Parse an arXiv Atom feed into papers. An "Error" entry becomes `Malformed`.
pub fn parse_papers(body: &[u8]) -> Result<Vec<Paper>, ParseError> {
    let mut reader = Reader::from_reader(body);
    let mut buf = Vec::new();
    let mut papers = Vec::new();
    let mut saw_feed = false;
    let mut current: Option<Paper> = None;
    // Path of local element names inside the current entry.
    let mut path: Vec<String> = Vec::new();
    let mut text = String::new();
    loop {
        let ev = reader
            .read_event_into(&mut buf)
            .map_err(|e| ParseError::Malformed(format!("invalid Atom XML: {e}")))?;
        match ev {
            Event::Start(e) => {
                let name = qname(e.name().as_ref());
                if name == "feed" {
                    saw_feed = true;
                }
                if name == "entry" {
                    current = Some(Paper::default());
                    path.clear();
                } else if let Some(p) = current.as_mut() {
                    on_element(p, &name, &e);
                    path.push(name);
                    text.clear();
                }
            }
            Event::Empty(e) => {
                let name = qname(e.name().as_ref());
                if let Some(p) = current.as_mut() {
                    on_element(p, &name, &e);
                }
            }
            Event::Text(t) if current.is_some() => text.push_str(&t),
            Event::CData(t) if current.is_some() => text.push_str(&t),
            Event::GeneralRef(r) if current.is_some() => {
                let resolved = r
                    .resolve_char_ref()
                    .ok()
                    .flatten()
                    .or_else(|| quick_xml::escape::resolve_xml_entity(&r)?.chars().next());
                if let Some(c) = resolved {
                    text.push(c);
                }
            }
            Event::End(e) => {
                let name = qname(e.name().as_ref());
                if name == "entry" {
                    if let Some(p) = current.take() {
                        if p.title == "Error" && p.abs_url.is_none() {
                            return Err(ParseError::Malformed(format!(
                                "arXiv API error: {}",
                                p.summary
                            )));
                        }
                        // The old format answers a missing id with an entry that has no
                        // `<id>` (only empty category elements): not a paper.
                        if !p.id.is_empty() {
                            papers.push(p);
                        }
                    }
                } else if let Some(p) = current.as_mut() {
                    let value = clean_text(&text);
                    let parent = path.len().checked_sub(2).map(|i| path[i].as_str());
                    match (name.as_str(), parent) {
                        ("id", _) => p.id = value,
                        ("title", _) => p.title = value,
                        ("summary", _) => p.summary = value,
                        ("published", _) => p.published = Some(value),
                        ("updated", _) => p.updated = Some(value),
                        ("name", Some("author")) => p.authors.push(value),
                        ("arxiv:doi", _) => p.doi = Some(value),
                        ("arxiv:comment", _) => p.comment = Some(value),
                        ("arxiv:journal_ref", _) => p.journal_ref = Some(value),
                        _ => {}
                    }
                    path.pop();
                    text.clear();
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !saw_feed {
        return Err(ParseError::Malformed("not an Atom feed".into()));
    }
    for p in &mut papers {
        if p.abs_url.is_none() && p.id.contains("/abs/") {
            p.abs_url = Some(p.id.replacen("http://", "https://", 1));
        }
    }
    Ok(papers)
}

/// The element name with arXiv's namespace kept as `arxiv:` and Atom's dropped, whatever
/// prefixes the feed happened to use.
fn qname(raw: &str) -> String {
    let s = raw;
    match s.split_once(':') {
        Some(("arxiv", local)) => format!("arxiv:{local}"),
        Some((_, local)) if local == "totalResults" => local.to_owned(),
        Some((_, local)) => format!("x:{local}"),
        None => s.to_owned(),
    }
}

fn attr(e: &quick_xml::events::BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == name)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })
}

fn on_element(p: &mut Paper, name: &str, e: &quick_xml::events::BytesStart<'_>) {
    match name {
        "link" => {
            let Some(href) = attr(e, "href") else { return };
            let title = attr(e, "title");
            let rel = attr(e, "rel");
            if title.as_deref() == Some("pdf") || href.contains("/pdf/") {
                p.pdf_url.get_or_insert(href);
            } else if rel.as_deref() == Some("alternate") || href.contains("/abs/") {
                p.abs_url.get_or_insert(href);
            }
        }
        "category" => {
            if let Some(t) = attr(e, "term") {
                p.categories.push(t);
            }
        }
        "arxiv:primary_category" => p.primary_category = attr(e, "term"),
        _ => {}
    }
}

/// arxiv, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "arxiv",
    group: "arxiv",
    filters: Capabilities::named("freshness paging"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://export.arxiv.org",
    browser_like: false,
    confidence: "high: real feeds in both formats (2025-08 old, 2025-11 new)",
    routes: Routes::named("academic all"),
    fixtures: "tested on 6 real saved responses (captured 2025-08-20 to 2025-11-11)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
