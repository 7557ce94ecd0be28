//! trawl-text: a page's text after extraction, as the agent tools and the crawler both use
//! it. Below both, so the crawler reads pages the way the tools do without depending on
//! the tools.
//!
//! - [`pager`]: cut a Markdown document into token-budget pages on block boundaries,
//!   losslessly (page N of M is always reachable).
//! - [`passages`]: split a document into passages for full-text find, and rank them with
//!   BM25 for query-aware previews without a store.
//! - [`neardup`]: near-duplicate signatures (MinHash), to fold exact and near-duplicate
//!   documents, keeping the best and listing the folded.
//! - [`diff`]: a unified diff of two copies of a document, for change tracking.
//! - [`cpu`]: CPU-heavy work on a bounded pool off the async workers, gated by memory.

#![forbid(unsafe_code)]

pub mod cpu;
pub mod diff;
pub mod neardup;
pub mod pager;
pub mod passages;
