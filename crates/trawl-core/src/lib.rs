//! trawl-core: the contracts every face of trawl speaks.
//!
//! The [`Envelope`] wraps every answer (CLI `--json`, MCP, library), [`ErrorCode`] is the
//! stable list of error codes, [`TrawlError`] the error
//! asked by predicate with its redacted chain of causes, [`Document`] is what a read produces, and
//! [`handle_for_url`] turns a URL into the short, stable name an agent uses to come back to
//! it; [`swar`] tests classes of bytes eight at a time for the scans over every page's
//! text; [`vars`] names and documents every environment variable trawl reads, with how far
//! each is trusted; [`redact`] is the one place that decides what of a URL, a key or an
//! error may be shown; [`SharedLimiter`] is the seam through which a shared store gives the
//! search router rate limits that hold across replicas, and [`SharedBackoff`] the one through
//! which it keeps hosts' back-off for every process. No I/O lives here.

#![forbid(unsafe_code)]

mod canonical;
pub mod caps;
mod code;
mod document;
mod envelope;
mod error;
mod handle;
mod lazy;
pub mod redact;
mod shared_backoff;
mod shared_limit;
mod spelling;
mod spoken;
pub mod swar;
pub mod vars;

pub use canonical::{
    ascii_lowercase, canonical_text, canonical_url, credential_params, is_canonical,
    is_credential_param, is_tracking_param, is_view_copy, unwrap_redirect,
};
pub use code::ErrorCode;
pub use document::{Attempt, Document, FetchedVia, HeadMeta, ImageInfo, PageType};
pub use envelope::{CONTRACT_VERSION, Envelope, ErrorBody, Meta};
pub use error::{TrawlError, TriedFirst};
pub use handle::{handle_for_url, is_valid_handle};
pub use lazy::Lazy;
pub use redact::{SafeUrl, Scrubber, Secret, error_chain, redact_text, redact_url, scrub};
pub use shared_backoff::{BackoffFuture, MAX_BACKOFF, SharedBackoff, http_date, requested_wait};
pub use shared_limit::{SharedLimiter, SharedSlot, SlotFuture};
pub use spelling::{did_you_mean, did_you_mean_note};
pub use spoken::spoken_duration;
