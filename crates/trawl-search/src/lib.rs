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
//! # Configuration ([`SearchConfig::from_env`])
//!
//! | variable | meaning |
//! |---|---|
//! | `TRAWL_<ENGINE>_URL` | base URL of any engine (`TRAWL_DUCKDUCKGO_URL`, `TRAWL_BRAVE_API_URL`, …); loopback allowed |
//! | `TRAWL_SEARXNG_URL` | a SearXNG instance with `format=json` enabled (no default) |
//! | `BRAVE_API_KEY`, `TAVILY_API_KEY`, `EXA_API_KEY`, `SERPER_API_KEY`, `SERPAPI_API_KEY`, `JINA_API_KEY`, `FIRECRAWL_API_KEY`, `MARGINALIA_API_KEY`, `PARALLEL_API_KEY`, `BAIDU_API_KEY`, `TRAWL_X_COOKIES_FILE` (cookies files) | keys; several comma-separated keys rotate |
//! | `GITHUB_TOKEN`, `STACKEXCHANGE_KEY` | optional keys that raise those APIs' limits |
//! | `TRAWL_TAVILY_KEYLESS=1` | use Tavily's documented keyless mode when no key is set |
//! | `TRAWL_DISABLED_ENGINES` | engines removed from every route and explicit list ([`vars::DISABLED_ENGINES`]) |
//! | `TRAWL_SEARCH_TIMEOUT_MS` | per-engine deadline (default 8000) |
//! | `TRAWL_USER_AGENT` | User-Agent for API engines |
//!
//! ```no_run
//! # async fn demo() {
//! use trawl_search::{Router, SearchConfig, SearchRequest};
//! let router = Router::builder(SearchConfig::from_env()).build();
//! let data = router.search(&SearchRequest::new("rust async")).await;
//! for hit in &data.hits {
//!     println!("{} {} {:.4}", hit.rank, hit.url, hit.fused_score);
//! }
//! # }
//! ```

#![forbid(unsafe_code)]

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
