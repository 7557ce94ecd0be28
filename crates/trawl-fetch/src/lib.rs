//! trawl-fetch: fetches a URL without letting it reach what it must not.
//!
//! The [`Guard`] checks every hop before the request (scheme, userinfo, odd IP spellings,
//! literal addresses) and again at connect time through reqwest's resolver hook, so the
//! connection goes to exactly the addresses that were checked. The [`Fetcher`] follows
//! redirects by hand, caps the body while streaming it, and recognises anti-bot answers.

#![forbid(unsafe_code)]

mod block;
mod fetcher;
mod guard;
#[cfg(feature = "impersonate")]
mod impersonate;
mod ip;
mod resolver;
mod tls;
mod transport;

pub use block::{Block, Vendor, detect as detect_block};
pub use fetcher::{
    Conditional, DEFAULT_MAX_BYTES, DEFAULT_USER_AGENT, FetchConfig, FetchedPage, Fetcher,
    IMPERSONATION_AVAILABLE, Tier, normalize_proxy,
};
pub use guard::{Guard, GuardPolicy, HostRule, Lookup, SystemLookup};
pub use ip::non_public_reason;
pub use tls::{TlsRoots, client_config as tls_client_config};
