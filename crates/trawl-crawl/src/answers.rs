//! What the crawl service answers: a site's URLs, where a crawl stands, its stored pages.
//! Serialized as they are to agents (`web_map`, `web_crawl`), so their docs are the
//! fields' descriptions in the tools' output schemas.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::change_summary::ChangeSummary;

/// A site's URLs, as `web_map` answers.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct MapOut {
    /// The start URL as checked.
    pub start: String,
    /// The URLs, ranked by relevance when a search was given.
    pub urls: Vec<MapUrl>,
    /// Distinct URLs found before the limit.
    pub found: usize,
    /// The sitemap files read.
    pub sitemaps: Vec<String>,
    /// How robots.txt came out: parsed, missing or unreachable.
    pub robots: String,
    /// What could not be read, and why.
    pub notes: Vec<String>,
    /// Whether this answer came from the store (a map made earlier and still fresh).
    #[serde(default)]
    pub from_store: bool,
    /// With from_store: how old that map is, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_s: Option<u64>,
}

/// One URL of a site.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MapUrl {
    /// The URL.
    pub url: String,
    /// Where it was found: sitemap, feed, llms_txt, link or start.
    pub source: String,
    /// When the site says it last changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lastmod: Option<String>,
    /// A title from a feed, llms.txt or a link's text (site text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Relevance to the search, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// Where one crawl stands.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct CrawlState {
    /// The crawl's id: pass it as `id` to see progress and pages, or to cancel.
    pub id: String,
    /// Where it started.
    pub start_url: String,
    /// running, done, cancelled or failed.
    pub status: String,
    /// A stop was asked for.
    pub cancel_requested: bool,
    /// Pages stored so far.
    pub done: u64,
    /// Pages that could not be read.
    pub failed: u64,
    /// URLs waiting or being fetched.
    pub queued: u64,
    /// The most pages it stores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// A changes-crawl, once it ended: what changed since the crawl it compares with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeSummary>,
}

/// One stored page of a crawl.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CrawledPage {
    /// Its handle: read it with web_open.
    pub handle: String,
    /// The URL fetched.
    pub url: String,
    /// Its title (page text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Words of its main content.
    pub words: u64,
    /// Links followed from the start page.
    pub depth: u32,
    /// A changes-crawl: new, same, changed or removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_status: Option<String>,
    /// Changed: lines only in the new copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_added: Option<u32>,
    /// Changed: lines only in the old copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_removed: Option<u32>,
    /// Changed: the old copy opens with web_open's version set to this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version: Option<u32>,
}
