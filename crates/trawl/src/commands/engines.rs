use std::time::Instant;

use trawl_core::{Envelope, Meta};
use trawl_search::{EngineInfo, KeyNeed};

use crate::cli::JsonFlag;
use crate::commands::search::build_router;
use crate::output::{print_json, report_error};
use crate::settings::Settings;

/// `trawl engines`: every engine, whether it needs a key and has one, its correlation
/// group, the filters it honours, its routes and how far its parser is trusted.
pub fn engines(args: &JsonFlag, settings: &Settings) -> i32 {
    let started = Instant::now();
    let router = match build_router(settings, None, None) {
        Ok(r) => r,
        Err(err) => return report_error(&err, args.json, Meta::default()),
    };
    let infos = router.engines_info();
    if args.json {
        let meta = Meta {
            elapsed_ms: started.elapsed().as_millis() as u64,
            ..Meta::default()
        };
        print_json(&Envelope::success(&infos, meta));
        return 0;
    }
    println!(
        "{:<14} {:<10} {:<50} {:<14} {:<8} routes",
        "engine", "ready", "key", "group", "filters"
    );
    for i in &infos {
        println!(
            "{:<14} {:<10} {:<50} {:<14} {:<8} {}",
            i.name,
            if i.configured { "yes" } else { "no" },
            key(i),
            i.group,
            filters(i),
            if i.routes.is_empty() {
                "-".to_owned()
            } else {
                i.routes.join(",")
            }
        );
    }
    println!();
    println!("filters: s=site f=freshness l=language r=region x=safesearch p=paging");
    println!("parser confidence (and the saved responses it is tested on):");
    for i in &infos {
        println!("  {:<14} {}", i.name, i.confidence);
        println!("  {:<14} {}", "", i.fixtures);
        if let Some(t) = i.transport {
            println!("  {:<14} transport in use: {t}", "");
        }
    }
    0
}

/// What an engine needs, in the words that get it running: a key's variable, or for an
/// engine that needs an address instead (SearXNG, an instance of your own) that variable.
fn key(i: &EngineInfo) -> String {
    let var = i.key_env.unwrap_or("");
    match i.key {
        KeyNeed::None if !i.configured && i.name == "searxng" => {
            format!("needs {} (trawl searxng up)", trawl_core::vars::SEARXNG_URL)
        }
        KeyNeed::None => "none".to_owned(),
        // Marginalia's shared key exists but is throttled hard: said, not made a default.
        KeyNeed::Required if i.keys == 0 && i.name == "marginalia" => {
            format!("needs {var} (`public`: shared, slow)")
        }
        KeyNeed::Optional if i.keys > 0 => format!("optional, {} set ({var})", i.keys),
        KeyNeed::Optional => format!("optional ({var})"),
        KeyNeed::Required if i.keys > 0 => format!("{} set ({var})", i.keys),
        KeyNeed::Required => format!("needs {var}"),
    }
}

fn filters(i: &EngineInfo) -> String {
    i.capabilities.letters()
}
