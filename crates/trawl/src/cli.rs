//! The command line as typed: clap types, and the flags that set settings handed to
//! `settings` as they were parsed (with each setting's own parser).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use trawl_core::vars;
use trawl_store::StoreFallback;

use crate::settings::{Flags, RedisUrl, StoreLocation, parse_flag};

pub use crate::net_args::NetArgs;

// The optional features compiled in, as words of `trawl --version` (a packaged build says
// whether it can impersonate a browser's TLS without running it).
#[cfg(feature = "render")]
macro_rules! render_word {
    () => {
        " render"
    };
}
#[cfg(not(feature = "render"))]
macro_rules! render_word {
    () => {
        ""
    };
}
#[cfg(feature = "impersonate")]
macro_rules! impersonate_word {
    () => {
        " impersonate"
    };
}
#[cfg(not(feature = "impersonate"))]
macro_rules! impersonate_word {
    () => {
        ""
    };
}

/// `trawl --version`: `0.1.0 (features: render impersonate)`.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (features:",
    render_word!(),
    impersonate_word!(),
    ")"
);

/// trawl: web search and page reading for AI agents, in one binary.
#[derive(Debug, Parser)]
#[command(name = "trawl", version = VERSION, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Config file (default: ~/.config/trawl/config.toml).
    #[arg(long, global = true, env = vars::CONFIG, value_name = "PATH", help_heading = "Global options")]
    pub config: Option<PathBuf>,

    /// Store file (default: ~/.cache/trawl/trawl.db; `:memory:` keeps nothing); also TRAWL_STORE.
    #[arg(long, global = true, help_heading = "Global options", value_name = "PATH", value_parser = parse_flag::<StoreLocation>)]
    pub store: Option<StoreLocation>,

    /// Keep the store in this Redis, shared by every replica (`redis://host:port/db`);
    /// also TRAWL_REDIS_URL (real environment only, never `.env`) or config `redis`.
    #[arg(long, global = true, help_heading = "Global options", value_name = "URL", value_parser = parse_flag::<RedisUrl>)]
    pub redis: Option<RedisUrl>,

    /// When the Redis does not answer at start: `memory` warns and keeps a store private
    /// to this process; `none` (default) fails naming the URL.
    #[arg(long, global = true, help_heading = "Global options", value_name = "MODE", value_parser = parse_flag::<StoreFallback>)]
    pub store_fallback: Option<StoreFallback>,
}

impl Cli {
    /// The flags that set settings, global ones, `net`'s and the servers', by flag name.
    pub fn setting_flags(&self, net: &NetArgs) -> Flags {
        let mut flags = net.setting_flags();
        if let Some(store) = &self.store {
            flags.set("--store", Some(store.clone()));
        }
        if let Some(redis) = &self.redis {
            flags.set("--redis", Some(redis.clone()));
        }
        if let Some(fallback) = self.store_fallback {
            flags.set("--store-fallback", fallback);
        }
        match &self.command {
            Command::Mcp(a) => flags.extend(a.server.setting_flags()),
            Command::Serve(a) => flags.extend(a.setting_flags()),
            _ => {}
        }
        flags
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read a page (URL, file, or - for stdin) into clean Markdown plus metadata.
    Read(ReadArgs),
    /// Search many engines at once: fused, de-duplicated hits, each with its provenance.
    Search(SearchArgs),
    /// List a site's URLs (robots.txt, sitemaps, llms.txt, feeds, start page) without reading its pages.
    Map(crate::commands::map::MapArgs),
    /// Read a whole site into the store (robots.txt obeyed, resumable), or again to see what changed (--changes ID); or list, inspect, cancel crawls.
    Crawl(crate::commands::crawl::CrawlArgs),
    /// List the search engines: key needed or set, correlation group, filters, routes.
    Engines(JsonFlag),
    /// Check each configured engine and reading one page, live, with a hint per failure.
    Doctor(DoctorArgs),
    /// Page through or search inside documents already read, with no network.
    Open(OpenArgs),
    /// Inspect or trim the local store.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// See or steer which fetch tier or hosted reader each site starts with.
    Sites(SitesArgs),
    /// Run a local SearXNG for trawl (Docker, else a git checkout in a venv).
    #[command(subcommand)]
    Searxng(SearxngCommand),
    /// Show or inspect trawl's configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Serve the agent tools over MCP on stdin/stdout (one local agent).
    Mcp(crate::mcp::McpArgs),
    /// Serve the agent tools over MCP streamable HTTP at /mcp, with /healthz and /metrics.
    ///
    /// The same listener answers Firecrawl's API (/v1 and /v2: scrape, batch scrape, crawl,
    /// map, search) and Jina Reader's (/r/URL, /s/QUERY) behind the same bearer token, so
    /// their SDKs and integrations point at trawl by changing one URL (see the README's
    /// "Using trawl where Firecrawl or Jina Reader is expected"). Behind a TLS reverse
    /// proxy, --public-url sets the base of the links those answers carry.
    Serve(crate::mcp::ServeArgs),
}

#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// Counts and sizes of what is stored.
    Stats(JsonFlag),
    /// Remove everything stored (documents, searches, key state, site memory); asks first
    /// on a terminal.
    Clear(ClearArgs),
    /// Drop what is past its retention and evict above the size bound.
    Prune(JsonFlag),
    /// Check the store: that it opens, is a trawl store, is not damaged, can be written.
    Doctor(JsonFlag),
}

#[derive(Debug, Subcommand)]
pub enum SearxngCommand {
    /// Write a hardened SearXNG configuration (loopback, JSON on, no limiter, a generated
    /// secret, your proxy), start it, wait until it answers, and point trawl at it.
    Up(SearxngUpArgs),
    /// Where the local SearXNG lives and whether it answers (exit 1 when it does not).
    Status(JsonFlag),
    /// Stop it and remove `searxng_url` from the config file.
    Down(JsonFlag),
}

#[derive(Debug, Args)]
pub struct SearxngUpArgs {
    /// The loopback port it listens on.
    #[arg(long, default_value_t = 8888)]
    pub port: u16,
    /// Use a git checkout in a venv even when Docker is on the PATH.
    #[arg(long)]
    pub no_docker: bool,
    /// Seconds to wait for it to answer.
    #[arg(long, default_value_t = 120.0)]
    pub wait: f64,
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `trawl sites [SITE]`, `trawl sites pin SITE TIER|READER`, `trawl sites reset [SITE]`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SitesArgs {
    #[command(subcommand)]
    pub action: Option<SitesCommand>,
    /// Show only this site (a host, or a URL taken by its host).
    pub site: Option<String>,
    /// Print the Envelope as JSON.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum SitesCommand {
    /// Make every read of SITE start with a tier (http, impersonate, render) or a hosted
    /// reader (jina, tavily, firecrawl, exa); kept until reset.
    Pin {
        /// A host, or a URL taken by its host.
        site: String,
        /// http, impersonate, render, jina, tavily, firecrawl or exa.
        reader: String,
    },
    /// Forget SITE (pinned or learned), or every site.
    Reset {
        /// A host, or a URL taken by its host; every site when left out.
        site: Option<String>,
    },
}

#[derive(Debug, Args)]
#[command(disable_version_flag = true)]
pub struct OpenArgs {
    /// The document's handle (host~hash), as printed by `read`.
    #[arg(value_name = "HANDLE")]
    pub handle: Option<String>,
    /// Which page (from 1).
    #[arg(long, allow_negative_numbers = true)]
    pub page: Option<u32>,
    /// Show the passages matching these words instead of a page.
    #[arg(long, value_name = "WORDS")]
    pub find: Option<String>,
    /// With --find: search every stored document.
    #[arg(long)]
    pub all: bool,
    /// With --find: search the pages one crawl stored (its id, from `trawl crawl list`).
    #[arg(long, value_name = "ID", conflicts_with_all = ["all", "handle"])]
    pub crawl: Option<String>,
    /// Page size in estimated tokens (0 = whole document).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub page_size_tokens: Option<u32>,
    /// At most this many passages for --find.
    #[arg(long, allow_negative_numbers = true)]
    pub limit: Option<u32>,
    /// An older version of the document, as kept by `trawl read --changes` (the latest is
    /// the stored copy itself).
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "find",
        allow_negative_numbers = true
    )]
    pub version: Option<u32>,
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print only the text (the page, or the passages found), no header or fence: for
    /// pipes, as `trawl read -q`.
    #[arg(long, short = 'q', visible_alias = "quiet")]
    pub raw: bool,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration in the config file's syntax (flags > environment >
    /// config file > .env (API keys only) > defaults), each value's layer as a comment,
    /// secrets masked, and the `.env` lines that were ignored.
    Show(JsonFlag),
    /// Print every environment variable trawl reads, with its trust class (Markdown).
    Vars,
}

#[derive(Debug, Args)]
pub struct ClearArgs {
    /// Do not ask before removing everything.
    #[arg(long, short)]
    pub yes: bool,
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
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

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// URLs (at most 20, read concurrently), files (any number: `docs/*.docx`), a folder
    /// with --recursive, or - for standard input.
    #[arg(value_name = "URL|FILE|-", required = true, num_args = 1..)]
    pub inputs: Vec<String>,
    /// Read every file under a folder given as an input (hidden files and folders skipped).
    #[arg(long, short = 'r')]
    pub recursive: bool,
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
    /// Which page of the document to print (from 1).
    #[arg(long, allow_negative_numbers = true)]
    pub page: Option<u32>,
    /// Page size in estimated tokens (default 4000; 0 = whole document).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub page_size_tokens: Option<u32>,
    /// Only the passages that best match these words, in document order, within
    /// --max-tokens, marked where text was left out (the whole document is still stored).
    #[arg(long, value_name = "WORDS", conflicts_with_all = ["page", "changes"])]
    pub query: Option<String>,
    /// With --query: the most estimated tokens given per document (default 1500).
    #[arg(
        long,
        value_name = "N",
        requires = "query",
        allow_negative_numbers = true
    )]
    pub max_tokens: Option<u32>,
    /// Read again and say how the page changed since the stored copy: new, same, changed
    /// (with a unified diff) or removed; the stored copy is kept as an older version.
    #[arg(long, conflicts_with_all = ["offline", "page"])]
    pub changes: bool,
    /// Refetch even when the store has a fresh copy.
    #[arg(long, conflicts_with = "offline")]
    pub fresh: bool,
    /// Answer only from the store; never touch the network.
    #[arg(long)]
    pub offline: bool,
    /// Print page text without the untrusted-content fence.
    #[arg(long)]
    pub raw: bool,
    /// Read in the browser and save a PNG screenshot of the page (after any --action) to
    /// FILE; screenshots taken by actions go beside it as FILE-actionN.png.
    #[arg(long, value_name = "FILE", help_heading = "Browser")]
    pub screenshot: Option<std::path::PathBuf>,
    /// With --screenshot: the whole page, not only the window (cut at 8,000 px, said so).
    #[arg(long, requires = "screenshot", help_heading = "Browser")]
    pub full_page: bool,
    /// The browser window for --screenshot and --action, WIDTHxHEIGHT (default 1280x800).
    #[arg(long, value_name = "WxH", help_heading = "Browser")]
    pub viewport: Option<String>,
    /// A browser step before reading, repeatable, done in order: wait:MS, wait:SELECTOR,
    /// click:SELECTOR, click-all:SELECTOR, write:TEXT, write:SELECTOR=>TEXT, press:KEY,
    /// scroll:down[:N], scroll:up[:N], scroll:end, screenshot[:full], scrape. No JavaScript.
    #[arg(long = "action", value_name = "STEP", help_heading = "Browser")]
    pub actions: Vec<String>,
    /// Read in the browser once an element matches SELECTOR (--action wait:SELECTOR).
    #[arg(long, value_name = "SELECTOR", help_heading = "Browser")]
    pub wait_for: Option<String>,
    #[command(flatten)]
    pub net: NetArgs,
}

#[derive(Debug, Args)]
#[command(mut_arg("timeout", |a| a.help("Deadline for each engine, in seconds (default 8)")))]
pub struct SearchArgs {
    /// What to search for (several words are joined).
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Which set of engines to ask: web, dev, academic, all, fast, social, news, or a route
    /// named in the config file's `[routes]`.
    #[arg(long, default_value = "web")]
    pub route: String,
    /// Exact engines to ask, comma-separated (overrides --route; see `trawl engines`).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub engines: Vec<String>,
    /// How many fused hits to print (0 = all).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10,
        allow_negative_numbers = true
    )]
    pub max_results: usize,
    /// Another phrasing of the same question, fused with it (repeatable).
    #[arg(long, value_name = "QUERY")]
    pub expand: Vec<String>,
    /// Only results from this site.
    #[arg(long, value_name = "DOMAIN")]
    pub site: Option<String>,
    /// Only recent results.
    #[arg(long, value_parser = ["day", "week", "month", "year"])]
    pub freshness: Option<String>,
    /// Language code, e.g. en.
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
    /// Region code, e.g. us.
    #[arg(long, value_name = "CODE")]
    pub region: Option<String>,
    /// Adult-content filtering.
    #[arg(long, value_parser = ["off", "moderate", "strict"])]
    pub safesearch: Option<String>,
    /// Result page, from 1.
    #[arg(long, allow_negative_numbers = true)]
    pub page: Option<u32>,
    /// Read the top N hits (0-10) and show each with a handle and a query-aware preview.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub read_top: u32,
    /// With --read-top: each read hit shows the page's passages that best match the query,
    /// within this many estimated tokens, instead of a short preview.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_tokens: Option<u32>,
    /// Save every engine's raw response (secrets stripped) into DIR.
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Answer from responses saved with --record instead of the network.
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,
    /// Ask the engines even when the store holds a recent answer to the same search
    /// (answers are kept briefly, as for `web_search`).
    #[arg(long)]
    pub fresh: bool,
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print a failing engine's whole error chain (by default only its cause).
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// --timeout is each engine's deadline here, not a page fetch's (default 8 s).
    #[command(flatten)]
    pub net: NetArgs,
}

#[derive(Debug, Args)]
#[command(mut_arg("timeout", |a| a.help("Deadline for each check, in seconds (default 5)")))]
pub struct DoctorArgs {
    /// Check only this engine (repeatable).
    #[arg(long, value_name = "NAME")]
    pub engine: Vec<String>,
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
    /// --timeout is the deadline of each check (default 5 s).
    #[command(flatten)]
    pub net: NetArgs,
}
