//! The `trawl` binary end to end, against loopback servers only.
//!
//! - `read`: `trawl read` on pages, files and stdin; guard refusals; exit codes.
//! - `config`: layering and secret masking of `trawl config show`.

mod config;
mod read;
mod util;
