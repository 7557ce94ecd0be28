use trawl_core::{Envelope, Meta, vars};

use crate::output::print_json;
use crate::settings::Settings;

/// `trawl config show`: the effective settings with their layers, secrets masked, the
/// variables of `trawl_core::vars` set in the environment (by trust class), and the `.env`
/// lines that were ignored.
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
    match &settings.dotenv_file {
        Some(p) => println!("# .env: {} (API keys only)", p.display()),
        None => println!("# .env: none in the working directory"),
    }
    let Some(map) = shown.as_object() else {
        return 0;
    };
    for (name, entry) in map {
        match name.as_str() {
            "config_file" | "dotenv_file" | "ignored" | "environment" => {}
            // Maps of settings by variable name.
            "keys" | "url_overrides" => {
                for (var, setting) in entry.as_object().into_iter().flatten() {
                    print_setting(var, setting);
                }
            }
            _ => print_setting(name, entry),
        }
    }
    for (name, trust) in &settings.environment {
        println!("# environment: {name} ({trust})");
    }
    for line in &settings.ignored {
        println!(
            "# ignored: {} in {} ({})",
            line.key,
            line.file.display(),
            line.reason
        );
    }
    0
}

fn print_setting(name: &str, setting: &serde_json::Value) {
    println!(
        "{name} = {}    # {}",
        setting["value"],
        setting["source"].as_str().unwrap_or("")
    );
}

/// `trawl config vars`: every environment variable trawl reads (the README's table).
pub fn config_vars() -> i32 {
    print!("{}", vars::markdown_table());
    0
}
