use trawl_core::{Envelope, Meta, vars};

use crate::output::print_json;
use crate::settings::Settings;

/// `trawl config show`: the effective settings in the config file's syntax (each value's
/// layer as a comment, secrets masked and commented out), the variables of
/// `trawl_core::vars` set in the environment (by trust class), and the `.env` lines that
/// were ignored; `--json` gives the same as `{name: {value, source}}`.
pub fn config_show(settings: &Settings, json: bool) -> i32 {
    if json {
        print_json(&Envelope::success(
            settings.redacted_json(),
            Meta::default(),
        ));
    } else {
        print!("{}", settings.to_toml_text());
    }
    0
}

/// `trawl config vars`: every environment variable trawl reads (the README's table).
pub fn config_vars() -> i32 {
    print!("{}", vars::markdown_table());
    0
}
