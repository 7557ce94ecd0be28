//! `trawl searxng up|status|down`: a SearXNG on loopback for trawl, with Docker when it is
//! on the PATH, else from a git checkout in a Python venv; `up` points trawl's config file
//! at it, `down` stops it and takes the pointer away.

mod files;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use trawl_core::{Envelope, Meta, TrawlError};

use crate::cli::{SearxngCommand, SearxngUpArgs};
use crate::errors::ExitStatus;
use crate::output::{print_json, report_error};
use crate::settings::Settings;
use files::State;

/// The container `up` runs and `down` removes.
const CONTAINER: &str = "trawl-searxng";
/// SearXNG's image and source.
const IMAGE: &str = "docker.io/searxng/searxng:latest";
const REPO: &str = "https://github.com/searxng/searxng";

/// `trawl searxng up|status|down`.
pub async fn searxng(cmd: &SearxngCommand, settings: &Settings) -> i32 {
    let (json, result) = match cmd {
        SearxngCommand::Up(a) => (a.json, up(a, settings).await),
        SearxngCommand::Status(f) => (f.json, status().await),
        SearxngCommand::Down(f) => (f.json, down(settings)),
    };
    let (value, code) = match result {
        Ok(v) => v,
        Err(e) => return report_error(&e, json, Meta::default()),
    };
    if json {
        print_json(&Envelope::success(&value, Meta::default()));
    } else if let Some(said) = value["said"].as_str() {
        println!("{said}");
    }
    code
}

/// Where SearXNG's files live: `~/.local/share/trawl/searxng`.
fn home() -> Result<PathBuf, TrawlError> {
    use etcetera::BaseStrategy;
    let base = etcetera::choose_base_strategy()
        .map_err(|e| TrawlError::internal(format!("no data directory: {e}")))?;
    Ok(base.data_dir().join("trawl").join("searxng"))
}

fn config_path(settings: &Settings) -> Result<PathBuf, TrawlError> {
    if let Some(p) = &settings.config_file {
        return Ok(p.clone());
    }
    use etcetera::BaseStrategy;
    let base = etcetera::choose_base_strategy()
        .map_err(|e| TrawlError::internal(format!("no config directory: {e}")))?;
    Ok(base.config_dir().join("trawl").join("config.toml"))
}

fn io_error(what: &str, e: std::io::Error) -> TrawlError {
    TrawlError::internal(format!("{what}: {e}"))
}

/// Run `program args`, failing with its stderr.
fn run(program: &Path, args: &[&str], cwd: Option<&Path>) -> Result<(), TrawlError> {
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null());
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let out = cmd
        .output()
        .map_err(|e| io_error(&format!("{}", program.display()), e))?;
    if out.status.success() {
        return Ok(());
    }
    Err(TrawlError::internal(format!(
        "`{} {}` failed: {}",
        program.display(),
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

/// Whether docker's daemon answers (`docker info`), or what it said.
fn daemon_answers(docker: &Path) -> Result<(), String> {
    let out = Command::new(docker)
        .args(["info", "--format", "{{.ServerVersion}}"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let first = said
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no answer");
    Err(first.trim().chars().take(200).collect())
}

/// The first `name` on the PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

async fn up(args: &SearxngUpArgs, settings: &Settings) -> Result<(Value, i32), TrawlError> {
    let dir = home()?;
    std::fs::create_dir_all(&dir).map_err(|e| io_error("searxng directory", e))?;
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret)
        .map_err(|e| TrawlError::internal(format!("no randomness for the secret: {e}")))?;
    let secret: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    let yaml = files::settings_yaml(args.port, &secret, settings.proxy.value.as_deref());
    let settings_file = dir.join("settings.yml");
    files::write_private(&settings_file, &yaml).map_err(|e| io_error("settings.yml", e))?;
    let url = format!("http://127.0.0.1:{}", args.port);
    // A docker CLI whose daemon does not answer (not started, no permission) is no
    // docker: the git checkout in a venv is used instead, and the reason is said.
    let docker =
        on_path("docker")
            .filter(|_| !args.no_docker)
            .filter(|docker| match daemon_answers(docker) {
                Ok(()) => true,
                Err(why) => {
                    eprintln!(
                        "note: docker is installed but its daemon does not answer ({why}); \
                     using a git checkout in a Python venv instead"
                    );
                    false
                }
            });
    let state = match docker {
        Some(docker) => start_docker(&docker, &dir, args.port, &url)?,
        None => start_venv(&dir, &settings_file, &url)?,
    };
    save(&dir, &state)?;
    if !answers(&url, Duration::from_secs_f64(args.wait.clamp(0.0, 3600.0))).await {
        return Err(TrawlError::new(
            trawl_core::ErrorCode::Timeout,
            format!(
                "SearXNG did not answer at {url} within {} s ({})",
                args.wait,
                match state.mode.as_str() {
                    "docker" => format!("see `docker logs {CONTAINER}`"),
                    _ => format!("see {}", dir.join("searxng.log").display()),
                }
            ),
        ));
    }
    let config = config_path(settings)?;
    files::set_config_url(&config, Some(&url)).map_err(|e| io_error("config file", e))?;
    let said = format!(
        "SearXNG answers at {url} ({}); {} in {} points trawl at it",
        state.mode,
        files::CONFIG_KEY,
        config.display()
    );
    Ok((json!({ "state": state, "config": config, "said": said }), 0))
}

fn start_docker(docker: &Path, dir: &Path, port: u16, url: &str) -> Result<State, TrawlError> {
    // A container left by an earlier `up` is replaced.
    let _ = run(docker, &["rm", "-f", CONTAINER], None);
    let volume = format!("{}:/etc/searxng", dir.display());
    let port_env = format!("SEARXNG_PORT={port}");
    // Host networking: SearXNG binds loopback itself and reaches a proxy on loopback.
    run(
        docker,
        &[
            "run",
            "-d",
            "--name",
            CONTAINER,
            "--network",
            "host",
            "-e",
            &port_env,
            "-e",
            "SEARXNG_BIND_ADDRESS=127.0.0.1",
            "-v",
            &volume,
            IMAGE,
        ],
        None,
    )?;
    Ok(State {
        mode: "docker".into(),
        url: url.into(),
        dir: dir.into(),
        container: Some(CONTAINER.into()),
        pid: None,
    })
}

fn start_venv(dir: &Path, settings_file: &Path, url: &str) -> Result<State, TrawlError> {
    let src = dir.join("src");
    let venv = dir.join("venv");
    let git = on_path("git").ok_or_else(|| {
        TrawlError::invalid_input("neither docker nor git is on the PATH: install one of them")
    })?;
    if !src.join(".git").exists() {
        let dest = src.display().to_string();
        run(&git, &["clone", "--depth", "1", REPO, &dest], None)?;
    }
    let python = venv.join("bin").join("python");
    if !python.exists() {
        let python3 = on_path("python3")
            .ok_or_else(|| TrawlError::invalid_input("python3 is not on the PATH"))?;
        run(&python3, &["-m", "venv", &venv.display().to_string()], None)?;
        let requirements = src.join("requirements.txt").display().to_string();
        let pip = venv.join("bin").join("pip");
        run(
            &pip,
            &["install", "--quiet", "-r", &requirements],
            Some(&src),
        )?;
    }
    let log =
        std::fs::File::create(dir.join("searxng.log")).map_err(|e| io_error("searxng.log", e))?;
    let err = log.try_clone().map_err(|e| io_error("searxng.log", e))?;
    use std::os::unix::process::CommandExt;
    let child = Command::new(&python)
        .args(["-m", "searx.webapp"])
        .current_dir(&src)
        .env("SEARXNG_SETTINGS_PATH", settings_file)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        // Its own process group: a Ctrl-C in this terminal later does not stop it.
        .process_group(0)
        .spawn()
        .map_err(|e| io_error("starting SearXNG", e))?;
    Ok(State {
        mode: "venv".into(),
        url: url.into(),
        dir: dir.into(),
        container: None,
        pid: Some(child.id()),
    })
}

fn save(dir: &Path, state: &State) -> Result<(), TrawlError> {
    let text = serde_json::to_string_pretty(state).unwrap_or_default();
    std::fs::write(dir.join("state.json"), text).map_err(|e| io_error("state.json", e))
}

fn load() -> Result<Option<State>, TrawlError> {
    let path = home()?.join("state.json");
    match std::fs::read_to_string(&path) {
        Ok(t) => serde_json::from_str(&t)
            .map(Some)
            .map_err(|e| TrawlError::internal(format!("{}: {e}", path.display()))),
        Err(_) => Ok(None),
    }
}

/// Whether SearXNG answers a JSON search at `url` within `wait`.
async fn answers(url: &str, wait: Duration) -> bool {
    let Ok(client) = trawl_search::http_client(None, Duration::from_secs(2)) else {
        return false;
    };
    let probe = format!("{url}/search?q=trawl&format=json");
    let started = Instant::now();
    loop {
        let ok = async {
            let r = client
                .get(&probe)
                .timeout(Duration::from_secs(5))
                .send()
                .await
                .ok()?;
            let v: Value = r.error_for_status().ok()?.json().await.ok()?;
            v.get("results").map(|_| ())
        }
        .await
        .is_some();
        if ok || started.elapsed() >= wait {
            return ok;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

async fn status() -> Result<(Value, i32), TrawlError> {
    let Some(state) = load()? else {
        let said = "no local SearXNG (start one with `trawl searxng up`)";
        return Ok((json!({ "running": false, "said": said }), 1));
    };
    let answering = answers(&state.url, Duration::ZERO).await;
    let place = match (&state.container, state.pid) {
        (Some(c), _) => format!("docker container {c}"),
        (None, Some(pid)) => format!("process {pid}, {}", state.dir.display()),
        _ => state.dir.display().to_string(),
    };
    let said = format!(
        "SearXNG ({}) at {}: {}",
        place,
        state.url,
        if answering {
            "answers"
        } else {
            "does not answer"
        }
    );
    let code = ExitStatus::from_health(answering).code();
    Ok((
        json!({ "state": state, "answering": answering, "said": said }),
        code,
    ))
}

fn down(settings: &Settings) -> Result<(Value, i32), TrawlError> {
    let Some(state) = load()? else {
        return Ok((json!({ "said": "no local SearXNG to stop" }), 0));
    };
    if let Some(c) = &state.container {
        let docker = on_path("docker")
            .ok_or_else(|| TrawlError::invalid_input("docker is no longer on the PATH"))?;
        run(&docker, &["rm", "-f", c], None)?;
    }
    if let Some(pid) = state.pid {
        // The server `up` started; one that already ended makes `kill` fail harmlessly.
        let _ = Command::new("kill")
            .arg(pid.to_string())
            .stderr(Stdio::null())
            .status();
    }
    let _ = std::fs::remove_file(state.dir.join("state.json"));
    let config = config_path(settings)?;
    files::set_config_url(&config, None).map_err(|e| io_error("config file", e))?;
    let said = format!(
        "SearXNG stopped; {} removed from {}",
        files::CONFIG_KEY,
        config.display()
    );
    Ok((json!({ "state": state, "said": said }), 0))
}
