//! Answers of the agent tools (each tool's arguments live in its own file). The same types
//! serve the CLI, MCP (their JSON Schemas are the tools' output schemas) and the library.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::{Attempt, ErrorBody, ErrorCode, FetchedVia, PageType, TrawlError};

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
    /// This page's Markdown (fenced as untrusted on agent faces).
    pub markdown: String,
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
    /// `read_only` or `disk_full`.
    pub reason: String,
    /// The store's own words.
    pub message: String,
}

impl NotStored {
    /// The note for a store error, when the error means the store cannot take writes.
    pub fn from_store_error(e: &trawl_store::Error) -> Option<Self> {
        e.is_unwritable().then(|| NotStored {
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
    TrawlError::new(code, format!("store: {e}"))
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
}
