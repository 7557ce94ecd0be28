//! trawl-agent: what an agent sees of the web.
//!
//! This crate composes search, fetch, extract, store and the crawler into the agent tools
//! (`web_search`, `web_fetch`, `web_open`, `web_map`, `web_crawl`) and holds the pure
//! pieces only they use (the page text they share with the crawler is in trawl-text):
//!
//! - [`fence`]: wrap untrusted fetched text between nonce-carrying markers an agent can
//!   trust, neutralizing look-alike markers inside the text.
//! - [`focus`]: a query-focused read: the passages matching a query within a token
//!   budget, in document order, with markers where text was left out.

#![forbid(unsafe_code)]

pub mod fence;
pub mod focus;
pub mod tools;
