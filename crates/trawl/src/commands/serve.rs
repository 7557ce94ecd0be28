//! `trawl serve`: the agent tools over MCP streamable HTTP at `/mcp`, with `/healthz` and
//! `/metrics`.

use trawl_core::{TrawlError, vars};

use crate::commands::mcp::store_file;
use crate::context::build_agent;
use crate::mcp::{self, BearerToken, HttpOptions, ServeArgs};
use crate::output::exit_code;
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

/// Serve until SIGTERM or Ctrl-C.
pub async fn serve(args: &ServeArgs, settings: &Settings) -> i32 {
    let result = async {
        let token = token(args, settings)?;
        mcp::check_bind_policy(args.listen, token.as_ref(), args.insecure_no_auth)?;
        let agent = build_agent(settings)?;
        // One browser for every call; closed when the server stops.
        let fetcher = agent.lazy_fetcher();
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
        if let Some(fetcher) = fetcher.built() {
            fetcher.shutdown().await;
        }
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
