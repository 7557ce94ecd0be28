//! One headless Chromium process: started by trawl itself (not by the CDP crate) so that it
//! gets a fresh profile, trawl's flags and no others, its own process group and a parent-
//! death signal (it dies with trawl, even when trawl is killed), then driven over CDP.

#![allow(
    unsafe_code,
    reason = "process control the standard library does not offer: a parent-death signal in pre_exec, waitpid and kill on the browser's own process group"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use chromiumoxide::Browser;
use chromiumoxide::handler::HandlerConfig;
use futures_util::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};
use trawl_core::{ErrorCode, TrawlError};

use super::proxy::{GuardProxy, Policy};

/// How long the browser may take to print its DevTools address.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);

/// The browser binary: `TRAWL_BROWSER`/config first, then Debian's `chromium` on the PATH.
pub fn find_browser(configured: Option<&Path>) -> Result<PathBuf, TrawlError> {
    if let Some(path) = configured {
        return if path.is_file() {
            Ok(path.to_owned())
        } else {
            Err(missing(&format!("{} does not exist", path.display())))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(missing("no chromium on the PATH"))
}

fn missing(why: &str) -> TrawlError {
    TrawlError::new(
        ErrorCode::Upstream,
        format!(
            "no browser to render with ({why}): install Debian's `chromium` or set TRAWL_BROWSER"
        ),
    )
}

/// A running browser. Dropping it kills its whole process tree.
pub(crate) struct Running {
    pub(crate) browser: Browser,
    pid: u32,
    handler: tokio::task::JoinHandle<()>,
    _default_proxy: GuardProxy,
    // Removed after the process is gone (field order: dropped last).
    _profile: tempfile::TempDir,
}

impl Running {
    pub(crate) async fn launch(executable: &Path) -> Result<Self, TrawlError> {
        let profile = tempfile::Builder::new()
            .prefix("trawl-browser-")
            .tempdir()
            .map_err(|e| TrawlError::internal(format!("render: profile directory: {e}")))?;
        // The default context renders nothing; its traffic (if any) is refused.
        let default_proxy = GuardProxy::start(Policy::DenyAll).await?;
        let mut args: Vec<String> = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--disable-breakpad",
            "--disable-domain-reliability",
            "--disable-client-side-phishing-detection",
            "--metrics-recording-only",
            "--password-store=basic",
            "--mute-audio",
            "--hide-scrollbars",
            // UDP never leaves except through the proxy: no QUIC, no WebRTC candidates.
            "--disable-quic",
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--block-new-web-contents",
            "--no-pings",
            "--disable-field-trial-config",
            "--disable-search-engine-choice-screen",
            "--no-service-autorun",
            // Features that fetch on their own (preconnects, translation, media router, …).
            "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,\
             CertificateTransparencyComponentUpdater,AcceptCHFrame,InterestFeedContentSuggestions,\
             AutofillServerCommunication,NetworkTimeServiceQuerying,LensOverlay,PrivacySandboxSettings4",
            "--proxy-bypass-list=<-loopback>",
            "--remote-debugging-port=0",
            "--remote-allow-origins=http://127.0.0.1",
        ]
        .map(str::to_owned)
        .to_vec();
        args.push(format!("--proxy-server={}", default_proxy.url()));
        args.push(format!("--user-data-dir={}", profile.path().display()));
        // Images are refused per page at request interception (page.rs), not for the
        // whole browser: a page asked for a screenshot loads them, the others do not.
        args.push("about:blank".into());
        let mut cmd = tokio::process::Command::new(executable);
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        // It makes the kernel kill the browser when the thread that started it (a runtime
        // worker, alive as long as trawl) goes away, so a killed trawl leaves no browser.
        // Linux only: elsewhere (macOS) the browser dies with trawl's own shutdown, and its
        // process group is killed on drop, but not when trawl itself is killed.
        #[cfg(target_os = "linux")]
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| missing(&format!("could not start {}: {e}", executable.display())))?;
        let pid = child.id().unwrap_or(0);
        let stderr = child.stderr.take();
        let ws = async {
            let mut lines = BufReader::new(stderr?).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(at) = line.find("ws://") {
                    let ws = line[at..].trim().to_owned();
                    // Keep draining stderr so the browser never blocks on a full pipe.
                    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
                    return Some(ws);
                }
            }
            None
        };
        let ws = match tokio::time::timeout(LAUNCH_TIMEOUT, ws).await {
            Ok(Some(ws)) => ws,
            _ => {
                kill_tree(pid);
                let _ = child.kill().await;
                return Err(TrawlError::new(
                    ErrorCode::Upstream,
                    format!(
                        "render: {} did not start a DevTools endpoint",
                        executable.display()
                    ),
                ));
            }
        };
        let config = HandlerConfig {
            // Certificates are checked by the browser, end to end through the tunnel.
            ignore_https_errors: false,
            request_timeout: Duration::from_secs(30),
            ..HandlerConfig::default()
        };
        let (browser, mut handler) = match Browser::connect_with_config(ws, config).await {
            Ok(pair) => pair,
            Err(e) => {
                kill_tree(pid);
                return Err(TrawlError::internal(format!(
                    "render: CDP connect failed: {e}"
                )));
            }
        };
        let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
        // The child handle is not needed: the process group and /proc are the source of truth.
        std::mem::forget(child);
        Ok(Running {
            browser,
            pid,
            handler,
            _default_proxy: default_proxy,
            _profile: profile,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether the browser process still runs.
    pub(crate) fn alive(&self) -> bool {
        process_alive(self.pid)
    }

    /// Memory of the browser and all its descendants, in bytes: the sum of each process's
    /// proportional set size, so pages shared between Chromium's processes count once
    /// (summed RSS counted them in every process and tripped the memory cap on a browser
    /// with a few tabs, restarting it mid-batch).
    pub(crate) fn rss(&self) -> u64 {
        process_tree(self.pid).iter().map(|p| rss_of(*p)).sum()
    }

    /// Close politely, then make sure: kill every process of the tree.
    pub(crate) async fn shutdown(mut self) {
        let tree = process_tree(self.pid);
        let _ = tokio::time::timeout(Duration::from_secs(2), self.browser.close()).await;
        for &pid in &tree {
            kill(pid);
        }
        kill_tree(self.pid);
        // Wait for the tree as it was before the close: once the browser has exited, its
        // renderers belong to init and `Drop` could no longer find them to wait for.
        let pid = self.pid;
        let _ = tokio::task::spawn_blocking(move || reap(pid, &tree)).await;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.handler.abort();
        let tree = process_tree(self.pid);
        kill_tree(self.pid);
        reap(self.pid, &tree);
    }
}

/// How long a dropped browser is waited for. A killed process always ends, but tearing
/// down a browser's memory takes the kernel a while on a loaded machine, and trawl must
/// not exit while any of it still runs.
const REAP_DEADLINE: Duration = Duration::from_secs(5);

/// Wait for the browser's exit status (it was forgotten by tokio), and for every process
/// it started to be gone too (those are reaped by init; here they only need to have ended).
fn reap(pid: u32, tree: &[u32]) {
    let until = std::time::Instant::now() + REAP_DEADLINE;
    if let Ok(pid) = i32::try_from(pid) {
        loop {
            let mut status = 0;
            // SAFETY: waitpid on our own child with WNOHANG; no memory is shared.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if r != 0 || std::time::Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    while tree.iter().any(|&p| process_alive(p)) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn kill(pid: u32) {
    if let Ok(pid) = i32::try_from(pid)
        && pid > 1
    {
        // SAFETY: sending a signal has no memory effects in this process.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// SIGKILL the browser's process group and any descendant that left it.
pub(crate) fn kill_tree(pid: u32) {
    if pid <= 1 {
        return;
    }
    let tree = process_tree(pid);
    if let Ok(pgid) = i32::try_from(pid) {
        // SAFETY: as in `kill`; the group is the browser's own (process_group(0)).
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    for p in tree {
        kill(p);
    }
}

/// `pid` and all its descendants, read from /proc.
pub fn process_tree(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(p) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(ppid) = parent_of(p) {
                parents.push((p, ppid));
            }
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    tree.retain(|p| process_alive(*p));
    tree
}

/// Whether `pid` runs (exists and is not a zombie).
pub fn process_alive(pid: u32) -> bool {
    proc_state(pid).is_some_and(|s| s != 'Z')
}

fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces.
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().map(str::to_owned).collect())
}

fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

fn proc_state(pid: u32) -> Option<char> {
    stat_fields(pid)?.first()?.chars().next()
}

fn rss_of(pid: u32) -> u64 {
    let field = |path: String, name: &str| {
        std::fs::read_to_string(path).ok().and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
    };
    // Pss from smaps_rollup (Linux 4.14+); VmRSS where it cannot be read.
    field(format!("/proc/{pid}/smaps_rollup"), "Pss:")
        .or_else(|| field(format!("/proc/{pid}/status"), "VmRSS:"))
        .map_or(0, |kb| kb * 1024)
}
