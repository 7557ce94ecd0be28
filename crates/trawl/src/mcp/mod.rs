//! trawl's MCP faces: `trawl mcp` (stdio, one local agent) and `trawl serve` (streamable
//! HTTP at `/mcp`, many agents), both serving the agent tools through one [`TrawlMcp`].
//!
//! - [`server`]: the tools as thin adapters over `trawl_agent::tools::Agent`.
//! - [`outcome`]: a call's outcome as a tool result (fenced text + JSON, or `isError`).
//! - [`gate`]: bounded concurrency and draining on shutdown.
//! - [`http`]: the axum app (`/mcp`, `/healthz`, `/metrics`), bearer auth, Host/Origin checks.
//! - [`auth`]: the token and the rule that an open server stays on loopback.
//! - [`metrics`], [`log`]: Prometheus counters and the one-line-per-call request log.
//!
//! "Nothing usable" at startup: reading pages always works, so what can be missing is
//! search. With no usable engine the server refuses to start (an empty engine list is
//! almost always a configuration mistake an agent could not diagnose from "no results"),
//! unless `--fetch-only` asks for a reading-only server. Tools whose engine is not
//! usable (`arxiv`, `github`: each tool says what it
//! [`Needs`](trawl_agent::tools::Needs)) are left out of `tools/list` rather than failing
//! each call.

pub mod args;
mod auth;
mod compact;
mod conn;
mod gate;
mod http;
mod jsonrpc;
mod log;
mod metrics;
mod outcome;
mod rebinding;
pub(crate) mod server;
mod sessions;
mod stdio;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;
use trawl_agent::tools::{Agent, ToolInfo, tools};
use trawl_core::{ErrorCode, Scrubber, TrawlError};

pub use args::{McpArgs, ServeArgs};
pub use auth::{BearerToken, check_bind_policy};
pub use conn::{ConnLimits, effective_cap, raise_descriptor_limit};
pub use http::HttpOptions;
pub use server::{ServerState, TrawlMcp};

use gate::CallGate;
use log::{LogConfig, RequestLog};
use metrics::Metrics;

/// What the settings tell a tool server, whatever its transport (each field is the setting
/// of the same name, see `settings/table.rs`).
#[derive(Debug, Clone)]
pub struct ToolServerOptions {
    /// Most tool calls running at once (0 = no limit).
    pub max_concurrent: usize,
    /// How long a queued call waits (zero: as long as it takes).
    pub queue_timeout: Duration,
    /// How long running calls may take to finish on a shutdown signal.
    pub shutdown_grace: Duration,
    /// Serve reading only, even with no usable search engine.
    pub fetch_only: bool,
    /// A file the request log is appended to as well.
    pub log_file: Option<PathBuf>,
    /// The log file's size at which it is rotated (0 = never).
    pub log_max_bytes: u64,
    /// Rotated log files kept.
    pub log_keep: usize,
    /// No request log on stderr.
    pub log_quiet: bool,
    /// Longest JSON-RPC message accepted.
    pub max_message_bytes: usize,
}

/// Which tools to leave out, given the usable engines and what each tool of the table
/// [`Needs`](trawl_agent::tools::Needs); an error when nothing could search and the operator
/// did not ask for a reading-only server.
fn hidden_tools(usable: &[String], fetch_only: bool) -> Result<Vec<&'static str>, TrawlError> {
    let (searching, reading): (Vec<&ToolInfo>, Vec<&ToolInfo>) =
        tools().iter().partition(|t| t.needs.searches());
    if fetch_only {
        return Ok(searching.iter().map(|t| t.name).collect());
    }
    if usable.is_empty() {
        return Err(TrawlError::invalid_input(format!(
            "no search engine is usable, so {} could not answer: check the engine settings, \
             keys and disabled_engines (`trawl doctor` tells why each engine is off), or pass \
             --fetch-only to serve only {}",
            names(&searching),
            names(&reading)
        )));
    }
    Ok(tools()
        .iter()
        .filter(|t| !t.needs.met_by(usable))
        .map(|t| t.name)
        .collect())
}

/// `a, b and c`.
fn names(tools: &[&ToolInfo]) -> String {
    let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// A server ready for a transport: the handler, its shared state, the shutdown grace.
pub struct Prepared {
    pub server: TrawlMcp,
    pub state: Arc<ServerState>,
    pub grace: Duration,
    /// Longest JSON-RPC message accepted.
    pub max_message_bytes: usize,
}

/// Check the engines, open the request log, and build the handler. No log line, metric or
/// error result the server gives holds one of `secrets`.
pub fn prepare(
    agent: Agent,
    args: &ToolServerOptions,
    store_path: Option<PathBuf>,
    transport: &str,
    secrets: Scrubber,
) -> Result<Prepared, TrawlError> {
    let usable = agent.usable_engines()?;
    let hidden = hidden_tools(&usable, args.fetch_only)?;
    let log = RequestLog::open(&LogConfig {
        stderr: !args.log_quiet,
        file: args.log_file.clone(),
        max_bytes: args.log_max_bytes,
        keep: args.log_keep,
        secrets: secrets.clone(),
    })
    .map_err(|e| {
        let path = args.log_file.as_deref().unwrap_or(std::path::Path::new(""));
        TrawlError::invalid_input(format!("log file {}: {e}", path.display()))
    })?;
    let state = Arc::new(ServerState {
        gate: CallGate::new(args.max_concurrent, args.queue_timeout),
        metrics: Metrics::new(secrets.clone()),
        log,
        secrets,
        started: Instant::now(),
        store_path,
        responses: Arc::default(),
    });
    let server = TrawlMcp::new(agent, state.clone(), &hidden);
    state.log.event(
        "start",
        &[
            ("transport", transport.to_owned()),
            ("version", env!("CARGO_PKG_VERSION").to_owned()),
            ("tools", server.tool_names().join(",")),
            ("engines", usable.len().to_string()),
            ("max_concurrent", args.max_concurrent.to_string()),
        ],
    );
    Ok(Prepared {
        server,
        state,
        grace: args.shutdown_grace,
        max_message_bytes: args.max_message_bytes,
    })
}

/// Resolves on SIGTERM or Ctrl-C (SIGINT).
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Serve MCP on stdin/stdout until the client closes stdin or a shutdown signal arrives;
/// on a signal, running calls get the grace period to finish first.
pub async fn serve_stdio(prepared: Prepared) -> Result<(), TrawlError> {
    let Prepared {
        server,
        state,
        grace,
        max_message_bytes,
    } = prepared;
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    // Calls running when stdin closes get the shutdown grace to be answered.
    let transport =
        stdio::BoundedStdio::new(tokio::io::stdin(), tokio::io::stdout(), max_message_bytes)
            .with_drain_timeout(grace);
    let running = tokio::select! {
        running = server.serve(transport) => running.map_err(|e| {
            TrawlError::new(
                ErrorCode::Upstream,
                format!("MCP handshake on stdio failed: {e}"),
            )
        })?,
        () = &mut shutdown => {
            state.log.event("stopped", &[("reason", "signal before the handshake".to_owned())]);
            flush_log(&state).await;
            return Ok(());
        }
    };
    let session_ct = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        _ = &mut waiting => {
            state.log.event("stopped", &[("reason", "stdin closed".to_owned())]);
            flush_log(&state).await;
            return Ok(());
        }
        () = &mut shutdown => {}
    }
    state.log.event(
        "shutdown",
        &[
            ("inflight_calls", state.gate.inflight().to_string()),
            ("grace_secs", format!("{:.1}", grace.as_secs_f64())),
        ],
    );
    state.gate.start_draining();
    let finished = state.gate.drained(grace).await;
    // Give the last answers a moment to be written before the session closes.
    tokio::time::sleep(Duration::from_millis(50)).await;
    session_ct.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(2), &mut waiting).await;
    state
        .log
        .event("stopped", &[("all_calls_finished", finished.to_string())]);
    flush_log(&state).await;
    Ok(())
}

/// Wait for the request log's last lines to be written, before the process exits.
async fn flush_log(state: &Arc<ServerState>) {
    let state = state.clone();
    let _ = tokio::task::spawn_blocking(move || state.log.flush()).await;
}

/// Serve MCP over HTTP on `listener` until a shutdown signal.
pub async fn serve_http(
    prepared: Prepared,
    listener: tokio::net::TcpListener,
    options: &HttpOptions,
) -> Result<(), TrawlError> {
    let Prepared {
        server,
        state,
        grace,
        ..
    } = prepared;
    let listen = listener
        .local_addr()
        .map_err(|e| TrawlError::internal(format!("listener address: {e}")))?;
    let sessions_ct = CancellationToken::new();
    let app = http::app(server, state.clone(), options, listen, sessions_ct.clone());
    state.log.event(
        "listening",
        &[
            ("url", format!("http://{listen}/mcp")),
            (
                "auth",
                if options.token.is_some() {
                    "bearer"
                } else {
                    "none"
                }
                .to_owned(),
            ),
            (
                "max_connections",
                options.limits.max_connections.to_string(),
            ),
            ("max_sessions", options.max_sessions.to_string()),
        ],
    );
    let served = http::serve(
        listener,
        app,
        state.clone(),
        sessions_ct,
        shutdown_signal(),
        grace,
    )
    .await;
    flush_log(&state).await;
    served.map_err(|e| TrawlError::internal(format!("HTTP server failed: {e}")).with_causes_of(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_usable_is_refused_unless_fetch_only() {
        let none: Vec<String> = Vec::new();
        let err = hidden_tools(&none, false).unwrap_err();
        assert!(err.message.contains("--fetch-only"), "{}", err.message);
        assert!(
            err.message
                .starts_with("no search engine is usable, so web_search, arxiv and github")
                && err
                    .message
                    .ends_with("serve only web_fetch, web_open, sites, web_map and web_crawl"),
            "{}",
            err.message
        );
        assert_eq!(
            hidden_tools(&none, true).unwrap(),
            ["web_search", "arxiv", "github"]
        );
        let web = vec!["duckduckgo".to_owned(), "github".to_owned()];
        assert_eq!(hidden_tools(&web, false).unwrap(), vec!["arxiv"]);
    }
}
