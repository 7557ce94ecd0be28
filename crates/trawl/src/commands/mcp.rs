//! `trawl mcp`: the agent tools over MCP on standard input and output.

use crate::context::build_agent;
use crate::errors::{exit_code, print_error};
use crate::mcp::{self, McpArgs};
use crate::redaction::known_secrets;
use crate::settings::Settings;

/// Serve until the client closes stdin or SIGTERM/Ctrl-C; errors go to stderr (stdout is
/// the protocol's).
pub async fn mcp(args: &McpArgs, settings: &Settings) -> i32 {
    let result = async {
        let agent = build_agent(settings)?;
        let fetcher = agent.lazy_fetcher();
        let prepared = mcp::prepare(
            agent,
            &args.server,
            store_file(settings),
            "stdio",
            known_secrets(settings),
        )?;
        let served = mcp::serve_stdio(prepared).await;
        if let Some(fetcher) = fetcher.built() {
            fetcher.shutdown().await;
        }
        served
    }
    .await;
    let code = match result {
        Ok(()) => 0,
        Err(err) => {
            print_error(&err, None, None);
            exit_code(&err)
        }
    };
    // tokio reads stdin on a blocking thread that can't be interrupted, so dropping the
    // runtime after a signal would wait for the client's next line; exit here instead.
    std::process::exit(code)
}

/// The store's file, when the store is one (for the store-size gauge).
pub fn store_file(settings: &Settings) -> Option<std::path::PathBuf> {
    if settings.redis.value.is_some() {
        return None;
    }
    settings
        .store_path()
        .ok()
        .filter(|p| p != ":memory:")
        .map(std::path::PathBuf::from)
}
