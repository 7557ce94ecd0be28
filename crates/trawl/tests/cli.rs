//! The `trawl` binary end to end, against loopback servers only.
//!
//! - `qread`: `trawl read --query` (passages within a budget) and `--changes` (new, same,
//!   changed with a diff, removed; `open --version`).
//! - `crawl_changes`: `trawl crawl --changes ID` on SQLite and Redis (new, same by 304,
//!   changed with the old copy kept, removed as gone or unlinked; bad ids refused).
//! - `crawl_ports`: a crawl and a map keep to the start URL's port, one test per discovery
//!   path.
//! - `read`: `trawl read` on pages, files and stdin; guard refusals; exit codes.
//! - `documents`: Office, OpenDocument, notebooks, CSV and feeds over HTTP, files, stdin.
//! - `config`: layering and secret masking of `trawl config show`.
//! - `trust`: what a `.env` may set (API keys only), checked against a loopback canary;
//!   every variable the code reads is documented in `trawl_core::vars`.
//! - `search`: `trawl search`, `trawl engines`, `trawl doctor` against fake engines.
//! - `sites`: site readers through the binary (their APIs on loopback), `trawl sites`.
//! - `backoff`: a host's Retry-After holds for the next process on the store (SQLite,
//!   Redis), for page reads and search engines alike.
//! - `store_faults`: a store that is a directory, corrupt, read-only or on a full disk.
//! - `mcp`: `trawl mcp` and `trawl serve` through rmcp's client: every tool, errors,
//!   progress, cancellation, concurrency limits, bearer auth, Origin checks, SIGTERM.
//! - `ecosystem`: the files agent harnesses read (`integrations/`, `server.json`), and
//!   every stdio entry started for a real MCP handshake.
//! - `guides`: ARCHITECTURE.md (and the paths CONTRIBUTING.md and README.md give) name
//!   only files, modules and crates that exist, and every engine and tool.

mod agent;
mod backoff;
mod browser;
mod config;
mod crawl;
mod crawl_changes;
mod crawl_changes_duplicates;
mod crawl_export;
mod crawl_killed;
mod crawl_ports;
mod crawl_resume_counts;
mod documents;
mod ecosystem;
mod find_titles;
mod friction;
mod guides;
mod hints;
mod mcp;
mod newuser;
mod qread;
mod read;
mod read_files;
mod readme_usage;
mod search;
mod searxng;
mod sites;
mod store_backend;
mod store_faults;
mod trust;
mod util;

// Issue 7: SSRF table through the binary and the agent, secrets, bad input, Unicode.
mod hardening;
// Issue 27: hostile documents and files (a PDF bomb, ...).
pub mod hostile;
