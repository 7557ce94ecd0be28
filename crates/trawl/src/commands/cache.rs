use trawl_core::{Envelope, Meta, TrawlError};
use trawl_store::Section;

use crate::cli::CacheCommand;
use crate::context::open_store;
use crate::output::{print_json, report_error};
use crate::settings::Settings;

/// `trawl cache stats|clear|prune`.
pub async fn cache(cmd: &CacheCommand, settings: &Settings) -> i32 {
    let json = match cmd {
        CacheCommand::Stats(f) | CacheCommand::Clear(f) | CacheCommand::Prune(f) => f.json,
    };
    let store = match open_store(settings) {
        Ok(s) => s,
        Err(e) => return report_error(&e, json, Meta::default()),
    };
    // Where the store is: the Redis URL (credentials masked) or the file.
    let path = match &settings.redis.value {
        Some(url) => url.clone(),
        None => settings.store_path().unwrap_or_default(),
    };
    let result: Result<serde_json::Value, TrawlError> = match cmd {
        CacheCommand::Stats(_) => store
            .run(|s| s.stats())
            .await
            .map(|st| serde_json::json!({ "path": path, "stats": st })),
        CacheCommand::Clear(_) => store
            .run(|s| s.clear(&Section::ALL))
            .await
            .map(|n| serde_json::json!({ "path": path, "removed": n })),
        CacheCommand::Prune(_) => store
            .run(|s| s.prune())
            .await
            .map(|r| serde_json::json!({ "path": path, "pruned": r })),
    }
    .map_err(|e| TrawlError::internal(format!("store: {e}")));
    match result {
        Ok(v) if json => {
            print_json(&Envelope::success(v, Meta::default()));
            0
        }
        Ok(v) => {
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            0
        }
        Err(e) => report_error(&e, json, Meta::default()),
    }
}
