//! The site memory as a tool: which fetch tier or hosted reader worked for each site, a
//! user's pin that makes reads start there, and forgetting one site or all. The CLI's
//! `trawl sites` and the MCP `sites` tool are this one function.

use std::time::UNIX_EPOCH;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::Attempt;
use trawl_core::TrawlError;
use trawl_store::{Section, SiteReader, TierStat};

use super::bounds::{ToolArgs, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::types::store_error;
use super::{Agent, Progress, ReaderKind, invalid, render};
use crate::fence::Fence;

/// The fetch tiers a site can be pinned to, cheapest first.
pub const TIERS: [&str; 3] = ["http", "impersonate", "render"];

/// What to do with the site memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SitesAction {
    /// Show what is remembered, for one site or all (default).
    #[default]
    List,
    /// Make reads of `site` start with `reader` (a tier or a hosted reader).
    Pin,
    /// Forget `site`, or every site when none is given.
    Reset,
}

/// See, pin or forget which tier or reader works for a site.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct SitesArgs {
    /// list (default), pin or reset.
    pub action: Option<SitesAction>,
    /// A host such as docs.rs (or a URL). Needed for pin.
    pub site: Option<String>,
    /// For pin: http, impersonate, render, or a hosted reader (jina, tavily, firecrawl,
    /// exa).
    pub reader: Option<String>,
}

impl ToolArgs for SitesArgs {}

/// The `sites` tool.
#[derive(Debug)]
pub struct Sites;

impl Tool for Sites {
    const NAME: &'static str = "sites";
    const TITLE: &'static str = "Site memory";
    const DESCRIPTION: &'static str = "See or steer how trawl reads a site. action=list (default; site= for one) shows what \
is remembered; pin with site and reader (http, impersonate, render, or a hosted reader such as \
jina) starts every read of the site there; reset forgets one site, or all.";
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: Some(true),
        idempotent: Some(true),
        open_world: false,
    };
    const NEEDS: Needs = Needs::Nothing;
    type Args = SitesArgs;
    type Out = SitesOut;

    async fn call(agent: Agent, args: SitesArgs, _: Option<Progress>) -> Result<SitesOut, TrawlError> {
        agent.sites(args).await
    }

    fn markdown(out: &SitesOut, fence: &Fence) -> String {
        render::sites_markdown(out, fence)
    }

    fn asked(args: &SitesArgs) -> Vec<Asked> {
        let mut asked = Vec::new();
        if let Some(action) = args.action {
            let word = serde_json::to_value(action).ok();
            let word = word.as_ref().and_then(|w| w.as_str()).unwrap_or_default();
            asked.push(Asked::Text("action", word.to_owned()));
        }
        if let Some(site) = &args.site {
            asked.push(Asked::Text("site", site.clone()));
        }
        asked
    }

    fn details(out: &SitesOut) -> Details {
        vec![("sites", out.sites.len().to_string())]
    }
}

/// One remembered site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SiteOut {
    /// The host.
    pub site: String,
    /// The tier or hosted reader reads of this site start with.
    pub reader: String,
    /// Whether the user pinned it (a pin is not replaced by what works, and does not expire).
    pub pinned: bool,
    /// When it last worked or was pinned, in seconds since the Unix epoch.
    pub updated_at: u64,
    /// How often each tier or reader worked and failed for it, most used first.
    pub tiers: Vec<TierOut>,
}

/// How often one tier or reader worked and failed for a site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TierOut {
    /// The tier or reader.
    pub reader: String,
    /// Reads it answered.
    pub ok: u64,
    /// Reads it failed (blocked, timed out, too thin, …).
    pub failed: u64,
}

impl From<TierStat> for TierOut {
    fn from(t: TierStat) -> Self {
        Self {
            reader: t.reader,
            ok: t.ok,
            failed: t.failed,
        }
    }
}

/// The attempts of one read that count for the site's tier stats: a tier or a hosted
/// reader that was asked (not one skipped as unavailable or not sent), and whether it
/// worked.
pub(super) fn counted_attempts(attempts: &[Attempt]) -> Vec<(String, bool)> {
    attempts
        .iter()
        .filter(|a| known_reader(&a.reader))
        .filter(|a| !matches!(a.outcome.as_str(), "not_sent" | "unavailable"))
        .map(|a| {
            (
                a.reader.clone(),
                matches!(a.outcome.as_str(), "ok" | "not_modified"),
            )
        })
        .collect()
}

/// A fetch tier, a hosted reader or a site reader.
fn known_reader(name: &str) -> bool {
    TIERS.contains(&name) || ReaderKind::parse(name).is_some() || trawl_sites::by_name(name).is_some()
}

/// One site reader, as the table declares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SiteReaderOut {
    /// Its name (in `attempts`; `TRAWL_SITE_<NAME>_URL` moves its API).
    pub name: String,
    /// The URLs it reads.
    pub pattern: String,
    /// What comes back.
    pub reads: String,
    /// What it needs.
    pub needs: String,
    /// How far its parser can be trusted (its saved responses' kind and age).
    pub confidence: String,
}

/// What the `sites` tool answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SitesOut {
    /// The action that ran.
    pub action: SitesAction,
    /// The remembered sites after it (the one asked about, or all).
    pub sites: Vec<SiteOut>,
    /// For reset: how many sites were forgotten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forgotten: Option<u64>,
    /// The site readers, chosen by URL before the generic tiers (for one site: those
    /// that answer for it). Pinning a site to a tier (`http`) reads it generically.
    #[serde(default)]
    pub readers: Vec<SiteReaderOut>,
    /// Hosts that asked to be left alone (`Retry-After`, an exhausted rate limit, Stack
    /// Exchange's `backoff`) and until when; requests to them wait or are refused.
    #[serde(default)]
    pub backing_off: Vec<BackoffOut>,
}

/// One host backing off.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BackoffOut {
    /// The host.
    pub host: String,
    /// When requests to it go out again (an HTTP date).
    pub until: String,
    /// Seconds from now until then.
    pub seconds_left: u64,
}

/// The store's key for a site: the lowercase host, from a bare host or a URL.
pub fn site_key(raw: &str) -> Result<String, TrawlError> {
    let raw = raw.trim();
    let host = if raw.contains("://") {
        url::Url::parse(raw)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
    } else {
        url::Url::parse(&format!("http://{raw}/"))
            .ok()
            .filter(|u| u.path() == "/" && u.query().is_none())
            .and_then(|u| u.host_str().map(str::to_owned))
    };
    let host = host
        .filter(|h| !h.is_empty())
        .map(|h| h.trim_end_matches('.').to_owned())
        .ok_or_else(|| invalid("site", format!("{:?} is not a host or URL", clip(raw))))?;
    // A DNS name is at most 253 characters in labels of at most 63 (RFC 1035); an IPv6
    // literal keeps its brackets and is far shorter.
    if host.len() > MAX_SITE_NAME || host.split('.').any(|label| label.len() > 63) {
        return Err(invalid(
            "site",
            format!(
                "{:?} is not a host name: at most {MAX_SITE_NAME} characters, 63 per label",
                clip(&host)
            ),
        ));
    }
    Ok(host)
}

/// The longest site name taken (a DNS name's limit).
pub const MAX_SITE_NAME: usize = 253;

/// The first characters of what the user gave, for an error that should not repeat it whole.
fn clip(text: &str) -> String {
    match text.char_indices().nth(64) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

fn site_out(site: String, r: SiteReader, tiers: Vec<TierStat>) -> SiteOut {
    SiteOut {
        tiers: tiers.into_iter().map(TierOut::from).collect(),
        site,
        reader: r.reader,
        pinned: r.pinned,
        updated_at: r
            .updated_at
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
    }
}

impl Agent {
    /// `sites`: list, pin or reset the site memory.
    pub async fn sites(&self, args: SitesArgs) -> Result<SitesOut, TrawlError> {
        let action = args.action.unwrap_or_default();
        let site = args.site.as_deref().map(site_key).transpose()?;
        let reader = args
            .reader
            .as_deref()
            .map(|r| r.trim().to_ascii_lowercase());
        if action != SitesAction::Pin && reader.is_some() {
            return Err(invalid("reader", "only pin takes a reader"));
        }
        let mut forgotten = None;
        match action {
            SitesAction::List => {}
            SitesAction::Pin => {
                let site = site
                    .clone()
                    .ok_or_else(|| invalid("site", "pin needs a site"))?;
                let reader = reader.ok_or_else(|| invalid("reader", "pin needs a reader"))?;
                if !known_reader(&reader) {
                    let readers: Vec<&str> = ReaderKind::ALL.iter().map(|k| k.name()).collect();
                    let sites: Vec<&str> = trawl_sites::all().iter().map(|s| s.name).collect();
                    return Err(invalid(
                        "reader",
                        format!(
                            "unknown tier or reader {reader:?}: one of {}, {}, or a site reader ({})",
                            TIERS.join(", "),
                            readers.join(", "),
                            sites.join(", ")
                        ),
                    ));
                }
                let limit = trawl_store::MAX_PINNED_SITES;
                let pinned = self
                    .store
                    .run(move |s| s.site_readers())
                    .await
                    .map_err(store_error)?;
                let already = pinned.iter().any(|(s, r)| *s == site && r.pinned);
                let count = pinned.iter().filter(|(_, r)| r.pinned).count();
                if !already && count >= limit {
                    return Err(invalid(
                        "site",
                        format!(
                            "{count} sites are pinned, the most kept: reset one first \
                             (`trawl sites reset SITE`)"
                        ),
                    ));
                }
                self.store
                    .run(move |s| s.pin_site_reader(&site, &reader))
                    .await
                    .map_err(store_error)?;
            }
            SitesAction::Reset => {
                let one = site.clone();
                let n = self
                    .store
                    .run(move |s| match one {
                        Some(site) => s.forget_site(&site).map(u64::from),
                        None => s.clear(&[Section::SiteMemory]),
                    })
                    .await
                    .map_err(store_error)?;
                forgotten = Some(n);
            }
        }
        let shown_site = site.clone();
        let sites = self
            .store
            .run(move |s| {
                let mut out = Vec::new();
                for (name, r) in s.site_readers()? {
                    if site.as_ref().is_none_or(|want| *want == name) {
                        let tiers = s.site_tier_stats(&name)?;
                        out.push(site_out(name, r, tiers));
                    }
                }
                Ok(out)
            })
            .await
            .map_err(store_error)?;
        let config = self.sites.get()?;
        let readers = trawl_sites::all()
            .iter()
            .filter(|spec| {
                shown_site
                    .as_deref()
                    .is_none_or(|host| spec.answers_for(host))
            })
            .map(|spec| SiteReaderOut {
                name: spec.name.to_owned(),
                pattern: spec.pattern.to_owned(),
                reads: spec.reads.to_owned(),
                // A reader missing what it needs is skipped: say so where it is listed.
                needs: match trawl_sites::unavailable(spec, config) {
                    Some(_) => format!(
                        "{} (not set: skipped, the generic tiers read these pages)",
                        spec.needs
                    ),
                    None => spec.needs.to_owned(),
                },
                confidence: spec.confidence.to_owned(),
            })
            .collect();
        let now = std::time::SystemTime::now();
        let backing_off = self
            .fetcher()?
            .backoff()
            .active(now)
            .await
            .into_iter()
            .filter(|(host, _)| shown_site.as_deref().is_none_or(|want| want == host))
            .map(|(host, until)| BackoffOut {
                host,
                until: trawl_fetch::http_date(until),
                seconds_left: until.duration_since(now).unwrap_or_default().as_secs(),
            })
            .collect();
        Ok(SitesOut {
            action,
            sites,
            forgotten,
            readers,
            backing_off,
        })
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_asked_tiers_and_readers_count() {
        let at = |reader: &str, outcome: &str| Attempt {
            reader: reader.into(),
            outcome: outcome.into(),
            detail: None,
        };
        let attempts = [
            at("http", "app_shell"),
            at("render", "ok"),
            at("jina", "not_sent"),
            at("render", "unavailable"),
            at("store", "store_unavailable"),
        ];
        assert_eq!(
            counted_attempts(&attempts),
            [("http".to_owned(), false), ("render".to_owned(), true)]
        );
    }

    #[test]
    fn sites_are_keyed_by_lowercase_host() {
        assert_eq!(site_key("Docs.RS").unwrap(), "docs.rs");
        assert_eq!(site_key("https://docs.rs/serde/latest").unwrap(), "docs.rs");
        assert_eq!(site_key("127.0.0.1:8080").unwrap(), "127.0.0.1");
        assert_eq!(site_key("example.com.").unwrap(), "example.com");
        assert!(site_key("").is_err());
        assert!(site_key("docs.rs/path").is_err());
    }

    #[test]
    fn a_site_name_is_a_host_name_in_length() {
        let longest = ["a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61)].join(".");
        assert_eq!(longest.len(), 253);
        assert_eq!(site_key(&longest).unwrap(), longest);
        let e = site_key(&format!("{longest}e")).unwrap_err();
        assert!(e.message.contains("at most 253"), "{}", e.message);
        assert!(site_key(&format!("{}.com", "x".repeat(64))).is_err());
        // The error quotes only the start of a long name.
        let e = site_key(&"y".repeat(10_000)).unwrap_err();
        assert!(e.message.len() < 400, "{}", e.message);
    }
}
