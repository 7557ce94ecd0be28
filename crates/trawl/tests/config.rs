use crate::util::{run, temp_dir, trawl};

#[test]
fn layers_file_dotenv_env_and_flags() {
    let dir = temp_dir();
    std::fs::create_dir_all(dir.join(".config/trawl")).unwrap();
    std::fs::write(
        dir.join(".config/trawl/config.toml"),
        "timeout = 12.0\nmax_bytes = 1000\nproxy = \"http://file-proxy:1\"\n[keys]\nEXA_API_KEY = \"exa-file-secret-999\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join(".env"),
        "TRAWL_MAX_BYTES=2000\nTRAWL_TIMEOUT=13\nSERPER_API_KEY=serper-dotenv-secret\n",
    )
    .unwrap();
    let r = run(trawl(&dir)
        .args(["config", "show", "--json"])
        .env("TRAWL_TIMEOUT", "14")
        .env("BRAVE_API_KEY", "brave-env-secret-12345"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    let d = &v["data"];
    assert_eq!(d["timeout"]["value"], 14.0, "env beats .env and file");
    assert_eq!(d["timeout"]["source"], "env");
    assert_eq!(d["max_bytes"]["value"], 1000, ".env sets keys only");
    assert_eq!(d["max_bytes"]["source"], "file");
    assert_eq!(d["keys"]["SERPER_API_KEY"]["source"], "dotenv");
    assert_eq!(d["proxy"]["value"], "http://file-proxy:1");
    assert_eq!(d["proxy"]["source"], "file");
    assert_eq!(d["connect_timeout"]["source"], "default");
    assert!(
        d["keys"]["BRAVE_API_KEY"]["value"]
            .as_str()
            .unwrap()
            .starts_with("****")
    );
    assert!(
        d["keys"]["EXA_API_KEY"]["value"]
            .as_str()
            .unwrap()
            .starts_with("****")
    );
    for secret in [
        "brave-env-secret-12345",
        "exa-file-secret-999",
        "serper-dotenv-secret",
    ] {
        assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret));
    }
    // Human output masks too.
    let r = run(trawl(&dir)
        .args(["config", "show"])
        .env("BRAVE_API_KEY", "brave-env-secret-12345"));
    assert_eq!(r.code, 0);
    assert!(!r.stdout.contains("brave-env-secret-12345"));
    assert!(r.stdout.contains("BRAVE_API_KEY"));
}

#[test]
fn a_broken_config_file_is_a_usage_error() {
    let dir = temp_dir();
    std::fs::write(dir.join("bad.toml"), "timeout = \"soon\"\n").unwrap();
    let r = run(trawl(&dir).args(["--config", "bad.toml", "config", "show"]));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("bad.toml"), "{}", r.stderr);
    let r = run(trawl(&dir).args(["--config", "missing.toml", "config", "show"]));
    assert_eq!(r.code, 2);
    std::fs::write(dir.join("unknown.toml"), "timout = 3\n").unwrap();
    let r = run(trawl(&dir).args(["--config", "unknown.toml", "config", "show"]));
    assert_eq!(r.code, 2, "unknown keys are refused, not ignored");
}

#[test]
fn proxy_password_is_masked() {
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["config", "show", "--json"]).env(
        "TRAWL_PROXY",
        "socks5h://user:hunter2pass@proxy.example:1080",
    ));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("hunter2pass"));
}

/// `config show` prints the config file's own syntax: saved and read back with `--config`,
/// it gives the same settings (the layer comments aside), and masked secrets are comments.
#[test]
fn config_show_reads_back_as_the_same_settings() {
    let dir = temp_dir();
    std::fs::create_dir_all(dir.join(".config/trawl")).unwrap();
    std::fs::write(
        dir.join(".config/trawl/config.toml"),
        "render = \"never\"\ndocument_ttl = 60\nreaders = [\"exa\", \"jina\"]\n\
         [keys]\nEXA_API_KEY = \"exa-file-secret-999\"\n[routes]\nmine = [\"arxiv\", \"github\"]\n",
    )
    .unwrap();
    let with_env = |cmd: &mut std::process::Command| {
        cmd.env("TRAWL_TIMEOUT", "14")
            .env("BRAVE_API_KEY", "brave-env-secret-12345")
            .env("TRAWL_REDIS_URL", "redis://u:redis-pw-777@127.0.0.1:1/0")
            .env("TRAWL_SEARXNG_MIN_INTERVAL_MS", "1000");
    };
    let mut cmd = trawl(&dir);
    with_env(cmd.args(["config", "show"]));
    let first = run(&mut cmd);
    assert_eq!(first.code, 0, "{}", first.stderr);
    for expected in [
        "timeout = 14.0    # env",
        "render = \"never\"    # file",
        "document_ttl = 60.0    # file",
        "connect_timeout = 10.0    # default",
        "readers = [\"exa\", \"jina\"]    # file",
        "mine = [\"arxiv\", \"github\"]    # file",
        "# TRAWL_SEARXNG_MIN_INTERVAL_MS = 1000",
    ] {
        assert!(
            first.stdout.contains(expected),
            "{expected:?} in\n{}",
            first.stdout
        );
    }
    assert!(!first.stdout.contains("_secs"), "{}", first.stdout);
    for secret in [
        "exa-file-secret-999",
        "brave-env-secret-12345",
        "redis-pw-777",
    ] {
        assert!(!first.stdout.contains(secret), "{secret}");
    }
    std::fs::write(dir.join("f.toml"), &first.stdout).unwrap();
    let mut cmd = trawl(&dir);
    with_env(cmd.args(["--config", "f.toml", "config", "show"]));
    let second = run(&mut cmd);
    assert_eq!(second.code, 0, "{}", second.stderr);
    // Every line that is not a comment, with its trailing layer comment cut.
    let settings = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| l.split("    #").next().unwrap_or(l).to_owned())
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect()
    };
    assert!(settings(&first.stdout).len() > 20, "{}", first.stdout);
    assert_eq!(settings(&first.stdout), settings(&second.stdout));
    // Masked secrets were comments: the file's key is not read back as `****…`.
    let mut cmd = trawl(&dir);
    with_env(cmd.args(["--config", "f.toml", "config", "show", "--json"]));
    let v = run(&mut cmd).json();
    assert!(v["data"]["keys"].get("EXA_API_KEY").is_none(), "{v}");
    assert_eq!(v["data"]["keys"]["BRAVE_API_KEY"]["source"], "env");
    assert_eq!(v["data"]["redis"]["source"], "env");
}

#[test]
fn unknown_keys_are_refused_naming_the_file_and_line() {
    let dir = temp_dir();
    std::fs::write(dir.join("top.toml"), "timeout = 3.0\n\ntimout = 3\n").unwrap();
    let r = run(trawl(&dir).args(["--config", "top.toml", "config", "show"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("top.toml line 3") && r.stderr.contains("timout"),
        "{}",
        r.stderr
    );
    std::fs::write(
        dir.join("keys.toml"),
        "[keys]\nBRAVE_API_KEY = \"k-1\"\nBRAVE_KEY = \"k-2\"\n",
    )
    .unwrap();
    let r = run(trawl(&dir).args(["--config", "keys.toml", "config", "show"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("keys.toml line 3") && r.stderr.contains("BRAVE_KEY"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("k-2"), "{}", r.stderr);
}

#[test]
fn a_bad_value_names_its_source() {
    let dir = temp_dir();
    std::fs::write(
        dir.join("render.toml"),
        "timeout = 3.0\nrender = \"sometimes\"\n",
    )
    .unwrap();
    let r = run(trawl(&dir).args(["--config", "render.toml", "config", "show"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("render.toml line 2") && r.stderr.contains("sometimes"),
        "{}",
        r.stderr
    );
    let r = run(trawl(&dir)
        .args(["config", "show"])
        .env("TRAWL_RENDER", "sometimes"));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("TRAWL_RENDER") && r.stderr.contains("sometimes"),
        "{}",
        r.stderr
    );
    let r = run(trawl(&dir).args(["read", "-", "--render", "sometimes"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--render"), "{}", r.stderr);
}

/// The keys of every setting `trawl serve` has (all of its flags that set settings, its
/// tool server's and its network flags included), from `trawl serve --help` and the table
/// as `config show --json` prints it: each flag's setting is named in `config show`.
#[test]
fn config_show_names_every_serve_setting() {
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["config", "show", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let data = &r.json()["data"];
    let help = run(trawl(&dir).args(["serve", "--help"]));
    assert_eq!(help.code, 0, "{}", help.stderr);
    // Flags of `trawl serve` that set no setting: `--config` chooses the file itself,
    // `--json` picks a command's output format.
    let not_settings = ["--config", "--help", "--version", "--json"];
    let flags: Vec<&str> = help
        .stdout
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .filter(|w| !not_settings.contains(w))
        .collect();
    assert!(flags.contains(&"--max-sessions"), "{}", help.stdout);
    let text = run(trawl(&dir).args(["config", "show"]));
    for flag in flags {
        let key = match flag {
            "--allow-origin" => "allowed_origins".to_owned(),
            "--public-host" => "public_hosts".to_owned(),
            "--allow-host" => "allow_hosts".to_owned(),
            _ => flag.trim_start_matches("--").replace('-', "_"),
        };
        let entry = &data[&key];
        assert!(
            entry.get("source").is_some(),
            "{flag}: no `{key}` in config show --json"
        );
        assert!(
            text.stdout.contains(&format!("{key} = "))
                || text.stdout.contains(&format!("{key}: unset")),
            "{flag}: no `{key}` in config show"
        );
    }
    assert_eq!(data["max_sessions"]["value"], 1000);
    assert_eq!(data["listen"]["value"], "127.0.0.1:8787");
    assert_eq!(data["listen"]["source"], "default");
}

/// `max_sessions = 1` in the config file caps `trawl serve`'s sessions: a second
/// `initialize` ends the first session, which the metrics count as evicted. The listen
/// address comes from the file too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_sessions_from_the_config_file_caps_serve() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let dir = temp_dir();
    std::fs::write(
        dir.join("serve.toml"),
        "max_sessions = 1\nlisten = \"127.0.0.1:0\"\nfetch_only = true\nstore = \":memory:\"\n",
    )
    .unwrap();
    /// The server, killed however the test ends.
    struct Server(std::process::Child);
    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut server = Server(
        std::process::Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["--config", "serve.toml", "serve"])
            .current_dir(&dir)
            .env_clear()
            .env("HOME", &dir)
            .env("XDG_CONFIG_HOME", dir.join(".config"))
            .env("XDG_CACHE_HOME", dir.join(".cache"))
            .env("TRAWL_READERS", "none")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn trawl serve"),
    );
    let mut lines = BufReader::new(server.0.stderr.take().unwrap()).lines();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        while let Some(Ok(line)) = lines.next() {
            let _ = tx.send(line);
        }
    });
    let mut seen = String::new();
    let listening = loop {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(line) if line.contains("event=listening") => break line,
            Ok(line) => seen.push_str(&line),
            Err(_) => panic!("trawl serve did not start: {seen}"),
        }
    };
    let url = listening
        .split_whitespace()
        .find_map(|f| f.strip_prefix("url="))
        .expect("url in the listening line")
        .to_owned();
    assert!(listening.contains("max_sessions=1"), "{listening}");
    let http = reqwest::Client::new();
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "config-test", "version": "0"}}
    })
    .to_string();
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let response = http
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(initialize.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        sessions.push(response.headers()["mcp-session-id"].clone());
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), response.bytes()).await;
    }
    assert_ne!(sessions[0], sessions[1]);
    let metrics = http
        .get(url.replace("/mcp", "/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    drop(server);
    let gauge = |name: &str| {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .unwrap_or_else(|| panic!("no {name} in:\n{metrics}"))
            .to_owned()
    };
    assert_eq!(gauge("trawl_live_sessions "), "1", "{metrics}");
    assert_eq!(gauge("trawl_sessions_evicted_total "), "1", "{metrics}");
}
