//! Firecrawl v2 search (`POST api.firecrawl.dev/v2/search`), keyed by `FIRECRAWL_API_KEY`.

use serde::Deserialize;

use crate::engine::{
    Body, Capabilities, Engine, EngineRequest, KeyNeed, ParseError, RawItem, RequestContext,
    endpoint, json_body,
};
use crate::types::SearchRequest;

/// The Firecrawl search engine.
#[derive(Debug, Default)]
pub struct Firecrawl;

impl Engine for Firecrawl {
    fn name(&self) -> &'static str {
        "firecrawl"
    }
    fn group(&self) -> &'static str {
        "firecrawl"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            site: true,
            freshness: true,
            language: false,
            region: true,
            safesearch: false,
            paging: false,
        }
    }
    fn key_need(&self) -> KeyNeed {
        KeyNeed::Required
    }
    fn key_env(&self) -> Option<&'static str> {
        Some("FIRECRAWL_API_KEY")
    }
    fn default_base(&self) -> &'static str {
        "https://api.firecrawl.dev"
    }
    fn confidence(&self) -> &'static str {
        "high: real v2 search and scrape responses 2025-10"
    }
    fn request(&self, query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
        let f = &req.filters;
        let q = match &f.site {
            Some(site) => format!("{query} site:{site}"),
            None => query.to_owned(),
        };
        // No scrapeOptions: a search here wants the result list, not every page's content
        // (which costs credits and time).
        let mut body = serde_json::json!({ "query": q, "limit": 10 });
        if let Some(fr) = f.freshness {
            body["tbs"] = format!("qdr:{}", fr.letter()).into();
        }
        if let Some(r) = &f.region {
            body["country"] = r.to_uppercase().into();
        }
        let mut r = EngineRequest::post(endpoint(ctx.base, "/v2/search"), Body::Json(body));
        if let Some(k) = ctx.key {
            r = r.header("Authorization", format!("Bearer {k}"));
        }
        r
    }
    fn parse(&self, body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
        parse(body)
    }
}

#[derive(Deserialize)]
struct Response {
    success: Option<bool>,
    data: Option<serde_json::Value>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

/// Parse a v2 `/search` response (`data.web[]`; v1's flat `data[]` is accepted too).
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if r.success == Some(false) {
        let msg = r.error.unwrap_or_else(|| "success: false".into());
        let lower = msg.to_lowercase();
        return Err(if lower.contains("credits") {
            ParseError::Quota(msg)
        } else if lower.contains("rate limit") {
            ParseError::RateLimited(msg)
        } else if lower.contains("unauthorized") || lower.contains("api key") {
            ParseError::Auth(msg)
        } else {
            ParseError::Malformed(msg)
        });
    }
    let data = r
        .data
        .ok_or_else(|| ParseError::Malformed("no `data`".into()))?;
    let list = match &data {
        serde_json::Value::Array(_) => data.clone(),
        serde_json::Value::Object(o) => match o.get("web") {
            Some(w) => w.clone(),
            None if o.contains_key("markdown") => {
                return Err(ParseError::Malformed(
                    "a scrape response, not a search response".into(),
                ));
            }
            None => serde_json::Value::Array(Vec::new()),
        },
        _ => return Err(ParseError::Malformed("unexpected `data`".into())),
    };
    let items: Vec<Item> =
        serde_json::from_value(list).map_err(|e| ParseError::Malformed(e.to_string()))?;
    Ok(items
        .into_iter()
        .map(|i| RawItem {
            url: i.url,
            title: i.title.unwrap_or_default(),
            snippet: crate::html::clean_text(&i.description.unwrap_or_default()),
            ..RawItem::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/serp/firecrawl/"
    );

    fn read(n: &str) -> Vec<u8> {
        std::fs::read(format!("{DIR}{n}")).unwrap()
    }

    // 2025-10-29 real `/v2/search` (5 web results with markdown), with its request.
    #[test]
    fn v2_search() {
        let items = parse(&read("v2-search-firecrawl.json")).unwrap();
        assert_eq!(items.len(), 5);
        assert!(
            items
                .iter()
                .all(|i| i.url.starts_with("http") && !i.title.is_empty())
        );
        let recorded: serde_json::Value =
            serde_json::from_slice(&read("v2-search-firecrawl.request.json")).unwrap();
        let base = url::Url::parse("https://api.firecrawl.dev").unwrap();
        let ours = Firecrawl.request(
            "firecrawl",
            &SearchRequest::new("firecrawl"),
            &RequestContext {
                base: &base,
                key: None,
            },
        );
        assert_eq!(ours.url.as_str(), recorded["uri"].as_str().unwrap());
        let Some(Body::Json(b)) = ours.body else {
            panic!()
        };
        assert_eq!(b["query"], recorded["body"]["query"]);
    }

    // The scrape response (and its request) is the page-read shape; a search parser
    // must refuse it rather than invent results.
    #[test]
    fn v2_scrape_is_not_a_search() {
        assert!(matches!(
            parse(&read("v2-scrape.json")),
            Err(ParseError::Malformed(_))
        ));
        let req: serde_json::Value =
            serde_json::from_slice(&read("v2-scrape.request.json")).unwrap();
        assert!(req["uri"].as_str().unwrap().ends_with("/v2/scrape"));
    }

    #[test]
    fn no_credits() {
        let body = br#"{"success":false,"error":"Insufficient credits to perform this request."}"#;
        assert!(matches!(parse(body), Err(ParseError::Quota(_))));
    }
}
