//! The `.env` layer. A `.env` is often not the user's own (it comes with a cloned
//! repository), so trawl reads one only from the working directory itself, never from its
//! parents, and takes only API keys from it: a key goes to its provider's own host whatever
//! else the file says. Every other trawl variable in it is ignored with a warning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use trawl_core::vars;

/// A line of `.env` that trawl did not use, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct IgnoredLine {
    pub file: PathBuf,
    pub key: String,
    pub reason: String,
}

impl IgnoredLine {
    /// The one-line warning printed at start.
    pub fn warning(&self) -> String {
        format!(
            "warning: ignored {} in {}: {}",
            self.key,
            self.file.display(),
            self.reason
        )
    }
}

/// What trawl took from a `.env`.
#[derive(Debug, Clone, Default)]
pub struct DotEnv {
    /// The file read, if there was one.
    pub path: Option<PathBuf>,
    /// API keys by variable name.
    pub keys: BTreeMap<String, String>,
    pub ignored: Vec<IgnoredLine>,
}

/// Read `dir/.env` (only that file: parents are never looked at).
pub fn load(dir: &Path) -> DotEnv {
    let path = dir.join(".env");
    let iter = match dotenvy::from_path_iter(&path) {
        Ok(iter) => iter,
        Err(e) if e.not_found() => return DotEnv::default(),
        Err(e) => {
            return DotEnv {
                ignored: vec![IgnoredLine {
                    file: path.clone(),
                    key: "*".to_owned(),
                    reason: format!("cannot read it: {e}"),
                }],
                path: Some(path),
                ..DotEnv::default()
            };
        }
    };
    let mut out = DotEnv {
        path: Some(path.clone()),
        ..DotEnv::default()
    };
    for item in iter {
        let (key, value) = match item {
            Ok(pair) => pair,
            Err(e) => {
                out.ignored.push(IgnoredLine {
                    file: path.clone(),
                    key: "*".to_owned(),
                    reason: format!("the rest of the file is not valid: {e}"),
                });
                break;
            }
        };
        match vars::lookup(&key).map(|v| v.trust) {
            Some(trust) if trust.dotenv_may_set() => {
                out.keys.insert(key, value);
            }
            Some(trust) => out.ignored.push(IgnoredLine {
                file: path.clone(),
                key,
                reason: format!(
                    "a .env may only set API keys, not a {}; set it in the environment, \
                     the config file or a flag",
                    trust.as_str()
                ),
            }),
            // An unknown trawl-looking name is most likely a typo or an older name.
            None if key.starts_with(vars::PREFIX) => out.ignored.push(IgnoredLine {
                file: path.clone(),
                key,
                reason: "not a variable trawl knows".to_owned(),
            }),
            // The project's own variables: none of trawl's business.
            None => {}
        }
    }
    // An empty key counts as unset.
    out.keys.retain(|_, v| !v.trim().is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_keys_and_ignores_settings() {
        let dir = std::env::temp_dir().join(format!("trawl-dotenv-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(
            dir.join(".env"),
            "BRAVE_API_KEY=k1\nTRAWL_PROXY=http://x:1\nTRAWL_BRAVE_API_URL=http://x/\n\
             DATABASE_URL=postgres://db\nTRAWL_TOKEN=t\nTRAWL_NO_SUCH=1\n",
        )
        .unwrap();
        let env = load(&dir);
        assert_eq!(
            env.keys.get("BRAVE_API_KEY").map(String::as_str),
            Some("k1")
        );
        assert_eq!(env.keys.len(), 1);
        let ignored: Vec<&str> = env.ignored.iter().map(|l| l.key.as_str()).collect();
        assert_eq!(
            ignored,
            [
                "TRAWL_PROXY",
                "TRAWL_BRAVE_API_URL",
                "TRAWL_TOKEN",
                "TRAWL_NO_SUCH"
            ]
        );
        assert!(env.ignored[0].warning().contains(".env"));
        // A sub-directory does not see its parent's file.
        let sub = load(&dir.join("sub"));
        assert!(sub.path.is_none() && sub.keys.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
