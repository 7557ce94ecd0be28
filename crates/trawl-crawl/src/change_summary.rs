//! What a changes-crawl found since the crawl it compares with, as kept in its summary
//! and answered to agents (the docs are the output schema's descriptions).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a changes-crawl found since the crawl it compares with.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "CrawlChanges")]
pub struct ChangeSummary {
    /// The id of the crawl compared with.
    pub compared_with: String,
    /// Pages not in it.
    pub new: u64,
    /// Pages unchanged.
    pub same: u64,
    /// Pages whose text changed.
    pub changed: u64,
    /// Its pages gone (404/410) or no longer reached.
    pub removed: u64,
    /// The changed pages' URLs (the first 100).
    #[serde(default)]
    pub changed_urls: Vec<String>,
    /// The removed pages (the first 100), each with why and its stored copy's handle.
    #[serde(default)]
    pub removed_pages: Vec<RemovedPage>,
    /// Its pages that could not be read now (not a 404/410: a 5xx, a timeout); how they
    /// changed is not known.
    #[serde(default)]
    pub unknown: u64,
}

/// A page of the old crawl that is gone or no longer reached.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct RemovedPage {
    /// Its URL.
    pub url: String,
    /// Its stored copy (kept): read it with web_open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Gone from the site, or how it was no longer reached.
    pub why: String,
}
