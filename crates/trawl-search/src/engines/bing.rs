//! Bing web (`www.bing.com/search`), HTML. Links may be wrapped as `ck/a?u=a1<base64url>`.

use crate::engine::{
    Capabilities, Engine, EngineRequest, ParseError, RawItem, RequestContext, endpoint_with,
};
use crate::html::{absolute, document, empty_page, first_attr, first_text, sel, unwrap_href};
use crate::types::SearchRequest;

/// The Bing HTML engine.
#[derive(Debug, Default)]
pub struct Bing;

impl Engine for Bing {
    fn name(&self) -> &'static str {
        "bing"
    }
    fn group(&self) -> &'static str {
        "bing"
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
        "https://www.bing.com"
    }
    fn confidence(&self) -> &'static str {
        "medium: only a 2020 page (before ck/a wrapping); selectors agreed by 4 sources"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
        let mut p = vec![("q", q)];
        if f.page() > 1 {
            p.push(("first", ((f.page() - 1) * 10 + 1).to_string()));
        }
        if let Some(s) = f.safesearch {
            p.push(("adlt", s.word().into()));
        }
        if let (Some(l), Some(r)) = (&f.language, &f.region) {
            p.push(("mkt", format!("{}-{}", l.to_lowercase(), r.to_uppercase())));
        } else if let Some(l) = &f.language {
            p.push(("setlang", l.to_lowercase()));
        } else if let Some(r) = &f.region {
            p.push(("cc", r.to_lowercase()));
        }
        if let Some(fr) = f.freshness {
            let ez = match fr {
                crate::types::Freshness::Day => "ex1:\"ez1\"".to_owned(),
                crate::types::Freshness::Week => "ex1:\"ez2\"".to_owned(),
                crate::types::Freshness::Month => "ex1:\"ez3\"".to_owned(),
                crate::types::Freshness::Year => {
                    let d = super::days_since_epoch();
                    format!("ex1:\"ez5_{}_{}\"", d - 365, d)
                }
            };
            p.push(("filters", ez));
        }
        EngineRequest::get(endpoint_with(ctx.base, "/search", &p))
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
    fn browser_like(&self) -> bool {
        true
    }
}

/// Parse a Bing results page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let doc = document(body);
    let item_sel = sel("li.b_algo");
    let link_sel = sel("h2 a");
    let snip_sel = sel(".b_caption p, p.b_lineclamp2, p.b_lineclamp3, p");
    let mut out = Vec::new();
    for item in doc.select(&item_sel) {
        let Some(href) = first_attr(item, &link_sel, "href") else {
            continue;
        };
        if href.contains("bing.com/aclick") {
            continue;
        }
        let Some(abs) = absolute(&href, "https://www.bing.com") else {
            continue;
        };
        out.push(RawItem {
            url: unwrap_href(&abs),
            title: first_text(item, &link_sel),
            snippet: first_text(item, &snip_sel),
            ..RawItem::default()
        });
    }
    if out.is_empty() {
        empty_page(&doc, &["li.b_no"], &["There are no results for"])?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2020-07-16 page (PROVENANCE.md): ten `li.b_algo`, direct hrefs.
    #[test]
    fn legacy_2020_page_gives_ten() {
        let body = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/fixtures/serp/bing/legacy-2020-bisoncorps-bing.html"
        ))
        .unwrap();
        let items = parse(&body).unwrap();
        assert_eq!(items.len(), 10);
        assert!(
            items
                .iter()
                .all(|i| i.url.starts_with("http") && !i.title.is_empty())
        );
        assert!(items.iter().filter(|i| !i.snippet.is_empty()).count() >= 8);
    }

    // No recent real page exists (ENGINES.md §8): built from the documented ck/a shape.
    #[test]
    fn ck_a_links_are_unwrapped_and_ads_dropped() {
        let body = br#"<html><body><ol id="b_results">
          <li class="b_algo"><h2><a href="https://www.bing.com/aclick?ld=x">Ad</a></h2></li>
          <li class="b_algo"><h2><a href="https://www.bing.com/ck/a?!&&p=1&u=a1aHR0cHM6Ly9leGFtcGxlLm9yZy9wYWdl&ntb=1">Example</a></h2>
            <div class="b_caption"><p class="b_lineclamp2">A snippet</p></div></li>
        </ol></body></html>"#;
        let items = parse(body).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].url, "https://example.org/page");
        assert_eq!(items[0].snippet, "A snippet");
    }

    #[test]
    fn captcha_is_blocked() {
        let body = br#"<html><body><div id="b_captcha">verify</div></body></html>"#;
        assert!(matches!(parse(body), Err(ParseError::Blocked(_))));
    }
}
