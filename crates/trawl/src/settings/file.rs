//! The config file (`~/.config/trawl/config.toml`, or `--config PATH`): top-level keys
//! are the declared settings' names, `[keys]` holds secrets by variable name and
//! `[routes]` search routes. Anything else, at any level, is refused naming the file and
//! the line, as is a value of the wrong kind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;
use trawl_core::TrawlError;
use trawl_core::vars;

use super::declare::Descriptor;

/// A value read from the file and the line it is on.
#[derive(Debug, Clone)]
pub struct Located<T> {
    pub value: T,
    pub line: usize,
}

/// The config file as read: every key known, values not yet checked (that happens when
/// settings resolve, so the error can still name the line).
#[derive(Debug, Clone, Default)]
pub struct FileConfig {
    /// The file read, if any.
    pub path: Option<PathBuf>,
    /// Declared settings by name.
    pub values: BTreeMap<String, Located<toml::Value>>,
    /// `[keys]`: secrets by variable name.
    pub keys: BTreeMap<String, Located<String>>,
    /// `[routes]`: `name = ["engine", …]` (may redefine a built-in route).
    pub routes: BTreeMap<String, Vec<String>>,
    /// `[cookies]`: `"example.com" = "/path/cookies.txt"`, a cookies file per site.
    pub cookies: BTreeMap<String, Located<String>>,
}

/// The two tables, with the positions of what is in them.
#[derive(Deserialize)]
struct Tables {
    #[serde(default)]
    keys: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    routes: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    cookies: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
}

/// The secrets `[keys]` may hold: API keys and trawl's own (the Redis URL is the `redis`
/// setting instead).
pub fn key_names() -> impl Iterator<Item = &'static str> {
    vars::secrets().filter(|name| *name != vars::REDIS_URL)
}

impl FileConfig {
    /// Parse `text` as the file at `path` (`None`: a file named by nothing, in tests); its
    /// top-level keys must be settings of `declared` that the file may set.
    pub fn parse(
        text: &str,
        path: Option<&Path>,
        declared: &[Descriptor],
    ) -> Result<Self, TrawlError> {
        let mut cfg = FileConfig {
            path: path.map(Path::to_path_buf),
            ..FileConfig::default()
        };
        let line = |span: std::ops::Range<usize>| line_of(text, span.start);
        let top: BTreeMap<Spanned<String>, Spanned<toml::Value>> =
            toml::from_str(text).map_err(|e| cfg.error(&e.to_string()))?;
        for (key, value) in top {
            let name = key.get_ref().as_str();
            if name == "cookies" && !value.get_ref().is_table() {
                return Err(cfg.error_at(
                    line(key.span()),
                    "`cookies` is a table of files by site: [cookies] \"example.com\" = \"/path/cookies.txt\" (`--cookies FILE` for one read)",
                ));
            }
            if matches!(name, "keys" | "routes" | "cookies") {
                continue;
            }
            if !declared.iter().any(|d| d.file && d.name == name) {
                return Err(cfg.error_at(
                    line(key.span()),
                    &format!(
                        "unknown key `{name}`{} (`trawl config show` lists every setting)",
                        trawl_core::did_you_mean_note(
                            name,
                            declared
                                .iter()
                                .filter(|d| d.file)
                                .map(|d| d.name)
                                .chain(["keys", "routes", "cookies"])
                        )
                    ),
                ));
            }
            let at = line(value.span());
            cfg.values.insert(
                name.to_owned(),
                Located {
                    value: value.into_inner(),
                    line: at,
                },
            );
        }
        let tables: Tables = toml::from_str(text).map_err(|e| cfg.error(&e.to_string()))?;
        for (name, value) in tables.keys {
            let at = line(name.span());
            let name = name.into_inner();
            if !key_names().any(|k| k == name) {
                return Err(cfg.error_at(
                    at,
                    &format!(
                        "[keys] `{name}` is not a secret trawl reads (`trawl config vars` \
                         lists them)"
                    ),
                ));
            }
            let Some(secret) = value.get_ref().as_str() else {
                return Err(cfg.error_at(at, &format!("[keys] `{name}`: expected a string")));
            };
            let secret = secret.to_owned();
            cfg.keys.insert(
                name,
                Located {
                    value: secret,
                    line: at,
                },
            );
        }
        for (name, engines) in tables.routes {
            let at = line(name.span());
            let list = engines.get_ref().as_array().and_then(|items| {
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
            });
            let Some(list) = list else {
                return Err(cfg.error_at(
                    at,
                    &format!(
                        "[routes] `{}`: expected an array of engine names",
                        name.get_ref()
                    ),
                ));
            };
            cfg.routes.insert(name.into_inner(), list);
        }
        for (site, file) in tables.cookies {
            let at = line(site.span());
            let Some(path) = file.get_ref().as_str() else {
                return Err(cfg.error_at(
                    at,
                    &format!("[cookies] `{}`: expected a file path", site.get_ref()),
                ));
            };
            let path = path.to_owned();
            cfg.cookies.insert(
                site.into_inner(),
                Located {
                    value: path,
                    line: at,
                },
            );
        }
        Ok(cfg)
    }

    /// An error about the file as a whole.
    pub fn error(&self, what: &str) -> TrawlError {
        TrawlError::invalid_input(format!("config file {}: {what}", self.shown_path()))
    }

    /// An error about one line of the file.
    pub fn error_at(&self, line: usize, what: &str) -> TrawlError {
        TrawlError::invalid_input(format!(
            "config file {} line {line}: {what}",
            self.shown_path()
        ))
    }

    fn shown_path(&self) -> String {
        self.path
            .as_deref()
            .map_or_else(|| "(unnamed)".to_owned(), |p| p.display().to_string())
    }
}

/// The 1-based line holding byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

fn default_config_path() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy()
        .ok()
        .map(|s| s.config_dir().join("trawl").join("config.toml"))
}

/// Load the config file: an explicit path must exist; the default path may be absent. Its
/// top-level keys must be settings of `declared` (see [`FileConfig::parse`]).
pub fn load_file(
    explicit: Option<&Path>,
    declared: &[Descriptor],
) -> Result<FileConfig, TrawlError> {
    let (path, required) = match explicit {
        Some(p) => (Some(p.to_path_buf()), true),
        None => (default_config_path(), false),
    };
    let Some(path) = path else {
        return Ok(FileConfig::default());
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => FileConfig::parse(&text, Some(&path), declared),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {
            Ok(FileConfig::default())
        }
        Err(e) => Err(TrawlError::invalid_input(format!(
            "config file {}: {e}",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::DECLARED;
    use super::*;

    fn refused(text: &str) -> String {
        FileConfig::parse(text, Some(Path::new("/home/u/trawl.toml")), DECLARED)
            .unwrap_err()
            .message
    }

    #[test]
    fn unknown_keys_are_refused_with_file_and_line() {
        let top = refused("timeout = 3.0\n\ntimout = 3\n");
        assert!(
            top.contains("/home/u/trawl.toml line 3") && top.contains("timout"),
            "{top}"
        );
        let key = refused("timeout = 3.0\n[keys]\nBRAVE_API_KEY = \"k\"\nBRAVE_KEY = \"k\"\n");
        assert!(
            key.contains("/home/u/trawl.toml line 4") && key.contains("BRAVE_KEY"),
            "{key}"
        );
        let redis = refused("[keys]\nTRAWL_REDIS_URL = \"redis://x\"\n");
        assert!(redis.contains("line 2"), "{redis}");
        let route = refused("[routes]\nmine = \"duckduckgo\"\n");
        assert!(
            route.contains("line 2") && route.contains("mine"),
            "{route}"
        );
        let syntax = refused("timeout = = 3\n");
        assert!(syntax.contains("/home/u/trawl.toml"), "{syntax}");
    }

    #[test]
    fn cookies_files_are_named_per_site_and_must_be_paths() {
        let cfg = FileConfig::parse(
            "[cookies]\n\"example.com\" = \"/home/u/example.txt\"\n",
            None,
            DECLARED,
        )
        .unwrap();
        assert_eq!(cfg.cookies["example.com"].value, "/home/u/example.txt");
        assert_eq!(cfg.cookies["example.com"].line, 2);
        let bad = refused("[cookies]\n\"example.com\" = 3\n");
        assert!(
            bad.contains("line 2") && bad.contains("example.com"),
            "{bad}"
        );
        // A flag-only setting: the file cannot set `cookies` at the top level.
        let top = refused("cookies = \"/tmp/c.txt\"\n");
        assert!(top.contains("line 1") && top.contains("[cookies]"), "{top}");
    }

    #[test]
    fn known_keys_keep_their_lines() {
        let cfg = FileConfig::parse(
            "# a comment\nrender = \"never\"\n[keys]\nEXA_API_KEY = \"e\"\n[routes]\nmine = [\"arxiv\"]\n",
            None,
            DECLARED,
        )
        .unwrap();
        assert_eq!(cfg.values["render"].line, 2);
        assert_eq!(cfg.keys["EXA_API_KEY"].value, "e");
        assert_eq!(cfg.routes["mine"], ["arxiv"]);
    }
}
