//! The command line as typed: clap types only, no logic.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// trawl: web search and page reading for AI agents, in one binary.
#[derive(Debug, Parser)]
#[command(name = "trawl", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Config file (default: ~/.config/trawl/config.toml).
    #[arg(long, global = true, env = "TRAWL_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read a page (URL, file, or - for stdin) into clean Markdown plus metadata.
    Read(ReadArgs),
    /// Show or inspect trawl's configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration (defaults < config file < .env < environment),
    /// with secrets masked.
    Show(JsonFlag),
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadFormat {
    Markdown,
    Text,
    Json,
}

/// Network flags shared by every command that fetches.
#[derive(Debug, Args, Clone, Default)]
pub struct NetArgs {
    /// Total deadline per fetch, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Body size cap in bytes (0 = no cap; default 10 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_bytes: Option<u64>,
    /// Egress proxy (http, https, socks5, socks5h); also TRAWL_PROXY.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Allow fetching private, loopback and link-local addresses (deliberate internal use).
    #[arg(long)]
    pub allow_private_hosts: bool,
    /// Allow one host name, IP or CIDR range despite the private-address guard (repeatable).
    #[arg(long = "allow-host", value_name = "HOST|CIDR")]
    pub allow_hosts: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// A URL, a file path, or - for standard input.
    #[arg(value_name = "URL|FILE|-")]
    pub input: String,
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReadFormat::Markdown)]
    pub format: ReadFormat,
    /// Print only the body, no header (for pipes).
    #[arg(long, short)]
    pub quiet: bool,
    /// Base URL for a file or stdin (resolves relative links, names the handle).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Keep comment sections.
    #[arg(long)]
    pub comments: bool,
    #[command(flatten)]
    pub net: NetArgs,
}
