//! trawl-search: one query fanned out to many engines, fused with correlation-aware
//! reciprocal rank fusion, every hit keeping its provenance.
//!
//! - [`Engine`] is the plug-in trait: an engine is an [`EngineSpec`] (one `const` per engine: name,
//!   group, key, base URL, filters, routes, confidence, fixtures) with its request builder and
//!   parser; it builds its request and parses bytes,
//!   nothing else. [`engines::all`] lists every engine (one module each).
//! - [`Router`] sends: concurrent fan-out, per-engine deadline, skip-if-busy rate limits,
//!   one retry on 5xx/transport errors, API-key rotation with state ([`KeyStateStore`]),
//!   bounded body reads, and `--record`/`--replay` of raw responses.
//! - [`fuse`] turns per-engine lists into ranked [`Hit`]s: canonical URL, dedup with
//!   provenance merge, RRF (k = 60) where each correlation group votes once, plus a
//!   consensus bonus per extra group.
//!
//! - [`Router::check`] probes engines for `doctor`, with a one-line [`hint`] per failure.
//!
//! # Features
//!
//! - `schema` (off by default): `schemars::JsonSchema` for [`Freshness`] and [`SafeSearch`], so
//!   the agent tools take them as arguments as they are.
//!
//! # Configuration ([`SearchConfig`])
//!
//! Plain typed data: per-engine base URLs, keys and least spacings ([`EngineSettings`]),
//! the per-engine deadline, User-Agents, Tavily's keyless mode, disabled engines and
//! routes. This crate reads no environment: the `trawl` binary resolves its settings
//! (flags, environment, config file; `trawl config vars` lists the variables, such as
//! `TRAWL_<ENGINE>_URL`, `BRAVE_API_KEY` or `TRAWL_<ENGINE>_MIN_INTERVAL_MS`) and builds
//! the `SearchConfig`; tests build one by hand.
//!
//! ```no_run
//! # async fn demo() {
//! use trawl_search::{Router, SearchConfig, SearchRequest};
//! let mut config = SearchConfig::default();
//! config.set_keys("brave_api", vec!["BSA…".to_owned()]);
//! let router = Router::builder(config).build();
//! let data = router.search(&SearchRequest::new("rust async")).await;
//! for hit in &data.hits {
//!     println!("{} {} {:.4}", hit.rank, hit.url, hit.fused_score);
//! }
//! # }
//! ```

#![forbid(unsafe_code)]

mod backoff;
mod classify;
mod config;
mod doctor;
mod engine;
pub mod engines;
#[cfg(test)]
mod fixture;
pub mod fuse;
mod html;
mod keys;
mod limiter;
mod record;
mod router;
mod serp;
mod types;

pub use config::{EngineSettings, SearchConfig, http_client};
pub use doctor::{EngineCheck, PROBE_QUERY, hint};
pub use engine::{
    Body, Capabilities, Described, Engine, EngineRequest, EngineSpec, ErrorWords, Filter, KeyNeed,
    Method, ParseError, ParseFn, RawItem, RequestContext, RequestFn, Routes,
};
pub use html::{clean_text, strip_tags};
pub use keys::{InMemoryKeyStore, KeyState, KeyStateStore, KeyStatus, key_id};
pub use limiter::{SharedLimiter, SharedSlot};
pub use router::{EngineInfo, Router, RouterBuilder};
/// The environment variables trawl reads (one registry for every crate).
pub use trawl_core::vars;
pub use types::{
    EngineOutcome, Filters, Folded, Freshness, Hit, OutcomeKind, Provenance, Route, SafeSearch,
    SearchData, SearchRequest, Selection,
};
