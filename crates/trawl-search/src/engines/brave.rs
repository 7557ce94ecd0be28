//! Brave Search HTML (`search.brave.com/search`), keyless. Its own index, shared with the
//! Brave Search API (`brave_api`), so both vote in the `brave` group.

use crate::engine::{
    Capabilities, Engine, EngineRequest, ParseError, RawItem, RequestContext, endpoint_with,
};
use crate::html::{document, empty_page, first_text, sel, text_of};
use crate::types::{Freshness, SearchRequest};

/// The Brave HTML engine.
#[derive(Debug, Default)]
pub struct Brave;

impl Engine for Brave {
    fn name(&self) -> &'static str {
        "brave"
    }
    fn group(&self) -> &'static str {
        "brave"
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
        "https://search.brave.com"
    }
    fn confidence(&self) -> &'static str {
        "medium-low: no real page saved; sources disagree and classes are build hashes; tested on a minimal page from the documented shapes"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
        let mut p = vec![("q", q), ("source", "web".to_owned())];
        if f.page() > 1 {
            p.push(("offset", (f.page() - 1).to_string()));
        }
        if let Some(fr) = f.freshness {
            let tf = match fr {
                Freshness::Day => "pd",
                Freshness::Week => "pw",
                Freshness::Month => "pm",
                Freshness::Year => "py",
            };
            p.push(("tf", tf.into()));
        }
        let mut cookies = vec!["useLocation=0".to_owned(), "summarizer=0".to_owned()];
        if let Some(s) = f.safesearch {
            cookies.push(format!("safesearch={}", s.word()));
        }
        if let Some(r) = &f.region {
            cookies.push(format!("country={}", r.to_lowercase()));
        }
        if let Some(l) = &f.language {
            cookies.push(format!("ui_lang={}", l.to_lowercase()));
        }
        EngineRequest::get(endpoint_with(ctx.base, "/search", &p))
            .header("Cookie", cookies.join("; "))
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
    fn browser_like(&self) -> bool {
        true
    }
}

/// Parse a Brave results page. Prefers the structural `[data-type=web]` item (ddgs, hd)
/// and falls back to sxng's multi-class `div.snippet`.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let doc = document(body);
    let by_type = sel("div[data-type=web]");
    let by_class = sel("div.snippet");
    let link_sel = sel("a[href]");
    let title_sel = sel(".title, .snippet-title, .sitename-container");
    let snip_sel = sel(".snippet-description, .content, .generic-snippet");
    let mut items: Vec<_> = doc.select(&by_type).collect();
    if items.is_empty() {
        items = doc.select(&by_class).collect();
    }
    let mut out = Vec::new();
    for item in items {
        // Ads and partial results have no absolute host.
        let Some(link) = item.select(&link_sel).find(|a| {
            a.value()
                .attr("href")
                .is_some_and(|h| h.starts_with("http://") || h.starts_with("https://"))
        }) else {
            continue;
        };
        let url = link.value().attr("href").unwrap_or_default().to_owned();
        if url.contains("search.brave.com") {
            continue;
        }
        let mut title = first_text(item, &title_sel);
        if title.is_empty() {
            title = text_of(link);
        }
        let mut snippet = first_text(item, &snip_sel);
        // A date prefix ("3 days ago - ") is stripped into `published` like sxng does.
        let mut published = None;
        if let Some((date, rest)) = snippet.split_once(" - ")
            && date.len() < 25
            && date.chars().any(|c| c.is_ascii_digit())
        {
            published = Some(date.to_owned());
            snippet = rest.to_owned();
        }
        out.push(RawItem {
            url,
            title,
            snippet,
            published,
            ..RawItem::default()
        });
    }
    if out.is_empty() {
        empty_page(&doc, &["#search-elsewhere"], &["Not many great matches"])?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // No real Brave HTML page exists (ENGINES.md §8). Built from the documented shape:
    // `div[data-type=web]` holding `a[href] > div.title` and `div.snippet-description`.
    #[test]
    fn documented_markup_parses() {
        let body = br#"<html><body><div id="results">
          <div class="snippet svelte-1" data-type="web"><a href="https://example.com/a" class="h svelte-2">
            <div class="site-name">example.com</div><div class="title">Example A</div></a>
            <div class="snippet-description">3 days ago - The A page.</div></div>
          <div class="snippet svelte-1" data-type="web"><a href="/settings">x</a></div>
        </div></body></html>"#;
        let items = parse(body).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].url, "https://example.com/a");
        assert_eq!(items[0].title, "Example A");
        assert_eq!(items[0].snippet, "The A page.");
        assert_eq!(items[0].published.as_deref(), Some("3 days ago"));
    }
}
