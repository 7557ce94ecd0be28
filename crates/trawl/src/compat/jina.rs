//! `GET /r/{url}`: Jina Reader's form, and `GET /s/{query}`: Jina's search (see [`search`]). The answer is its text layout (`Title:`,
//! `URL Source:`, `Markdown Content:`), or JSON with `Accept: application/json`;
//! `X-Return-Format`, `X-Target-Selector`, `X-Remove-Selector`, `X-No-Cache` and
//! `X-Timeout` map to the scrape options; `X-Wait-For-Selector` and `X-Respond-With:
//! screenshot` (or `pageshot`, the whole page) read the page in the browser. Mounted under `/r/` and `/s/` so they can never shadow
//! `/mcp`, `/healthz` or `/metrics`.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::Response;
use futures_util::StreamExt;
use serde_json::json;
use trawl_agent::tools::WebSearchArgs;

use super::error::CompatError;
use super::error::json_ok;
use super::scrape::scrape;
use super::state::Compat;
use super::types::{FormatSpec, ScrapeOptions};

fn text_header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn selectors(value: Option<String>) -> Option<Vec<String>> {
    value.map(|v| {
        v.split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    })
}

/// The target URL: everything after `/r/`, the query string included (it belongs to the
/// target, not to this server).
fn target(uri: &Uri) -> Result<String, CompatError> {
    let path = uri.path().strip_prefix("/r/").unwrap_or("");
    let mut url = match uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_owned(),
    };
    // A target written percent-encoded (`/r/https%3A%2F%2Fexample.org%2Fa`), as URL
    // builders write a path segment, is decoded once.
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("http%3a") || lower.starts_with("https%3a") {
        url = percent_encoding::percent_decode_str(&url)
            .decode_utf8()
            .map_err(|_| CompatError::bad_request("the encoded URL after /r/ is not UTF-8"))?
            .into_owned();
    }
    // Some clients and proxies fold `https://` to `https:/`.
    for scheme in ["https:/", "http:/"] {
        if url.starts_with(scheme) && !url.starts_with(&format!("{scheme}/")) {
            url = format!("{scheme}/{}", &url[scheme.len()..]);
        }
    }
    if url.is_empty() {
        return Err(CompatError::bad_request("give the URL to read after /r/"));
    }
    if !url.contains("://") {
        url = format!("https://{url}");
    }
    Ok(url)
}

pub async fn read(State(compat): State<Compat>, headers: HeaderMap, uri: Uri) -> Response {
    let answer = match target(&uri) {
        Ok(url) => read_url(compat, url, &headers).await,
        Err(e) => Err(e),
    };
    answer.unwrap_or_else(|e| refusal(&headers, e))
}

/// `POST /r/` with `{"url": …}`: the form Jina documents for URLs that do not fit a path
/// (and for clients that send options as headers beside a JSON body).
pub async fn read_posted(
    State(compat): State<Compat>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    #[derive(serde::Deserialize)]
    struct Posted {
        url: String,
    }
    let answer = match super::request::body::<Posted>(&body) {
        Ok(posted) if !posted.url.trim().is_empty() => {
            read_url(compat, posted.url.trim().to_owned(), &headers).await
        }
        Ok(_) => Err(CompatError::bad_request("url: give the URL to read")),
        Err(e) => Err(e),
    };
    answer.unwrap_or_else(|e| refusal(&headers, e))
}

/// An error as the client reads answers: JSON to `Accept: application/json`, else a line
/// of text with the same status (a text client never gets JSON it did not ask for).
fn refusal(headers: &HeaderMap, e: CompatError) -> Response {
    let wants_json = text_header(headers, "accept").is_some_and(|a| a.contains("application/json"));
    if wants_json {
        return axum::response::IntoResponse::into_response(e);
    }
    let mut response = plain_text(format!(
        "Error: {}
",
        e.message
    ));
    *response.status_mut() = e.status;
    response
}

/// Headers of Jina's that would change the answer and that trawl cannot honour: refused
/// by name, never ignored.
const REFUSED_HEADERS: [(&str, &str); 4] = [
    ("x-with-images-summary", "trawl keeps no image list"),
    (
        "x-set-cookie",
        "cookies come from trawl's own --cookies file",
    ),
    ("x-proxy-url", "the proxy is the server's (TRAWL_PROXY)"),
    (
        "x-engine",
        "trawl picks its fetch tier itself; only `direct` is read",
    ),
];

async fn read_url(
    compat: Compat,
    url: String,
    headers: &HeaderMap,
) -> Result<Response, CompatError> {
    let headers = headers.clone();
    for (name, why) in REFUSED_HEADERS {
        let asked = text_header(&headers, name).map(|v| v.to_ascii_lowercase());
        // `X-Engine: direct` is what trawl does anyway.
        if asked.is_some_and(|v| v != "false" && !(name == "x-engine" && v == "direct")) {
            return Err(CompatError::unsupported(format!(
                "the {name} header ({why})"
            )));
        }
    }
    let links_summary = text_header(&headers, "x-with-links-summary").is_some_and(|v| v != "false");
    let format = text_header(&headers, "x-return-format").unwrap_or_else(|| "markdown".into());
    let (want_html, want_text) = match format.to_ascii_lowercase().as_str() {
        "markdown" | "default" => (false, false),
        "html" => (true, false),
        "text" => (false, true),
        other => {
            return Err(CompatError::unsupported(format!(
                "X-Return-Format: {other} (trawl returns markdown, html or text)"
            )));
        }
    };
    let timeout = match text_header(&headers, "x-timeout") {
        Some(t) => Some(
            t.parse::<u64>()
                .map_err(|_| CompatError::bad_request("X-Timeout: whole seconds"))?
                .saturating_mul(1000),
        ),
        None => None,
    };
    // A screenshot answers the image itself to a text client, and a `data:` URL in JSON.
    let shot = match text_header(&headers, "x-respond-with").as_deref() {
        None | Some("markdown" | "default") => None,
        Some("screenshot") => Some("screenshot"),
        Some("pageshot") => Some("screenshot@fullPage"),
        Some(other) => {
            return Err(CompatError::unsupported(format!(
                "X-Respond-With: {other} on /r/ (trawl answers markdown, screenshot or pageshot)"
            )));
        }
    };
    let mut formats = vec![FormatSpec::Name(
        if want_html { "html" } else { "markdown" }.into(),
    )];
    if let Some(shot) = shot {
        formats.push(FormatSpec::Name(shot.into()));
    }
    if links_summary {
        formats.push(FormatSpec::Name("links".into()));
    }
    let actions = text_header(&headers, "x-wait-for-selector").map(|selector| {
        vec![
            trawl_fetch::browse::Action::Wait(trawl_fetch::browse::WaitFor::Selector(selector))
                .to_json(),
        ]
    });
    let options = ScrapeOptions {
        formats: Some(formats),
        actions,
        include_tags: selectors(text_header(&headers, "x-target-selector")),
        exclude_tags: selectors(text_header(&headers, "x-remove-selector")),
        max_age: text_header(&headers, "x-no-cache")
            .filter(|v| v != "false")
            .map(|_| 0),
        timeout,
        ..ScrapeOptions::default()
    };
    let agent = compat.agent.clone();
    let doc = compat.gated(scrape(&agent, &url, &options)).await?;
    let content = if want_html {
        doc.html.clone()
    } else if want_text {
        doc.markdown.as_deref().map(markdown_text)
    } else {
        doc.markdown.clone()
    }
    .unwrap_or_default();
    let title = doc.metadata.title.clone().unwrap_or_default();
    let wants_json =
        text_header(&headers, "accept").is_some_and(|a| a.contains("application/json"));
    if let (Some(shot), Some(data_url)) = (shot, &doc.screenshot) {
        if wants_json {
            let key = if shot == "screenshot" {
                "screenshotUrl"
            } else {
                "pageshotUrl"
            };
            return Ok(json_ok(json!({
                "code": 200,
                "status": 20000,
                "data": {"title": title, "url": doc.metadata.url, key: data_url}
            })));
        }
        return png_response(data_url);
    }
    // A target that answered an error status is still read, with a warning, as Jina does.
    let warning = (doc.metadata.status_code >= 400)
        .then(|| format!("Target URL returned error {}", doc.metadata.status_code));
    let links = doc.links.clone().unwrap_or_default();
    if wants_json {
        let mut data = json!({
            "title": title,
            "description": doc.metadata.description.clone().unwrap_or_default(),
            "url": doc.metadata.url,
            "content": content,
            "publishedTime": doc.metadata.published_time,
        });
        if let Some(warning) = &warning {
            data["warning"] = json!(warning);
        }
        if links_summary {
            data["links"] = json!(links);
        }
        return Ok(json_ok(json!({"code": 200, "status": 20000, "data": data})));
    }
    let mut text = format!("Title: {title}\n\nURL Source: {}\n\n", doc.metadata.url);
    if let Some(published) = &doc.metadata.published_time {
        text.push_str(&format!("Published Time: {published}\n\n"));
    }
    if let Some(warning) = &warning {
        text.push_str(&format!("Warning: {warning}\n\n"));
    }
    text.push_str(if want_html {
        "HTML Content:\n"
    } else if want_text {
        "Text Content:\n"
    } else {
        "Markdown Content:\n"
    });
    text.push_str(&content);
    if links_summary && !links.is_empty() {
        text.push_str("\n\nLinks/Buttons:\n");
        for link in &links {
            text.push_str(&format!("- <{link}>\n"));
        }
    }
    Ok(plain_text(text))
}

/// The words of Markdown without its marks: paragraphs, headings, list items and table
/// cells on lines of their own, links as their text.
fn markdown_text(markdown: &str) -> String {
    use pulldown_cmark::{Event, Parser, TagEnd};
    let mut out = String::new();
    for event in Parser::new_ext(markdown, pulldown_cmark::Options::ENABLE_TABLES) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push('\n'),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableRow
                | TagEnd::TableHead,
            ) => out.push('\n'),
            Event::End(TagEnd::TableCell) => out.push('\t'),
            _ => {}
        }
    }
    out
}

/// How many results `/s/` answers unless `?count=` says otherwise (Jina's default).
const SEARCH_COUNT: u32 = 5;

/// `GET /s/{query}`: web results from trawl's engines in Jina's search layout, each hit
/// read as `/r/` reads a page (`X-Respond-With: no-content` leaves the reads out). A hit
/// that cannot be read keeps its title and description, with an empty content.
pub async fn search(
    State(compat): State<Compat>,
    Path(query): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, CompatError> {
    search_for(compat, query, headers, uri).await
}

/// `GET /s/?q=…`: the form Jina's current documentation gives, the query as a parameter.
pub async fn search_by_parameter(
    State(compat): State<Compat>,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, CompatError> {
    let query = uri
        .query()
        .into_iter()
        .flat_map(|q| url::form_urlencoded::parse(q.as_bytes()))
        .find_map(|(k, v)| (k == "q").then(|| v.into_owned()))
        .unwrap_or_default();
    search_for(compat, query, headers, uri).await
}

async fn search_for(
    compat: Compat,
    query: String,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, CompatError> {
    let query = query.trim().to_owned();
    if query.is_empty() {
        return Err(CompatError::bad_request(
            "give the query after /s/ or as ?q=",
        ));
    }
    let count = match uri
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|kv| kv.strip_prefix("count="))
    {
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=20).contains(n))
            .ok_or_else(|| CompatError::bad_request("count: 1-20"))?,
        None => SEARCH_COUNT,
    };
    let read = text_header(&headers, "x-respond-with").is_none_or(|v| v != "no-content");
    let agent = compat.agent.clone();
    let work = async move {
        let hits = agent
            .web_search(WebSearchArgs {
                query,
                max_results: Some(count),
                ..WebSearchArgs::default()
            })
            .await?
            .hits;
        let options = ScrapeOptions::default();
        let results: Vec<SearchResult> = futures_util::stream::iter(hits)
            .map(|hit| {
                let (agent, options) = (agent.clone(), options.clone());
                async move {
                    let content = if read {
                        scrape(&agent, &hit.url, &options)
                            .await
                            .ok()
                            .and_then(|doc| doc.markdown)
                    } else {
                        None
                    };
                    SearchResult {
                        title: hit.title,
                        url: hit.url,
                        description: hit.snippet,
                        content,
                    }
                }
            })
            .buffered(SEARCH_COUNT as usize)
            .collect()
            .await;
        Ok::<_, CompatError>(results)
    };
    let results = compat.gated(work).await?;
    if text_header(&headers, "accept").is_some_and(|a| a.contains("application/json")) {
        return Ok(json_ok(
            json!({"code": 200, "status": 20000, "data": results}),
        ));
    }
    let mut text = String::new();
    for (i, r) in results.iter().enumerate() {
        let n = i + 1;
        text.push_str(&format!(
            "[{n}] Title: {}\n[{n}] URL Source: {}\n[{n}] Description: {}\n",
            r.title, r.url, r.description
        ));
        if let Some(content) = &r.content {
            text.push_str(&format!("[{n}] Markdown Content:\n{content}\n"));
        }
        text.push('\n');
    }
    Ok(plain_text(text))
}

/// One result of `/s/`, named as Jina names its fields.
#[derive(Debug, serde::Serialize)]
struct SearchResult {
    title: String,
    url: String,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
}

/// The PNG of a `data:image/png;base64,…` URL as the response body.
fn png_response(data_url: &str) -> Result<Response, CompatError> {
    use base64::Engine as _;
    let encoded = data_url
        .strip_prefix("data:image/png;base64,")
        .ok_or_else(|| {
            CompatError::from(trawl_core::TrawlError::internal(
                "a screenshot without its PNG",
            ))
        })?;
    let png = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| {
            CompatError::from(trawl_core::TrawlError::internal(format!("screenshot: {e}")))
        })?;
    let mut response = Response::new(Body::from(png));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    Ok(response)
}

fn plain_text(text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_keeps_its_query_and_scheme() {
        let uri: Uri = "/r/https://example.org/a?b=1&c=2".parse().unwrap();
        assert_eq!(target(&uri).unwrap(), "https://example.org/a?b=1&c=2");
        let uri: Uri = "/r/https:/example.org/".parse().unwrap();
        assert_eq!(target(&uri).unwrap(), "https://example.org/");
        let uri: Uri = "/r/example.org".parse().unwrap();
        assert_eq!(target(&uri).unwrap(), "https://example.org");
        let uri: Uri = "/r/https%3A%2F%2Fexample.org%2Fa%3Fb%3D1".parse().unwrap();
        assert_eq!(target(&uri).unwrap(), "https://example.org/a?b=1");
    }

    #[test]
    fn text_is_the_markdown_without_its_marks() {
        let text = markdown_text(
            "# Seals\n\nThey *rest* on [sandbanks](https://x.org).\n\n- one\n- two\n",
        );
        assert_eq!(text, "Seals\nThey rest on sandbanks.\none\ntwo\n");
    }
}
