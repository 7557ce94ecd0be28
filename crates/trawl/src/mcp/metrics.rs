//! Counters behind `/metrics`, written out in the Prometheus text format (version 0.0.4).
//!
//! A handful of labelled counters and one latency histogram per tool don't need a metrics
//! crate: a mutex over ordered maps is cheap at tool-call rates and renders in a stable order.
//! Labels are engine names, tools, codes and routes, never request data; the text still
//! passes the server's [`Scrubber`] on its way out, so no label can carry a key.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use trawl_core::Scrubber;

/// Upper bounds of the tool-call latency buckets, in seconds.
const LATENCY_BUCKETS: [f64; 11] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0];

#[derive(Debug, Default, Clone)]
struct Histogram {
    /// Non-cumulative count per bucket; the last slot is `+Inf`.
    buckets: [u64; LATENCY_BUCKETS.len() + 1],
    sum_secs: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, secs: f64) {
        let slot = LATENCY_BUCKETS
            .iter()
            .position(|le| secs <= *le)
            .unwrap_or(LATENCY_BUCKETS.len());
        self.buckets[slot] += 1;
        self.sum_secs += secs;
        self.count += 1;
    }
}

#[derive(Debug, Default)]
struct Counters {
    http_requests: BTreeMap<(String, u16), u64>,
    tool_calls: BTreeMap<(String, String), u64>,
    tool_errors: BTreeMap<(String, String), u64>,
    tool_latency: BTreeMap<String, Histogram>,
    engine_outcomes: BTreeMap<(String, String), u64>,
    rejected_calls: BTreeMap<String, u64>,
}

/// Gauges read at render time rather than counted.
#[derive(Debug, Default, Clone, Copy)]
pub struct Gauges {
    pub inflight_calls: usize,
    pub max_concurrent: usize,
    pub uptime_secs: f64,
    /// Bytes of the local store on disk, when the store is a file.
    pub store_bytes: Option<u64>,
    /// Connections and sessions, under `trawl serve`.
    pub http: Option<HttpGauges>,
}

/// What `trawl serve` holds open.
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpGauges {
    pub open_connections: usize,
    pub connections_evicted: u64,
    pub connections_refused: u64,
    pub live_sessions: usize,
    pub sessions_evicted: u64,
}

/// Process-wide metrics of one server.
#[derive(Debug, Default)]
pub struct Metrics {
    counters: Mutex<Counters>,
    secrets: Scrubber,
}

impl Metrics {
    /// Metrics whose text never holds one of `secrets`.
    pub fn new(secrets: Scrubber) -> Self {
        Metrics {
            counters: Mutex::default(),
            secrets,
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Counters) -> R) -> R {
        let mut guard = self
            .counters
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut guard)
    }

    /// One HTTP request answered, by route (`/mcp`, `/healthz`, …) and status.
    pub fn http_request(&self, route: &str, status: u16) {
        self.with(|c| {
            *c.http_requests
                .entry((route.to_owned(), status))
                .or_default() += 1
        });
    }

    /// One finished tool call: `error_code` is `None` on success.
    pub fn tool_call(&self, tool: &str, error_code: Option<&str>, elapsed: Duration) {
        self.with(|c| {
            let outcome = if error_code.is_some() { "error" } else { "ok" };
            *c.tool_calls
                .entry((tool.to_owned(), outcome.to_owned()))
                .or_default() += 1;
            if let Some(code) = error_code {
                *c.tool_errors
                    .entry((tool.to_owned(), code.to_owned()))
                    .or_default() += 1;
            }
            c.tool_latency
                .entry(tool.to_owned())
                .or_default()
                .observe(elapsed.as_secs_f64());
        });
    }

    /// One engine's outcome within a search (`ok`, `timeout`, `rate_limited`, …).
    pub fn engine_outcome(&self, engine: &str, outcome: &str) {
        self.with(|c| {
            *c.engine_outcomes
                .entry((engine.to_owned(), outcome.to_owned()))
                .or_default() += 1;
        });
    }

    /// A tool call refused before it ran (`busy`, `shutting_down`).
    pub fn rejected_call(&self, reason: &str) {
        self.with(|c| *c.rejected_calls.entry(reason.to_owned()).or_default() += 1);
    }

    /// The Prometheus text exposition.
    pub fn render(&self, gauges: Gauges) -> String {
        let mut out = String::new();
        self.with(|c| {
            header(&mut out, "trawl_http_requests_total", "counter", "HTTP requests answered, by route and status.");
            for ((route, status), n) in &c.http_requests {
                let _ = writeln!(
                    out,
                    "trawl_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
            header(&mut out, "trawl_tool_calls_total", "counter", "MCP tool calls finished, by tool and outcome (ok or error).");
            for ((tool, outcome), n) in &c.tool_calls {
                let _ = writeln!(
                    out,
                    "trawl_tool_calls_total{{tool=\"{}\",outcome=\"{}\"}} {n}",
                    escape(tool),
                    escape(outcome)
                );
            }
            header(&mut out, "trawl_tool_errors_total", "counter", "MCP tool calls that ended in an error, by tool and error code.");
            for ((tool, code), n) in &c.tool_errors {
                let _ = writeln!(
                    out,
                    "trawl_tool_errors_total{{tool=\"{}\",code=\"{}\"}} {n}",
                    escape(tool),
                    escape(code)
                );
            }
            header(&mut out, "trawl_tool_call_duration_seconds", "histogram", "Latency of MCP tool calls, by tool.");
            for (tool, h) in &c.tool_latency {
                let tool = escape(tool);
                let mut cumulative = 0;
                for (le, n) in LATENCY_BUCKETS.iter().zip(&h.buckets) {
                    cumulative += n;
                    let _ = writeln!(
                        out,
                        "trawl_tool_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"{le}\"}} {cumulative}"
                    );
                }
                let _ = writeln!(
                    out,
                    "trawl_tool_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"+Inf\"}} {}",
                    h.count
                );
                let _ = writeln!(
                    out,
                    "trawl_tool_call_duration_seconds_sum{{tool=\"{tool}\"}} {}",
                    h.sum_secs
                );
                let _ = writeln!(
                    out,
                    "trawl_tool_call_duration_seconds_count{{tool=\"{tool}\"}} {}",
                    h.count
                );
            }
            header(&mut out, "trawl_engine_outcomes_total", "counter", "Search engine answers within tool calls, by engine and outcome.");
            for ((engine, outcome), n) in &c.engine_outcomes {
                let _ = writeln!(
                    out,
                    "trawl_engine_outcomes_total{{engine=\"{}\",outcome=\"{}\"}} {n}",
                    escape(engine),
                    escape(outcome)
                );
            }
            header(&mut out, "trawl_rejected_calls_total", "counter", "Tool calls refused before running, by reason (busy, shutting_down).");
            for (reason, n) in &c.rejected_calls {
                let _ = writeln!(
                    out,
                    "trawl_rejected_calls_total{{reason=\"{}\"}} {n}",
                    escape(reason)
                );
            }
        });
        header(
            &mut out,
            "trawl_inflight_calls",
            "gauge",
            "Tool calls running now.",
        );
        let _ = writeln!(out, "trawl_inflight_calls {}", gauges.inflight_calls);
        header(
            &mut out,
            "trawl_max_concurrent_calls",
            "gauge",
            "Configured limit on concurrent tool calls.",
        );
        let _ = writeln!(out, "trawl_max_concurrent_calls {}", gauges.max_concurrent);
        header(
            &mut out,
            "trawl_uptime_seconds",
            "gauge",
            "Seconds since the server started.",
        );
        let _ = writeln!(out, "trawl_uptime_seconds {:.3}", gauges.uptime_secs);
        if let Some(bytes) = gauges.store_bytes {
            header(
                &mut out,
                "trawl_store_bytes",
                "gauge",
                "Size of the local store on disk, in bytes.",
            );
            let _ = writeln!(out, "trawl_store_bytes {bytes}");
        }
        if let Some(http) = gauges.http {
            let rows: [(&str, &str, &str, u64); 5] = [
                (
                    "trawl_open_connections",
                    "gauge",
                    "HTTP connections open now.",
                    http.open_connections as u64,
                ),
                (
                    "trawl_connections_evicted_total",
                    "counter",
                    "Idle connections closed to make room under --max-connections.",
                    http.connections_evicted,
                ),
                (
                    "trawl_connections_refused_total",
                    "counter",
                    "Connections refused because every open one was busy.",
                    http.connections_refused,
                ),
                (
                    "trawl_live_sessions",
                    "gauge",
                    "MCP sessions alive now.",
                    http.live_sessions as u64,
                ),
                (
                    "trawl_sessions_evicted_total",
                    "counter",
                    "Idle MCP sessions closed to make room under --max-sessions.",
                    http.sessions_evicted,
                ),
            ];
            for (name, kind, help, value) in rows {
                header(&mut out, name, kind, help);
                let _ = writeln!(out, "{name} {value}");
            }
        }
        self.secrets.scrub(&out)
    }
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// Escape a label value: backslash, double quote and newline.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_a_cumulative_histogram() {
        let m = Metrics::default();
        m.http_request("/mcp", 200);
        m.http_request("/mcp", 200);
        m.http_request("/mcp", 401);
        m.tool_call("web_fetch", None, Duration::from_millis(40));
        m.tool_call("web_fetch", Some("timeout"), Duration::from_secs(3));
        m.engine_outcome("searxng", "ok");
        m.engine_outcome("we\"ird", "timeout");
        m.rejected_call("busy");
        let text = m.render(Gauges {
            inflight_calls: 1,
            max_concurrent: 16,
            uptime_secs: 2.0,
            store_bytes: Some(4096),
            http: Some(HttpGauges {
                live_sessions: 3,
                ..HttpGauges::default()
            }),
        });
        for line in [
            "trawl_http_requests_total{route=\"/mcp\",status=\"200\"} 2",
            "trawl_http_requests_total{route=\"/mcp\",status=\"401\"} 1",
            "trawl_tool_calls_total{tool=\"web_fetch\",outcome=\"error\"} 1",
            "trawl_tool_errors_total{tool=\"web_fetch\",code=\"timeout\"} 1",
            "trawl_tool_call_duration_seconds_bucket{tool=\"web_fetch\",le=\"0.05\"} 1",
            "trawl_tool_call_duration_seconds_bucket{tool=\"web_fetch\",le=\"2.5\"} 1",
            "trawl_tool_call_duration_seconds_bucket{tool=\"web_fetch\",le=\"5\"} 2",
            "trawl_tool_call_duration_seconds_bucket{tool=\"web_fetch\",le=\"+Inf\"} 2",
            "trawl_tool_call_duration_seconds_count{tool=\"web_fetch\"} 2",
            "trawl_engine_outcomes_total{engine=\"we\\\"ird\",outcome=\"timeout\"} 1",
            "trawl_rejected_calls_total{reason=\"busy\"} 1",
            "trawl_inflight_calls 1",
            "trawl_store_bytes 4096",
            "trawl_live_sessions 3",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
    }

    #[test]
    fn no_label_shows_a_configured_secret() {
        let m = Metrics::new(Scrubber::new(["sk-canary-42"]));
        m.engine_outcome("engine-sk-canary-42", "ok");
        let text = m.render(Gauges::default());
        assert!(!text.contains("sk-canary"), "{text}");
        assert!(text.contains("engine=\"engine-****\""), "{text}");
    }
}
