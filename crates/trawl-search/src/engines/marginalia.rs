//! Marginalia (`api2.marginalia-search.com/search`), an independent index of the small,
//! non-commercial web. Keyed by `MARGINALIA_API_KEY`: the shared `public` key exists but
//! is throttled so hard that SearXNG refuses to use it, so it is not a default.

use serde::Deserialize;

use crate::engine::{
    Capabilities, Engine, EngineRequest, KeyNeed, ParseError, RawItem, RequestContext,
    endpoint_with, json_body,
};
use crate::types::{SafeSearch, SearchRequest};

/// The Marginalia engine.
#[derive(Debug, Default)]
pub struct Marginalia;

impl Engine for Marginalia {
    fn name(&self) -> &'static str {
        "marginalia"
    }
    fn group(&self) -> &'static str {
        "marginalia"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            safesearch: true,
            paging: true,
            ..Capabilities::default()
        }
    }
    fn key_need(&self) -> KeyNeed {
        KeyNeed::Required
    }
    fn key_env(&self) -> Option<&'static str> {
        Some("MARGINALIA_API_KEY")
    }
    fn default_base(&self) -> &'static str {
        "https://api2.marginalia-search.com"
    }
    fn confidence(&self) -> &'static str {
        "medium: no saved response; tested on a minimal response from the ApiSearchResult schema"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
        let nsfw = if f.safesearch == Some(SafeSearch::Off) {
            "1"
        } else {
            "0"
        };
        let p = [
            ("query", q),
            ("count", "10".to_owned()),
            ("page", f.page().to_string()),
            ("nsfw", nsfw.to_owned()),
        ];
        let mut r = EngineRequest::get(endpoint_with(ctx.base, "/search", &p));
        if let Some(k) = ctx.key {
            r = r.header("API-Key", k);
        }
        r
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
}

#[derive(Deserialize)]
struct Response {
    results: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    quality: Option<f64>,
}

/// Parse a search response.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    Ok(r.results
        .into_iter()
        .map(|i| RawItem {
            url: i.url,
            title: i.title,
            snippet: crate::html::clean_text(&i.description),
            extra: i.quality.map(|q| serde_json::json!({ "quality": q })),
            ..RawItem::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // No saved Marginalia response exists (ENGINES.md §8): ApiSearchResult shape.
    #[test]
    fn documented_shape_parses() {
        let body = br#"{"license":"CC-BY-NC-SA 4.0","query":"x","results":[
          {"url":"https://m.example/","title":"M","description":"small web","quality":-3.2,"format":"html5","details":[]}]}"#;
        let items = parse(body).unwrap();
        assert_eq!(items[0].url, "https://m.example/");
        assert_eq!(items[0].snippet, "small web");
    }
}
