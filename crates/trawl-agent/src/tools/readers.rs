//! Hosted fallback readers: asked, in order, when the local read is blocked, failed or too
//! thin. They are opt-in (the settings list the ones the user named or keyed), and a URL
//! reaches one only when [`Disclosure`] allows it: never a URL of an allow-listed, private,
//! internal or unresolvable host, and never one carrying credentials-like query parameters
//! unless the user opted that reader in. Each reader is one request and one pure parse, so
//! a fake server on loopback tests it fully.

use std::time::Duration;

use serde_json::{Value, json};
use trawl_core::{ErrorCode, FetchedVia, Scrubber, TrawlError, credential_params, vars};
use trawl_fetch::Fetcher;
use url::Url;

/// One hosted reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderKind {
    /// Jina's reader (`r.jina.ai`); keyless, a key raises its limits.
    Jina,
    /// Tavily's extract API; needs `TAVILY_API_KEY`.
    Tavily,
    /// Firecrawl's scrape API; needs `FIRECRAWL_API_KEY`.
    Firecrawl,
    /// Exa's contents API; needs `EXA_API_KEY`.
    Exa,
}

impl ReaderKind {
    /// Every reader, in the default fallback order.
    pub const ALL: [ReaderKind; 4] = [
        ReaderKind::Jina,
        ReaderKind::Tavily,
        ReaderKind::Firecrawl,
        ReaderKind::Exa,
    ];

    /// The reader's name in `TRAWL_READERS`, the config file and `attempts`.
    pub fn name(self) -> &'static str {
        match self {
            ReaderKind::Jina => "jina",
            ReaderKind::Tavily => "tavily",
            ReaderKind::Firecrawl => "firecrawl",
            ReaderKind::Exa => "exa",
        }
    }

    /// The reader named `s` (surrounding spaces ignored), if there is one.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s.trim())
    }

    /// The base URL used when no override is set.
    pub fn default_base(self) -> &'static str {
        match self {
            ReaderKind::Jina => "https://r.jina.ai/",
            ReaderKind::Tavily => "https://api.tavily.com/",
            ReaderKind::Firecrawl => "https://api.firecrawl.dev/",
            ReaderKind::Exa => "https://api.exa.ai/",
        }
    }

    /// The environment variable holding its key(s), comma-separated.
    pub fn key_var(self) -> &'static str {
        match self {
            ReaderKind::Jina => vars::JINA_API_KEY,
            ReaderKind::Tavily => vars::TAVILY_API_KEY,
            ReaderKind::Firecrawl => vars::FIRECRAWL_API_KEY,
            ReaderKind::Exa => vars::EXA_API_KEY,
        }
    }

    /// `TRAWL_READER_<NAME>_URL` overrides the base (tests, self-hosted mirrors).
    pub fn url_var(self) -> String {
        trawl_core::vars::reader_url(self.name())
    }

    /// Whether it can only be asked with a key.
    pub fn needs_key(self) -> bool {
        !matches!(self, ReaderKind::Jina)
    }

    /// How a document it produced records its source.
    pub fn fetched_via(self) -> FetchedVia {
        match self {
            ReaderKind::Jina => FetchedVia::Jina,
            ReaderKind::Tavily => FetchedVia::Tavily,
            ReaderKind::Firecrawl => FetchedVia::Firecrawl,
            ReaderKind::Exa => FetchedVia::Exa,
        }
    }
}

/// A configured reader: where it lives, its keys, and whether the user lets it see URLs
/// with credentials-like query parameters.
#[derive(Clone)]
pub struct ReaderConfig {
    /// Which reader this is.
    pub kind: ReaderKind,
    /// Its base URL (the default or an override).
    pub base: Url,
    /// Its keys, tried in order; empty for a keyless reader.
    pub keys: Vec<String>,
    /// Whether URLs with credentials-like query parameters (`api_key=`, `token=`) may be
    /// sent to it; off unless the user opted this reader in.
    pub share_query_secrets: bool,
}

impl ReaderConfig {
    /// A reader at `base` with `keys`, not trusted with query secrets.
    pub fn new(kind: ReaderKind, base: Url, keys: Vec<String>) -> Self {
        ReaderConfig {
            kind,
            base,
            keys,
            share_query_secrets: false,
        }
    }
}

/// What may be told to a hosted reader about one URL, judged once per read.
#[derive(Debug, Clone)]
pub struct Disclosure {
    /// Why the host must not be named to anyone, if it must not.
    host: Option<String>,
    credential_params: Vec<String>,
}

impl Disclosure {
    /// Judge `url` for `readers` (no DNS when there is no reader to ask).
    pub async fn assess(fetcher: &Fetcher, url: &Url, readers: &[ReaderConfig]) -> Self {
        if readers.is_empty() {
            return Disclosure {
                host: Some("no reader".to_owned()),
                credential_params: Vec::new(),
            };
        }
        // Behind a proxy names are the proxy's to resolve: no lookup of our own.
        let resolve = fetcher.config().proxy.is_none();
        Disclosure {
            host: fetcher.guard().check_shareable(url, resolve).await.err(),
            credential_params: credential_params(url),
        }
    }

    /// Why `reader` must not be sent the URL, if it must not.
    pub fn refusal(&self, reader: &ReaderConfig) -> Option<String> {
        if let Some(why) = &self.host {
            return Some(format!("not sent to a hosted reader: {why}"));
        }
        if !self.credential_params.is_empty() && !reader.share_query_secrets {
            return Some(format!(
                "not sent: the URL carries credentials-like query parameters ({}); \
                 readers_query_secrets = [\"{}\"] allows it",
                self.credential_params.join(", "),
                reader.kind.name()
            ));
        }
        None
    }
}

impl std::fmt::Debug for ReaderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReaderConfig")
            .field("kind", &self.kind)
            .field("base", &self.base.as_str())
            .field("keys", &format_args!("{} key(s)", self.keys.len()))
            .finish()
    }
}

impl ReaderConfig {
    /// Usable when it needs no key or has one.
    pub fn usable(&self) -> bool {
        !self.kind.needs_key() || !self.keys.is_empty()
    }
}

/// What a reader returned.
#[derive(Debug, Clone, PartialEq)]
pub struct ReaderPage {
    /// The page's title, when the reader gave one.
    pub title: Option<String>,
    /// The page's content as Markdown.
    pub markdown: String,
    /// The URL the reader ended up reading, when it says.
    pub final_url: Option<String>,
}

/// Ask one reader for `url`, trying its keys in order until one is accepted.
pub async fn read_with(
    client: &reqwest::Client,
    reader: &ReaderConfig,
    url: &Url,
    timeout: Duration,
) -> Result<ReaderPage, TrawlError> {
    let keys: Vec<Option<&str>> = if reader.keys.is_empty() {
        vec![None]
    } else {
        reader.keys.iter().map(|k| Some(k.as_str())).collect()
    };
    let mut last = TrawlError::new(ErrorCode::Upstream, "no key tried");
    for key in keys {
        match read_once(client, reader, url, key, timeout).await {
            Ok(page) => return Ok(page),
            // A key that is out of credit, throttled or refused: the next key may work.
            Err(e) if matches!(e.code, ErrorCode::RateLimited | ErrorCode::Blocked) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

async fn read_once(
    client: &reqwest::Client,
    reader: &ReaderConfig,
    url: &Url,
    key: Option<&str>,
    timeout: Duration,
) -> Result<ReaderPage, TrawlError> {
    let name = reader.kind.name();
    let request = match reader.kind {
        ReaderKind::Jina => {
            // The reader takes the target URL as its path.
            let endpoint = format!("{}{}", ensure_slash(&reader.base), url);
            let mut r = client
                .get(endpoint)
                .header("Accept", "application/json")
                .header("X-Return-Format", "markdown");
            if let Some(k) = key {
                r = r.bearer_auth(k);
            }
            r
        }
        ReaderKind::Tavily => client
            .post(join(&reader.base, "extract"))
            .bearer_auth(key.unwrap_or_default())
            .json(&json!({ "urls": [url.as_str()], "format": "markdown" })),
        ReaderKind::Firecrawl => client
            .post(join(&reader.base, "v2/scrape"))
            .bearer_auth(key.unwrap_or_default())
            .json(
                &json!({ "url": url.as_str(), "formats": ["markdown"], "onlyMainContent": true }),
            ),
        ReaderKind::Exa => client
            .post(join(&reader.base, "contents"))
            .header("x-api-key", key.unwrap_or_default())
            .json(&json!({ "urls": [url.as_str()], "text": true })),
    };
    let response = request
        .timeout(timeout)
        .send()
        .await
        .map_err(|e| reader_error(name, &e, key))?;
    let status = response.status().as_u16();
    let body = response
        .bytes()
        .await
        .map_err(|e| reader_error(name, &e, key))?;
    if !(200..300).contains(&status) {
        let text = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        let code = match status {
            429 => ErrorCode::RateLimited,
            // Out of credits, or the key was refused: move on to the next key or reader.
            401..=403 => ErrorCode::Blocked,
            404 => ErrorCode::NotFound,
            _ => ErrorCode::Upstream,
        };
        return Err(TrawlError::new(
            code,
            scrub(
                &format!("{name} reader answered HTTP {status}: {text}"),
                key,
            ),
        ));
    }
    parse(reader.kind, &body).map_err(|e| TrawlError::new(e.code, scrub(&e.message, key)))
}

fn ensure_slash(base: &Url) -> String {
    let s = base.as_str();
    if s.ends_with('/') {
        s.to_owned()
    } else {
        format!("{s}/")
    }
}

fn join(base: &Url, path: &str) -> String {
    format!("{}{path}", ensure_slash(base))
}

/// Providers sometimes echo the key back in an error; never let it through.
fn scrub(message: &str, key: Option<&str>) -> String {
    trawl_core::scrub(message, key)
}

/// A request that got no answer: reqwest's message, and what caused it (a refused
/// connection, a DNS failure) kept as causes; the key scrubbed from both.
fn reader_error(name: &str, e: &reqwest::Error, key: Option<&str>) -> TrawlError {
    let code = if e.is_timeout() {
        ErrorCode::Timeout
    } else {
        ErrorCode::Upstream
    };
    TrawlError::new(code, format!("{name} reader: {e}"))
        .with_causes_of(e)
        .scrubbed(&Scrubber::new(key))
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str().filter(|s| !s.trim().is_empty())
}

/// Parse a reader's answer. Pure, so it is tested on saved and documented responses.
pub fn parse(kind: ReaderKind, body: &[u8]) -> Result<ReaderPage, TrawlError> {
    let bad = |what: &str| {
        TrawlError::new(
            ErrorCode::Upstream,
            format!("{} reader: {what}", kind.name()),
        )
    };
    let v: Value = serde_json::from_slice(body).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let page = match kind {
        // {code, status, data: {title, url, content}}
        ReaderKind::Jina => ReaderPage {
            title: str_at(&v, &["data", "title"]).map(str::to_owned),
            markdown: str_at(&v, &["data", "content"])
                .ok_or_else(|| bad("no data.content"))?
                .to_owned(),
            final_url: str_at(&v, &["data", "url"]).map(str::to_owned),
        },
        // {results: [{url, raw_content}], failed_results: [...]}
        ReaderKind::Tavily => {
            let first = v
                .get("results")
                .and_then(|r| r.get(0))
                .ok_or_else(|| bad("no results (the page could not be extracted)"))?;
            ReaderPage {
                title: str_at(first, &["title"]).map(str::to_owned),
                markdown: str_at(first, &["raw_content"])
                    .ok_or_else(|| bad("no raw_content"))?
                    .to_owned(),
                final_url: str_at(first, &["url"]).map(str::to_owned),
            }
        }
        // {success, data: {markdown, metadata: {title, sourceURL, url}}}
        ReaderKind::Firecrawl => {
            if v.get("success").and_then(Value::as_bool) == Some(false) {
                return Err(bad(str_at(&v, &["error"]).unwrap_or("success: false")));
            }
            ReaderPage {
                title: str_at(&v, &["data", "metadata", "title"]).map(str::to_owned),
                markdown: str_at(&v, &["data", "markdown"])
                    .ok_or_else(|| bad("no data.markdown"))?
                    .to_owned(),
                final_url: str_at(&v, &["data", "metadata", "url"])
                    .or_else(|| str_at(&v, &["data", "metadata", "sourceURL"]))
                    .map(str::to_owned),
            }
        }
        // {results: [{url, title, text}]}
        ReaderKind::Exa => {
            let first = v
                .get("results")
                .and_then(|r| r.get(0))
                .ok_or_else(|| bad("no results"))?;
            ReaderPage {
                title: str_at(first, &["title"]).map(str::to_owned),
                markdown: str_at(first, &["text"])
                    .ok_or_else(|| bad("no text"))?
                    .to_owned(),
                final_url: str_at(first, &["url"]).map(str::to_owned),
            }
        }
    };
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_saved_firecrawl_scrape() {
        // A real v2/scrape response (see ../shared/fixtures/serp/PROVENANCE.md).
        let body = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/fixtures/serp/firecrawl/v2-scrape.json"
        ))
        .unwrap();
        let page = parse(ReaderKind::Firecrawl, &body).unwrap();
        assert!(page.markdown.len() > 100, "{}", page.markdown);
        assert!(page.title.is_some());
    }

    #[test]
    fn parses_the_documented_shapes() {
        // No recent real responses exist for these three; built from the documented shape.
        let jina = br##"{"code":200,"status":20000,"data":{"title":"T","url":"https://e.com/","content":"# Hello\n\nbody"}}"##;
        assert_eq!(
            parse(ReaderKind::Jina, jina).unwrap().markdown,
            "# Hello\n\nbody"
        );
        let tavily = br#"{"results":[{"url":"https://e.com/","raw_content":"text here"}],"failed_results":[]}"#;
        assert_eq!(
            parse(ReaderKind::Tavily, tavily).unwrap().markdown,
            "text here"
        );
        let exa = br#"{"results":[{"url":"https://e.com/","title":"E","text":"exa text"}]}"#;
        assert_eq!(
            parse(ReaderKind::Exa, exa).unwrap().title.as_deref(),
            Some("E")
        );
        assert!(
            parse(
                ReaderKind::Tavily,
                br#"{"results":[],"failed_results":[{"url":"x"}]}"#
            )
            .is_err()
        );
        assert!(parse(ReaderKind::Jina, b"<html>").is_err());
    }

    #[test]
    fn scrubs_echoed_keys() {
        assert_eq!(
            scrub("bad key sk-12345 given", Some("sk-12345")),
            "bad key **** given"
        );
    }
}
