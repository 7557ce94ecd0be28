//! Secrets by variable name: the environment, else the config file's `[keys]`, else the
//! working directory's `.env` (API keys only, lowest of all: a `.env` may come with a
//! cloned repository, so it fills in keys but never overrides the user's own).

use std::collections::BTreeMap;

use trawl_agent::tools::ReaderKind;
use trawl_core::vars::{self, Trust};

use super::Env;
use super::file::{FileConfig, key_names};
use super::layers::{Setting, Source};
use crate::dotenv::DotEnv;

/// Every secret set in some layer. An empty API key counts as unset; an empty trawl
/// secret (`TRAWL_TOKEN=`) is kept so that what uses it refuses it, as it refuses an empty
/// token file.
pub fn resolve(
    env: &dyn Env,
    file: &FileConfig,
    dotenv: &DotEnv,
) -> BTreeMap<String, Setting<String>> {
    let mut out = BTreeMap::new();
    for name in key_names() {
        let keep_empty = vars::lookup(name).is_some_and(|v| v.trust == Trust::Secret);
        let usable = |v: &String| keep_empty || !v.trim().is_empty();
        let found = env
            .var(name)
            .filter(usable)
            .map(|v| (v, Source::Env))
            .or_else(|| {
                file.keys
                    .get(name)
                    .map(|k| &k.value)
                    .filter(|v| usable(v))
                    .map(|v| (v.clone(), Source::File))
            })
            .or_else(|| dotenv.keys.get(name).map(|v| (v.clone(), Source::Dotenv)));
        if let Some((value, source)) = found {
            out.insert(name.to_owned(), Setting::new(value, source));
        }
    }
    out
}

/// The hosted readers used when the user did not list any: those whose key the user set
/// (environment or config file). A key found only in a `.env` is used by a reader the
/// user enabled, but does not enable one: that would send the URLs read to a third party
/// on the word of a file the user may not have written.
pub fn keyed_readers(secrets: &BTreeMap<String, Setting<String>>) -> Vec<ReaderKind> {
    ReaderKind::ALL
        .into_iter()
        .filter(|k| secrets.get(k.key_var()).is_some_and(|s| s.source.trusted()))
        .collect()
}

/// Mask a secret: keep a hint of its length, never its characters.
pub fn mask(secret: &str) -> String {
    trawl_core::redact::mask(secret)
}

/// A comma-separated list of keys, blanks dropped.
pub fn split_keys(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
        .collect()
}
