//! Arguments and answers of the agent tools. The same types serve the CLI, MCP (their
//! JSON Schemas are the tools' input and output schemas) and the library.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::{Attempt, ErrorBody, FetchedVia, PageType};

/// Largest batch `web_fetch` takes in one call.
pub const MAX_BATCH: usize = 20;
/// Default page size, in estimated tokens.
pub const DEFAULT_PAGE_TOKENS: u32 = 4000;

/// How recent results must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FreshnessArg {
    /// The last 24 hours.
    Day,
    /// The last 7 days.
    Week,
    /// The last month.
    Month,
    /// The last year.
    Year,
}

/// How strictly engines filter adult content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SafeSearchArg {
    /// No filtering.
    Off,
    /// The engines' default filtering.
    Moderate,
    /// Strict filtering.
    Strict,
}

/// Search the web with many engines at once; hits are fused and de-duplicated.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchArgs {
    /// What to search for, in natural words (1-500 characters).
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// How many fused hits to return (1-50, default 10).
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
    /// Which set of engines to ask (default web): web, dev, academic, all, fast, social,
    /// news, or a route named in the configuration. Ignored when `engines` is given.
    #[schemars(length(min = 1, max = 64))]
    pub route: Option<String>,
    /// Exact engines to ask, e.g. ["duckduckgo", "wikipedia"].
    pub engines: Option<Vec<String>>,
    /// Only results from this site, e.g. "docs.rs".
    pub site: Option<String>,
    /// Only results from the last day, week, month or year.
    pub freshness: Option<FreshnessArg>,
    /// Language code for results, e.g. "en", "de".
    pub language: Option<String>,
    /// Region code, e.g. "us", "de".
    pub region: Option<String>,
    /// Adult-content filtering: off, moderate or strict (engine defaults when unset).
    pub safesearch: Option<SafeSearchArg>,
    /// Result page, from 1.
    #[schemars(range(min = 1, max = 10))]
    pub page: Option<u32>,
    /// Other phrasings of the same question, fused with it (at most 4).
    pub expand: Option<Vec<String>>,
    /// Read the top N hits now (0-10) and attach a query-aware preview and handle to each.
    #[schemars(range(min = 0, max = 10))]
    pub read_top: Option<u32>,
}

/// Read one page, a batch, or a stored handle, and return one page of its Markdown.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchArgs {
    /// One http(s) URL to read.
    pub url: Option<String>,
    /// Several URLs to read concurrently (at most 20).
    #[schemars(length(max = 20))]
    pub urls: Option<Vec<String>>,
    /// A handle from an earlier answer (`host~hash`): served from the store.
    pub handle: Option<String>,
    /// Which page to return, from 1 (default 1).
    #[schemars(range(min = 1))]
    pub page: Option<u32>,
    /// Page size in estimated tokens (default 4000; 0 = the whole document).
    pub page_size_tokens: Option<u32>,
    /// Refetch even when a fresh stored copy exists.
    pub fresh: Option<bool>,
}

/// Page through or search inside documents already read, without fetching again.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebOpenArgs {
    /// The document's handle (`host~hash`). Required unless `all` is true.
    pub handle: Option<String>,
    /// Which page to return, from 1.
    #[schemars(range(min = 1))]
    pub page: Option<u32>,
    /// Words to look for: returns the best-matching passages instead of a page.
    pub find: Option<String>,
    /// With `find`: search every stored document, not just `handle`.
    pub all: Option<bool>,
    /// Page size in estimated tokens (default 4000; 0 = the whole document).
    pub page_size_tokens: Option<u32>,
    /// At most this many passages for `find` (1-50, default 8).
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

/// Search arXiv papers.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArxivArgs {
    /// Words to find in titles, abstracts and authors.
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// How many papers (1-50, default 10).
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
    /// Result page, from 1.
    #[schemars(range(min = 1, max = 10))]
    pub page: Option<u32>,
}

/// Search GitHub repositories.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GithubArgs {
    /// Words to find in repository names, descriptions and topics.
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// How many repositories (1-50, default 10).
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
    /// Only repositories in this programming language, e.g. "rust" (at most 100
    /// characters).
    #[schemars(length(max = 100))]
    pub language: Option<String>,
    /// Result page, from 1.
    #[schemars(range(min = 1, max = 10))]
    pub page: Option<u32>,
}

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
