//! Wikipedia through the MediaWiki parse API (`/w/api.php?action=parse`): the article's
//! rendered HTML written as Markdown, its sections as headings, the infobox first as a
//! table, and the references kept as a numbered list. Navigation boxes, edit links and
//! styles are left out.

use std::fmt::Write as _;

use scraper::{ElementRef, Html, Node, Selector};
use serde_json::Value;
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::client::{SiteClient, endpoint};
use crate::page::SitePage;
use crate::spec::{self, SiteSpec, Target as SiteTarget};

/// The reader's row in the table.
pub const SPEC: SiteSpec = SiteSpec {
    name: "wikipedia",
    hosts: &["*.wikipedia.org"],
    pattern: "LANG.wikipedia.org/wiki/TITLE",
    reads: "the article with its sections as headings, the infobox as a table and the references as a list",
    needs: "nothing",
    base: "https://LANG.wikipedia.org/",
    confidence: "high: stable documented API; no saved parse answer with an infobox found, tested on one built from the parse API's documented output (formatversion=2) and Wikipedia's infobox markup",
    fixtures: "crates/trawl-sites/fixtures/wikipedia (built from the MediaWiki API help)",
    route,
};

fn route(url: &Url) -> Option<Result<SiteTarget, String>> {
    let host = url.host_str()?.to_ascii_lowercase();
    if !spec::host_matches(&host, SPEC.hosts) {
        return None;
    }
    let lang = host.split('.').next()?.to_owned();
    if lang == "www" || lang == "m" {
        return None;
    }
    let title = url.path().strip_prefix("/wiki/")?;
    let title = percent_encoding::percent_decode_str(title)
        .decode_utf8()
        .ok()?;
    if title.is_empty() || title.contains(':') && title.split(':').next().is_some_and(is_namespace)
    {
        return None;
    }
    Some(Ok(SiteTarget::Wikipedia {
        lang,
        title: title.into_owned(),
    }))
}

/// Special pages are not articles (a title may hold a colon otherwise).
fn is_namespace(prefix: &str) -> bool {
    matches!(
        prefix,
        "Special"
            | "Talk"
            | "User"
            | "User_talk"
            | "Wikipedia"
            | "File"
            | "Template"
            | "Help"
            | "Category"
            | "Portal"
            | "Draft"
            | "Module"
    )
}

/// Read `title` from the `lang` Wikipedia.
pub async fn read(
    client: &SiteClient<'_>,
    lang: &str,
    title: &str,
) -> Result<SitePage, TrawlError> {
    let base = if client.overridden(&SPEC) {
        client.base(&SPEC)
    } else {
        Url::parse(&format!("https://{lang}.wikipedia.org/"))
            .map_err(|e| TrawlError::invalid_input(format!("wikipedia language {lang:?}: {e}")))?
    };
    let page = percent_encoding::utf8_percent_encode(title, percent_encoding::NON_ALPHANUMERIC);
    let url = endpoint(
        &base,
        &format!(
            "w/api.php?action=parse&format=json&formatversion=2&redirects=1&disableeditsection=1&prop=text%7Csections%7Cdisplaytitle&page={page}"
        ),
    )?;
    let answer = client.get_json(&url, &[]).await?;
    let article = Url::parse(&format!("https://{lang}.wikipedia.org/wiki/{page}"))
        .map_err(|e| TrawlError::internal(e.to_string()))?;
    parse(&answer, &article)
}

fn select(s: &str) -> Selector {
    Selector::parse(s).expect("a valid selector")
}

/// A cell's text on one line, `<br>` as "; ".
fn cell_text(cell: ElementRef<'_>) -> String {
    let mut out = String::new();
    for node in cell.descendants() {
        match node.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) if e.name() == "br" => out.push_str("; "),
            _ => {}
        }
    }
    out.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// A parse answer as Markdown; `article` is the page's URL (links are made absolute to it).
pub fn parse(answer: &Value, article: &Url) -> Result<SitePage, TrawlError> {
    if let Some(info) = answer.pointer("/error/info").and_then(Value::as_str) {
        let code = answer.pointer("/error/code").and_then(Value::as_str);
        return Err(TrawlError::new(
            if code == Some("missingtitle") {
                ErrorCode::NotFound
            } else {
                ErrorCode::Upstream
            },
            format!("Wikipedia: {info}"),
        ));
    }
    let parsed = answer.get("parse").ok_or_else(|| {
        TrawlError::new(
            ErrorCode::Upstream,
            "Wikipedia's API answered without a parse",
        )
    })?;
    let title = parsed
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("(untitled)")
        .to_owned();
    let html = parsed
        .get("text")
        .and_then(|t| t.as_str().or_else(|| t.get("*").and_then(Value::as_str)))
        .unwrap_or("");
    let mut doc = Html::parse_fragment(html);
    let mut infobox = String::new();
    if let Some(table) = doc.select(&select("table.infobox")).next() {
        let th = select("th");
        let td = select("td");
        let _ = writeln!(infobox, "| | |\n|---|---|");
        for row in table.select(&select("tr")) {
            if let (Some(k), Some(v)) = (row.select(&th).next(), row.select(&td).next()) {
                let _ = writeln!(infobox, "| {} | {} |", cell_text(k), cell_text(v));
            }
        }
    }
    // Not article text: the infobox (written above as a table), navigation boxes,
    // styles, edit links, hidden short descriptions and the references' back-links.
    let drop = select(
        "table.infobox, .navbox, style, .mw-editsection, .shortdescription, .mw-cite-backlink, .mw-empty-elt",
    );
    let ids: Vec<_> = doc.select(&drop).map(|e| e.id()).collect();
    for id in ids {
        if let Some(mut node) = doc.tree.get_mut(id) {
            node.detach();
        }
    }
    let body = trawl_extract::fragment_to_markdown(&doc.root_element().inner_html(), article);
    let mut md = format!("# {title}\n\n");
    if !infobox.is_empty() {
        let _ = writeln!(md, "{infobox}");
    }
    md.push_str(body.trim());
    md.push('\n');
    Ok(SitePage {
        title: Some(title),
        markdown: md,
        ..SitePage::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_urls_are_routed_and_special_pages_are_not() {
        let t = |raw: &str| route(&Url::parse(raw).unwrap());
        assert_eq!(
            t("https://en.wikipedia.org/wiki/Ada_Lovelace"),
            Some(Ok(SiteTarget::Wikipedia {
                lang: "en".into(),
                title: "Ada_Lovelace".into()
            }))
        );
        assert_eq!(
            t("https://de.wikipedia.org/wiki/K%C3%B6ln"),
            Some(Ok(SiteTarget::Wikipedia {
                lang: "de".into(),
                title: "Köln".into()
            }))
        );
        assert_eq!(t("https://en.wikipedia.org/wiki/Special:Random"), None);
        assert_eq!(t("https://www.wikipedia.org/"), None);
    }

    #[test]
    fn the_infobox_is_a_table_sections_are_headings_and_references_a_list() {
        // Built from the parse API's documented output (no saved answer found).
        let path = format!(
            "{}/fixtures/wikipedia/parse-built.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let answer: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let article = Url::parse("https://en.wikipedia.org/wiki/Ada_Lovelace").unwrap();
        let page = parse(&answer, &article).unwrap();
        let md = &page.markdown;
        assert!(
            md.starts_with("# Ada Lovelace\n\n| | |\n|---|---|\n"),
            "{md}"
        );
        assert!(
            md.contains("| Born | Augusta Ada Byron; 10 December 1815; London, England |"),
            "{md}"
        );
        assert!(md.contains("| Died | 27 November 1852 (aged 36); Marylebone, London |"));
        assert!(md.contains("## Biography") && md.contains("### First computer program"));
        assert!(md.contains("[mathematician](https://en.wikipedia.org/wiki/Mathematician)"));
        assert!(
            md.contains("## References\n\n1. *Toole, Betty Alexandra (1998)."),
            "{md}"
        );
        assert!(
            md.contains("2. [\"Lord Byron and his daughter\"](https://www.example.org/byron)"),
            "{md}"
        );
        // Written once, as the table: not again in the text.
        assert_eq!(md.matches("Marylebone").count(), 1);
        assert!(!md.contains("Navigation box") && !md.contains("reflist{"));
        assert!(!md.contains("English mathematician (1815"));
    }

    #[test]
    fn a_missing_article_is_not_found() {
        let answer = serde_json::json!({"error": {"code": "missingtitle", "info": "The page you specified doesn't exist."}});
        let err = parse(
            &answer,
            &Url::parse("https://en.wikipedia.org/wiki/X").unwrap(),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
    }
}
