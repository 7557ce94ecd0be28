//! Every environment variable trawl reads: its name, what it is for, and how far it is
//! trusted. Code reads variables through these names only (a test checks that no other
//! `TRAWL_…` literal exists), `trawl config show` and the README's table are built from
//! [`all`], and the settings use [`Trust`] to decide what a `.env` file may set.

/// How far a variable is trusted, which decides the layers it may come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trust {
    /// An API key for one provider. May come from a `.env` in the working directory: a key
    /// only ever goes to its provider's own host, so a planted key cannot redirect anything.
    ApiKey,
    /// A secret that guards trawl itself (the server's bearer token): trusted layers only.
    Secret,
    /// A setting that changes what trawl may reach or how (hosts, proxy, store, readers):
    /// flags, the real environment and the user's config file only.
    Setting,
    /// A base-URL override: where a provider's requests (and its key) go. Trusted layers
    /// only, since from a planted `.env` it would send the user's key elsewhere.
    UrlOverride,
    /// Used by trawl's own tests, benchmarks and debugging; never read from `.env`.
    Development,
}

impl Trust {
    /// Whether a `.env` in the working directory may set it.
    pub fn dotenv_may_set(self) -> bool {
        matches!(self, Trust::ApiKey)
    }

    /// Whether its value is masked wherever it is shown.
    pub fn is_secret(self) -> bool {
        matches!(self, Trust::ApiKey | Trust::Secret)
    }

    /// The class's name as `trawl config show` and the README print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::ApiKey => "api key",
            Trust::Secret => "secret",
            Trust::Setting => "setting",
            Trust::UrlOverride => "URL override",
            Trust::Development => "development",
        }
    }
}

/// One documented variable (or a family of them, when `name` holds a `<…>` placeholder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var {
    /// The variable's name, e.g. `TRAWL_STORE` or `TRAWL_<ENGINE>_URL`.
    pub name: &'static str,
    /// How far a value for it is trusted, by where it came from.
    pub trust: Trust,
    /// What it sets, in one sentence.
    pub doc: &'static str,
}

/// The prefix of trawl's own variables.
pub const PREFIX: &str = "TRAWL_";

macro_rules! vars {
    ($( $(#[$m:meta])* $ident:ident = $name:literal, $trust:ident, $doc:literal; )*) => {
        $( $(#[$m])* #[doc = $doc] pub const $ident: &str = $name; )*
        /// Every variable with a fixed name, in the order the README lists them.
        const FIXED: &[Var] = &[ $( Var { name: $name, trust: Trust::$trust, doc: $doc }, )* ];
    };
}

vars! {
    CONFIG = "TRAWL_CONFIG", Setting, "config file (default ~/.config/trawl/config.toml)";
    STORE = "TRAWL_STORE", Setting, "store file (default ~/.cache/trawl/trawl.db; `:memory:` keeps nothing)";
    TIMEOUT = "TRAWL_TIMEOUT", Setting, "whole-request deadline in seconds (default 30)";
    CONNECT_TIMEOUT = "TRAWL_CONNECT_TIMEOUT", Setting, "connect deadline in seconds (default 10)";
    MAX_BYTES = "TRAWL_MAX_BYTES", Setting, "largest page body read, in bytes";
    PROXY = "TRAWL_PROXY", Setting, "egress proxy for every request (http, https, socks5, socks5h)";
    EGRESS_ECHO_URL = "TRAWL_EGRESS_ECHO_URL", Setting, "IP-echo endpoint `doctor` asks through the proxy and directly to confirm the exit address (default https://api.ipify.org/)";
    ALLOW_PRIVATE_HOSTS = "TRAWL_ALLOW_PRIVATE_HOSTS", Setting, "`1` turns the private-address guard off";
    ALLOW_HOSTS = "TRAWL_ALLOW_HOSTS", Setting, "comma-separated hosts, IPs or CIDR ranges opened past the guard";
    USER_AGENT = "TRAWL_USER_AGENT", Setting, "User-Agent for page fetches and API engines";
    CRAWL_USER_AGENT = "TRAWL_CRAWL_USER_AGENT", Setting, "User-Agent a crawl sends (default: trawl/VERSION (+URL), so sites can tell it from a person)";
    TLS_SYSTEM_ROOTS = "TRAWL_TLS_SYSTEM_ROOTS", Setting, "`1` makes HTTPS trust the system CA store (honours `SSL_CERT_FILE`/`SSL_CERT_DIR`) besides Mozilla's roots, compiled in";
    RENDER = "TRAWL_RENDER", Setting, "render script-built pages in a local headless browser: `auto` (app shells only, default), `never`, `always`";
    BROWSER = "TRAWL_BROWSER", Setting, "the browser binary for rendering (default `chromium` on the PATH); never read from `.env`";
    RENDER_TABS = "TRAWL_RENDER_TABS", Setting, "pages rendered at the same time (default 4)";
    RENDER_TIMEOUT = "TRAWL_RENDER_TIMEOUT", Setting, "deadline for rendering one page, in seconds";
    READERS = "TRAWL_READERS", Setting, "hosted fallback readers, in order (`jina,tavily,firecrawl,exa` or `none`); default: those whose key is set";
    READERS_QUERY_SECRETS = "TRAWL_READERS_QUERY_SECRETS", Setting, "readers that may receive URLs with credentials-like query parameters (`api_key`, `token`, …); default none";
    MIN_CHARS = "TRAWL_MIN_CHARS", Setting, "reads shorter than this many characters try the fallback readers (default 400)";
    DOCUMENT_TTL = "TRAWL_DOCUMENT_TTL", Setting, "seconds a stored page stays fresh (default 86400; 0 = forever)";
    SEARCH_TTL = "TRAWL_SEARCH_TTL", Setting, "seconds a search answer is cached (default 900; 0 = forever)";
    STORE_MAX_BYTES = "TRAWL_STORE_MAX_BYTES", Setting, "bound on stored documents' total size (default 512 MiB; 0 = none)";
    PDF_MAX_DECODED_BYTES = "TRAWL_PDF_MAX_DECODED_BYTES", Setting, "bytes one PDF's streams may decode to in all (default 256 MiB)";
    PDF_MAX_TIME = "TRAWL_PDF_MAX_TIME", Setting, "seconds one PDF may take to read (default 30)";
    OCR = "TRAWL_OCR", Setting, "`0` turns OCR of images and scanned PDFs off (default on when tesseract is installed)";
    TESSERACT = "TRAWL_TESSERACT", Setting, "the tesseract binary for OCR (default `tesseract` on the PATH); never read from `.env`";
    OCR_LANG = "TRAWL_OCR_LANG", Setting, "OCR languages as tesseract names them, `+`-joined (`eng+deu`; default English when installed)";
    OCR_MAX_PAGES = "TRAWL_OCR_MAX_PAGES", Setting, "scanned pages OCR reads per PDF (default 50)";
    OCR_MAX_PIXELS = "TRAWL_OCR_MAX_PIXELS", Setting, "pixels one image may have for OCR, checked from its header (default 50 million)";
    OCR_MAX_TIME = "TRAWL_OCR_MAX_TIME", Setting, "seconds OCR may take for one document (default 120)";
    EXTRACT_MEMORY_BYTES = "TRAWL_EXTRACT_MEMORY_BYTES", Setting, "estimated bytes the extractions running at once may hold (default 1 GiB)";
    REDIS_URL = "TRAWL_REDIS_URL", Secret, "a shared Redis store (`redis://[user:password@]host:port[/db]`); never read from `.env`";
    REDIS_PREFIX = "TRAWL_REDIS_PREFIX", Setting, "prefix of every key trawl writes in the shared Redis (default `trawl:`)";
    SEARCH_TIMEOUT_MS = "TRAWL_SEARCH_TIMEOUT_MS", Setting, "per-engine search deadline in milliseconds (default 8000)";
    TAVILY_KEYLESS = "TRAWL_TAVILY_KEYLESS", Setting, "`1` uses Tavily's keyless search mode when no key is set";
    MAX_CONCURRENT = "TRAWL_MAX_CONCURRENT", Setting, "MCP: tool calls run at once";
    MAX_CRAWLS = "TRAWL_MAX_CRAWLS", Setting, "MCP: crawls `web_crawl` runs at once in one server (default 4)";
    MAX_CRAWL_PAGES = "TRAWL_MAX_CRAWL_PAGES", Setting, "MCP: most pages one crawl started by `web_crawl` stores (default 1000)";
    CRAWL_LEASE = "TRAWL_CRAWL_LEASE", Setting, "Redis store: seconds a URL a replica's crawl claimed stays leased without renewal (default 30)";
    QUEUE_TIMEOUT = "TRAWL_QUEUE_TIMEOUT", Setting, "MCP: seconds a call waits for a slot";
    SHUTDOWN_GRACE = "TRAWL_SHUTDOWN_GRACE", Setting, "MCP: seconds running calls get at shutdown";
    FETCH_ONLY = "TRAWL_FETCH_ONLY", Setting, "MCP: offer only the fetch tool";
    LOG_FILE = "TRAWL_LOG_FILE", Setting, "MCP: request log file (JSON lines)";
    LOG_MAX_BYTES = "TRAWL_LOG_MAX_BYTES", Setting, "MCP: size at which the request log rotates";
    LOG_KEEP = "TRAWL_LOG_KEEP", Setting, "MCP: rotated request logs kept";
    LOG_QUIET = "TRAWL_LOG_QUIET", Setting, "MCP: no per-call lines on stderr";
    LISTEN = "TRAWL_LISTEN", Setting, "serve: address to listen on (default 127.0.0.1:8787)";
    TOKEN_FILE = "TRAWL_TOKEN_FILE", Setting, "serve: file holding the bearer token";
    ALLOWED_ORIGINS = "TRAWL_ALLOWED_ORIGINS", Setting, "serve: browser origins accepted besides loopback";
    PUBLIC_HOSTS = "TRAWL_PUBLIC_HOSTS", Setting, "serve: `Host` names accepted besides loopback and the listen address";
    PUBLIC_URL = "TRAWL_PUBLIC_URL", Setting, "serve: the URL clients reach the server at; the compatible API's links start with it";
    MAX_CONNECTIONS = "TRAWL_MAX_CONNECTIONS", Setting, "serve: open connections at most (the longest-idle one makes room)";
    HEADER_TIMEOUT = "TRAWL_HEADER_TIMEOUT", Setting, "serve: seconds a request's headers may take (idle keep-alive too)";
    IDLE_TIMEOUT = "TRAWL_IDLE_TIMEOUT", Setting, "serve: seconds a connection may stay silent both ways";
    MAX_SESSIONS = "TRAWL_MAX_SESSIONS", Setting, "serve: live MCP sessions at most (the longest-idle one ends to make room)";
    SESSION_IDLE_TIMEOUT = "TRAWL_SESSION_IDLE_TIMEOUT", Setting, "serve: seconds an unused MCP session lives";
    MAX_MESSAGE_BYTES = "TRAWL_MAX_MESSAGE_BYTES", Setting, "MCP: largest message (stdio line or HTTP body) in bytes";
    TOKEN = "TRAWL_TOKEN", Secret, "serve: the bearer token clients must send (empty is refused)";
    DISABLED_ENGINES = "TRAWL_DISABLED_ENGINES", Setting, "comma-separated engines removed from every route and explicit list";
    SEARXNG_URL = "TRAWL_SEARXNG_URL", UrlOverride, "a SearXNG instance with `format=json` enabled (no default)";
    BRAVE_API_KEY = "BRAVE_API_KEY", ApiKey, "Brave Search API (comma-separated keys are tried in order)";
    TAVILY_API_KEY = "TAVILY_API_KEY", ApiKey, "Tavily search and reader";
    EXA_API_KEY = "EXA_API_KEY", ApiKey, "Exa search and reader";
    SERPER_API_KEY = "SERPER_API_KEY", ApiKey, "Serper (Google results)";
    SERPAPI_API_KEY = "SERPAPI_API_KEY", ApiKey, "SerpApi (Google results)";
    JINA_API_KEY = "JINA_API_KEY", ApiKey, "Jina search and reader";
    FIRECRAWL_API_KEY = "FIRECRAWL_API_KEY", ApiKey, "Firecrawl search and reader";
    GITHUB_TOKEN = "GITHUB_TOKEN", ApiKey, "GitHub code and repository search";
    MARGINALIA_API_KEY = "MARGINALIA_API_KEY", ApiKey, "Marginalia search (default: the public key)";
    STACKEXCHANGE_KEY = "STACKEXCHANGE_KEY", ApiKey, "Stack Exchange API (raises the daily quota)";
    PARALLEL_API_KEY = "PARALLEL_API_KEY", ApiKey, "Parallel Search API (LLM-ready excerpts)";
    BAIDU_API_KEY = "BAIDU_API_KEY", ApiKey, "Baidu AI Search (Qianfan AppBuilder key; Chinese web results with excerpts)";
    X_COOKIES_FILE = "TRAWL_X_COOKIES_FILE", ApiKey, "X (Twitter) search: cookies file(s) of a logged-in session holding `auth_token` and `ct0` (comma-separated files rotate)";
    TEST_NETNS = "TRAWL_TEST_NETNS", Development, "set to `1` by scripts/test inside the loopback-only network namespace";
    TEST_HOLD_EXTRACT = "TRAWL_TEST_HOLD_EXTRACT", Development, "tests, debug builds only: a FIFO that extractions of a path containing `hold` wait on";
    BIN = "TRAWL_BIN", Development, "the trawl binary the load example drives";
}

/// The families of variables whose names hold a provider's name.
const FAMILIES: &[Var] = &[
    Var {
        name: "TRAWL_<ENGINE>_URL",
        trust: Trust::UrlOverride,
        doc: "base URL of a search engine (`TRAWL_DUCKDUCKGO_URL`, `TRAWL_BRAVE_API_URL`, …)",
    },
    Var {
        name: "TRAWL_READER_<NAME>_URL",
        trust: Trust::UrlOverride,
        doc: "base URL of a hosted reader (`TRAWL_READER_JINA_URL`, …)",
    },
    Var {
        name: "TRAWL_<ENGINE>_MIN_INTERVAL_MS",
        trust: Trust::Setting,
        doc: "least time between two calls to a search engine, in milliseconds (with a shared Redis, across every replica)",
    },
    Var {
        name: "TRAWL_SITE_<NAME>_URL",
        trust: Trust::UrlOverride,
        doc: "base URL of a site reader's API (`TRAWL_SITE_GITHUB_URL`, `TRAWL_SITE_REDDIT_URL`, …)",
    },
];

/// Every documented variable: fixed names, then the families.
pub fn all() -> impl Iterator<Item = &'static Var> {
    FIXED.iter().chain(FAMILIES)
}

/// The variable holding the base-URL override of search engine `engine`.
pub fn engine_url(engine: &str) -> String {
    format!("{PREFIX}{}_URL", engine.to_ascii_uppercase())
}

/// The variable holding the base-URL override of hosted reader `reader`.
pub fn reader_url(reader: &str) -> String {
    format!("{PREFIX}READER_{}_URL", reader.to_ascii_uppercase())
}

/// The variable holding the base-URL override of site reader `site`.
pub fn site_url(site: &str) -> String {
    format!("{PREFIX}SITE_{}_URL", site.to_ascii_uppercase())
}

/// The variable holding the least spacing of calls to search engine `engine`.
pub fn engine_min_interval(engine: &str) -> String {
    format!("{PREFIX}{}_MIN_INTERVAL_MS", engine.to_ascii_uppercase())
}

/// The documentation entry for `name`, matching the families too.
pub fn lookup(name: &str) -> Option<&'static Var> {
    if let Some(v) = FIXED.iter().find(|v| v.name == name) {
        return Some(v);
    }
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    let rest = name.strip_prefix(PREFIX)?;
    if let Some(engine) = rest.strip_suffix("_MIN_INTERVAL_MS")
        && valid(engine)
    {
        return Some(&FAMILIES[2]);
    }
    let middle = rest.strip_suffix("_URL")?;
    if let Some(site) = middle.strip_prefix("SITE_")
        && valid(site)
    {
        return Some(&FAMILIES[3]);
    }
    match middle.strip_prefix("READER_") {
        Some(reader) if valid(reader) => Some(&FAMILIES[1]),
        _ if valid(middle) => Some(&FAMILIES[0]),
        _ => None,
    }
}

/// Whether `name` is a base-URL override (fixed or from a family).
pub fn is_url_override(name: &str) -> bool {
    lookup(name).is_some_and(|v| v.trust == Trust::UrlOverride)
}

/// The API-key variables.
pub fn api_keys() -> impl Iterator<Item = &'static str> {
    FIXED
        .iter()
        .filter(|v| v.trust == Trust::ApiKey)
        .map(|v| v.name)
}

/// The variables whose values are masked wherever they are shown.
pub fn secrets() -> impl Iterator<Item = &'static str> {
    FIXED.iter().filter(|v| v.trust.is_secret()).map(|v| v.name)
}

/// The README's table of variables (Markdown), generated so it cannot drift.
pub fn markdown_table() -> String {
    let mut out = String::from("| Variable | Trust | What it sets |\n|---|---|---|\n");
    for v in all() {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            v.name,
            v.trust.as_str(),
            v.doc
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_fixed_names_are_found() {
        assert_eq!(lookup(STORE).unwrap().trust, Trust::Setting);
        assert_eq!(
            lookup(&engine_url("brave_api")).unwrap().trust,
            Trust::UrlOverride
        );
        assert_eq!(
            lookup(&reader_url("jina")).unwrap().name,
            "TRAWL_READER_<NAME>_URL"
        );
        assert_eq!(lookup(SEARXNG_URL).unwrap().name, SEARXNG_URL);
        // A site reader's base is a URL override: a `.env` may not move it (nor its token).
        let site = lookup(&site_url("github")).unwrap();
        assert_eq!(site.name, "TRAWL_SITE_<NAME>_URL");
        assert!(!site.trust.dotenv_may_set());
        assert!(lookup("TRAWL__URL").is_none());
        assert!(lookup("DATABASE_URL").is_none());
        assert!(lookup(BRAVE_API_KEY).unwrap().trust.dotenv_may_set());
        assert!(!lookup(TOKEN).unwrap().trust.dotenv_may_set());
        assert!(secrets().any(|s| s == TOKEN));
        assert!(!api_keys().any(|s| s == TOKEN));
    }

    #[test]
    fn names_are_unique_and_documented() {
        let mut seen = std::collections::BTreeSet::new();
        for v in all() {
            assert!(seen.insert(v.name), "{} listed twice", v.name);
            assert!(!v.doc.trim().is_empty(), "{} has no documentation", v.name);
        }
        // Every constant of this file is in the table (the macro makes that hold; this
        // catches a constant added by hand outside it).
        let source = include_str!("vars.rs");
        let body = source.split("#[cfg(test)]").next().unwrap();
        for line in body.lines() {
            if let Some(rest) = line.trim().strip_prefix("pub const ")
                && let Some(value) = rest.split('"').nth(1)
                && value != PREFIX
            {
                assert!(lookup(value).is_some(), "{value} is not documented");
            }
        }
    }
}
