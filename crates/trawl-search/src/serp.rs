//! The one result extractor the HTML engines share: an engine describes its results page
//! as selectors ([`HtmlLayout`]) and [`extract`] walks it, so a changed layout is a data
//! change and every HTML engine handles ads, wrappers, dates and empty pages alike.

use scraper::ElementRef;

use crate::engine::{ParseError, RawItem};
use crate::html::{
    absolute, clean_text, document, empty_page, first_text, sel, text_of, unwrap_href,
};

/// Where the parts of one result sit on an engine's results page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HtmlLayout {
    /// Result containers, tried in order: the first selector that matches anything wins
    /// (a structural selector first, a looser fallback after).
    pub items: &'static [&'static str],
    /// Link candidates inside an item, in order; the first with a usable href is the result.
    pub links: &'static [&'static str],
    /// Relative hrefs are resolved against this origin; `None` keeps absolute ones only.
    pub origin: Option<&'static str>,
    /// An attribute of the link preferred as the title (Yahoo's `aria-label`).
    pub title_attr: Option<&'static str>,
    /// Title selectors inside the item, in order; the link's own text is the last resort.
    pub titles: &'static [&'static str],
    /// Snippet selector inside the item.
    pub snippet: &'static str,
    /// Substrings of the unwrapped href that mark an ad or an engine-internal link.
    pub skip: &'static [&'static str],
    /// Whether a leading "3 days ago - " in the snippet is a date (Brave).
    pub dated_snippets: bool,
    /// Markers of a genuine "no results" page.
    pub no_results: &'static [&'static str],
    /// Phrases of a genuine "no results" page.
    pub no_results_phrases: &'static [&'static str],
}

impl HtmlLayout {
    /// A layout with `items` and `links`, nothing skipped, titles from the link.
    pub const fn new(items: &'static [&'static str], links: &'static [&'static str]) -> Self {
        Self {
            items,
            links,
            origin: None,
            title_attr: None,
            titles: &[],
            snippet: "p",
            skip: &[],
            dated_snippets: false,
            no_results: &[],
            no_results_phrases: &[],
        }
    }
}

/// The first link of `item` whose href resolves, with its resolved href.
fn first_link<'a>(item: ElementRef<'a>, layout: &HtmlLayout) -> Option<(ElementRef<'a>, String)> {
    layout.links.iter().find_map(|css| {
        item.select(&sel(css)).find_map(|a| {
            let href = a.value().attr("href")?.trim();
            let abs = match layout.origin {
                Some(origin) => absolute(href, origin)?,
                None if href.starts_with("http://") || href.starts_with("https://") => {
                    href.to_owned()
                }
                None => return None,
            };
            Some((a, abs))
        })
    })
}

/// Split a leading "3 days ago - " off a snippet.
fn split_date(snippet: String) -> (Option<String>, String) {
    match snippet.split_once(" - ") {
        Some((date, rest)) if date.len() < 25 && date.chars().any(|c| c.is_ascii_digit()) => {
            (Some(date.to_owned()), rest.to_owned())
        }
        _ => (None, snippet),
    }
}

/// Turn a results page into ranked items by `layout`. An empty page is a block (captcha
/// markers), a genuine "no results" (the layout's markers) or `Malformed`.
pub(crate) fn extract(body: &[u8], layout: &HtmlLayout) -> Result<Vec<RawItem>, ParseError> {
    let doc = document(body);
    let items: Vec<ElementRef<'_>> = layout
        .items
        .iter()
        .map(|css| doc.select(&sel(css)).collect::<Vec<_>>())
        .find(|found| !found.is_empty())
        .unwrap_or_default();
    let snippet_sel = sel(layout.snippet);
    let mut out = Vec::new();
    for item in items {
        let Some((link, href)) = first_link(item, layout) else {
            continue;
        };
        let url = unwrap_href(&href);
        if layout.skip.iter().any(|s| url.contains(s)) {
            continue;
        }
        let from_attr = layout
            .title_attr
            .and_then(|a| link.value().attr(a))
            .map(clean_text)
            .filter(|t| !t.is_empty());
        let title = from_attr
            .or_else(|| {
                layout
                    .titles
                    .iter()
                    .map(|css| first_text(item, &sel(css)))
                    .find(|t| !t.is_empty())
            })
            .unwrap_or_else(|| text_of(link));
        let snippet = first_text(item, &snippet_sel);
        let (published, snippet) = if layout.dated_snippets {
            split_date(snippet)
        } else {
            (None, snippet)
        };
        out.push(RawItem::new(url, title, snippet).dated(published));
    }
    if out.is_empty() {
        empty_page(&doc, layout.no_results, layout.no_results_phrases)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: HtmlLayout = HtmlLayout {
        origin: Some("https://engine.test"),
        titles: &["h3"],
        skip: &["/ad?"],
        dated_snippets: true,
        no_results: &["div.none"],
        ..HtmlLayout::new(&["li.r", "div.r"], &["a.main", "a"])
    };

    #[test]
    fn fallback_items_relative_links_ads_and_dates() {
        let body = br#"<html><body>
          <div class="r"><a href="/ad?x=1">Ad</a></div>
          <div class="r"><a class="main" href="/page"><h3>Title</h3></a><p>2 days ago - Text</p></div>
          <div class="r"><a href="javascript:void(0)">x</a><a href="https://o.test/b">B</a><p>No date - here</p></div>
        </body></html>"#;
        let items = extract(body, &LAYOUT).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].url, "https://engine.test/page");
        assert_eq!(items[0].title, "Title");
        assert_eq!(items[0].published.as_deref(), Some("2 days ago"));
        assert_eq!(items[0].snippet, "Text");
        assert_eq!(items[1].url, "https://o.test/b");
        assert_eq!(items[1].title, "B");
        assert_eq!(items[1].published, None);
    }

    #[test]
    fn empty_pages_are_told_apart() {
        let none = b"<html><body><div class=\"none\">nothing</div></body></html>";
        assert_eq!(extract(none, &LAYOUT).unwrap(), vec![]);
        let changed = b"<html><body><div class=\"new-layout\">x</div></body></html>";
        assert!(matches!(
            extract(changed, &LAYOUT),
            Err(ParseError::Malformed(_))
        ));
        let captcha = b"<html><body><div id=\"b_captcha\">x</div></body></html>";
        assert!(matches!(
            extract(captcha, &LAYOUT),
            Err(ParseError::Blocked(_))
        ));
    }
}
