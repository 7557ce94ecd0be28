//! What `trawl searxng` writes: SearXNG's `settings.yml`, its own state, and the one line
//! of trawl's config file that points search at it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The config-file key `up` sets and `down` removes.
pub const CONFIG_KEY: &str = "searxng_url";

/// How the local SearXNG runs, kept between `up`, `status` and `down`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    /// `docker` or `venv`.
    pub mode: String,
    /// Where it answers.
    pub url: String,
    /// Its directory (settings, checkout, venv, log).
    pub dir: PathBuf,
    /// The container's name (Docker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The server's process id (venv).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// A hardened `settings.yml` for one local client: loopback only, the JSON format on, no
/// limiter (the only client is trawl on this machine), a generated secret, and the user's
/// proxy for SearXNG's own requests. Strings are written as JSON strings, which YAML reads
/// as double-quoted scalars.
pub fn settings_yaml(port: u16, secret: &str, proxy: Option<&str>) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut y = String::from(
        "# Written by `trawl searxng up`: a SearXNG for one local client (trawl).\n\
         use_default_settings: true\n\
         general:\n  instance_name: \"trawl local\"\n",
    );
    y.push_str(&format!(
        "server:\n  bind_address: \"127.0.0.1\"\n  port: {port}\n  secret_key: {}\n  \
         limiter: false\n  public_instance: false\n  image_proxy: false\n",
        q(secret)
    ));
    y.push_str("search:\n  formats:\n    - html\n    - json\n");
    y.push_str("outgoing:\n  request_timeout: 5.0\n");
    if let Some(p) = proxy {
        y.push_str(&format!("  proxies:\n    \"all://\":\n      - {}\n", q(p)));
    }
    y
}

/// Set (or with `None`, remove) `searxng_url` in the config file at `path`, keeping every
/// other line. A top-level key must come before the first table, so it goes first.
pub fn set_config_url(path: &Path, url: Option<&str>) -> std::io::Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let is_ours = |l: &str| {
        l.trim_start()
            .strip_prefix(CONFIG_KEY)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    };
    let mut out = String::new();
    if let Some(u) = url {
        out.push_str(&format!(
            "{CONFIG_KEY} = {}  # written by `trawl searxng up`\n",
            serde_json::to_string(u).unwrap_or_default()
        ));
    }
    for line in text.lines().filter(|l| !is_ours(l)) {
        out.push_str(line);
        out.push('\n');
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, out)
}

/// Write `text` readable by its owner only (the settings hold the secret).
pub fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_line_is_set_replaced_and_removed() {
        let dir = std::env::temp_dir().join(format!("trawl-searxng-files-{}", std::process::id()));
        let path = dir.join("config.toml");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            &path,
            "timeout = 20\nsearxng_url = \"http://old\"\n[routes]\nx = [\"a\"]\n",
        )
        .unwrap();
        set_config_url(&path, Some("http://127.0.0.1:8888")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("searxng_url = \"http://127.0.0.1:8888\""),
            "{text}"
        );
        assert_eq!(text.matches("searxng_url").count(), 1);
        assert!(text.contains("timeout = 20\n") && text.contains("[routes]\n"));
        set_config_url(&path, None).unwrap();
        assert!(
            !std::fs::read_to_string(&path)
                .unwrap()
                .contains("searxng_url")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
