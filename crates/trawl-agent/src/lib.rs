//! trawl-agent: what an agent sees of the web.
//!
//! This crate composes search, fetch, extract and store into the agent tools
//! (`web_search`, `web_fetch`, `web_open`) and holds the pure pieces they are built from:
//!
//! - [`pager`]: cut a Markdown document into token-budget pages on block boundaries,
//!   losslessly (page N of M is always reachable).
//! - [`fence`]: wrap untrusted fetched text between nonce-carrying markers an agent can
//!   trust, neutralizing look-alike markers inside the text.
//! - [`neardup`]: fold exact and near-duplicate documents (MinHash) in multi-document
//!   answers, keeping the best and listing the folded.
//! - [`passages`]: split a document into passages for full-text find, and rank them with
//!   BM25 for query-aware previews without a store.
//! - [`focus`]: a query-focused read: the passages matching a query within a token
//!   budget, in document order, with markers where text was left out.
//! - [`diff`]: a unified diff of two copies of a document, for change tracking.
//! - [`cpu`]: CPU-heavy work on a bounded pool off the async workers.

#![forbid(unsafe_code)]

pub mod cpu;
pub mod diff;
pub mod fence;
pub mod focus;
pub mod neardup;
pub mod pager;
pub mod passages;
pub mod tools;
