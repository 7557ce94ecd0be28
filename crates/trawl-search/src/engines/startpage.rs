//! Startpage (`www.startpage.com/sp/search`), HTML, Google-backed.

use crate::engine::{
    Capabilities, Engine, EngineRequest, ParseError, RawItem, RequestContext, endpoint_with,
};
use crate::html::{document, empty_page, first_attr, first_text, sel};
use crate::types::{SafeSearch, SearchRequest};

/// The Startpage HTML engine.
#[derive(Debug, Default)]
pub struct Startpage;

impl Engine for Startpage {
    fn name(&self) -> &'static str {
        "startpage"
    }
    fn group(&self) -> &'static str {
        "google"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            freshness: true,
            language: true,
            region: true,
            safesearch: true,
            paging: true,
        }
    }
    fn default_base(&self) -> &'static str {
        "https://www.startpage.com"
    }
    fn confidence(&self) -> &'static str {
        "medium: no real page saved; tested on a minimal page from the markup 3 HTML sources roughly agree on; captcha-prone"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
        // A plain GET, as the 2026-08 `sp` scraper does; the POST flow needs an `sc` token
        // from the home page first.
        let lang = match f.language.as_deref() {
            Some("de") => "deutsch",
            Some("fr") => "francais",
            Some("es") => "espanol",
            Some("it") => "italiano",
            Some("nl") => "nederlands",
            _ => "english",
        };
        let mut p = vec![
            ("query", q),
            ("cat", "web".to_owned()),
            ("language", lang.to_owned()),
            ("lui", lang.to_owned()),
        ];
        if f.page() > 1 {
            p.push(("page", f.page().to_string()));
        }
        if let Some(s) = f.safesearch {
            let v = match s {
                SafeSearch::Strict => "heavy",
                SafeSearch::Moderate => "moderate",
                SafeSearch::Off => "none",
            };
            p.push(("qadf", v.into()));
        }
        if let Some(fr) = f.freshness {
            p.push(("with_date", fr.letter().into()));
        }
        if let Some(r) = &f.region {
            let l = f.language.as_deref().unwrap_or("en");
            p.push(("qsr", format!("{}_{}", l.to_lowercase(), r.to_uppercase())));
        }
        EngineRequest::get(endpoint_with(ctx.base, "/sp/search", &p))
            .header("Referer", "https://www.startpage.com/")
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
    fn browser_like(&self) -> bool {
        true
    }
}

/// Parse a Startpage results page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let doc = document(body);
    let item_sel = sel("div.result, .w-gl__result");
    let link_sel = sel("a.result-title, a.w-gl__result-title, a.result-link");
    let title_sel = sel("h2, h3");
    let snip_sel = sel("p.description, .w-gl__description");
    let mut out = Vec::new();
    for item in doc.select(&item_sel) {
        let Some(href) = first_attr(item, &link_sel, "href") else {
            continue;
        };
        if !href.starts_with("http") || href.starts_with("https://www.google.com") {
            continue;
        }
        let mut title = first_text(item, &title_sel);
        if title.is_empty() {
            title = first_text(item, &link_sel);
        }
        out.push(RawItem {
            url: href,
            title,
            snippet: first_text(item, &snip_sel),
            ..RawItem::default()
        });
    }
    if out.is_empty() {
        empty_page(&doc, &[], &["did not match any", "No results found"])?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // No real Startpage page exists (ENGINES.md §8); built from the documented markup.
    #[test]
    fn documented_markup_parses() {
        let body = br#"<html><body><section>
          <div class="result css-abc"><a class="result-title result-link" href="https://example.com/x"><h2>Example X</h2></a>
            <p class="description">About X.</p></div>
          <div class="result css-abc"><a class="result-title" href="https://www.google.com/ad">Ad</a></div>
        </section></body></html>"#;
        let items = parse(body).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].title, "Example X");
        assert_eq!(items[0].snippet, "About X.");
    }

    #[test]
    fn captcha_form_is_blocked() {
        let body = br#"<html><body><form action="/sp/captcha/verify"></form></body></html>"#;
        assert!(matches!(parse(body), Err(ParseError::Blocked(_))));
    }
}
