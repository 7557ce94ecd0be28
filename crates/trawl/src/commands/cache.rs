use serde::Serialize;
use trawl_core::{Envelope, ErrorCode, Meta, TrawlError};
use trawl_store::{Section, SqliteStore, WhenUnwritable};

use crate::cli::CacheCommand;
use crate::context::{open_choice, open_sqlite, store_choice};
use crate::errors::{ExitStatus, print_error};
use crate::output::{print_json, report_error};
use crate::settings::Settings;

/// `trawl cache stats|clear|prune|doctor`.
pub async fn cache(cmd: &CacheCommand, settings: &Settings) -> i32 {
    let json = match cmd {
        CacheCommand::Stats(f) | CacheCommand::Prune(f) | CacheCommand::Doctor(f) => f.json,
        CacheCommand::Clear(a) => a.json,
    };
    if let CacheCommand::Doctor(_) = cmd {
        return doctor(settings, json).await;
    }
    let choice = match store_choice(settings) {
        Ok(choice) => choice,
        Err(e) => return report_error(&e, json, Meta::default()),
    };
    let store = match open_choice(&choice, WhenUnwritable::Fail) {
        Ok(opened) => opened.store,
        Err(e) => return report_error(&e, json, Meta::default()),
    };
    // Where the store is: the Redis URL (credentials masked) or the file.
    let path = choice.location();
    if let CacheCommand::Clear(a) = cmd
        && !a.yes
        && !confirm_clear(&path)
    {
        eprintln!("nothing removed");
        return ExitStatus::Failure.code();
    }
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
        CacheCommand::Doctor(_) => unreachable!("answered above"),
    }
    .map_err(|e| TrawlError::internal(format!("store: {e}")));
    match result {
        Ok(v) if json => {
            print_json(&Envelope::success(v, Meta::default()));
            0
        }
        Ok(v) => {
            print!("{}", human(&v));
            0
        }
        Err(e) => report_error(&e, json, Meta::default()),
    }
}

/// On a terminal, `cache clear` asks first; a pipe or a script has said what it wants.
fn confirm_clear(path: &str) -> bool {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return true;
    }
    eprint!("remove everything stored in {path}? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim(), "y" | "Y" | "yes" | "Yes")
}

/// The answer for a person: one line per count, named in words.
fn human(v: &serde_json::Value) -> String {
    let n = |obj: &serde_json::Value, key: &str| obj.get(key).and_then(|x| x.as_u64()).unwrap_or(0);
    let path = v["path"].as_str().unwrap_or("");
    let mut out = format!("store: {path}\n");
    if let Some(st) = v.get("stats") {
        let size = st["size_bytes"]
            .as_u64()
            .map(|b| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)))
            .unwrap_or_else(|| "unknown".to_owned());
        out.push_str(&format!(
            "documents: {} ({} stale, {:.1} MiB of text)\npassages: {}\nsearches: {} ({} expired)\nsites remembered: {}\nkey states: {}\nsize on disk: {size}\n",
            n(st, "documents"),
            n(st, "stale_documents"),
            n(st, "document_bytes") as f64 / (1024.0 * 1024.0),
            n(st, "passages"),
            n(st, "search_entries"),
            n(st, "expired_search_entries"),
            n(st, "sites"),
            n(st, "key_states"),
        ));
    } else if let Some(p) = v.get("pruned") {
        out.push_str(&format!(
            "pruned: {} expired documents, {} evicted above the size bound, {} expired searches, {} forgotten sites\n",
            n(p, "expired_documents"),
            n(p, "evicted_documents"),
            n(p, "expired_searches"),
            n(p, "forgotten_sites"),
        ));
    } else if let Some(removed) = v.get("removed") {
        out.push_str(&format!(
            "removed {} entries\n",
            removed.as_u64().unwrap_or(0)
        ));
    }
    out
}

/// What `cache doctor` found.
#[derive(Debug, Serialize)]
struct StoreCheck {
    path: String,
    /// Opens, reads, is not damaged and takes writes.
    healthy: bool,
    /// `corrupt`, `not_a_file`, `read_only`, `disk_full`, or `other`, when not healthy.
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<String>,
    /// What is wrong, in the store's words (SQLite's integrity check included).
    problems: Vec<String>,
}

/// `trawl cache doctor`: open the store, run SQLite's integrity check and FTS5's check of
/// the passage index, and say whether it can be written. Exits 1 when something is wrong.
async fn doctor(settings: &Settings, json: bool) -> i32 {
    let path = settings
        .store_location()
        .map(|l| l.to_string())
        .unwrap_or_default();
    let probe_settings = settings.clone();
    let check = tokio::task::spawn_blocking(move || check_store(&probe_settings))
        .await
        .unwrap_or_else(|e| StoreCheck {
            path: path.clone(),
            healthy: false,
            fault: Some("other".into()),
            problems: vec![format!("the check did not finish: {e}")],
        });
    let healthy = check.healthy;
    if json {
        if healthy {
            print_json(&Envelope::success(&check, Meta::default()));
        } else {
            let mut meta = Meta::default();
            meta.extra.insert(
                "store".into(),
                serde_json::to_value(&check).unwrap_or_default(),
            );
            print_json(&Envelope::<()>::failure(
                TrawlError::new(ErrorCode::StoreUnavailable, check.problems.join("; "))
                    .with_retryable(false),
                meta,
            ));
        }
    } else {
        let mark = if healthy { "ok  " } else { "FAIL" };
        println!("{mark} store {}", check.path);
        for p in &check.problems {
            println!("     {p}");
        }
        if !healthy {
            // A store that cannot be used is no bug of trawl's: the problems above say why
            // and what to do.
            let err = TrawlError::new(
                ErrorCode::StoreUnavailable,
                format!(
                    "the store is {}",
                    check
                        .fault
                        .as_deref()
                        .unwrap_or("not healthy")
                        .replace('_', " ")
                ),
            )
            .with_retryable(false);
            print_error(&err, None, None);
        }
    }
    ExitStatus::from_health(healthy).code()
}

/// What to do about a store that cannot be used: the command that fixes it.
fn remedy(fault: Option<&str>, path: &str) -> Option<String> {
    match fault? {
        "corrupt" => Some(format!(
            "to start afresh: mv {path} {path}.corrupt (trawl makes a new store on the next \
             read; what the old one held is lost unless it can be recovered with sqlite3's .recover)"
        )),
        "not_a_file" => Some(format!(
            "{path} is not a file: give another --store PATH (or TRAWL_STORE)"
        )),
        _ => None,
    }
}

fn check_store(settings: &Settings) -> StoreCheck {
    let path = settings
        .store_location()
        .map(|l| l.to_string())
        .unwrap_or_default();
    let unhealthy = |fault: &str, problems: Vec<String>| StoreCheck {
        path: path.clone(),
        healthy: false,
        fault: Some(fault.to_owned()),
        problems,
    };
    let store: SqliteStore = match open_sqlite(settings) {
        Ok(store) => store,
        Err(e) => {
            // The store's own words send people here; here they say what to do.
            let said = e
                .to_string()
                .replace(", or check it with `trawl cache doctor`", "");
            let mut problems = vec![said];
            if let Some(remedy) = remedy(e.fault(), &path) {
                problems.push(remedy);
            }
            return unhealthy(e.fault().unwrap_or("other"), problems);
        }
    };
    let mut problems = match store.integrity_check() {
        Ok(problems) => problems,
        Err(e) => return unhealthy(e.fault().unwrap_or("corrupt"), vec![e.to_string()]),
    };
    if !problems.is_empty() {
        problems.extend(remedy(Some("corrupt"), &path));
        return unhealthy("corrupt", problems);
    }
    if store.is_read_only() {
        let cause = store.unwritable_cause().unwrap_or("read_only");
        problems.push(match cause {
            "disk_full" => "its disk is full: reads answer, but nothing new is kept".into(),
            _ => "it is read-only: reads answer, but nothing new is kept".into(),
        });
        return unhealthy(cause, problems);
    }
    StoreCheck {
        path,
        healthy: true,
        fault: None,
        problems,
    }
}
