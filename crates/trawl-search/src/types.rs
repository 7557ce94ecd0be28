//! The request a caller makes and the answer it gets back (the `search` data of the
//! Envelope: field names are the JSON contract).

use serde::{Deserialize, Serialize};

/// How recent results should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Freshness {
    /// The last 24 hours.
    Day,
    /// The last 7 days.
    Week,
    /// The last month.
    Month,
    /// The last year.
    Year,
}

impl Freshness {
    /// Parse `day|week|month|year` (also `d|w|m|y`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "day" | "d" => Some(Self::Day),
            "week" | "w" => Some(Self::Week),
            "month" | "m" => Some(Self::Month),
            "year" | "y" => Some(Self::Year),
            _ => None,
        }
    }

    /// The first letter, as most engines spell it (`d`, `w`, `m`, `y`).
    pub fn letter(self) -> &'static str {
        match self {
            Self::Day => "d",
            Self::Week => "w",
            Self::Month => "m",
            Self::Year => "y",
        }
    }

    /// The full word (`day`, …).
    pub fn word(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Week => "week",
            Self::Month => "month",
            Self::Year => "year",
        }
    }

    /// Length of the window in days.
    pub fn days(self) -> u64 {
        match self {
            Self::Day => 1,
            Self::Week => 7,
            Self::Month => 31,
            Self::Year => 365,
        }
    }
}

/// Adult-content filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum SafeSearch {
    /// No filtering.
    Off,
    /// The engines' default.
    #[default]
    Moderate,
    /// Strict filtering.
    Strict,
}

impl SafeSearch {
    /// Parse `off|moderate|strict`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "off" | "0" => Some(Self::Off),
            "moderate" | "1" => Some(Self::Moderate),
            "strict" | "on" | "2" => Some(Self::Strict),
            _ => None,
        }
    }

    /// `off`, `moderate` or `strict`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Moderate => "moderate",
            Self::Strict => "strict",
        }
    }

    /// SearXNG's `0|1|2`.
    pub fn level(self) -> u8 {
        match self {
            Self::Off => 0,
            Self::Moderate => 1,
            Self::Strict => 2,
        }
    }
}

/// Filters a caller may ask for; each engine maps what it can and reports the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filters {
    /// Restrict results to one site (`example.com`).
    pub site: Option<String>,
    /// Recency window.
    pub freshness: Option<Freshness>,
    /// Language code such as `en` or `de`.
    pub language: Option<String>,
    /// Region code such as `us` or `de`.
    pub region: Option<String>,
    /// Safe-search level; `None` leaves each engine's default.
    pub safesearch: Option<SafeSearch>,
    /// 1-based page number; `None` or 1 is the first page.
    pub page: Option<u32>,
}

impl Filters {
    /// The page number, at least 1.
    pub fn page(&self) -> u32 {
        self.page.unwrap_or(1).max(1)
    }
}

/// A named set of engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// General web engines plus configured keyed engines and SearXNG.
    #[default]
    Web,
    /// github, stackexchange, hackernews.
    Dev,
    /// arxiv, wikipedia.
    Academic,
    /// Every engine that can run.
    All,
    /// A small set of fast keyed APIs (those configured).
    Fast,
    /// Where people discuss things: Reddit, Hacker News, SOV2EX (V2EX topics).
    Social,
    /// Engines that can restrict by date, for news (give `--freshness`).
    News,
}

impl Route {
    /// The route's name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Web => "web",
            Self::Dev => "dev",
            Self::Academic => "academic",
            Self::All => "all",
            Self::Fast => "fast",
            Self::Social => "social",
            Self::News => "news",
        }
    }

    /// Every built-in route.
    pub const BUILT_IN: [Self; 7] = [
        Self::Web,
        Self::Dev,
        Self::Academic,
        Self::All,
        Self::Fast,
        Self::Social,
        Self::News,
    ];

    /// Parse a built-in route's name (`web`, `dev`, `academic`, `all`, `fast`, `social`, `news`).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim().to_ascii_lowercase();
        Self::BUILT_IN.into_iter().find(|r| r.name() == s)
    }
}

/// One search as the caller asks for it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchRequest {
    /// The query.
    pub query: String,
    /// Other phrasings to run as well (`--expand`); results are fused per query, then across.
    pub expand: Vec<String>,
    /// The engine set to use when `engines` is empty.
    pub route: Route,
    /// A route defined in the configuration (`[routes]` in config.toml), by name; used
    /// instead of `route` when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route_name: Option<String>,
    /// Explicit engine names; overrides `route`.
    pub engines: Vec<String>,
    /// How many fused hits to return; 0 means no limit.
    pub max_results: usize,
    /// Filters mapped per engine.
    pub filters: Filters,
    /// Per-engine deadline in milliseconds (`--timeout`); `None` uses the config's (8 s),
    /// 0 means no deadline.
    pub timeout_ms: Option<u64>,
}

impl SearchRequest {
    /// A request for `query` with defaults everywhere else.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            ..Self::default()
        }
    }
}

/// One engine's vote for a hit: which engine, at which rank (1-based), in which group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Engine name; SearXNG results are `searxng:<upstream>`.
    pub engine: String,
    /// 1-based rank in that engine's list.
    pub rank: u32,
    /// Correlation group (engines that share an upstream index share a group).
    pub group: String,
    /// Which query produced it, when `--expand` ran several (0 = the main query).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<u32>,
}

impl Provenance {
    /// How a vote is shown: `engine#rank`, and with `--expand` which phrasing it came from
    /// (`engine#rank/q2` for the first extra one), so an engine that found a page for two
    /// phrasings is not shown as the same vote twice.
    pub fn label(&self) -> String {
        match self.query {
            Some(q) if q > 0 => format!("{}#{}/q{}", self.engine, self.rank, q + 1),
            _ => format!("{}#{}", self.engine, self.rank),
        }
    }
}

/// One fused search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// 1-based rank after fusion.
    pub rank: u32,
    /// The URL as the best-ranked engine gave it (redirect wrappers removed).
    pub url: String,
    /// Best title among the engines.
    pub title: String,
    /// Longest snippet among the engines.
    pub snippet: String,
    /// The fusion score; see [`crate::fuse`] for the formula.
    pub fused_score: f64,
    /// Every engine and rank that returned this URL.
    pub provenance: Vec<Provenance>,
    /// Publication date, when an engine reported one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    /// Store handle, filled in by layers that read the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Query-aware preview, filled in by layers that read the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Engine-specific typed fields (stars, authors, categories, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
}

/// What happened to one engine in one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// Answered with at least one result.
    Ok,
    /// Answered, with no results.
    Empty,
    /// Did not answer before the deadline.
    Timeout,
    /// Told us to slow down (429, DDG 202, …).
    RateLimited,
    /// A captcha or anomaly page.
    Blocked,
    /// The key was refused.
    AuthFailed,
    /// The key's quota or credits are used up.
    QuotaExhausted,
    /// Any other HTTP status, or a transport failure (no status).
    HttpError,
    /// The body did not look like what the parser knows.
    ParseError,
    /// Needs a key or a URL that is not set.
    NotConfigured,
    /// Not run this time (rate-limit slot busy, unknown engine, …).
    Skipped,
}

impl OutcomeKind {
    /// Whether the engine produced an answer (results or a genuine empty list).
    pub fn answered(self) -> bool {
        matches!(self, Self::Ok | Self::Empty)
    }

    /// The wire name (`rate_limited`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Empty => "empty",
            Self::Timeout => "timeout",
            Self::RateLimited => "rate_limited",
            Self::Blocked => "blocked",
            Self::AuthFailed => "auth_failed",
            Self::QuotaExhausted => "quota_exhausted",
            Self::HttpError => "http_error",
            Self::ParseError => "parse_error",
            Self::NotConfigured => "not_configured",
            Self::Skipped => "skipped",
        }
    }
}

/// One engine's outcome and latency in one search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineOutcome {
    /// Engine name.
    pub engine: String,
    /// What happened.
    pub outcome: OutcomeKind,
    /// How many results it gave.
    pub count: usize,
    /// Wall time spent on it.
    pub latency_ms: u64,
    /// The HTTP status for `http_error` (absent for transport failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// A human note: why it failed, which filters it could not honour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Which query this outcome belongs to, when `--expand` ran several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<u32>,
}

/// A URL that was merged into another hit during dedup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Folded {
    /// The spelling an engine gave.
    pub url: String,
    /// The hit URL it was folded into.
    pub into: String,
}

/// The `data` of a search answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchData {
    /// The main query.
    pub query: String,
    /// Fused hits, best first.
    pub hits: Vec<Hit>,
    /// One outcome per engine (per query when expanded).
    pub engines: Vec<EngineOutcome>,
    /// URLs merged into others.
    pub folded: Vec<Folded>,
    /// The page to ask for next, when any engine said there is more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page: Option<u32>,
    /// Which engines were chosen and why (also echoed in the answer's `meta`).
    #[serde(default)]
    pub selection: Selection,
}

/// How the engines of one search were chosen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    /// The route's name, when no explicit engines were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// The route's engines (or the explicit list) before `disabled_engines`.
    pub route_engines: Vec<String>,
    /// The engines `disabled_engines` took away from them.
    pub disabled: Vec<String>,
    /// The engines actually asked.
    pub asked: Vec<String>,
}

impl SearchData {
    /// Whether every engine that ran failed (the CLI exits 1 then).
    pub fn all_failed(&self) -> bool {
        !self.engines.iter().any(|e| e.outcome.answered())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vote_names_its_phrasing_past_the_first() {
        let vote = |query| Provenance {
            engine: "duckduckgo".into(),
            rank: 3,
            group: "bing".into(),
            query,
        };
        assert_eq!(vote(None).label(), "duckduckgo#3");
        assert_eq!(vote(Some(0)).label(), "duckduckgo#3");
        assert_eq!(vote(Some(1)).label(), "duckduckgo#3/q2");
    }
}
