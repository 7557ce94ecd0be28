//! The `.env` layer. A `.env` is often not the user's own (it comes with a cloned
//! repository), so trawl reads one only from the working directory itself, never from its
//! parents, and takes only API keys from it: a key goes to its provider's own host whatever
//! else the file says. Every other trawl variable in it is ignored with a warning.
//!
//! The file itself may be hostile too: a link to `/dev/zero`, a FIFO, a link to
//! `/dev/stdin` or to a private key. So it is read only when it is a regular file of at
//! most [`MAX_DOTENV_BYTES`], inside the directory (a link may point within it, not out),
//! opened without blocking and checked again once open; and a warning names a line by its
//! number, never by its content.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
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

/// The largest `.env` read: 64 KiB is hundreds of keys.
pub const MAX_DOTENV_BYTES: u64 = 64 * 1024;

/// Read `dir/.env` (only that file: parents are never looked at).
pub fn load(dir: &Path) -> DotEnv {
    let path = dir.join(".env");
    let text = match read_checked(dir, &path) {
        Ok(Some(text)) => text,
        Ok(None) => return DotEnv::default(),
        Err(reason) => {
            return DotEnv {
                ignored: vec![IgnoredLine {
                    file: path.clone(),
                    key: "*".to_owned(),
                    reason,
                }],
                path: Some(path),
                ..DotEnv::default()
            };
        }
    };
    let iter = dotenvy::from_read_iter(text.as_bytes());
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
                    reason: format!("the rest of the file is not valid: {}", line_of(&text, &e)),
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

/// The file's text, `None` when there is none, or why it is not read. The path is looked
/// at without following a link; a link is followed only when it resolves inside `dir`;
/// the file is opened with `O_NONBLOCK` (a FIFO swapped in cannot hang trawl) and
/// `O_NOFOLLOW`, and checked again, by its open descriptor, to be a regular file that fits.
fn read_checked(dir: &Path, path: &Path) -> Result<Option<String>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read it: {e}")),
    };
    let target = if meta.file_type().is_symlink() {
        let target = std::fs::canonicalize(path)
            .map_err(|e| format!("it is a link that cannot be followed ({e}); not read"))?;
        let home = std::fs::canonicalize(dir).map_err(|e| format!("cannot read it: {e}"))?;
        if !target.starts_with(&home) {
            return Err("it is a link to outside the directory; not read".to_owned());
        }
        target
    } else {
        path.to_owned()
    };
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(&target)
        .map_err(|e| format!("cannot read it: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_file() {
        return Err("it is not a regular file (a device, FIFO or socket); not read".to_owned());
    }
    if meta.len() > MAX_DOTENV_BYTES {
        return Err(format!(
            "it is larger than {} KiB; not read",
            MAX_DOTENV_BYTES / 1024
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_DOTENV_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_DOTENV_BYTES {
        return Err(format!(
            "it is larger than {} KiB; not read",
            MAX_DOTENV_BYTES / 1024
        ));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "it is not UTF-8 text; not read".to_owned())
}

/// Where a parse error is, as "line N": dotenvy's own message quotes the line, which may
/// be a secret (a private key linked as `.env` printed its first line).
fn line_of(text: &str, err: &dotenvy::Error) -> String {
    let dotenvy::Error::LineParse(line, _) = err else {
        return "it cannot be parsed".to_owned();
    };
    match text.find(line.as_str()) {
        Some(at) if !line.is_empty() => format!("line {}", text[..at].matches('\n').count() + 1),
        _ => "a line that cannot be parsed".to_owned(),
    }
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
