//! Issue 7's hardening checks on the binary and the agent tools (loopback only).
//!
//! - `ssrf`: the shared SSRF table through `trawl read` (direct, redirected, `--proxy`) and
//!   through `Agent::web_fetch` with a test lookup, fallback readers never asked.
//! - `secrets`: distinctive fake keys from env, `.env` and the config file never appear in
//!   any output channel, recorded file, log or store.
//! - `bad_input`: every flag and MCP argument out of range, empty, too long or malformed
//!   is `invalid_input` naming the field (exit 2 on the CLI); Unicode queries and URLs work.
//! - `load`: `trawl serve` under a small concurrent load fails no call; SIGTERM lets the
//!   calls in flight finish (the full-scale run is `examples/load.rs`).

mod bad_input;
mod load;
mod secrets;
mod ssrf;
