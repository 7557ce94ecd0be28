//! trawl-fetch: fetches a URL without letting it reach what it must not.
//!
//! The [`Guard`] checks every hop before the request (scheme, userinfo, odd IP spellings,
//! literal addresses) and again at connect time through reqwest's resolver hook, so the
//! connection goes to exactly the addresses that were checked. The [`Fetcher`] follows
//! redirects by hand, caps the body while streaming it, and recognises anti-bot answers.
//!
//! Tiers are transports side by side: plain HTTP (`plain`), browser TLS impersonation
//! (`impersonate`, feature `impersonate`) and a headless browser (`render`, feature
//! `render`) whose every request goes through a guard proxy inside trawl. One escalation
//! policy ([`Fetcher::fetch_from`], [`escalate`]) chooses between them.

#![deny(unsafe_code)] // allowed only in render::browser (process control: prctl, waitpid, kill)

mod backoff;
mod block;
pub mod browse;
mod config;
mod encoding;
pub mod escalate;
mod fetcher;
mod guard;
#[cfg(feature = "impersonate")]
mod impersonate;
mod ip;
mod page;
mod plain;
#[cfg(feature = "render")]
pub mod render;
mod resolver;
mod tls;
mod transport;

pub use backoff::{HostBackoff, MAX_BACKOFF, http_date, requested_wait};
pub use block::{Block, Vendor, detect as detect_block};
pub use config::{
    DEFAULT_MAX_BYTES, DEFAULT_USER_AGENT, FetchConfig, RenderConfig, RenderMode, normalize_proxy,
};
pub use fetcher::{
    Browsed, CookieSource, Fetcher, IMPERSONATION_AVAILABLE, KeptErrorPage, LoginWallCheck,
    RENDER_AVAILABLE, RedirectScope, Tier,
};
pub use guard::{Guard, GuardPolicy, HostRule, Lookup, SystemLookup};
pub use ip::non_public_reason;
pub use page::{Conditional, FetchedPage};
pub use tls::{TlsRoots, client_config as tls_client_config};
