//! `trawl mcp`: the agent tools over MCP on standard input and output.

use crate::context::build_agent;
use crate::errors::{exit_code, print_error};
use crate::mcp::{self, ToolServerOptions};
use crate::redaction::known_secrets;
use crate::settings::{Settings, StoreLocation};

/// Serve until the client closes stdin or SIGTERM/Ctrl-C; errors go to stderr (stdout is
/// the protocol's).
pub async fn mcp(settings: &Settings) -> i32 {
    let result = async {
        let agent = build_agent(settings)?;
        let fetcher = agent.lazy_fetcher();
        let prepared = mcp::prepare(
            agent,
            &tool_server_options(settings),
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

/// What the settings tell a tool server, for either transport.
pub fn tool_server_options(settings: &Settings) -> ToolServerOptions {
    ToolServerOptions {
        max_concurrent: settings.max_concurrent.value,
        queue_timeout: settings.queue_timeout.value.0,
        shutdown_grace: settings.shutdown_grace.value.0,
        fetch_only: settings.fetch_only.value,
        log_file: settings.log_file.value.clone(),
        log_max_bytes: settings.log_max_bytes.value,
        log_keep: settings.log_keep.value,
        log_quiet: settings.log_quiet.value,
        max_message_bytes: settings.max_message_bytes.value,
    }
}

/// The store's file, when the store is one (for the store-size gauge).
pub fn store_file(settings: &Settings) -> Option<std::path::PathBuf> {
    if settings.redis.value.is_some() {
        return None;
    }
    match settings.store_location().ok()? {
        StoreLocation::File(path) => Some(path),
        StoreLocation::Memory => None,
    }
}
