//! Issue 27's hostile documents and files through the binary (loopback only).
//!
//! - `pdf`: a PDF bomb made by the test ends in `too_large` with bounded peak memory.

#![allow(
    unsafe_code,
    reason = "the peak memory of a child is read with wait4; std has no wrapper"
)]

mod pdf;
