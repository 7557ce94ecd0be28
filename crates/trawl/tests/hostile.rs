//! Issue 27's hostile documents and files through the binary (loopback only).
//!
//! - `pdf`: a PDF bomb made by the test ends in `too_large` with bounded peak memory.
//! - `fence`: an injected, oversized title is inside the fence and cut; JSON-LD is cut.
//! - `dotenv`: a `.env` that is a device, a FIFO, a link out or a secret is not read.
//! - `local`: files and stdin over `--max-bytes` are `too_large`; single-line fields stay one line.
//! - `sheets`: ods and xls bombs read within bounded memory or refused as `too_large`.
//! - `sitemaps`: a sitemap flood (4 × 1.6 M URLs) maps and crawls in bounded memory and store.

#![allow(unsafe_code, reason = "FIFOs are made with mkfifo; std has no wrapper")]

mod dotenv;
pub mod fence;
mod local;
mod pdf;
pub mod sheets;
pub mod sitemaps;
