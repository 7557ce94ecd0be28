//! `trawl serve`: the agent tools over MCP streamable HTTP at `/mcp`, with `/healthz` and
//! `/metrics`.

use std::time::Duration;

use trawl_core::{TrawlError, vars};

use crate::commands::mcp::{store_file, tool_server_options};
use crate::context::build_server_agent;
use crate::errors::{exit_code, print_error};
use crate::mcp::{self, BearerToken, ConnLimits, HttpOptions};
use crate::redaction::known_secrets;
use crate::settings::Settings;

/// The bearer token: `token_file` (`--token-file`) wins over `TRAWL_TOKEN` (environment or
/// the config file's keys; never a `.env`). An empty token is refused wherever it comes
/// from, even beside a token file: it would otherwise mean "no auth".
fn token(settings: &Settings) -> Result<Option<BearerToken>, TrawlError> {
    let from_settings = match settings.secret(vars::TOKEN) {
        Some(value) => Some(BearerToken::new(value).map_err(|_| {
            TrawlError::invalid_input(format!(
                "{} is set but empty: set a token, or unset it to serve loopback without one",
                vars::TOKEN
            ))
        })?),
        None => None,
    };
    match &settings.token_file.value {
        Some(path) => BearerToken::from_file(path).map(Some),
        None => Ok(from_settings),
    }
}

/// The connection limits, with the descriptor limit raised first so the cap can use it.
fn limits(settings: &Settings) -> Result<ConnLimits, TrawlError> {
    let header_timeout = settings.header_timeout.value.0;
    let idle_timeout = settings.idle_timeout.value.0;
    if header_timeout.is_zero() {
        return Err(TrawlError::invalid_input(
            "header_timeout (--header-timeout) must be above 0",
        ));
    }
    // Answers in progress send a keep-alive every 15 s; a shorter idle timeout would cut
    // them.
    if idle_timeout <= KEEP_ALIVE {
        return Err(TrawlError::invalid_input(format!(
            "idle_timeout (--idle-timeout) must be above 15 seconds (the keep-alive interval \
             of answers), got {}",
            idle_timeout.as_secs_f64()
        )));
    }
    let descriptors = mcp::raise_descriptor_limit();
    Ok(ConnLimits {
        max_connections: mcp::effective_cap(settings.max_connections.value.max(1), descriptors),
        header_timeout,
        idle_timeout,
    })
}

/// How often an answer in progress sends a keep-alive.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Serve until SIGTERM or Ctrl-C.
pub async fn serve(settings: &Settings) -> i32 {
    let result = async {
        let token = token(settings)?;
        let listen = settings.listen.value;
        mcp::check_bind_policy(listen, token.as_ref(), settings.insecure_no_auth.value)?;
        let agent = build_server_agent(settings)?;
        // One browser for every call; closed when the server stops.
        let fetcher = agent.lazy_fetcher();
        let server = tool_server_options(settings);
        let prepared = mcp::prepare(
            agent,
            &server,
            store_file(settings),
            "http",
            known_secrets(settings),
        )?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| cannot_listen(&listen.to_string(), &e))?;
        let options = HttpOptions {
            token,
            public_hosts: settings.public_hosts.value.0.clone(),
            public_url: settings.public_url.value.as_ref().map(|u| u.0.clone()),
            allowed_origins: settings.allowed_origins.value.0.clone(),
            limits: limits(settings)?,
            max_sessions: settings.max_sessions.value.max(1),
            session_idle_timeout: settings.session_idle_timeout.value.0,
            max_message_bytes: server.max_message_bytes,
        };
        let served = mcp::serve_http(prepared, listener, &options).await;
        if let Some(fetcher) = fetcher.built() {
            fetcher.shutdown().await;
        }
        served
    }
    .await;
    match result {
        Ok(()) => 0,
        Err(err) => {
            print_error(&err, None, None);
            exit_code(&err)
        }
    }
}

/// Why `trawl serve` could not listen. A port another process holds is no fault of the
/// command line (the address is fine, and may be free later): `upstream`, retryable, with
/// what to do; an address this machine does not have, or a port it may not open, is.
fn cannot_listen(listen: &str, e: &std::io::Error) -> TrawlError {
    match e.kind() {
        std::io::ErrorKind::AddrInUse => TrawlError::new(
            trawl_core::ErrorCode::Upstream,
            format!(
                "cannot listen on {listen}: another process listens there (a trawl serve \
                 already running?); stop it, or give --listen another port"
            ),
        )
        .with_retryable(true),
        _ => TrawlError::invalid_input(format!("cannot listen on {listen}: {e}")),
    }
}
