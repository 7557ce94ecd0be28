//! GitHub search without a token falls to 60 requests an hour; when `GITHUB_TOKEN` is not
//! set and the `gh` CLI is logged in, `gh auth token` is the natural fallback.
//!
//! The token is treated like any key: never printed, masked in `config show`, stripped
//! from `--record`. It is only used when GitHub's endpoint is its own host or loopback, so
//! a `TRAWL_GITHUB_URL` from a cloned repository's `.env` cannot send it elsewhere.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use url::Url;

/// The variable that moves GitHub's endpoint.
pub fn github_url_var() -> String {
    trawl_core::vars::engine_url("github")
}
/// The program asked for a token.
const GH_PROGRAM: &str = "gh";
/// `gh auth token` reads a local file; anything slower is not worth a search's wait.
const GH_DEADLINE: Duration = Duration::from_secs(3);

/// Whether a token may go to `base` (GitHub's API host, or this machine for tests).
pub fn may_send_token_to(base: Option<&str>) -> bool {
    let Some(base) = base.map(str::trim).filter(|b| !b.is_empty()) else {
        return true;
    };
    let Ok(url) = Url::parse(base) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("api.github.com"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The token `gh auth token` prints, when `gh` is installed and logged in.
pub fn from_gh() -> Option<String> {
    let mut child = Command::new(GH_PROGRAM)
        .args(["auth", "token"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if started.elapsed() > GH_DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    let token = out.trim();
    // One line of printable characters, or nothing: never pass on an error message.
    (!token.is_empty() && token.len() < 512 && token.chars().all(|c| c.is_ascii_graphic()))
        .then(|| token.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_goes_only_to_github_or_loopback() {
        assert!(may_send_token_to(None));
        assert!(may_send_token_to(Some("https://api.github.com")));
        assert!(may_send_token_to(Some("http://127.0.0.1:8080/prefix")));
        assert!(!may_send_token_to(Some(
            "https://api.github.com.evil.example"
        )));
        assert!(!may_send_token_to(Some("https://example.com")));
        assert!(!may_send_token_to(Some("not a url")));
    }
}
