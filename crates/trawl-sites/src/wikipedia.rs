//! Wikipedia through the MediaWiki parse API (`/w/api.php?action=parse`): the article's
//! rendered HTML written as Markdown, its sections as headings, the infobox first as a
//! table, and the references kept as a numbered list. Navigation boxes, edit links and
//! styles are left out.

use std::fmt::Write as _;

use scraper::{Html, Selector};
use serde_json::Value;
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::client::{SiteClient, endpoint};
use crate::page::SitePage;
use crate::spec::{self, SiteSpec, Target as SiteTarget};

mod infobox;

/// The reader's row in the table.
pub const SPEC: SiteSpec = SiteSpec {
    name: "wikipedia",
    hosts: &["*.wikipedia.org"],
    pattern: "LANG.wikipedia.org/wiki/TITLE",
    reads: "the article with its sections as headings, the infobox as a table and the references as a list",
    needs: "nothing",
    base: "https://LANG.wikipedia.org/",
    confidence: "high: stable documented API; tested on a real species infobox (Dormouse, saved 2026) and on an answer built from the parse API's documented output (formatversion=2)",
    fixtures: "crates/trawl-sites/fixtures/wikipedia (one real article body, one built from the MediaWiki API help)",
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

/// Detach every element of `doc` that `selector` matches.
fn remove(doc: &mut Html, selector: &str) {
    let ids: Vec<_> = doc.select(&select(selector)).map(|e| e.id()).collect();
    for id in ids {
        if let Some(mut node) = doc.tree.get_mut(id) {
            node.detach();
        }
    }
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
    remove(&mut doc, infobox::DECORATION);
    // Every box (a species box, then an audio box, say), each rendered before it leaves
    // the body.
    let infoboxes: Vec<String> = doc
        .select(&select("table.infobox"))
        .filter_map(|table| infobox::render(table, article))
        .collect();
    // Not article text: the infoboxes (written above as tables), navigation boxes, the
    // table of contents, styles, edit links, hidden short descriptions and the
    // references' back-links.
    remove(
        &mut doc,
        "table.infobox, .navbox, #toc, .toc, meta[property=\"mw:PageProp/toc\"], style, .mw-editsection, .shortdescription, .mw-cite-backlink, .mw-empty-elt",
    );
    let body = trawl_extract::fragment_to_markdown(&doc.root_element().inner_html(), article);
    let mut md = format!("# {title}\n\n");
    for table in &infoboxes {
        let _ = writeln!(md, "{table}");
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

    fn dormouse() -> (Value, Url) {
        // Real: the Dormouse article's body as Wikipedia served it (see PROVENANCE.md).
        let path = format!(
            "{}/fixtures/wikipedia/parse-dormouse-2026.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let answer: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        (
            answer,
            Url::parse("https://en.wikipedia.org/wiki/Dormouse").unwrap(),
        )
    }

    #[test]
    fn a_species_box_keeps_its_taxonomy_header_rows_images_and_lists() {
        let (answer, article) = dormouse();
        let md = parse(&answer, &article).unwrap().markdown;
        for row in [
            "| Kingdom | Animalia |",
            "| Phylum | Chordata |",
            "| Class | Mammalia |",
            "| Order | Rodentia |",
            "| Suborder | Sciuromorpha |",
            "| Family | Gliridae; Muirhead in Brewster, 1819 |",
            "| **Scientific classification** | |",
            "| **Type genus** | |",
            "| Glis; Brisson, 1762 | |",
            "| African dormouse, Graphiurus sp. | |",
            "| Gliridae distribution | |",
        ] {
            assert!(md.contains(row), "{row} missing from:\n{md}");
        }
        assert!(
            md.contains("| ![Graphiurus_spec_-murinus-1.jpg](https://upload.wikimedia.org/wikipedia/commons/thumb/4/43/Graphiurus_spec_-murinus-1.jpg/250px-Graphiurus_spec_-murinus-1.jpg) | |"),
            "{md}"
        );
        assert!(
            md.contains("Graphiurinae; Graphiurus; Leithiinae; Chaetocauda; Dryomys"),
            "{md}"
        );
        // The timeline bar's period letters and the edit pencil are decoration.
        assert!(
            !md.contains("Pg; N") && !md.contains("Edit this classification"),
            "{md}"
        );
        assert!(
            md.contains("| **Dormice; Temporal range: Early Eocene"),
            "{md}"
        );
        // The box is written once, before the text; the text follows.
        assert!(md.contains("A **dormouse** is a [rodent]"), "{md}");
        assert!(md.contains("## Etymology"), "{md}");
    }

    #[test]
    fn the_site_reader_keeps_every_infobox_word_the_generic_reader_keeps() {
        let (answer, article) = dormouse();
        let site = parse(&answer, &article).unwrap().markdown;
        let html = answer
            .pointer("/parse/text")
            .and_then(Value::as_str)
            .unwrap();
        let page = format!(
            "<html><head><title>Dormouse</title></head><body><main>{html}</main></body></html>"
        );
        let generic = trawl_extract::extract(
            page.as_bytes(),
            Some("text/html"),
            &article,
            &trawl_extract::ExtractOptions::default(),
        )
        .unwrap()
        .markdown;
        let words = [
            "Animalia",
            "Chordata",
            "Mammalia",
            "Rodentia",
            "Sciuromorpha",
            "Gliridae",
            "Muirhead",
            "Brisson",
            "Graphiurinae",
            "Leithiinae",
            "Glirinae",
            "Selevinia",
            "Glirulus",
            "African dormouse",
            "Gliridae distribution",
            "Type genus",
        ];
        let kept_by_generic: Vec<_> = words.iter().filter(|w| generic.contains(*w)).collect();
        assert!(
            !kept_by_generic.is_empty(),
            "the generic reader kept none: {generic}"
        );
        for word in kept_by_generic {
            assert!(
                site.contains(word),
                "{word} kept by the generic reader, lost by the site reader:\n{site}"
            );
        }
    }

    #[test]
    fn every_infobox_is_written_and_the_table_of_contents_is_not() {
        // Shapes from Wikipedia's markup, built here: a second box (an audio box) after the
        // first, a `td`+`td` row, a caption, and an old-style table of contents.
        let html = r#"<table class="infobox"><caption>Lion</caption><tr><th>Status</th><td>Vulnerable</td></tr></table>
<table class="infobox"><tr><th colspan="2">Lion roar</th></tr><tr><td>Duration:</td><td>0:12</td></tr></table>
<div id="toc" class="toc"><h2>Contents</h2><ul><li>1 Etymology</li></ul></div><p>The lion is a cat.</p>"#;
        let answer = serde_json::json!({"parse": {"title": "Lion", "text": html}});
        let md = parse(
            &answer,
            &Url::parse("https://en.wikipedia.org/wiki/Lion").unwrap(),
        )
        .unwrap()
        .markdown;
        assert!(
            md.contains("| **Lion** | |\n| Status | Vulnerable |"),
            "{md}"
        );
        assert!(
            md.contains("| **Lion roar** | |\n| Duration | 0:12 |"),
            "{md}"
        );
        assert!(
            !md.contains("Contents") && md.contains("The lion is a cat."),
            "{md}"
        );
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
