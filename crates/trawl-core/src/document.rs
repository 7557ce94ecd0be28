//! What a read produces.

use serde::{Deserialize, Serialize};

/// What kind of page this is, from JSON-LD `@type`, then `og:type`, then the URL's shape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageType {
    Article,
    Documentation,
    Forum,
    Product,
    Listing,
    Profile,
    Video,
    Pdf,
    Text,
    Homepage,
    #[default]
    Other,
}

/// How the document's bytes were obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FetchedVia {
    /// Plain HTTP client (tier 0).
    #[default]
    Http,
    /// Browser TLS impersonation (tier 1), after an anti-bot challenge.
    Impersonate,
    /// A local headless browser (tier 2), for a page that builds its text with scripts.
    Render,
    /// A local file.
    File,
    /// Standard input.
    Stdin,
    /// A hosted reader (jina, tavily, firecrawl, exa).
    Jina,
    Tavily,
    Firecrawl,
    Exa,
    /// The local store, with no request.
    Store,
}

/// One step the read path tried, in order, with its outcome (`ok` or an error code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub reader: String,
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A page read into Markdown plus metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The URL that was asked for.
    pub url: String,
    /// The URL after redirects (or the `--url` base for files and stdin).
    pub final_url: String,
    /// `host~<12 hex>`: stable for the canonical form of `final_url`.
    pub handle: String,
    pub title: Option<String>,
    pub byline: Option<String>,
    /// Publication date as found (ISO 8601 when the page gives one).
    pub published: Option<String>,
    pub language: Option<String>,
    pub site_name: Option<String>,
    pub description: Option<String>,
    /// `<link rel=canonical>` or `og:url`, when the page declares one.
    pub canonical_url: Option<String>,
    pub page_type: PageType,
    /// 0..1; below 0.5 means "probably not the main content".
    pub quality_score: f32,
    pub word_count: usize,
    pub markdown: String,
    /// Plain text of the main content; left out of JSON when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Raw JSON-LD blocks as found in the page.
    pub json_ld: Vec<serde_json::Value>,
    pub fetched_via: FetchedVia,
    /// HTTP status of the final response (None for files and stdin).
    pub status: Option<u16>,
    pub content_type: Option<String>,
    #[serde(default)]
    pub attempts: Vec<Attempt>,
}
