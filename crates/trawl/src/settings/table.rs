//! Every setting, declared once: its name in the config file, its type, its default (a
//! named constant below), its doc, and the layers that may set it. To add a setting, add
//! one line here with its doc comment (and, for a new environment variable, its entry in
//! `trawl_core::vars`; for a flag, its clap field parsed with `parse_flag` and handed on in
//! `setting_flags`); the file reader, `config show` and the precedence rule follow.
//!
//! API keys (`[keys]` in the file, the only thing a `.env` may set), routes (`[routes]`)
//! and the per-provider families (`TRAWL_<ENGINE>_URL`, `TRAWL_<ENGINE>_MIN_INTERVAL_MS`)
//! are maps, resolved beside these in [`super::secrets`] and [`super::families`].

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::PathBuf;
use std::time::Duration;

use trawl_core::TrawlError;
use trawl_core::vars;
use trawl_fetch::RenderMode;

use super::declare::{Descriptor, declare_settings};
use super::layers::{Inputs, Setting, Shown, resolve_one};
use super::value::{
    BaseUrl, CrawlCount, Deadline, HostList, Millis, Names, ProxyUrl, Readers, RedisUrl, Seconds,
    StoreLocation, Tabs, Ttl, Words,
};
use trawl_store::StoreFallback as Fallback;

/// Whole-request deadline per fetch.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Connect deadline.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Reads shorter than this many characters try the fallback readers.
pub const DEFAULT_MIN_CHARS: usize = 400;
/// A stored page stays fresh this long, then it is revalidated.
pub const DEFAULT_DOCUMENT_TTL: Duration = Duration::from_secs(86_400);
/// A search answer is cached this long.
pub const DEFAULT_SEARCH_TTL: Duration = Duration::from_secs(900);
/// Bound on stored documents' total size.
pub const DEFAULT_STORE_MAX_BYTES: u64 = 512 * 1024 * 1024;
/// Pages rendered at the same time (trawl-fetch's `RenderConfig` default).
pub const DEFAULT_RENDER_TABS: usize = 4;
/// Deadline for rendering one page (trawl-fetch's `RenderConfig` default).
pub const DEFAULT_RENDER_TIMEOUT: Duration = Duration::from_secs(20);
/// Per-engine search deadline (trawl-search's `SearchConfig` default).
pub const DEFAULT_SEARCH_TIMEOUT: Duration = Duration::from_secs(8);

/// Tool calls an MCP server runs at once.
pub const DEFAULT_MAX_CONCURRENT: usize = 16;
/// How long a queued tool call waits for a free slot.
pub const DEFAULT_QUEUE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long running calls may take to finish once a server is told to stop.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(20);
/// The request log file's size at which it is rotated.
pub const DEFAULT_LOG_MAX_BYTES: u64 = 10 * 1024 * 1024;
/// Rotated request log files kept.
pub const DEFAULT_LOG_KEEP: usize = 5;
/// Largest JSON-RPC message accepted.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// Where `trawl serve` listens: loopback only, so nothing is open without a token.
pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 8787));
/// HTTP connections open at once.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// How long a connection may take to send a request's headers.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection may stay silent.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// MCP sessions alive at once.
pub const DEFAULT_MAX_SESSIONS: usize = 1000;
/// How long an MCP session lives without a request.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

declare_settings! {
    /// Whole-request deadline per fetch, in seconds (search: per engine).
    timeout: Deadline = Deadline(DEFAULT_TIMEOUT),
        flag: Some("--timeout"), env: Some(vars::TIMEOUT), file: true;
    /// Connect deadline, in seconds.
    connect_timeout: Deadline = Deadline(DEFAULT_CONNECT_TIMEOUT),
        flag: None, env: Some(vars::CONNECT_TIMEOUT), file: true;
    /// Largest page body read, in bytes (0 = no cap).
    max_bytes: u64 = trawl_fetch::DEFAULT_MAX_BYTES,
        flag: Some("--max-bytes"), env: Some(vars::MAX_BYTES), file: true;
    /// Egress proxy for every request (http, https, socks5, socks5h).
    proxy: Option<ProxyUrl> = None,
        flag: Some("--proxy"), env: Some(vars::PROXY), file: true;
    /// Turn the private-address guard off.
    allow_private_hosts: bool = false,
        flag: Some("--allow-private-hosts"), env: Some(vars::ALLOW_PRIVATE_HOSTS), file: true;
    /// Hosts, IPs or CIDR ranges opened past the guard.
    allow_hosts: HostList = HostList::default(),
        flag: Some("--allow-host"), env: Some(vars::ALLOW_HOSTS), file: true;
    /// User-Agent for page fetches (and API engines, when set).
    user_agent: String = trawl_fetch::DEFAULT_USER_AGENT.to_owned(),
        flag: None, env: Some(vars::USER_AGENT), file: true;
    /// Trust the system's certificate store as well as the compiled-in Mozilla roots.
    tls_system_roots: bool = false,
        flag: None, env: Some(vars::TLS_SYSTEM_ROOTS), file: true;
    /// Store file; `:memory:` keeps nothing (unset: ~/.cache/trawl/trawl.db).
    store: Option<StoreLocation> = None,
        flag: Some("--store"), env: Some(vars::STORE), file: true;
    /// A Redis shared by several replicas (`redis://host:port/db`), instead of the file.
    redis: Option<RedisUrl> = None,
        flag: Some("--redis"), env: Some(vars::REDIS_URL), file: true;
    /// Prefix of every key trawl writes in that Redis.
    redis_prefix: String = trawl_store::DEFAULT_REDIS_PREFIX.to_owned(),
        flag: None, env: Some(vars::REDIS_PREFIX), file: true;
    /// When the Redis does not answer at start: `memory` (a private store) or `none`.
    store_fallback: Fallback = Fallback::Fail,
        flag: Some("--store-fallback"), env: None, file: true;
    /// Hosted fallback readers, in order (`jina`, `tavily`, `firecrawl`, `exa`, or
    /// `none`); unset: the readers whose key the user set.
    readers: Readers = Readers::default(),
        flag: None, env: Some(vars::READERS), file: true;
    /// Readers that may receive URLs carrying credentials-like query parameters.
    readers_query_secrets: Readers = Readers::default(),
        flag: None, env: Some(vars::READERS_QUERY_SECRETS), file: true;
    /// Reads shorter than this many characters try the fallback readers.
    min_chars: usize = DEFAULT_MIN_CHARS,
        flag: None, env: Some(vars::MIN_CHARS), file: true;
    /// Seconds a stored page stays fresh (then it is revalidated); 0 = forever.
    document_ttl: Ttl = Ttl(DEFAULT_DOCUMENT_TTL),
        flag: None, env: Some(vars::DOCUMENT_TTL), file: true;
    /// Seconds a search answer is cached; 0 = forever.
    search_ttl: Ttl = Ttl(DEFAULT_SEARCH_TTL),
        flag: None, env: Some(vars::SEARCH_TTL), file: true;
    /// Upper bound on stored documents' total size in bytes (oldest evicted); 0 = none.
    store_max_bytes: u64 = DEFAULT_STORE_MAX_BYTES,
        flag: None, env: Some(vars::STORE_MAX_BYTES), file: true;
    /// Render pages in a headless browser: `auto` (app shells only), `never`, `always`.
    render: RenderMode = RenderMode::Auto,
        flag: Some("--render"), env: Some(vars::RENDER), file: true;
    /// The browser binary (unset: `chromium` on the PATH).
    browser: Option<PathBuf> = None,
        flag: None, env: Some(vars::BROWSER), file: true;
    /// Pages rendered at the same time (1 to 32).
    render_tabs: Tabs = Tabs(DEFAULT_RENDER_TABS),
        flag: None, env: Some(vars::RENDER_TABS), file: true;
    /// Deadline for rendering one page, in seconds.
    render_timeout: Deadline = Deadline(DEFAULT_RENDER_TIMEOUT),
        flag: None, env: Some(vars::RENDER_TIMEOUT), file: true;
    /// Per-engine search deadline, in milliseconds.
    search_timeout_ms: Millis = Millis(DEFAULT_SEARCH_TIMEOUT),
        flag: None, env: Some(vars::SEARCH_TIMEOUT_MS), file: true;
    /// Use Tavily's keyless search mode when no key is set.
    tavily_keyless: bool = false,
        flag: None, env: Some(vars::TAVILY_KEYLESS), file: true;
    /// Engines never asked, whatever the route or explicit list.
    disabled_engines: Names = Names::default(),
        flag: None, env: Some(vars::DISABLED_ENGINES), file: true;
    /// Bytes one PDF's streams may decode to in all; past it the read is `too_large`.
    pdf_max_decoded_bytes: u64 = trawl_extract::DEFAULT_PDF_MAX_DECODED_BYTES,
        flag: None, env: Some(vars::PDF_MAX_DECODED_BYTES), file: true;
    /// Seconds one PDF may take to read; past it the read is `too_large`.
    pdf_max_time: Deadline = Deadline(trawl_extract::DEFAULT_PDF_MAX_TIME),
        flag: None, env: Some(vars::PDF_MAX_TIME), file: true;
    /// Read images and scanned PDFs by OCR with tesseract (off: they are refused).
    ocr: bool = true,
        flag: None, env: Some(vars::OCR), file: true;
    /// The tesseract binary (unset: `tesseract` on the PATH).
    tesseract: Option<PathBuf> = None,
        flag: None, env: Some(vars::TESSERACT), file: true;
    /// OCR languages, tesseract's names `+`-joined (unset: English when installed).
    ocr_lang: Option<String> = None,
        flag: Some("--ocr-lang"), env: Some(vars::OCR_LANG), file: true;
    /// Scanned pages OCR reads per PDF; the rest are named, not read.
    ocr_max_pages: u64 = u64::from(trawl_extract::DEFAULT_OCR_MAX_PAGES),
        flag: None, env: Some(vars::OCR_MAX_PAGES), file: true;
    /// Pixels one image may have for OCR, from its header (0 = no limit).
    ocr_max_pixels: u64 = trawl_extract::DEFAULT_OCR_MAX_PIXELS,
        flag: None, env: Some(vars::OCR_MAX_PIXELS), file: true;
    /// Seconds OCR may take for one document; past it the read is `too_large`.
    ocr_max_time: Deadline = Deadline(trawl_extract::DEFAULT_OCR_MAX_TIME),
        flag: None, env: Some(vars::OCR_MAX_TIME), file: true;
    /// Estimated bytes the extractions running at once may hold (a server waits past it).
    extract_memory_bytes: u64 = trawl_text::cpu::DEFAULT_EXTRACT_MEMORY_BYTES,
        flag: None, env: Some(vars::EXTRACT_MEMORY_BYTES), file: true;
    /// Crawls one server runs at once (`web_crawl` and `/v1|v2/crawl` together).
    max_crawls: CrawlCount = CrawlCount(trawl_crawl::DEFAULT_MAX_CRAWLS),
        flag: Some("--max-crawls"), env: Some(vars::MAX_CRAWLS), file: true;
    /// Most pages one crawl started by `web_crawl` or `/v1|v2/crawl` stores.
    max_crawl_pages: CrawlCount = CrawlCount(trawl_crawl::DEFAULT_MAX_CRAWL_PAGES),
        flag: Some("--max-crawl-pages"), env: Some(vars::MAX_CRAWL_PAGES), file: true;
    /// Seconds a URL claimed by one replica's crawl stays leased without a renewal (Redis
    /// store): a replica killed mid-crawl gives its URLs back after this.
    crawl_lease: Deadline = Deadline(trawl_crawl::DEFAULT_LEASE),
        flag: None, env: Some(vars::CRAWL_LEASE), file: true;
    /// User-Agent a crawl sends (`trawl crawl`, `web_crawl`, `/v1|v2/crawl`): trawl by
    /// name, so sites can tell it from a person; reads keep `user_agent`.
    crawl_user_agent: String = trawl_crawl::CRAWL_USER_AGENT.to_owned(),
        flag: None, env: Some(vars::CRAWL_USER_AGENT), file: true;
    /// A cookies file (Netscape cookies.txt) sent with page reads, each cookie only to the
    /// hosts its domain matches; a flag only (per site: `[cookies]` in the config file).
    cookies: Option<PathBuf> = None,
        flag: Some("--cookies"), env: None, file: false;
    /// A SearXNG instance with `format=json` enabled (`trawl searxng up` writes it).
    searxng_url: Option<BaseUrl> = None,
        flag: None, env: Some(vars::SEARXNG_URL), file: true;
    /// MCP servers (`trawl mcp`, `trawl serve`): most tool calls running at once; further
    /// calls queue (0 = no limit).
    max_concurrent: usize = DEFAULT_MAX_CONCURRENT,
        flag: Some("--max-concurrent"), env: Some(vars::MAX_CONCURRENT), file: true;
    /// MCP servers: seconds a queued call waits for a free slot before it is refused as
    /// busy (0 = as long as it takes).
    queue_timeout: Seconds = Seconds(DEFAULT_QUEUE_TIMEOUT),
        flag: Some("--queue-timeout"), env: Some(vars::QUEUE_TIMEOUT), file: true;
    /// MCP servers: seconds running calls may take to finish on SIGTERM or Ctrl-C.
    shutdown_grace: Seconds = Seconds(DEFAULT_SHUTDOWN_GRACE),
        flag: Some("--shutdown-grace"), env: Some(vars::SHUTDOWN_GRACE), file: true;
    /// MCP servers: serve reading only, starting even when no search engine is usable.
    fetch_only: bool = false,
        flag: Some("--fetch-only"), env: Some(vars::FETCH_ONLY), file: true;
    /// MCP servers: also append the request log (one line per tool call) to this file.
    log_file: Option<PathBuf> = None,
        flag: Some("--log-file"), env: Some(vars::LOG_FILE), file: true;
    /// MCP servers: rotate the log file when it would pass this size, in bytes (0 = never).
    log_max_bytes: u64 = DEFAULT_LOG_MAX_BYTES,
        flag: Some("--log-max-bytes"), env: Some(vars::LOG_MAX_BYTES), file: true;
    /// MCP servers: rotated log files kept (FILE.1 … FILE.N).
    log_keep: usize = DEFAULT_LOG_KEEP,
        flag: Some("--log-keep"), env: Some(vars::LOG_KEEP), file: true;
    /// MCP servers: don't write the request log to stderr.
    log_quiet: bool = false,
        flag: Some("--log-quiet"), env: Some(vars::LOG_QUIET), file: true;
    /// MCP servers: largest JSON-RPC message accepted, in bytes (a stdio line, an HTTP
    /// request body).
    max_message_bytes: usize = DEFAULT_MAX_MESSAGE_BYTES,
        flag: Some("--max-message-bytes"), env: Some(vars::MAX_MESSAGE_BYTES), file: true;
    /// `trawl serve`: the address to listen on (port 0 picks a free port).
    listen: SocketAddr = DEFAULT_LISTEN,
        flag: Some("--listen"), env: Some(vars::LISTEN), file: true;
    /// `trawl serve`: a file holding the bearer token clients must send (instead of
    /// TRAWL_TOKEN).
    token_file: Option<PathBuf> = None,
        flag: Some("--token-file"), env: Some(vars::TOKEN_FILE), file: true;
    /// `trawl serve`: allow a non-loopback address without a token (only behind something
    /// that authenticates).
    insecure_no_auth: bool = false,
        flag: Some("--insecure-no-auth"), env: None, file: true;
    /// `trawl serve`: browser origins allowed to call /mcp besides loopback ones.
    allowed_origins: Words = Words::default(),
        flag: Some("--allow-origin"), env: Some(vars::ALLOWED_ORIGINS), file: true;
    /// `trawl serve`: host names clients use to reach the server, accepted in the Host
    /// header besides loopback names and the listen address.
    public_hosts: Words = Words::default(),
        flag: Some("--public-host"), env: Some(vars::PUBLIC_HOSTS), file: true;
    /// `trawl serve`: the URL clients reach the server at (behind a reverse proxy, e.g.
    /// `https://trawl.example.com`); every link the compatible API answers starts with it.
    public_url: Option<BaseUrl> = None,
        flag: Some("--public-url"), env: Some(vars::PUBLIC_URL), file: true;
    /// `trawl serve`: most HTTP connections open at once (a new one replaces the one idle
    /// longest).
    max_connections: usize = DEFAULT_MAX_CONNECTIONS,
        flag: Some("--max-connections"), env: Some(vars::MAX_CONNECTIONS), file: true;
    /// `trawl serve`: seconds a connection may take to send a request's headers.
    header_timeout: Seconds = Seconds(DEFAULT_HEADER_TIMEOUT),
        flag: Some("--header-timeout"), env: Some(vars::HEADER_TIMEOUT), file: true;
    /// `trawl serve`: seconds a connection may go without a byte before it is closed (more
    /// than 15, the keep-alive interval of answers).
    idle_timeout: Seconds = Seconds(DEFAULT_IDLE_TIMEOUT),
        flag: Some("--idle-timeout"), env: Some(vars::IDLE_TIMEOUT), file: true;
    /// `trawl serve`: most MCP sessions alive at once; a new session ends the one idle
    /// longest.
    max_sessions: usize = DEFAULT_MAX_SESSIONS,
        flag: Some("--max-sessions"), env: Some(vars::MAX_SESSIONS), file: true;
    /// `trawl serve`: seconds an MCP session lives without a request.
    session_idle_timeout: Seconds = Seconds(DEFAULT_SESSION_IDLE_TIMEOUT),
        flag: Some("--session-idle-timeout"), env: Some(vars::SESSION_IDLE_TIMEOUT), file: true;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_libraries_they_configure() {
        let render = trawl_fetch::RenderConfig::default();
        assert_eq!(render.tabs, DEFAULT_RENDER_TABS);
        assert_eq!(render.page_timeout, DEFAULT_RENDER_TIMEOUT);
        assert_eq!(
            trawl_search::SearchConfig::default().timeout,
            DEFAULT_SEARCH_TIMEOUT
        );
        assert_eq!(
            trawl_agent::tools::AgentConfig::default().min_chars,
            DEFAULT_MIN_CHARS
        );
    }

    #[test]
    fn every_setting_is_documented_and_named_once() {
        let mut seen = std::collections::BTreeSet::new();
        for d in DECLARED {
            assert!(seen.insert(d.name), "{} declared twice", d.name);
            assert!(!d.doc.trim().is_empty(), "{} has no doc", d.name);
            if let Some(var) = d.env {
                assert!(
                    vars::lookup(var).is_some(),
                    "{var} is not in trawl_core::vars"
                );
            }
        }
    }
}
