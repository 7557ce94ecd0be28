//! What a crawl keeps of a page besides its row in the seen set: the page's on-site links,
//! and, in a changes-crawl (`trawl crawl --changes ID`), how the page changed since the
//! crawl it is compared with. Both are opaque JSON to the store (the crawler owns their
//! shape), as a crawl's options and summary are; the links are the store's to pack
//! ([`KeptLinks`]): every page of every crawl keeps them, and most are a site's navigation,
//! the same on thousands of pages.
//!
//! The links are kept because a later changes-crawl asks for an unchanged page with a
//! conditional request, and a `304 Not Modified` carries no body to find them in: the crawl
//! goes on from the links the earlier crawl kept. They live beside the rows (not in them) so
//! that stores made by older builds need no new columns, and a crawl that never compares
//! reads none of it.

use crate::Result;

/// One page's notes; a field left `None` by a write keeps what was there.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageNotes {
    /// The page's canonical key (as its crawl row's).
    pub key: String,
    /// Its on-site links.
    pub links: Option<KeptLinks>,
    /// How it changed since the crawl compared with.
    pub change: Option<serde_json::Value>,
}

/// A page's links as a crawl keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeptLinks {
    /// The page's canonical URL, when it names one.
    pub canonical: Option<String>,
    /// Each link's URL and text, in page order.
    pub links: Vec<KeptLink>,
}

/// One kept link.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct KeptLink {
    /// Where it points.
    pub url: String,
    /// Its text, on one line.
    pub text: String,
}

/// The page-notes calls of a crawl store; each is one short transaction. Every
/// [`CrawlStore`](crate::CrawlStore) has them.
pub trait CrawlNotes: Send + Sync {
    /// Writes notes of crawl `id`'s pages (merging into what is kept).
    fn put_page_notes(&self, id: &str, notes: &[PageNotes]) -> Result<()>;

    /// The notes of `keys` (those kept; every page's when `keys` is empty).
    fn page_notes(&self, id: &str, keys: &[String]) -> Result<Vec<PageNotes>>;
}
