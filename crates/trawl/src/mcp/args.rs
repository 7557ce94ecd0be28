//! Command-line arguments of `trawl mcp` and `trawl serve` (clap types only). They live here
//! rather than in `cli.rs` so the MCP faces keep their flags in one place; `cli.rs` only
//! names the two subcommands.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use crate::cli::NetArgs;
use crate::settings::{BaseUrl, CrawlCount, Flags, Seconds, Words, parse_flag};

/// Flags shared by both MCP transports. Each sets the setting of the same name (declared,
/// with its environment variable, config-file key and default, in `settings/table.rs`).
#[derive(Debug, Args, Clone)]
pub struct ToolServerArgs {
    /// Most tool calls running at once; further calls queue (0 = no limit; default 16;
    /// also TRAWL_MAX_CONCURRENT or `max_concurrent` in the config file).
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub max_concurrent: Option<usize>,
    /// How long a queued call waits for a free slot before it is refused as busy
    /// (error code rate_limited, retryable), in seconds (0 = wait as long as it takes;
    /// default 30; also TRAWL_QUEUE_TIMEOUT or `queue_timeout` in the config file).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_parser = parse_flag::<Seconds>,
        value_name = "SECONDS"
    )]
    pub queue_timeout: Option<Seconds>,
    /// On SIGTERM or Ctrl-C: how long running calls may take to finish before the server
    /// exits anyway, in seconds. New calls are refused meanwhile (default 20; also
    /// TRAWL_SHUTDOWN_GRACE or `shutdown_grace` in the config file).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_parser = parse_flag::<Seconds>,
        value_name = "SECONDS"
    )]
    pub shutdown_grace: Option<Seconds>,
    /// Serve reading only: start even when no search engine is usable, offering web_fetch
    /// and web_open without the search tools (also TRAWL_FETCH_ONLY or `fetch_only`).
    #[arg(long)]
    pub fetch_only: bool,
    /// Also append the request log (one line per tool call) to this file (also
    /// TRAWL_LOG_FILE or `log_file` in the config file).
    #[arg(long, value_name = "PATH")]
    pub log_file: Option<PathBuf>,
    /// Rotate the log file when it would pass this size, in bytes (0 = never rotate;
    /// default 10 MiB; also TRAWL_LOG_MAX_BYTES or `log_max_bytes`).
    #[arg(long, value_name = "BYTES")]
    pub log_max_bytes: Option<u64>,
    /// Rotated log files to keep (FILE.1 … FILE.N; default 5; also TRAWL_LOG_KEEP or
    /// `log_keep`).
    #[arg(long, value_name = "N")]
    pub log_keep: Option<usize>,
    /// Largest JSON-RPC message accepted, in bytes: one line on stdio, one request body
    /// over HTTP. A longer one is refused with a JSON-RPC error (default 4 MiB; also
    /// TRAWL_MAX_MESSAGE_BYTES or `max_message_bytes`).
    #[arg(long, value_name = "BYTES")]
    pub max_message_bytes: Option<usize>,
    /// Don't write the request log to stderr (also TRAWL_LOG_QUIET or `log_quiet`).
    #[arg(long)]
    pub log_quiet: bool,
    /// Crawls `web_crawl` runs at once in this server; further starts are refused as busy
    /// (default 4; also TRAWL_MAX_CRAWLS or `max_crawls` in the config file).
    #[arg(long, value_parser = parse_flag::<CrawlCount>, value_name = "N")]
    pub max_crawls: Option<CrawlCount>,
    /// Most pages one crawl started by `web_crawl` stores (default 1000; also
    /// TRAWL_MAX_CRAWL_PAGES or `max_crawl_pages` in the config file).
    #[arg(long, value_parser = parse_flag::<CrawlCount>, value_name = "N")]
    pub max_crawl_pages: Option<CrawlCount>,
}

impl ToolServerArgs {
    /// The flags given that set settings, by flag name.
    pub fn setting_flags(&self) -> Flags {
        let mut flags = Flags::default();
        set(&mut flags, "--max-concurrent", self.max_concurrent);
        set(&mut flags, "--queue-timeout", self.queue_timeout);
        set(&mut flags, "--shutdown-grace", self.shutdown_grace);
        set(&mut flags, "--fetch-only", self.fetch_only.then_some(true));
        set(&mut flags, "--log-file", self.log_file.clone().map(Some));
        set(&mut flags, "--log-max-bytes", self.log_max_bytes);
        set(&mut flags, "--log-keep", self.log_keep);
        set(&mut flags, "--max-message-bytes", self.max_message_bytes);
        set(&mut flags, "--log-quiet", self.log_quiet.then_some(true));
        set(&mut flags, "--max-crawls", self.max_crawls);
        set(&mut flags, "--max-crawl-pages", self.max_crawl_pages);
        flags
    }
}

/// Record `flag` when it was given.
fn set<T: std::any::Any>(flags: &mut Flags, flag: &'static str, value: Option<T>) {
    if let Some(value) = value {
        flags.set(flag, value);
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

/// `trawl serve`: the MCP server over streamable HTTP. Each flag sets the setting of the
/// same name (see `settings/table.rs`).
#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the log says which; default
    /// 127.0.0.1:8787; also TRAWL_LISTEN or `listen` in the config file).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// File holding the bearer token clients must send (instead of TRAWL_TOKEN; also
    /// TRAWL_TOKEN_FILE or `token_file` in the config file).
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Allow listening on a non-loopback address without a token (only behind something
    /// that authenticates; also `insecure_no_auth` in the config file).
    #[arg(long)]
    pub insecure_no_auth: bool,
    /// A browser origin allowed to call /mcp, e.g. https://app.example.com (repeatable;
    /// loopback origins are always allowed, requests without Origin always pass; also
    /// TRAWL_ALLOWED_ORIGINS or `allowed_origins` in the config file).
    #[arg(long = "allow-origin", value_delimiter = ',', value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// A host name clients use to reach this server, accepted in the Host header
    /// (repeatable; loopback names and the listen address are always accepted; also
    /// TRAWL_PUBLIC_HOSTS or `public_hosts` in the config file).
    #[arg(long = "public-host", value_delimiter = ',', value_name = "HOST")]
    pub public_hosts: Vec<String>,
    /// The URL clients reach this server at, e.g. https://trawl.example.com behind a TLS
    /// reverse proxy: the compatible API's job `url` and `next` links start with it
    /// (default: http:// and the request's Host; also TRAWL_PUBLIC_URL or `public_url` in
    /// the config file).
    #[arg(long = "public-url", value_parser = parse_flag::<BaseUrl>, value_name = "URL")]
    pub public_url: Option<BaseUrl>,
    /// Most HTTP connections open at once. At the limit a new connection replaces the one
    /// idle longest; it is refused only when all are busy. Never more than the descriptor
    /// limit (raised to its hard limit at start) minus 256 (default 1024; also
    /// TRAWL_MAX_CONNECTIONS or `max_connections` in the config file).
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Seconds a connection may take to send a request's headers, counted from when it opens
    /// or its previous response ended; then it is closed (default 10; also
    /// TRAWL_HEADER_TIMEOUT or `header_timeout` in the config file).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_parser = parse_flag::<Seconds>,
        value_name = "SECONDS"
    )]
    pub header_timeout: Option<Seconds>,
    /// Seconds a connection may go without a byte in either direction before it is closed
    /// (answers send a keep-alive every 15 s, so this must be longer; default 60; also
    /// TRAWL_IDLE_TIMEOUT or `idle_timeout` in the config file).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_parser = parse_flag::<Seconds>,
        value_name = "SECONDS"
    )]
    pub idle_timeout: Option<Seconds>,
    /// Most MCP sessions alive at once; a new session ends the one idle longest (default
    /// 1000; also TRAWL_MAX_SESSIONS or `max_sessions` in the config file).
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<usize>,
    /// Seconds an MCP session lives without a request before it ends (default 300; also
    /// TRAWL_SESSION_IDLE_TIMEOUT or `session_idle_timeout` in the config file).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_parser = parse_flag::<Seconds>,
        value_name = "SECONDS"
    )]
    pub session_idle_timeout: Option<Seconds>,
    #[command(flatten)]
    pub server: ToolServerArgs,
    #[command(flatten)]
    pub net: NetArgs,
}

impl ServeArgs {
    /// The flags given that set settings, by flag name, the tool server's included.
    pub fn setting_flags(&self) -> Flags {
        let mut flags = self.server.setting_flags();
        set(&mut flags, "--listen", self.listen);
        set(
            &mut flags,
            "--token-file",
            self.token_file.clone().map(Some),
        );
        set(
            &mut flags,
            "--insecure-no-auth",
            self.insecure_no_auth.then_some(true),
        );
        let words = |list: &[String]| (!list.is_empty()).then(|| Words(list.to_vec()));
        set(&mut flags, "--allow-origin", words(&self.allow_origins));
        set(&mut flags, "--public-host", words(&self.public_hosts));
        set(
            &mut flags,
            "--public-url",
            self.public_url.clone().map(Some),
        );
        set(&mut flags, "--max-connections", self.max_connections);
        set(&mut flags, "--header-timeout", self.header_timeout);
        set(&mut flags, "--idle-timeout", self.idle_timeout);
        set(&mut flags, "--max-sessions", self.max_sessions);
        set(
            &mut flags,
            "--session-idle-timeout",
            self.session_idle_timeout,
        );
        flags
    }
}
