//! The settings as people see them (`trawl config show`): the config file's own syntax,
//! each value's layer as a comment, so the output can be saved and read back as a config
//! file; or the same as JSON. Secrets are masked, and a masked value is written as a
//! comment, never as a value.

use std::fmt::Write as _;

use serde_json::{Value, json};
use trawl_core::vars;

use super::Settings;
use super::layers::Source;

/// A setting's line: `name = value    # layer`.
fn line(out: &mut String, commented: bool, name: &str, value: &toml::Value, note: &str) {
    let hash = if commented { "# " } else { "" };
    let _ = writeln!(out, "{hash}{} = {value}    # {note}", key(name));
}

/// `name` as a TOML key: bare when it can be, else quoted.
fn key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        name.to_owned()
    } else {
        toml::Value::String(name.to_owned()).to_string()
    }
}

const MASKED: &str = "masked: not written back";
const ENV_ONLY: &str = "environment only";

impl Settings {
    /// The settings in the config file's syntax; reading the output back as a config file
    /// gives the same settings (masked secrets aside, which are comments).
    pub fn to_toml_text(&self) -> String {
        let mut out = String::new();
        match &self.config_file {
            Some(p) => _ = writeln!(out, "# config file: {}", p.display()),
            None => out.push_str("# config file: none (embedded defaults)\n"),
        }
        match &self.dotenv_file {
            Some(p) => _ = writeln!(out, "# .env: {} (API keys only)", p.display()),
            None => out.push_str("# .env: none in the working directory\n"),
        }
        for shown in self.values.shown() {
            let name = shown.descriptor.name;
            let _ = writeln!(out, "\n# {}", shown.descriptor.doc.trim());
            let layer = shown.source.as_str();
            match &shown.value {
                None => _ = writeln!(out, "# {name}: unset    # {layer}"),
                Some(v) if shown.masked => {
                    line(&mut out, true, name, v, &format!("{layer}, {MASKED}"))
                }
                Some(v) => line(&mut out, false, name, v, layer),
            }
        }
        out.push('\n');
        for (var, s) in &self.url_overrides {
            let shown = toml::Value::String(super::mask_url_password(&s.value));
            line(
                &mut out,
                true,
                var,
                &shown,
                &format!("{}, {ENV_ONLY}", s.source.as_str()),
            );
        }
        for (engine, s) in &self.min_intervals {
            let ms = toml::Value::Integer(s.value.as_millis() as i64);
            let var = vars::engine_min_interval(engine);
            line(
                &mut out,
                true,
                &var,
                &ms,
                &format!("{}, {ENV_ONLY}", s.source.as_str()),
            );
        }
        for (name, trust) in &self.environment {
            let _ = writeln!(out, "# environment: {name} ({trust})");
        }
        for ignored in &self.ignored {
            let _ = writeln!(
                out,
                "# ignored: {} in {} ({})",
                ignored.key,
                ignored.file.display(),
                ignored.reason
            );
        }
        out.push_str("\n[keys]\n");
        for (name, s) in &self.keys {
            let masked = toml::Value::String(s.value.clone());
            line(
                &mut out,
                true,
                name,
                &masked,
                &format!("{}, {MASKED}", s.source.as_str()),
            );
        }
        if !self.routes.is_empty() {
            out.push_str("\n[routes]\n");
            for (name, engines) in &self.routes {
                let list =
                    toml::Value::Array(engines.iter().cloned().map(toml::Value::String).collect());
                line(&mut out, false, name, &list, Source::File.as_str());
            }
        }
        out
    }

    /// The same as JSON: `{name: {value, source}}` for each setting, secrets masked.
    pub fn redacted_json(&self) -> Value {
        let setting = |value: Value, source: Source| json!({"value": value, "source": source});
        let mut map = serde_json::Map::new();
        map.insert("config_file".into(), json!(self.config_file));
        map.insert("dotenv_file".into(), json!(self.dotenv_file));
        for shown in self.values.shown() {
            let value = shown
                .value
                .map(|v| serde_json::to_value(v).unwrap_or_default())
                .unwrap_or(Value::Null);
            map.insert(shown.descriptor.name.into(), setting(value, shown.source));
        }
        let keys = self
            .keys
            .iter()
            .map(|(k, s)| (k.clone(), setting(json!(s.value), s.source)))
            .collect();
        map.insert("keys".into(), Value::Object(keys));
        let overrides = self
            .url_overrides
            .iter()
            .map(|(k, s)| {
                let shown = super::mask_url_password(&s.value);
                (k.clone(), setting(json!(shown), s.source))
            })
            .collect();
        map.insert("url_overrides".into(), Value::Object(overrides));
        let spacings = self
            .min_intervals
            .iter()
            .map(|(engine, s)| {
                let ms = s.value.as_millis() as u64;
                (
                    vars::engine_min_interval(engine),
                    setting(json!(ms), s.source),
                )
            })
            .collect();
        map.insert("min_intervals".into(), Value::Object(spacings));
        map.insert("routes".into(), json!(self.routes));
        map.insert("environment".into(), json!(self.environment));
        map.insert("ignored".into(), json!(self.ignored));
        Value::Object(map)
    }
}
