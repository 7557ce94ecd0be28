//! The layers a setting comes from and the one rule that merges them: a flag, else the
//! environment, else the config file, else the default (a `.env` gives API keys only,
//! below the config file: see [`super::secrets`]). `declare_settings!` (in `declare.rs`)
//! turns one line per setting into the [`Values`](super::table::Values) struct, the
//! [`Descriptor`] table the config file, `config show` and the docs read, and the code that
//! resolves them with [`resolve_one`].

use std::any::Any;
use std::collections::BTreeMap;

use serde::Serialize;
use trawl_core::TrawlError;

use super::Env;
use super::declare::Descriptor;
use super::file::FileConfig;
use super::value::SettingValue;

/// Where a value came from, for `config show`.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Default,
    File,
    Dotenv,
    Env,
    Flag,
}

impl Source {
    /// Whether the layer is the user's own (not a `.env` that came with a directory).
    pub fn trusted(self) -> bool {
        self != Source::Dotenv
    }

    /// The layer's name as `config show` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Default => "default",
            Source::File => "file",
            Source::Dotenv => "dotenv",
            Source::Env => "env",
            Source::Flag => "flag",
        }
    }
}

/// A resolved value and the layer it came from.
#[derive(Debug, Clone)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Setting<T> {
    pub fn new(value: T, source: Source) -> Self {
        Setting { value, source }
    }
}

/// The flags given that set settings, by flag name, each already parsed by clap into its
/// setting's type (`--timeout` → `Deadline(12.5 s)`), so a flag's value is never turned
/// back into text.
#[derive(Default)]
pub struct Flags(BTreeMap<&'static str, Box<dyn Any>>);

impl Flags {
    /// `flag` was given as `value`, of the type of the setting it sets (`Option<T>` for an
    /// optional setting).
    pub fn set<T: Any>(&mut self, flag: &'static str, value: T) {
        self.0.insert(flag, Box::new(value));
    }

    /// The flags of `other` too (its values win).
    pub fn extend(&mut self, other: Flags) {
        self.0.extend(other.0);
    }

    /// The value of `flag` if it was given: an error when it holds another type than the
    /// setting's (a flag wired to the wrong setting).
    fn get<T: Any + Clone>(&self, flag: &str) -> Result<Option<T>, TrawlError> {
        let Some(value) = self.0.get(flag) else {
            return Ok(None);
        };
        value.downcast_ref::<T>().cloned().map(Some).ok_or_else(|| {
            TrawlError::internal(format!(
                "{flag} holds a value of another type than its setting's ({})",
                std::any::type_name::<T>()
            ))
        })
    }
}

/// Everything the layers hold, before any of it is resolved.
pub struct Inputs<'a> {
    pub flags: &'a Flags,
    /// The real environment (a `.env` never reaches it).
    pub env: &'a dyn Env,
    pub file: &'a FileConfig,
}

/// A variable's value when it is set to something: empty counts as unset.
pub fn set_var(env: &dyn Env, name: &str) -> Option<String> {
    env.var(name).filter(|v| !v.trim().is_empty())
}

/// The one precedence rule: the highest layer `d` allows that holds a value wins. A value
/// that does not parse is an error naming where it came from (a flag's was parsed by clap).
pub fn resolve_one<T: SettingValue + Any + Clone>(
    d: &Descriptor,
    inputs: &Inputs<'_>,
    default: impl FnOnce() -> T,
) -> Result<Setting<T>, TrawlError> {
    if let Some(flag) = d.flag
        && let Some(value) = inputs.flags.get::<T>(flag)?
    {
        return Ok(Setting::new(value, Source::Flag));
    }
    if let Some(var) = d.env
        && let Some(raw) = set_var(inputs.env, var)
    {
        let value = T::parse(&raw).map_err(|e| {
            TrawlError::invalid_input(format!(
                "environment variable {var}={raw:?} is not valid: {e}"
            ))
        })?;
        return Ok(Setting::new(value, Source::Env));
    }
    if d.file
        && let Some(found) = inputs.file.values.get(d.name)
    {
        let value = T::from_toml(&found.value).map_err(|e| {
            inputs
                .file
                .error_at(found.line, &format!("{}: {e}", d.name))
        })?;
        return Ok(Setting::new(value, Source::File));
    }
    Ok(Setting::new(default(), Source::Default))
}

/// One setting as shown: the file's spelling of its value (credentials masked).
#[derive(Debug)]
pub struct Shown {
    pub descriptor: &'static Descriptor,
    /// `None` when unset.
    pub value: Option<toml::Value>,
    /// The value had credentials masked: it must not be written back as it is.
    pub masked: bool,
    pub source: Source,
}

impl Shown {
    pub fn of<T: SettingValue>(descriptor: &'static Descriptor, setting: &Setting<T>) -> Self {
        let (value, masked) = setting.value.shown();
        Shown {
            descriptor,
            value,
            masked,
            source: setting.source,
        }
    }
}
