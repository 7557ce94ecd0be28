//! `trawl serve`: the agent tools over MCP streamable HTTP at `/mcp`, with `/healthz` and
//! `/metrics`.

use trawl_core::TrawlError;

use crate::commands::mcp::store_file;
use crate::context::build_agent;
use crate::mcp::{self, BearerToken, HttpOptions, ServeArgs};
use crate::output::exit_code;
use crate::settings::Settings;

/// The bearer token: `--token-file` wins over `TRAWL_TOKEN` (environment, `.env` or the
/// config file's keys).
fn token(args: &ServeArgs, settings: &Settings) -> Result<Option<BearerToken>, TrawlError> {
    if let Some(path) = &args.token_file {
        return BearerToken::from_file(path).map(Some);
    }
    match settings.secret("TRAWL_TOKEN") {
        Some(value) => BearerToken::new(value)
            .map(Some)
            .map_err(|_| TrawlError::invalid_input("TRAWL_TOKEN is set but empty")),
        None => Ok(None),
    }
}

/// Serve until SIGTERM or Ctrl-C.
pub async fn serve(args: &ServeArgs, settings: &Settings) -> i32 {
    let result = async {
        let token = token(args, settings)?;
        mcp::check_bind_policy(args.listen, token.as_ref(), args.insecure_no_auth)?;
        let agent = build_agent(settings)?;
        // One browser for every call; closed when the server stops.
        let fetcher = agent.fetcher().clone();
        let prepared = mcp::prepare(agent, &args.server, store_file(settings), "http")?;
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| {
                TrawlError::invalid_input(format!("cannot listen on {}: {e}", args.listen))
            })?;
        let options = HttpOptions {
            token,
            public_hosts: args.public_hosts.clone(),
            allowed_origins: args.allow_origins.clone(),
        };
        let served = mcp::serve_http(prepared, listener, &options).await;
        fetcher.shutdown().await;
        served
    }
    .await;
    match result {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("error[{}]: {}", err.code, err.message);
            exit_code(&err)
        }
    }
}
