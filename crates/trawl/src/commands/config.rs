use trawl_core::{Envelope, Meta};

use crate::output::print_json;
use crate::settings::Settings;

/// `trawl config show`: the effective settings with their sources, secrets masked.
pub fn config_show(settings: &Settings, json: bool) -> i32 {
    let shown = settings.redacted_json();
    if json {
        print_json(&Envelope::success(shown, Meta::default()));
        return 0;
    }
    match &settings.config_file {
        Some(p) => println!("# config file: {}", p.display()),
        None => println!("# config file: none (embedded defaults)"),
    }
    if let Some(map) = shown.as_object() {
        for (name, entry) in map {
            if name == "config_file" {
                continue;
            }
            if name == "keys" {
                for (key, setting) in entry.as_object().into_iter().flatten() {
                    println!(
                        "{key} = {}    # {}",
                        setting["value"],
                        setting["source"].as_str().unwrap_or("")
                    );
                }
                continue;
            }
            println!(
                "{name} = {}    # {}",
                entry["value"],
                entry["source"].as_str().unwrap_or("")
            );
        }
    }
    0
}
