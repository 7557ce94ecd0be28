//! Wikipedia full-text search through the MediaWiki Action API (`list=search`).

use serde::Deserialize;

use super::prelude::*;

/// The Wikipedia engine.
#[derive(Debug, Default)]
pub struct Wikipedia;

const DEFAULT_BASE: &str = "https://en.wikipedia.org";

/// The request for one query.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let mut base = ctx.base.clone();
    // The language picks the wiki, but only on the real host (an override stays as set).
    if let Some(lang) = &req.filters.language
        && ctx.base.as_str().trim_end_matches('/') == DEFAULT_BASE
        && lang.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
    {
        let _ = base.set_host(Some(&format!("{}.wikipedia.org", lang.to_lowercase())));
    }
    let offset = (req.filters.page() - 1) * 10;
    let p = [
        ("action", "query".to_owned()),
        ("list", "search".to_owned()),
        ("srsearch", query.to_owned()),
        ("srlimit", "10".to_owned()),
        ("sroffset", offset.to_string()),
        ("srprop", "snippet|timestamp|wordcount".to_owned()),
        ("format", "json".to_owned()),
        ("formatversion", "2".to_owned()),
        ("utf8", "1".to_owned()),
    ];
    EngineRequest::get(endpoint_with(&base, "/w/api.php", &p))
}

/// Parse an English Wikipedia answer (the table's parser; the engine parses per language).
fn parse_en(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    parse(body, "en")
}

impl Engine for Wikipedia {
    fn spec(&self) -> &'static EngineSpec {
        &SPEC
    }
    fn parse_for(&self, body: &[u8], req: &SearchRequest) -> Result<Vec<RawItem>, ParseError> {
        parse(body, req.filters.language.as_deref().unwrap_or("en"))
    }
}

#[derive(Deserialize)]
struct Response {
    query: Option<Query>,
    error: Option<ApiError>,
}

#[derive(Deserialize)]
struct ApiError {
    code: String,
    #[serde(default)]
    info: String,
}

#[derive(Deserialize)]
struct Query {
    #[serde(default)]
    search: Vec<Page>,
}

#[derive(Deserialize)]
struct Page {
    title: String,
    #[serde(default)]
    snippet: String,
    timestamp: Option<String>,
    wordcount: Option<u64>,
}

/// Parse an Action API `list=search` response; URLs point at the `lang` wiki.
pub fn parse(body: &[u8], lang: &str) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    if let Some(e) = r.error {
        if e.code == "ratelimited" || e.code == "maxlag" {
            return Err(ParseError::RateLimited(e.info));
        }
        return Err(ParseError::Malformed(format!(
            "api error {}: {}",
            e.code, e.info
        )));
    }
    let q = required(r.query, "query")?;
    Ok(q.search
        .into_iter()
        .map(|p| {
            let slug = p.title.replace(' ', "_");
            let path: String = percent_encoding::utf8_percent_encode(&slug, WIKI_TITLE).to_string();
            let url = format!("https://{lang}.wikipedia.org/wiki/{path}");
            RawItem::new(url, p.title, strip_tags(&p.snippet))
                .dated(p.timestamp)
                .with_extra(p.wordcount.map(|w| serde_json::json!({ "wordcount": w })))
        })
        .collect())
}

/// Characters escaped in a wiki page path (MediaWiki keeps `/`, `:`, `(`, `)` and `,`).
const WIKI_TITLE: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'{')
    .add(b'}')
    .add(b'|')
    .add(b'^')
    .add(b'`');

/// wikipedia, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "wikipedia",
    group: "wikipedia",
    filters: Capabilities::named("language paging"),
    key: KeyNeed::None,
    key_env: "",
    base: DEFAULT_BASE,
    browser_like: false,
    confidence: "high: stable documented API; no saved response, tested on a minimal response built from the MediaWiki API help",
    routes: Routes::named("web academic all"),
    fixtures: "not tested on a real saved response: built from documented markup or API docs",
    request,
    parse: parse_en,
};

#[cfg(test)]
mod tests;
