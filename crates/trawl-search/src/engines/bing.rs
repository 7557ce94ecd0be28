//! Bing web (`www.bing.com/search`), HTML. Links may be wrapped as `ck/a?u=a1<base64url>`.

use super::prelude::*;
use crate::serp::{HtmlLayout, extract};

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let q = with_site(query, f);
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

/// Bing's results page: `li.b_algo > h2 > a`, links possibly `ck/a` wrapped.
const LAYOUT: HtmlLayout = HtmlLayout {
    origin: Some("https://www.bing.com"),
    snippet: ".b_caption p, p.b_lineclamp2, p.b_lineclamp3, p",
    skip: &["bing.com/aclick"],
    no_results: &["li.b_no"],
    no_results_phrases: &["There are no results for"],
    ..HtmlLayout::new(&["li.b_algo"], &["h2 a"])
};

/// Parse a Bing results page.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    extract(body, &LAYOUT)
}

/// bing, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "bing",
    group: "bing",
    filters: Capabilities::named("all"),
    key: KeyNeed::None,
    key_env: "",
    base: "https://www.bing.com",
    browser_like: true,
    confidence: "medium: only a 2020 page (before ck/a wrapping); selectors agreed by 4 sources",
    routes: Routes::named("all news"),
    fixtures: "tested on 1 real saved response (captured 2020-07-16)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
