//! A live check of each engine for `trawl doctor`: one tiny query each, in parallel,
//! under a short deadline, with a one-line hint per failure that tells a blocked IP from
//! parser drift from a missing key.

use std::time::Duration;

use serde::Serialize;

use crate::engine::KeyNeed;
use crate::router::Router;
use crate::types::{EngineOutcome, OutcomeKind, Route, SearchRequest};

/// The query doctor sends: common enough that every general engine has results.
pub const PROBE_QUERY: &str = "wikipedia";

/// One engine's health.
#[derive(Debug, Clone, Serialize)]
pub struct EngineCheck {
    /// Engine name.
    pub engine: String,
    /// Whether it can run (key or URL set when needed).
    pub configured: bool,
    /// Whether it is in the default `web` route (a failure there matters most).
    pub default_route: bool,
    /// What the probe got.
    pub outcome: EngineOutcome,
    /// What to do about a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Parser confidence and fixture age.
    pub confidence: &'static str,
    /// Where its parser's test fixtures come from (`not tested on a real saved response: …` when no real response
    /// was found to test on).
    pub fixtures: &'static str,
    /// Which transport answers after the probe, for engines with two (DuckDuckGo: html,
    /// or lite when html refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<&'static str>,
}

impl EngineCheck {
    /// Whether the probe got an answer with results.
    pub fn healthy(&self) -> bool {
        self.outcome.outcome == OutcomeKind::Ok
    }
}

impl Router {
    /// Probe `names` (every configured engine when empty, plus the keyed ones that are not
    /// configured, reported without a request). Finishes within `deadline` even offline.
    pub async fn check(&self, names: &[String], deadline: Duration) -> Vec<EngineCheck> {
        let explicit = !names.is_empty();
        let infos = self.engines_info();
        let wanted: Vec<&crate::router::EngineInfo> = infos
            .iter()
            .filter(|i| {
                if explicit {
                    names.iter().any(|n| n.eq_ignore_ascii_case(i.name))
                } else {
                    i.configured || i.key != KeyNeed::None || i.name == "searxng"
                }
            })
            .collect();
        let mut req = SearchRequest::new(PROBE_QUERY);
        req.engines = wanted.iter().map(|i| i.name.to_owned()).collect();
        if explicit {
            for n in names {
                if !req.engines.iter().any(|e| e.eq_ignore_ascii_case(n)) {
                    req.engines.push(n.clone());
                }
            }
        }
        req.timeout_ms = Some(deadline.as_millis() as u64);
        let data = self.search(&req).await;
        let web = self.route_engines(Route::Web);
        let mut checks: Vec<EngineCheck> = data
            .engines
            .into_iter()
            .map(|o| {
                let info = infos.iter().find(|i| i.name == o.engine);
                EngineCheck {
                    engine: o.engine.clone(),
                    configured: info.is_some_and(|i| i.configured),
                    default_route: web.contains(&o.engine.as_str()),
                    hint: hint(&o, info.and_then(|i| i.key_env)),
                    confidence: info.map_or("", |i| i.confidence),
                    fixtures: info.map_or("", |i| i.fixtures),
                    transport: self.engine(&o.engine).and_then(|e| e.transport()),
                    outcome: o,
                }
            })
            .collect();
        // What can run comes first; the keyed engines without a key close the list.
        checks.sort_by_key(|c| !c.configured);
        checks
    }
}

/// One line saying what a failed outcome most likely means and what to do.
pub fn hint(o: &EngineOutcome, key_env: Option<&str>) -> Option<String> {
    let env_var = trawl_core::vars::engine_url(&o.engine);
    let key = key_env.unwrap_or("its key variable");
    let h = match o.outcome {
        OutcomeKind::Ok => return None,
        OutcomeKind::Empty => format!(
            "answered but found nothing for \"{PROBE_QUERY}\": a soft block or parser drift; capture it with --record and compare"
        ),
        OutcomeKind::Timeout => {
            "no answer before the deadline: offline, firewalled, or a slow proxy".to_owned()
        }
        OutcomeKind::RateLimited => {
            "rate limited: wait, add a key, or route through a proxy (TRAWL_PROXY)".to_owned()
        }
        OutcomeKind::Blocked => {
            "this IP gets a captcha (blocked IP, not a bug): try later, a proxy, or a keyed engine"
                .to_owned()
        }
        OutcomeKind::AuthFailed => format!("the key was refused: check {key}"),
        OutcomeKind::QuotaExhausted => {
            format!("quota or credits used up: add another key to {key} (comma-separated) or wait")
        }
        OutcomeKind::HttpError => match o.status {
            None => "cannot connect: offline, DNS, or proxy problem".to_owned(),
            Some(s) => format!("answered HTTP {s}: the endpoint may have moved (override with {env_var})"),
        },
        OutcomeKind::ParseError => {
            "unexpected response: parser drift (the engine changed its markup); record it with --record and report it"
                .to_owned()
        }
        OutcomeKind::NotConfigured | OutcomeKind::Skipped => {
            return o.detail.clone();
        }
    };
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(kind: OutcomeKind, status: Option<u16>) -> EngineOutcome {
        EngineOutcome {
            engine: "duckduckgo".into(),
            outcome: kind,
            count: 0,
            latency_ms: 1,
            status,
            detail: None,
            query: None,
        }
    }

    #[test]
    fn hints_tell_failures_apart() {
        assert!(hint(&o(OutcomeKind::Ok, None), None).is_none());
        assert!(
            hint(&o(OutcomeKind::Blocked, None), None)
                .unwrap()
                .contains("captcha")
        );
        assert!(
            hint(&o(OutcomeKind::ParseError, None), None)
                .unwrap()
                .contains("parser drift")
        );
        assert!(
            hint(&o(OutcomeKind::AuthFailed, None), Some("EXA_API_KEY"))
                .unwrap()
                .contains("EXA_API_KEY")
        );
        assert!(
            hint(&o(OutcomeKind::HttpError, Some(404)), None)
                .unwrap()
                .contains("TRAWL_DUCKDUCKGO_URL")
        );
        assert!(
            hint(&o(OutcomeKind::HttpError, None), None)
                .unwrap()
                .contains("cannot connect")
        );
    }
}
