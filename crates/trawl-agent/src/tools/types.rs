//! Answers of the agent tools (each tool's arguments live in its own file). The same types
//! serve the CLI, MCP (their JSON Schemas are the tools' output schemas) and the library.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::{Attempt, ErrorBody, ErrorCode, FetchedVia, PageType, TrawlError};
use trawl_text::diff::ChangeStatus;

/// Largest batch `web_fetch` takes in one call.
pub const MAX_BATCH: usize = 20;
/// Default page size, in estimated tokens.
pub const DEFAULT_PAGE_TOKENS: u32 = 4000;

/// One page of a read document: the `read` contract.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PageOut {
    /// The document's store handle (`host~hash`); pass it to web_open to come back.
    pub handle: String,
    /// The URL that was asked for.
    pub url: String,
    /// The URL after redirects.
    pub final_url: String,
    /// The page's title.
    pub title: Option<String>,
    /// The author(s), as the page names them.
    pub byline: Option<String>,
    /// Publication date as found (ISO 8601 when the page gives one).
    pub published: Option<String>,
    /// Language code, declared or detected.
    pub language: Option<String>,
    /// The site's name.
    pub site_name: Option<String>,
    /// The page's own summary (meta description).
    pub description: Option<String>,
    /// What kind of page this is (article, documentation, forum, product, …).
    #[schemars(with = "String")]
    pub page_type: PageType,
    /// 0..1; below 0.5 means probably not the main content.
    pub quality_score: f32,
    /// Words in the whole document (not just this page).
    pub word_count: usize,
    /// How the bytes were obtained originally (http, impersonate, jina, file, …).
    #[schemars(with = "String")]
    pub fetched_via: FetchedVia,
    /// HTTP status of the final response, when read over HTTP.
    pub status: Option<u16>,
    /// The response's Content-Type.
    pub content_type: Option<String>,
    /// `<link rel=canonical>` or `og:url`, when the page declares one.
    pub canonical_url: Option<String>,
    /// Raw JSON-LD blocks found in the page (structured data: article, product, …).
    pub json_ld: Vec<serde_json::Value>,
    /// Every tier and reader tried, in order, with its outcome.
    #[schemars(with = "Vec<serde_json::Value>")]
    pub attempts: Vec<Attempt>,
    /// Whether this answer came from the store without a request.
    pub from_store: bool,
    /// The page returned, from 1.
    pub page: u32,
    /// How many pages the document has at this page size.
    pub pages: u32,
    /// This page's Markdown (fenced as untrusted on agent faces). With `query`: the
    /// passages that matched, with markers where text was left out. With `changes`: the
    /// page for a `new` one, empty otherwise (the diff is in `changes`).
    pub markdown: String,
    /// Set for a query-focused read: what was given and what was left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<FocusOut>,
    /// Set for a change-tracking read: how the page changed since the stored copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangesOut>,
    /// Set for a read done in the browser with actions or a screenshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<BrowserOut>,
    /// Whether the text was read by OCR (an image, or a scanned PDF).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ocr: bool,
    /// OCR's mean word confidence, 0 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<f32>,
    /// An image's format, width, height and EXIF date, camera and `gps` (whether it
    /// records a position; never the position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub image: Option<trawl_core::ImageInfo>,
}

/// What a read in the browser did and saw besides the final page.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct BrowserOut {
    /// One line per action done, in order.
    pub done: Vec<String>,
    /// Screenshots (PNG); on MCP each is an `image` content block, in this order.
    pub screenshots: Vec<ScreenshotOut>,
    /// The Markdown of the page at each `scrape` action.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scrapes: Vec<ScrapeOut>,
    /// The final page's HTML as the browser had it (the compatible API's `rawHtml`,
    /// `links` and selectors read it; never in the JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub html: String,
}

/// One screenshot.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ScreenshotOut {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// Whether it shows the whole page.
    pub full_page: bool,
    /// The page's height when a full-page shot was cut (at 8,000 px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_from: Option<u32>,
    /// The action (from 1) that took it; none for the one after every action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<usize>,
    /// Size of the PNG.
    pub bytes: usize,
    /// The PNG itself: sent as an image (MCP), written to a file (CLI) or base64 (the
    /// compatible API), never inside the JSON text.
    #[serde(skip)]
    #[schemars(skip)]
    pub png: Vec<u8>,
}

/// The page as a `scrape` action found it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ScrapeOut {
    /// Which action (from 1).
    pub action: usize,
    /// The page's address then.
    pub url: String,
    /// Its Markdown (fenced as untrusted on agent faces).
    pub markdown: String,
    /// Its HTML as the browser had it (the compatible API answers it; never in the JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub html: String,
}

/// What a query-focused read gave of a document and what it left out.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FocusOut {
    /// The query the passages were chosen for.
    pub query: String,
    /// The budget, in estimated tokens.
    pub max_tokens: u32,
    /// Estimated tokens of the Markdown given (markers included).
    pub tokens: u32,
    /// Estimated tokens of the whole document (still stored: open it by handle).
    pub document_tokens: u32,
    /// Estimated tokens of the document left out.
    pub left_out_tokens: u32,
    /// Passages left out (or given only in part).
    pub left_out_passages: u32,
    /// Whether any passage held a query word; when not, the document's opening is given.
    pub matched: bool,
    /// The passages given, in document order.
    pub passages: Vec<FocusPassageOut>,
}

/// One passage of a query-focused read (its text is in the answer's Markdown).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FocusPassageOut {
    /// The page it is on at the default page size (web_open page=N opens it).
    pub page: u32,
    /// The heading path above it.
    pub heading: String,
    /// Its estimated tokens.
    pub tokens: u32,
    /// BM25 relevance; higher is better.
    pub score: f64,
    /// Whether it was cut short to fit the budget.
    pub cut: bool,
}

impl FocusOut {
    /// The answer's summary of a focused read of `query` within `max_tokens`.
    pub(crate) fn new(query: &str, max_tokens: u32, focused: &crate::focus::Focused) -> Self {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        FocusOut {
            query: query.to_owned(),
            max_tokens,
            tokens: n(focused.tokens),
            document_tokens: n(focused.document_tokens),
            left_out_tokens: n(focused.left_out_tokens),
            left_out_passages: n(focused.left_out_passages),
            matched: focused.matched,
            passages: focused
                .passages
                .iter()
                .map(|p| FocusPassageOut {
                    page: p.page,
                    heading: p.heading.clone(),
                    tokens: n(p.tokens),
                    score: p.score,
                    cut: p.cut,
                })
                .collect(),
        }
    }
}

/// What a change-tracking read found.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChangesOut {
    /// new, same, changed or removed.
    pub change_status: ChangeStatus,
    /// The version the stored copy is now (1 = first read); older ones open with
    /// web_open version=N.
    pub version: u32,
    /// The older version the page was compared with, when it was kept (changed only).
    pub previous_version: Option<u32>,
    /// When the copy compared with was fetched (seconds since the Unix epoch).
    pub previous_fetched_at: Option<u64>,
    /// Unified diff of the Markdown, stored copy → new copy (changed only; fenced as
    /// untrusted on agent faces).
    pub diff: Option<String>,
    /// Lines added (changed only).
    pub lines_added: u32,
    /// Lines removed (changed only).
    pub lines_removed: u32,
}

/// One input of a batch read and how it went.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FetchItem {
    /// The URL or handle as given.
    pub input: String,
    /// Whether it was read.
    pub ok: bool,
    /// The read page, when `ok`.
    pub document: Option<PageOut>,
    /// What went wrong, when not `ok`.
    #[schemars(with = "Option<serde_json::Value>")]
    pub error: Option<ErrorBody>,
}

/// What `web_fetch` answers: every input's outcome, in input order.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FetchOut {
    /// One entry per input, in input order.
    pub results: Vec<FetchItem>,
    /// Documents left out as near-duplicates of another in this batch.
    pub folded: Vec<FoldedOut>,
    /// Set when what was read could not be kept (the store is read-only or its disk is
    /// full): the pages answer, but their handles will not open later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_stored: Option<NotStored>,
}

/// Why a read was answered without being kept in the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotStored {
    /// `read_only`, `disk_full` or `corrupt`.
    pub reason: String,
    /// The store's own words.
    pub message: String,
}

impl NotStored {
    /// The note for a store error, when the error means the store cannot take writes.
    pub fn from_store_error(e: &trawl_store::Error) -> Option<Self> {
        e.is_unusable_for_writes().then(|| NotStored {
            reason: e.fault().unwrap_or("unwritable").to_owned(),
            message: e.to_string(),
        })
    }
}

/// A store error as an answer: a store that does not answer (a shared Redis gone away) is
/// `store_unavailable`, retryable; any other fault is `internal`.
pub(crate) fn store_error(e: trawl_store::Error) -> TrawlError {
    let code = if e.is_unavailable() {
        ErrorCode::StoreUnavailable
    } else {
        ErrorCode::Internal
    };
    TrawlError::new(code, format!("store: {e}")).with_causes_of(&e)
}

/// A document left out of a batch as a near-duplicate of another.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FoldedOut {
    /// The folded document's URL.
    pub url: String,
    /// The URL of the document kept in its place.
    pub into: String,
}

/// A passage that matched `find`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PassageOut {
    /// Handle of the document the passage is in.
    pub handle: String,
    /// That document's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// That document's title (fenced as untrusted on agent faces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The page the passage is on, at the default page size (4000 tokens).
    pub page: u32,
    /// The passage's text (fenced as untrusted on agent faces).
    pub text: String,
    /// BM25 relevance; higher is better.
    pub score: f64,
}

/// What `web_open` answers: a page, or passages for `find`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct OpenOut {
    /// The document's handle (unset for `find` with `all`).
    pub handle: Option<String>,
    /// The document's title.
    pub title: Option<String>,
    /// The document's URL.
    pub url: Option<String>,
    /// Set when a page was asked for.
    pub page: Option<u32>,
    /// How many pages the document has.
    pub pages: Option<u32>,
    /// The page's Markdown (fenced as untrusted on agent faces).
    pub markdown: Option<String>,
    /// Set when `find` was asked for.
    pub find: Option<String>,
    /// Best-matching passages, best first.
    pub passages: Option<Vec<PassageOut>>,
    /// Set when an older version was asked for (`version`): the one given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// Set when `find` searched one crawl's pages: its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crawl: Option<String>,
}

/// Store hits as passages, each naming its document's URL and title (one store call for
/// the documents they are in).
pub async fn passages_out(
    store: &trawl_store::SharedStore,
    hits: Vec<trawl_store::PassageHit>,
) -> Result<Vec<PassageOut>, TrawlError> {
    let mut handles: Vec<String> = hits.iter().map(|h| h.handle.clone()).collect();
    handles.sort();
    handles.dedup();
    let named: std::collections::HashMap<String, (String, Option<String>)> = store
        .run(move |s| {
            let mut named = std::collections::HashMap::new();
            for handle in handles {
                if let Some(record) = s.get_document(&handle)? {
                    let d = record.document;
                    named.insert(handle, (d.final_url, d.title));
                }
            }
            Ok(named)
        })
        .await
        .map_err(store_error)?;
    Ok(hits
        .into_iter()
        .map(|hit| {
            let (url, title) = named
                .get(&hit.handle)
                .cloned()
                .map_or((None, None), |(u, t)| (Some(u), t));
            PassageOut {
                handle: hit.handle,
                url,
                title,
                page: hit.page,
                text: hit.text,
                score: hit.score,
            }
        })
        .collect())
}
