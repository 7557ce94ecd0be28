//! `POST /v2/scrape` and `/v1/scrape`: one page through trawl's read path.
//!
//! Markdown alone (the common case) is `web_fetch`'s read: the store, site memory and
//! fallback readers. `rawHtml`, `links`, `includeTags`/`excludeTags` and `waitFor` need
//! the page's own HTML, which the store does not keep: those read it again through the
//! agent's fetcher (the same guard and tiers) and extract it with trawl-extract.

use std::time::{Duration, SystemTime};

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use trawl_agent::tools::{Agent, FetchOut, PageOut, WebFetchArgs};
use trawl_core::{Document, ErrorCode, TrawlError};
use trawl_extract::{ExtractOptions, decode_html, extract};
use trawl_fetch::{Conditional, FetchedPage, KeptErrorPage, Tier};
use trawl_text::diff::ChangeStatus;

use super::error::CompatError;
use super::error::json_ok;
use super::request::body;
use super::state::Compat;
use super::types::{
    ChangeTracking, FcActions, FcChangeTracking, FcDiff, FcDocument, FcScrape, Formats, HeadFields,
    Metadata, ScrapeOptions, job_id,
};
use crate::output::titled;

/// The body of `/scrape`: the URL and the scrape options beside it.
#[derive(Debug, Deserialize)]
struct ScrapeRequest {
    url: String,
    #[serde(flatten)]
    options: ScrapeOptions,
}

pub async fn scrape_v2(
    State(compat): State<Compat>,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    scrape_route(compat, bytes).await
}

/// v1 takes the same body and answers the same shape for the formats trawl has.
pub async fn scrape_v1(
    State(compat): State<Compat>,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    scrape_route(compat, bytes).await
}

async fn scrape_route(compat: Compat, bytes: Bytes) -> Result<Response, CompatError> {
    let request: ScrapeRequest = body(&bytes)?;
    let agent = compat.agent.clone();
    let doc = compat
        .gated(scrape(&agent, &request.url, &request.options))
        .await?;
    Ok(json_ok(serde_json::json!({"success": true, "data": doc})))
}

/// Scrape one URL as `options` ask, within their `timeout`.
pub async fn scrape(
    agent: &Agent,
    url: &str,
    options: &ScrapeOptions,
) -> Result<FcDocument, CompatError> {
    let formats = options.check(&[])?;
    let work = scrape_unbounded(agent, url, options, formats);
    super::request::within(options.timeout, || format!("the scrape of {url}"), work).await
}

async fn scrape_unbounded(
    agent: &Agent,
    url: &str,
    options: &ScrapeOptions,
    formats: Formats,
) -> Result<FcDocument, CompatError> {
    let wait = options.wait_for.filter(|ms| *ms > 0);
    let actions = options.actions.clone().unwrap_or_default();
    if formats.screenshot.is_some() || !actions.is_empty() {
        if formats.change_tracking.is_some() {
            return Err(CompatError::unsupported(
                "changeTracking with screenshot or actions (it compares the stored copy; \
                 a browser read after actions is another page)",
            ));
        }
        return scrape_in_browser(agent, url, options, formats, wait, actions).await;
    }
    if let Some(tracking) = formats.change_tracking {
        if wait.is_some() || options.reshapes() || formats.need_raw() {
            return Err(CompatError::unsupported(
                "changeTracking with rawHtml, links, includeTags, excludeTags, \
                 onlyMainContent: false or waitFor (it compares the stored main content's \
                 Markdown)",
            ));
        }
        return scrape_tracked(agent, url, formats, tracking).await;
    }
    if wait.is_some() || options.reshapes() || formats.need_raw() {
        return scrape_html(agent, url, options, formats, wait.is_some()).await;
    }
    let fresh = match options.max_age {
        Some(0) => true,
        Some(ms) => older_than(agent, url, Duration::from_millis(ms)).await,
        None => false,
    };
    // The read fails on a 404 (403, 500 …) as it would; the page it got is kept aside.
    let kept = KeptErrorPage::default();
    let read = agent
        .keeping_error_pages(kept.clone())
        .web_fetch(
            WebFetchArgs {
                url: Some(url.to_owned()),
                page_size_tokens: Some(0),
                fresh: Some(fresh),
                ..WebFetchArgs::default()
            },
            None,
        )
        .await
        .and_then(only_page);
    match read {
        Ok(page) => {
            let mut doc = from_page(&page, formats);
            with_head(agent, &mut doc).await;
            Ok(doc)
        }
        // Firecrawl answers a 404 (403, 500 …) page as a document with its status: the
        // page the read got (it is not stored; the store keeps pages that were there).
        Err(e) if matches!(e.code, ErrorCode::NotFound | ErrorCode::HttpError) => {
            error_page(agent, url, options, formats, kept.take())
                .await
                .map_err(|_| e.into())
        }
        Err(e) => Err(e.into()),
    }
}

/// A page that answered an HTTP error status, as a document with `statusCode` and
/// `error`; fails when the answer was no page at all (nothing but the status). `kept` is
/// the page the read got; without one (the error came from elsewhere: a site reader, a
/// hosted reader, the offline store) the page is fetched here.
async fn error_page(
    agent: &Agent,
    url: &str,
    options: &ScrapeOptions,
    formats: Formats,
    kept: Option<FetchedPage>,
) -> Result<FcDocument, CompatError> {
    let page = match kept {
        Some(page) => page,
        None => {
            agent
                .fetcher()?
                .with_error_pages()
                .fetch_from(url, &Conditional::default(), Tier::Plain)
                .await?
        }
    };
    let status = page.status;
    let mut doc = from_fetched(agent, url, options, formats, page).await?;
    if status >= 400 {
        doc.metadata.error = Some(format!("HTTP {status}"));
    }
    Ok(doc)
}

/// Fills `doc`'s head fields (and Firecrawl's `title`, the `<title>` as written) from the
/// stored document; a page not in the store keeps what it has.
pub async fn with_head(agent: &Agent, doc: &mut FcDocument) {
    let handle = doc.metadata.handle.clone();
    let stored = agent
        .store()
        .run(move |s| s.get_document(&handle))
        .await
        .ok()
        .flatten();
    if let Some(record) = stored {
        let head = &record.document.head;
        doc.metadata.head = head.into();
        doc.metadata.num_pages = record.document.pages;
        if doc.metadata.cache_state == "hit" {
            doc.metadata.cached_at = Some(super::batch::iso(record.fetched_at));
        }
        if let Some(title) = &head.title_tag {
            doc.metadata.title = Some(title.clone());
        }
    }
}

/// The one page of a one-URL `web_fetch` answer, or its error.
fn only_page(out: FetchOut) -> Result<PageOut, TrawlError> {
    let item = out
        .results
        .into_iter()
        .next()
        .ok_or_else(|| TrawlError::internal("the read answered nothing"))?;
    match item.document {
        Some(page) => Ok(page),
        None => {
            let error = item
                .error
                .ok_or_else(|| TrawlError::internal("the read failed without saying why"))?;
            Err(TrawlError::new(error.code, error.message))
        }
    }
}

/// `changeTracking`: `web_fetch changes=true` (a conditional refetch, the diff against the
/// stored copy, the old copy kept as a version), named as Firecrawl names it.
async fn scrape_tracked(
    agent: &Agent,
    url: &str,
    formats: Formats,
    tracking: ChangeTracking,
) -> Result<FcDocument, CompatError> {
    let out = agent
        .web_fetch(
            WebFetchArgs {
                url: Some(url.to_owned()),
                page_size_tokens: Some(0),
                changes: Some(true),
                ..WebFetchArgs::default()
            },
            None,
        )
        .await?;
    let mut page = only_page(out)?;
    let changes = page
        .changes
        .take()
        .ok_or_else(|| TrawlError::internal("the change-tracking read said no status"))?;
    // The read answers the Markdown of a new page only; Firecrawl answers it every time,
    // so a same or changed page is read back from the store (no request).
    if matches!(
        changes.change_status,
        ChangeStatus::Same | ChangeStatus::Changed
    ) {
        let stored = agent
            .web_fetch(
                WebFetchArgs {
                    handle: Some(page.handle.clone()),
                    page_size_tokens: Some(0),
                    ..WebFetchArgs::default()
                },
                None,
            )
            .await?;
        let from_store = only_page(stored)?;
        page.markdown = from_store.markdown;
    }
    let mut doc = from_page(&page, formats);
    doc.change_tracking = Some(FcChangeTracking {
        previous_scrape_at: changes.previous_fetched_at.map(|secs| {
            let at = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
            chrono::DateTime::<chrono::Utc>::from(at)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        }),
        change_status: changes.change_status.as_str(),
        visibility: "visible",
        diff: changes
            .diff
            .filter(|_| tracking.git_diff)
            .map(|text| FcDiff { text }),
    });
    Ok(doc)
}

/// Is the stored copy of `url` older than `max_age` (or missing)? A store that does not
/// answer counts as missing: the page is read again.
async fn older_than(agent: &Agent, url: &str, max_age: Duration) -> bool {
    let Ok(checked) = agent.fetcher().and_then(|f| f.guard().check_raw(url, None)) else {
        // The read refuses it with the guard's own message.
        return false;
    };
    let key = checked.to_string();
    match agent
        .store()
        .run(move |s| s.get_document_by_url(&key))
        .await
    {
        Ok(Some(record)) => SystemTime::now()
            .duration_since(record.fetched_at)
            .is_ok_and(|age| age > max_age),
        _ => true,
    }
}

/// A document from `web_fetch`'s answer.
pub fn from_page(page: &PageOut, formats: Formats) -> FcDocument {
    let markdown = titled(&page.markdown, page.title.as_deref());
    FcDocument {
        html: formats.html.then(|| markdown_to_html(&markdown)),
        markdown: formats.markdown.then_some(markdown),
        raw_html: None,
        links: None,
        change_tracking: None,
        screenshot: None,
        actions: None,
        metadata: Metadata {
            title: page.title.clone(),
            description: page.description.clone(),
            language: page.language.clone(),
            og_site_name: page.site_name.clone(),
            published_time: page.published.clone(),
            author: page.byline.clone(),
            source_url: page.url.clone(),
            url: page.final_url.clone(),
            status_code: page.status.unwrap_or(200),
            content_type: page.content_type.clone(),
            cache_state: if page.from_store { "hit" } else { "miss" },
            handle: page.handle.clone(),
            error: None,
            scrape_id: job_id(),
            credits_used: 1,
            proxy_used: Metadata::proxy_of(page.fetched_via),
            head: HeadFields::default(),
            num_pages: None,
            cached_at: None,
        },
        warning: None,
    }
}

/// The cleaned main content as HTML: trawl's Markdown of it, rendered. The Markdown holds
/// only the content trawl chose, so this carries no scripts, styles or boilerplate.
pub fn markdown_to_html(markdown: &str) -> String {
    let parser = pulldown_cmark::Parser::new_ext(markdown, pulldown_cmark::Options::ENABLE_TABLES);
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    html
}

/// The page read again from its HTML: raw HTML, links, selectors, the browser tier.
async fn scrape_html(
    agent: &Agent,
    url: &str,
    options: &ScrapeOptions,
    formats: Formats,
    render: bool,
) -> Result<FcDocument, CompatError> {
    let fetcher = agent.fetcher()?;
    if render {
        need_browser(agent, "waitFor")?;
    }
    let tier = if render { Tier::Render } else { Tier::Plain };
    let page = fetcher
        .with_error_pages()
        .fetch_from(url, &Conditional::default(), tier)
        .await?;
    let status = page.status;
    let mut doc = from_fetched(agent, url, options, formats, page).await?;
    if status >= 400 {
        doc.metadata.error = Some(format!("HTTP {status}"));
    }
    Ok(doc)
}

/// A document from a page's own HTML, as `options` and `formats` ask: selectors, raw HTML,
/// links, the whole body or the main content.
async fn from_fetched(
    agent: &Agent,
    url: &str,
    options: &ScrapeOptions,
    formats: Formats,
    page: trawl_fetch::FetchedPage,
) -> Result<FcDocument, CompatError> {
    let raw = decode_html(&page.body, page.content_type.as_deref());
    let include = options.include_tags.clone().unwrap_or_default();
    let exclude = options.exclude_tags.clone().unwrap_or_default();
    let reshaped = !include.is_empty() || !exclude.is_empty();
    let final_url = page.final_url.clone();
    let content_type = page.content_type.clone();
    let body = page.body.clone();
    let raw_for_cpu = raw.clone();
    let mut doc: Document = tokio::task::spawn_blocking(move || {
        if reshaped {
            let filtered = select_tags(&raw_for_cpu, &include, &exclude)?;
            extract(
                filtered.as_bytes(),
                Some("text/html"),
                &final_url,
                &ExtractOptions::default(),
            )
        } else {
            extract(
                &body,
                content_type.as_deref(),
                &final_url,
                &ExtractOptions::default(),
            )
        }
    })
    .await
    .map_err(|e| TrawlError::internal(format!("extraction stopped: {e}")))??;
    doc.url = url.to_owned();
    doc.final_url = page.final_url.to_string();
    doc.handle = trawl_core::handle_for_url(&page.final_url);
    doc.status = Some(page.status);
    doc.fetched_via = page.via;
    doc.content_type = page.content_type.clone();
    doc.attempts = page.attempts.clone();
    // A whole page is kept like any read; a part picked by selectors is not the page, and
    // an error page is not the page that was asked for.
    if !reshaped && page.status < 400 {
        let _ = agent.keep(doc.clone()).await;
    }
    let is_html = page
        .content_type
        .as_deref()
        .is_none_or(|t| t.contains("html"));
    let links = formats.links.then(|| {
        if !is_html {
            return Vec::new();
        }
        let mut seen = std::collections::HashSet::new();
        trawl_crawl::links::page_links(&raw, &page.final_url)
            .links
            .into_iter()
            .map(|l| l.url.to_string())
            .filter(|u| seen.insert(u.clone()))
            .collect()
    });
    // onlyMainContent: false: the whole body (of what the selectors kept), not the
    // extractor's choice of main content.
    let (markdown, html) = if options.only_main_content == Some(false) {
        let source = if reshaped {
            select_tags(
                &raw,
                options.include_tags.as_deref().unwrap_or_default(),
                options.exclude_tags.as_deref().unwrap_or_default(),
            )?
        } else {
            raw.clone()
        };
        let body = whole_body(&source);
        let markdown = trawl_extract::fragment_to_markdown(&body, &page.final_url);
        (markdown, body)
    } else {
        let markdown = titled(&doc.markdown, doc.title.as_deref());
        let html = markdown_to_html(&markdown);
        (markdown, html)
    };
    Ok(FcDocument {
        markdown: formats.markdown.then_some(markdown),
        html: formats.html.then_some(html),
        raw_html: formats.raw_html.then(|| raw.clone()),
        links,
        change_tracking: None,
        screenshot: None,
        actions: None,
        metadata: Metadata {
            title: doc.head.title_tag.clone().or_else(|| doc.title.clone()),
            description: doc.description.clone(),
            language: doc.language.clone(),
            og_site_name: doc.site_name.clone(),
            published_time: doc.published.clone(),
            author: doc.byline.clone(),
            source_url: url.to_owned(),
            url: doc.final_url.clone(),
            status_code: page.status,
            content_type: doc.content_type.clone(),
            cache_state: "miss",
            handle: doc.handle.clone(),
            error: None,
            scrape_id: job_id(),
            credits_used: 1,
            proxy_used: Metadata::proxy_of(doc.fetched_via),
            head: (&doc.head).into(),
            num_pages: doc.pages,
            cached_at: None,
        },
        warning: None,
    })
}

/// A 400 naming what asked for a browser and why none can be used (rendering off or not
/// compiled in, no Chromium found), before anything is fetched: never an empty page.
pub fn need_browser(agent: &Agent, what: &str) -> Result<(), CompatError> {
    match agent.fetcher()?.browser_unavailable() {
        None => Ok(()),
        Some(why) => Err(CompatError::unsupported(format!(
            "{what} on this server (it needs a browser, and none can be used: {})",
            why.message
        ))),
    }
}

/// Screenshots and actions: `web_fetch` in the browser, answered in Firecrawl's shape
/// (images as `data:` URLs). `waitFor` becomes a first `wait` step.
async fn scrape_in_browser(
    agent: &Agent,
    url: &str,
    options: &ScrapeOptions,
    formats: Formats,
    wait: Option<u64>,
    mut actions: Vec<trawl_fetch::browse::ActionJson>,
) -> Result<FcDocument, CompatError> {
    need_browser(
        agent,
        if formats.screenshot.is_some() {
            "the screenshot format"
        } else {
            "actions"
        },
    )?;
    if let Some(ms) = wait {
        actions.insert(
            0,
            trawl_fetch::browse::Action::Wait(trawl_fetch::browse::WaitFor::Millis(ms)).to_json(),
        );
    }
    let shot = formats.screenshot;
    let out = agent
        .web_fetch(
            WebFetchArgs {
                url: Some(url.to_owned()),
                page_size_tokens: Some(0),
                actions: Some(actions),
                screenshot: shot.map(|_| true),
                full_page: shot.filter(|s| s.full_page).map(|_| true),
                viewport: shot
                    .and_then(|s| s.viewport)
                    .map(|(w, h)| format!("{w}x{h}")),
                ..WebFetchArgs::default()
            },
            None,
        )
        .await?;
    let mut page = only_page(out)?;
    let browser = page.browser.take().unwrap_or_default();
    let mut doc = if options.reshapes() || formats.need_raw() {
        // Selectors, raw HTML and links read the page as the browser left it.
        let final_url = url::Url::parse(&page.final_url)
            .map_err(|e| TrawlError::internal(format!("the browser's address: {e}")))?;
        let fetched = trawl_fetch::FetchedPage {
            requested_url: final_url.clone(),
            final_url,
            status: page.status.unwrap_or(200),
            content_type: Some("text/html; charset=utf-8".into()),
            etag: None,
            last_modified: None,
            body: browser.html.clone().into_bytes().into(),
            via: page.fetched_via,
            redirects: Vec::new(),
            attempts: page.attempts.clone(),
        };
        from_fetched(agent, url, options, formats, fetched).await?
    } else {
        from_page(&page, formats)
    };
    let data_url = |png: &[u8]| {
        use base64::Engine as _;
        format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(png)
        )
    };
    let mut by_actions = Vec::new();
    for shot in &browser.screenshots {
        match shot.action {
            Some(_) => by_actions.push(data_url(&shot.png)),
            None => doc.screenshot = Some(data_url(&shot.png)),
        }
    }
    if !by_actions.is_empty() || !browser.scrapes.is_empty() || !browser.done.is_empty() {
        doc.actions = Some(FcActions {
            screenshots: by_actions,
            scrapes: browser
                .scrapes
                .into_iter()
                .map(|s| FcScrape {
                    url: s.url,
                    html: s.html,
                })
                .collect(),
            ..FcActions::default()
        });
    }
    Ok(doc)
}

/// The page's whole `<body>` as HTML, minus what is never text (scripts, styles,
/// `<noscript>` and `<template>`); navigation, asides and footers stay.
fn whole_body(html: &str) -> String {
    let mut doc = scraper::Html::parse_document(html);
    let never_text =
        scraper::Selector::parse("script, style, noscript, template").expect("a valid selector");
    let dropped: Vec<_> = doc.select(&never_text).map(|e| e.id()).collect();
    for id in dropped {
        if let Some(mut node) = doc.tree.get_mut(id) {
            node.detach();
        }
    }
    let body = scraper::Selector::parse("body").expect("a valid selector");
    doc.select(&body)
        .next()
        .map_or_else(|| doc.root_element().inner_html(), |b| b.inner_html())
}

/// `html` cut down to what `include` selects (all of it when empty), minus what
/// `exclude` selects, as a new document for extraction.
fn select_tags(html: &str, include: &[String], exclude: &[String]) -> Result<String, TrawlError> {
    let parse = |css: &String| {
        scraper::Selector::parse(css)
            .map_err(|e| TrawlError::invalid_input(format!("selector {css:?}: {e}")))
    };
    let include: Vec<scraper::Selector> = include.iter().map(parse).collect::<Result<_, _>>()?;
    let exclude: Vec<scraper::Selector> = exclude.iter().map(parse).collect::<Result<_, _>>()?;
    let mut doc = scraper::Html::parse_document(html);
    let dropped: Vec<_> = exclude
        .iter()
        .flat_map(|s| doc.select(s).map(|e| e.id()).collect::<Vec<_>>())
        .collect();
    for id in dropped {
        if let Some(mut node) = doc.tree.get_mut(id) {
            node.detach();
        }
    }
    if include.is_empty() {
        return Ok(doc.html());
    }
    let title = scraper::Selector::parse("title").expect("a valid selector");
    let mut out = String::from("<html><head>");
    if let Some(t) = doc.select(&title).next() {
        out.push_str(&t.html());
    }
    out.push_str("</head><body>");
    for selector in &include {
        for element in doc.select(selector) {
            out.push_str(&element.html());
        }
    }
    out.push_str("</body></html>");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_kept_and_dropped_by_selector() {
        let html = "<html><head><title>T</title></head><body><nav>menu</nav>\
                    <main><p class=keep>kept words</p><p class=ad>buy now</p></main>\
                    <footer>foot</footer></body></html>";
        let only = select_tags(html, &["main".into()], &[".ad".into()]).unwrap();
        assert!(
            only.contains("kept words") && only.contains("<title>T</title>"),
            "{only}"
        );
        assert!(!only.contains("buy now") && !only.contains("menu") && !only.contains("foot"));
        let minus = select_tags(html, &[], &["nav".into(), "footer".into()]).unwrap();
        assert!(minus.contains("buy now") && !minus.contains("menu") && !minus.contains("foot"));
        assert!(select_tags(html, &["p[".into()], &[]).is_err());
    }

    #[test]
    fn the_whole_body_keeps_navigation_and_drops_scripts() {
        let html = "<html><head><title>T</title><style>p{}</style></head><body>\
                    <nav><a href=/a>Menu link</a></nav><script>var x = 1;</script>\
                    <noscript>enable js</noscript><article><p>Body words</p></article>\
                    <template><p>later</p></template><footer>Foot note</footer></body></html>";
        let body = whole_body(html);
        assert!(
            body.contains("Menu link") && body.contains("Body words") && body.contains("Foot note"),
            "{body}"
        );
        for gone in ["var x", "enable js", "later", "p{}", "<title>"] {
            assert!(!body.contains(gone), "{gone} in {body}");
        }
    }

    #[test]
    fn markdown_renders_as_clean_html() {
        let html = markdown_to_html("# Seals\n\nHarbour [seals](https://example.org/).\n");
        assert!(html.contains("<h1>Seals</h1>"), "{html}");
        assert!(
            html.contains("<a href=\"https://example.org/\">seals</a>"),
            "{html}"
        );
    }
}
