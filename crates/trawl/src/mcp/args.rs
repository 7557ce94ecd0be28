//! Command-line arguments of `trawl mcp` and `trawl serve` (clap types only). They live here
//! rather than in `cli.rs` so the MCP faces keep their flags in one place; `cli.rs` only
//! names the two subcommands.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use clap::builder::BoolishValueParser;
use trawl_core::vars;

use crate::cli::NetArgs;

/// Flags shared by both MCP transports.
#[derive(Debug, Args, Clone)]
pub struct ToolServerArgs {
    /// Most tool calls running at once; further calls queue (0 = no limit).
    #[arg(
        long,
        env = vars::MAX_CONCURRENT,
        allow_negative_numbers = true,
        default_value_t = 16,
        value_name = "N"
    )]
    pub max_concurrent: usize,
    /// How long a queued call waits for a free slot before it is refused as busy
    /// (error code rate_limited, retryable), in seconds (0 = wait as long as it takes).
    #[arg(
        long,
        env = vars::QUEUE_TIMEOUT,
        allow_negative_numbers = true,
        default_value_t = 30.0,
        value_name = "SECONDS"
    )]
    pub queue_timeout: f64,
    /// On SIGTERM or Ctrl-C: how long running calls may take to finish before the server
    /// exits anyway, in seconds. New calls are refused meanwhile.
    #[arg(
        long,
        env = vars::SHUTDOWN_GRACE,
        allow_negative_numbers = true,
        default_value_t = 20.0,
        value_name = "SECONDS"
    )]
    pub shutdown_grace: f64,
    /// Serve reading only: start even when no search engine is usable, offering web_fetch
    /// and web_open without the search tools.
    #[arg(long, env = vars::FETCH_ONLY, value_parser = BoolishValueParser::new())]
    pub fetch_only: bool,
    /// Also append the request log (one line per tool call) to this file.
    #[arg(long, env = vars::LOG_FILE, value_name = "PATH")]
    pub log_file: Option<PathBuf>,
    /// Rotate the log file when it would pass this size, in bytes (0 = never rotate).
    #[arg(long, env = vars::LOG_MAX_BYTES, default_value_t = 10 * 1024 * 1024, value_name = "BYTES")]
    pub log_max_bytes: u64,
    /// Rotated log files to keep (FILE.1 … FILE.N).
    #[arg(long, env = vars::LOG_KEEP, default_value_t = 5, value_name = "N")]
    pub log_keep: usize,
    /// Largest JSON-RPC message accepted, in bytes: one line on stdio, one request body
    /// over HTTP. A longer one is refused with a JSON-RPC error.
    #[arg(
        long,
        env = vars::MAX_MESSAGE_BYTES,
        default_value_t = 4 * 1024 * 1024,
        value_name = "BYTES"
    )]
    pub max_message_bytes: usize,
    /// Don't write the request log to stderr.
    #[arg(long, env = vars::LOG_QUIET, value_parser = BoolishValueParser::new())]
    pub log_quiet: bool,
    /// Crawls `web_crawl` runs at once in this server; further starts are refused as busy
    /// (default 4; also TRAWL_MAX_CRAWLS or `max_crawls` in the config file).
    #[arg(long, value_name = "N")]
    pub max_crawls: Option<usize>,
    /// Most pages one crawl started by `web_crawl` stores (default 1000; also
    /// TRAWL_MAX_CRAWL_PAGES or `max_crawl_pages` in the config file).
    #[arg(long, value_name = "N")]
    pub max_crawl_pages: Option<usize>,
}

impl ToolServerArgs {
    /// The flags that set settings, by flag name, as text.
    pub fn setting_flags(&self) -> Vec<(&'static str, String)> {
        let mut flags = Vec::new();
        if let Some(n) = self.max_crawls {
            flags.push(("--max-crawls", n.to_string()));
        }
        if let Some(n) = self.max_crawl_pages {
            flags.push(("--max-crawl-pages", n.to_string()));
        }
        flags
    }
}

/// `trawl mcp`: the MCP server on standard input and output.
#[derive(Debug, Args, Clone)]
pub struct McpArgs {
    #[command(flatten)]
    pub server: ToolServerArgs,
    #[command(flatten)]
    pub net: NetArgs,
}

/// `trawl serve`: the MCP server over streamable HTTP.
#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the log says which).
    #[arg(
        long,
        env = vars::LISTEN,
        default_value = "127.0.0.1:8787",
        value_name = "ADDR"
    )]
    pub listen: SocketAddr,
    /// File holding the bearer token clients must send (instead of TRAWL_TOKEN).
    #[arg(long, env = vars::TOKEN_FILE, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Allow listening on a non-loopback address without a token (only behind something
    /// that authenticates).
    #[arg(long)]
    pub insecure_no_auth: bool,
    /// A browser origin allowed to call /mcp, e.g. https://app.example.com (repeatable;
    /// loopback origins are always allowed, requests without Origin always pass).
    #[arg(
        long = "allow-origin",
        env = vars::ALLOWED_ORIGINS,
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub allow_origins: Vec<String>,
    /// A host name clients use to reach this server, accepted in the Host header
    /// (repeatable; loopback names and the listen address are always accepted).
    #[arg(
        long = "public-host",
        env = vars::PUBLIC_HOSTS,
        value_delimiter = ',',
        value_name = "HOST"
    )]
    pub public_hosts: Vec<String>,
    /// Most HTTP connections open at once. At the limit a new connection replaces the one
    /// idle longest; it is refused only when all are busy. Never more than the descriptor
    /// limit (raised to its hard limit at start) minus 256.
    #[arg(
        long,
        env = vars::MAX_CONNECTIONS,
        default_value_t = 1024,
        value_name = "N"
    )]
    pub max_connections: usize,
    /// Seconds a connection may take to send a request's headers, counted from when it opens
    /// or its previous response ended; then it is closed.
    #[arg(
        long,
        env = vars::HEADER_TIMEOUT,
        allow_negative_numbers = true,
        default_value_t = 10.0,
        value_name = "SECONDS"
    )]
    pub header_timeout: f64,
    /// Seconds a connection may go without a byte in either direction before it is closed
    /// (answers send a keep-alive every 15 s, so this must be longer).
    #[arg(
        long,
        env = vars::IDLE_TIMEOUT,
        allow_negative_numbers = true,
        default_value_t = 60.0,
        value_name = "SECONDS"
    )]
    pub idle_timeout: f64,
    /// Most MCP sessions alive at once; a new session ends the one idle longest.
    #[arg(
        long,
        env = vars::MAX_SESSIONS,
        default_value_t = 1000,
        value_name = "N"
    )]
    pub max_sessions: usize,
    /// Seconds an MCP session lives without a request before it ends.
    #[arg(
        long,
        env = vars::SESSION_IDLE_TIMEOUT,
        allow_negative_numbers = true,
        default_value_t = 300.0,
        value_name = "SECONDS"
    )]
    pub session_idle_timeout: f64,
    #[command(flatten)]
    pub server: ToolServerArgs,
    #[command(flatten)]
    pub net: NetArgs,
}
