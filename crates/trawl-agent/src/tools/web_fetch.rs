//! `web_fetch`: one URL, a batch of them, or a stored handle, each answered as one page of
//! clean Markdown; also local documents (a file, stdin) answered the same way.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::StreamExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::{ErrorBody, ErrorCode, TrawlError, is_valid_handle};

use super::bounds::{ToolArgs, checked, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::page::{focused_page_out, page_out};
use super::{
    Agent, BrowserAsk, DEFAULT_PAGE_TOKENS, FetchItem, FetchOut, FoldedOut, MAX_BATCH,
    NotStored, PageOut, Progress, invalid, render,
};
use trawl_store::DocumentRecord;
use crate::fence::Fence;
use trawl_text::neardup::{self, Candidate};
use trawl_text::diff::ChangeStatus;

/// Read one page, a batch, or a stored handle, and return one page of its Markdown.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct WebFetchArgs {
    /// One http(s) URL to read.
    pub url: Option<String>,
    /// URLs to read at once.
    #[schemars(length(min = 1, max = MAX_BATCH))]
    pub urls: Option<Vec<String>>,
    /// A stored document's handle (host~hash).
    pub handle: Option<String>,
    /// Which page to return (default 1).
    #[schemars(range(min = 1))]
    pub page: Option<u32>,
    /// Tokens a page (default 4000; 0: the whole document).
    pub page_size_tokens: Option<u32>,
    /// Refetch even when a fresh stored copy exists.
    pub fresh: Option<bool>,
    /// Words to read for: the passages that best match them instead of a page.
    #[schemars(length(min = 1, max = 500))]
    pub query: Option<String>,
    /// With query: tokens a document (default 1500).
    #[schemars(range(min = 50, max = 100_000))]
    pub max_tokens: Option<u32>,
    /// Read again and say how the page changed since the stored copy (new, same, changed
    /// with a diff, removed).
    pub changes: Option<bool>,
    /// Browser steps before reading one url, e.g. [{"type":"click","selector":"#more"}]:
    /// wait, click, write, press, scroll, screenshot, scrape. No JavaScript.
    #[schemars(with = "Option<Vec<trawl_fetch::browse::ActionJson>>")]
    pub actions: Option<Vec<trawl_fetch::browse::ActionJson>>,
    /// Also return a PNG screenshot, after any actions.
    pub screenshot: Option<bool>,
    /// With screenshot: the whole page (up to 8,000 px).
    pub full_page: Option<bool>,
    /// Browser window, WIDTHxHEIGHT (default 1280x800).
    pub viewport: Option<String>,
}

impl ToolArgs for WebFetchArgs {
    fn normalized(self) -> Self {
        WebFetchArgs {
            query: self
                .query
                .map(|q| q.trim().to_owned())
                .filter(|q| !q.is_empty()),
            ..self
        }
    }
}

/// Budget of a query-focused read when none is given, in estimated tokens.
pub const DEFAULT_FOCUS_TOKENS: u32 = 1500;

/// What each document of a `web_fetch` answer is.
#[derive(Debug, Clone)]
enum Shape {
    /// Page `page` at `tokens` a page.
    Page { page: u32, tokens: u32 },
    /// The passages matching `query`, within `max_tokens`.
    Focus { query: String, max_tokens: u32 },
    /// A change-tracking read; a new page is shown at `tokens` a page.
    Changes { tokens: u32 },
}

impl Shape {
    /// The shape the arguments ask for, or why they do not go together.
    fn of(args: &WebFetchArgs) -> Result<Shape, TrawlError> {
        let tokens = args.page_size_tokens.unwrap_or(DEFAULT_PAGE_TOKENS);
        let changes = args.changes.unwrap_or(false);
        if args.max_tokens.is_some() && args.query.is_none() {
            return Err(invalid("max_tokens", "only applies with query"));
        }
        match (&args.query, changes) {
            (Some(_), true) => Err(TrawlError::invalid_input(
                "give query or changes, not both",
            )),
            (Some(_), false) if args.page.is_some() => {
                Err(TrawlError::invalid_input("give page or query, not both"))
            }
            (Some(query), false) => {
                if !query.chars().any(char::is_alphanumeric) {
                    return Err(invalid("query", "needs at least one letter or digit"));
                }
                Ok(Shape::Focus {
                    query: query.clone(),
                    max_tokens: args.max_tokens.unwrap_or(DEFAULT_FOCUS_TOKENS),
                })
            }
            (None, true) if args.handle.is_some() => Err(invalid(
                "changes",
                "needs url or urls (a handle is the stored copy itself)",
            )),
            (None, true) if args.page.is_some_and(|p| p != 1) => Err(TrawlError::invalid_input(
                "give page or changes, not both",
            )),
            (None, true) => Ok(Shape::Changes { tokens }),
            (None, false) => Ok(Shape::Page {
                page: args.page.unwrap_or(1),
                tokens,
            }),
        }
    }

    /// The answer for one document read as `read` (no change tracking).
    async fn answer(&self, record: &DocumentRecord, from_store: bool) -> Result<PageOut, TrawlError> {
        match self {
            Shape::Page { page, tokens } => page_out(record, from_store, *page, *tokens),
            Shape::Focus { query, max_tokens } => {
                focused_page_out(record, from_store, query, *max_tokens).await
            }
            Shape::Changes { tokens } => page_out(record, from_store, 1, *tokens),
        }
    }
}

/// The `web_fetch` tool.
#[derive(Debug)]
pub struct WebFetch;

impl Tool for WebFetch {
    const NAME: &'static str = "web_fetch";
    const TITLE: &'static str = "Read web pages";
    const DESCRIPTION: &'static str = "Read web pages or documents (PDF, Office…) as clean Markdown. Give one of url, urls \
(up to 20, read at once) or handle (a stored document). Answers title, metadata, a handle and \
one page of Markdown (page_size_tokens, default 4000; next pages: web_open). Looking for \
something? give query: only the best-matching passages come back. changes=true reads again and \
says new, same, changed (with a diff) or removed. A failed read has an error code per URL.";
    const HINTS: Hints = Hints::reads(true);
    const NEEDS: Needs = Needs::Nothing;
    type Args = WebFetchArgs;
    type Out = FetchOut;

    async fn call(
        agent: Agent,
        args: WebFetchArgs,
        progress: Option<Progress>,
    ) -> Result<FetchOut, TrawlError> {
        agent
            .web_fetch(args, progress)
            .await
            .and_then(single_read_failure)
    }

    fn markdown(out: &FetchOut, fence: &Fence) -> String {
        render::fetch_markdown(out, fence)
    }

    fn asked(args: &WebFetchArgs) -> Vec<Asked> {
        let mut asked = Vec::new();
        if let Some(url) = &args.url {
            asked.push(Asked::Url("url", url.clone()));
        }
        if let Some(urls) = &args.urls {
            asked.push(Asked::Text("urls", urls.len().to_string()));
            if let Some(first) = urls.first() {
                asked.push(Asked::Url("first", first.clone()));
            }
        }
        if let Some(handle) = &args.handle {
            asked.push(Asked::Text("handle", handle.clone()));
        }
        asked
    }

    fn details(out: &FetchOut) -> Details {
        let ok = out.results.iter().filter(|r| r.ok).count();
        let mut readers: Vec<String> = Vec::new();
        for doc in out.results.iter().filter_map(|r| r.document.as_ref()) {
            let via = if doc.from_store {
                "store".to_owned()
            } else {
                serde_json::to_value(doc.fetched_via)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            };
            if !readers.contains(&via) {
                readers.push(via);
            }
        }
        let mut details = vec![
            ("readers", readers.join(",")),
            ("ok", ok.to_string()),
            ("failed", (out.results.len() - ok).to_string()),
        ];
        if let Some(note) = &out.not_stored {
            details.push(("not_stored", note.reason.clone()));
        }
        if let [item] = out.results.as_slice()
            && let Some(doc) = &item.document
        {
            details.push(("page", format!("{}/{}", doc.page, doc.pages)));
            details.push(("words", doc.word_count.to_string()));
            if let Some(focus) = &doc.focus {
                details.push((
                    "focus",
                    format!("{}/{}", focus.tokens, focus.document_tokens),
                ));
            }
            if let Some(changes) = &doc.changes {
                details.push(("change_status", changes.change_status.as_str().to_owned()));
            }
        }
        if !out.folded.is_empty() {
            details.push(("folded", out.folded.len().to_string()));
        }
        details
    }

    fn images(out: &FetchOut) -> Vec<Vec<u8>> {
        out.results
            .iter()
            .filter_map(|r| r.document.as_ref()?.browser.as_ref())
            .flat_map(|b| b.screenshots.iter().map(|s| s.png.clone()))
            .collect()
    }

    fn reports_progress(args: &WebFetchArgs) -> bool {
        args.urls.as_ref().is_some_and(|u| u.len() > 1)
    }
}

/// A read of one URL or handle that failed is the call's failure (`isError` with its
/// code); in a batch, failed items are part of the answer, as partial failure is not an
/// error.
fn single_read_failure(out: FetchOut) -> Result<FetchOut, TrawlError> {
    if let [item] = out.results.as_slice()
        && !item.ok
    {
        let body = item.error.clone().unwrap_or(ErrorBody {
            code: ErrorCode::Internal,
            message: "the read failed without saying why".into(),
            retryable: false,
            causes: Vec::new(),
        });
        return Err(TrawlError::from(body));
    }
    Ok(out)
}

impl Agent {
    /// `web_fetch`: one URL, a batch, or a stored handle, as one page of Markdown each.
    pub async fn web_fetch(
        &self,
        args: WebFetchArgs,
        progress: Option<Progress>,
    ) -> Result<FetchOut, TrawlError> {
        let args = checked(args)?;
        let shape = Shape::of(&args)?;
        let fresh = args.fresh.unwrap_or(false);
        let given = [
            args.url.is_some(),
            args.urls.is_some(),
            args.handle.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count();
        if given != 1 {
            return Err(TrawlError::invalid_input(
                "give exactly one of url, urls or handle",
            ));
        }
        let ask = BrowserAsk {
            actions_json: args.actions.clone().unwrap_or_default(),
            screenshot: args.screenshot.unwrap_or(false),
            full_page: args.full_page.unwrap_or(false),
            viewport: args.viewport.clone(),
            actions: Vec::new(),
        };
        if ask.wanted() || ask.full_page || ask.viewport.is_some() {
            return self.web_fetch_in_browser(&args, &ask, &shape).await;
        }
        if let Some(handle) = args.handle {
            if !is_valid_handle(&handle) {
                return Err(invalid(
                    "handle",
                    format!("{handle:?} is not a handle (host~12hex)"),
                ));
            }
            let record = self.stored(&handle).await?;
            let out = shape.answer(&record, true).await?;
            return Ok(FetchOut {
                results: vec![FetchItem {
                    input: handle,
                    ok: true,
                    document: Some(out),
                    error: None,
                }],
                folded: Vec::new(),
                not_stored: None,
            });
        }
        let inputs: Vec<String> = match (args.url, args.urls) {
            (Some(u), _) => vec![u],
            (_, Some(list)) => list,
            _ => unreachable!("checked above"),
        };
        if let Some(bad) = inputs.iter().find(|u| u.trim().is_empty()) {
            return Err(invalid("urls", format!("empty URL {bad:?}")));
        }
        let total = inputs.len();
        let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        // The first read that could not be kept says why; the others would say the same.
        let not_stored: Mutex<Option<NotStored>> = Mutex::new(None);
        let mut results: Vec<(usize, FetchItem)> =
            futures_util::stream::iter(inputs.into_iter().enumerate())
                .map(|(i, input)| {
                    let done = done.clone();
                    let progress = progress.clone();
                    let not_stored = &not_stored;
                    let shape = shape.clone();
                    async move {
                        let item = match self.read_as_task(&input, fresh, shape).await {
                            Ok((note, out)) => {
                                if let Some(note) = note {
                                    not_stored
                                        .lock()
                                        .unwrap_or_else(PoisonError::into_inner)
                                        .get_or_insert(note);
                                }
                                FetchItem {
                                    input,
                                    ok: true,
                                    document: Some(out),
                                    error: None,
                                }
                            }
                            Err(e) => FetchItem {
                                input,
                                ok: false,
                                document: None,
                                error: Some(e.into()),
                            },
                        };
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                        if let Some(p) = &progress {
                            p(n, total);
                        }
                        (i, item)
                    }
                })
                .buffer_unordered(self.config.batch_concurrency.max(1))
                .collect()
                .await;
        results.sort_by_key(|(i, _)| *i);
        let mut results: Vec<FetchItem> = results.into_iter().map(|(_, r)| r).collect();
        let folded = fold_duplicates(&mut results);
        Ok(FetchOut {
            results,
            folded,
            not_stored: not_stored
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        })
    }

    /// `web_fetch` of one URL in the browser, after its actions, with its screenshots.
    async fn web_fetch_in_browser(
        &self,
        args: &WebFetchArgs,
        ask: &BrowserAsk,
        shape: &Shape,
    ) -> Result<FetchOut, TrawlError> {
        let Some(url) = &args.url else {
            return Err(invalid(
                "actions",
                "actions, screenshot and viewport apply to one url (not urls or handle)",
            ));
        };
        if matches!(shape, Shape::Changes { .. }) {
            return Err(TrawlError::invalid_input(
                "give changes or browser steps (actions, screenshot), not both",
            ));
        }
        let task = ask.task()?;
        let read = self.browse(url, &task).await?;
        let mut out = shape.answer(&read.record, false).await?;
        out.browser = Some(read.browser);
        Ok(FetchOut {
            results: vec![FetchItem {
                input: url.clone(),
                ok: true,
                document: Some(out),
                error: None,
            }],
            folded: Vec::new(),
            not_stored: read.not_stored,
        })
    }

    /// One URL of a batch read and paged as its own task. The batch's caller may be the
    /// CLI's `block_on`, which polls on the main thread only: as tasks, the pages' fetch,
    /// decoding, paging and store hand-off spread over every worker. The task is aborted
    /// when the batch is dropped (a cancelled call stops its reads).
    async fn read_as_task(
        &self,
        input: &str,
        fresh: bool,
        shape: Shape,
    ) -> Result<(Option<NotStored>, PageOut), TrawlError> {
        let agent = self.clone();
        let input = input.to_owned();
        let task = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(async move {
            if let Shape::Changes { tokens } = shape {
                let tracked = agent.read_changes(&input).await?;
                let read = tracked.read;
                let mut out = page_out(&read.record, read.from_store, 1, tokens)?;
                // Only a new page is shown: for the others the diff (or nothing) is the news.
                if tracked.changes.change_status != ChangeStatus::New {
                    out.markdown.clear();
                }
                out.changes = Some(tracked.changes);
                return Ok((read.not_stored, out));
            }
            let read = agent.read_url(&input, fresh).await?;
            let out = shape.answer(&read.record, read.from_store).await?;
            Ok((read.not_stored, out))
        }));
        match task.await {
            Ok(outcome) => outcome,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(TrawlError::new(
                ErrorCode::Internal,
                format!("a batch read was cancelled: {e}"),
            )),
        }
    }


    /// Keep a document read outside the tools (a file, stdin) so it can be opened later.
    pub async fn keep(&self, document: trawl_core::Document) -> Result<(), TrawlError> {
        let record = trawl_store::DocumentRecord::new(document, std::time::SystemTime::now());
        self.save(&record).await
    }

    /// A local document (a file or stdin) kept in the store and answered like a fetch of
    /// its handle. When the store cannot be written, the document is answered from memory
    /// with a [`NotStored`] note instead of failing.
    pub async fn read_document(
        &self,
        document: trawl_core::Document,
        page: Option<u32>,
        page_size_tokens: Option<u32>,
    ) -> Result<FetchOut, TrawlError> {
        self.read_document_as(
            document,
            WebFetchArgs {
                page,
                page_size_tokens,
                ..WebFetchArgs::default()
            },
        )
        .await
    }

    /// [`Self::read_document`] answered as `args` ask (a page, or with `query` the passages
    /// that match it); `args.handle` is set to the document's.
    pub async fn read_document_as(
        &self,
        document: trawl_core::Document,
        args: WebFetchArgs,
    ) -> Result<FetchOut, TrawlError> {
        let handle = document.handle.clone();
        let args = checked(WebFetchArgs {
            handle: Some(handle.clone()),
            url: None,
            urls: None,
            ..args
        })?;
        let shape = Shape::of(&args)?;
        let record = trawl_store::DocumentRecord::new(document, std::time::SystemTime::now());
        match self.save_or_note(&record).await? {
            None => self.web_fetch(args, None).await,
            Some(note) => {
                let out = shape.answer(&record, true).await?;
                Ok(FetchOut {
                    results: vec![FetchItem {
                        input: handle,
                        ok: true,
                        document: Some(out),
                        error: None,
                    }],
                    folded: Vec::new(),
                    not_stored: Some(note),
                })
            }
        }
    }
}

/// Fold near-duplicate documents of a batch. The copy kept is the canonical one (the
/// address a copy names as canonical), then the one at the shorter, cleaner address (no
/// query, no print or AMP view), then the better read, then the first given; the others
/// lose their body and are listed.
fn fold_duplicates(results: &mut [FetchItem]) -> Vec<FoldedOut> {
    // A change-tracking answer without its page (same, changed, removed) has nothing to
    // compare.
    let docs: Vec<(usize, String, String, f32)> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            r.document
                .as_ref()
                .filter(|d| {
                    d.changes
                        .as_ref()
                        .is_none_or(|c| c.change_status == ChangeStatus::New)
                })
                .map(|d| (i, d.final_url.clone(), d.markdown.clone(), d.quality_score))
        })
        .collect();
    if docs.len() < 2 {
        return Vec::new();
    }
    let canonicals: std::collections::HashSet<String> = results
        .iter()
        .filter_map(|r| r.document.as_ref()?.canonical_url.clone())
        .map(|c| canonical_key(&c))
        .collect();
    let candidates: Vec<Candidate<'_>> = docs
        .iter()
        .map(|(_, url, text, quality)| Candidate {
            text,
            quality: preference(url, &canonicals, f64::from(*quality)),
        })
        .collect();
    let folding = neardup::fold(&candidates);
    let mut out = Vec::new();
    for f in folding.folded {
        let (i, url, _, _) = &docs[f.index];
        let into = docs[f.into].1.clone();
        if let Some(doc) = results[*i].document.as_mut() {
            doc.markdown = format!("(near-duplicate of {into}; folded)");
        }
        out.push(FoldedOut {
            url: url.clone(),
            into,
        });
    }
    out
}

/// An address in trawl's canonical form, for telling whether two name one page.
fn canonical_key(url: &str) -> String {
    url::Url::parse(url).map_or_else(
        |_| url.to_owned(),
        |u| trawl_core::canonical_url(&u).to_string(),
    )
}

/// Which copy of a page a batch keeps (higher first): named canonical (4), at a clean
/// address (2: no query, no print or AMP view), at a shorter path (up to 1), then the
/// extractor's quality (up to 0.5).
fn preference(url: &str, canonicals: &std::collections::HashSet<String>, quality: f64) -> f64 {
    let canonical = if canonicals.contains(&canonical_key(url)) {
        4.0
    } else {
        0.0
    };
    let parsed = url::Url::parse(url).ok();
    let path = parsed.as_ref().map_or(url, |u| u.path());
    let clean = if parsed
        .as_ref()
        .is_some_and(|u| u.query().is_none() && !trawl_core::is_view_copy(u))
    {
        2.0
    } else {
        0.0
    };
    let short = 1.0 - (path.len().min(200) as f64 / 200.0);
    canonical + clean + short + quality.clamp(0.0, 1.0) * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_keeps_the_canonical_then_the_cleaner_address() {
        let none = std::collections::HashSet::new();
        let article = preference("https://example.org/tides", &none, 0.5);
        let print = preference("https://example.org/print/tides", &none, 0.9);
        let tracked = preference("https://example.org/tides?utm_source=x", &none, 0.9);
        assert!(article > print && article > tracked, "{article} {print} {tracked}");
        let named: std::collections::HashSet<String> =
            [canonical_key("https://example.org/print/tides")].into();
        assert!(preference("https://example.org/print/tides", &named, 0.1) > article);
    }

    /// The batch limit is said in prose once, in the description; it must be the one the
    /// schema declares and the check enforces.
    #[test]
    fn the_description_says_the_batch_limit() {
        assert!(
            WebFetch::DESCRIPTION.contains(&format!("urls (up to {MAX_BATCH},")),
            "{}",
            WebFetch::DESCRIPTION
        );
    }
}
