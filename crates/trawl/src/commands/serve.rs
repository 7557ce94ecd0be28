//! `trawl serve`: the agent tools over MCP streamable HTTP at `/mcp`, with `/healthz` and
//! `/metrics`.

use trawl_core::{TrawlError, vars};

use crate::commands::mcp::store_file;
use crate::context::build_server_agent;
use crate::errors::{exit_code, print_error};
use crate::mcp::{self, BearerToken, ConnLimits, HttpOptions, ServeArgs};
use crate::redaction::known_secrets;
use crate::settings::Settings;

/// The bearer token: `--token-file` wins over `TRAWL_TOKEN` (environment or the config
/// file's keys; never a `.env`). An empty token is refused wherever it comes from, even
/// beside a token file: it would otherwise mean "no auth".
fn token(args: &ServeArgs, settings: &Settings) -> Result<Option<BearerToken>, TrawlError> {
    let from_settings = match settings.secret(vars::TOKEN) {
        Some(value) => Some(BearerToken::new(value).map_err(|_| {
            TrawlError::invalid_input(format!(
                "{} is set but empty: set a token, or unset it to serve loopback without one",
                vars::TOKEN
            ))
        })?),
        None => None,
    };
    match &args.token_file {
        Some(path) => BearerToken::from_file(path).map(Some),
        None => Ok(from_settings),
    }
}

/// The connection limits, with the descriptor limit raised first so the cap can use it.
fn limits(args: &ServeArgs) -> Result<ConnLimits, TrawlError> {
    let header_timeout = mcp::seconds("--header-timeout", args.header_timeout)?;
    let idle_timeout = mcp::seconds("--idle-timeout", args.idle_timeout)?;
    if header_timeout.is_zero() {
        return Err(TrawlError::invalid_input(
            "--header-timeout must be above 0",
        ));
    }
    // Answers in progress send a keep-alive every 15 s; a shorter idle timeout would cut
    // them.
    if idle_timeout <= std::time::Duration::from_secs(15) {
        return Err(TrawlError::invalid_input(format!(
            "--idle-timeout must be above 15 seconds (the keep-alive interval of answers), got {}",
            args.idle_timeout
        )));
    }
    let descriptors = mcp::raise_descriptor_limit();
    Ok(ConnLimits {
        max_connections: mcp::effective_cap(args.max_connections.max(1), descriptors),
        header_timeout,
        idle_timeout,
    })
}

/// Serve until SIGTERM or Ctrl-C.
pub async fn serve(args: &ServeArgs, settings: &Settings) -> i32 {
    let result = async {
        let token = token(args, settings)?;
        mcp::check_bind_policy(args.listen, token.as_ref(), args.insecure_no_auth)?;
        let agent = build_server_agent(settings)?;
        // One browser for every call; closed when the server stops.
        let fetcher = agent.lazy_fetcher();
        let prepared = mcp::prepare(
            agent,
            &args.server,
            store_file(settings),
            "http",
            known_secrets(settings),
        )?;
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| {
                TrawlError::invalid_input(format!("cannot listen on {}: {e}", args.listen))
            })?;
        let options = HttpOptions {
            token,
            public_hosts: args.public_hosts.clone(),
            allowed_origins: args.allow_origins.clone(),
            limits: limits(args)?,
            max_sessions: args.max_sessions.max(1),
            session_idle_timeout: mcp::seconds(
                "--session-idle-timeout",
                args.session_idle_timeout,
            )?,
            max_message_bytes: args.server.max_message_bytes,
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
