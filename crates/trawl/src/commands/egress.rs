//! `doctor`'s egress check: with a proxy configured, the address an IP-echo service sees
//! through the proxy and the one it sees directly, so a proxy or VPN that does not change
//! where traffic leaves from is said plainly.

use std::time::Duration;

use serde::Serialize;
use trawl_core::vars;

use crate::settings::Settings;

/// Answers with the caller's address as plain text.
const DEFAULT_ECHO: &str = "https://api.ipify.org/";

/// Longest echo answer taken as an address.
const MAX_ADDRESS: usize = 64;

/// What the egress check found.
#[derive(Debug, Serialize)]
pub struct EgressCheck {
    /// The IP-echo endpoint asked (`TRAWL_EGRESS_ECHO_URL`).
    pub echo: String,
    /// The address seen through the proxy.
    pub via_proxy: Option<String>,
    /// The address seen without the proxy.
    pub direct: Option<String>,
    /// Whether traffic is seen leaving through a different address than without the proxy.
    pub ok: bool,
    /// What that means, in a sentence.
    pub verdict: String,
}

/// Compare the exit addresses; `None` when no proxy is configured.
pub async fn check_egress(settings: &Settings, deadline: Duration) -> Option<EgressCheck> {
    let proxy = settings.proxy.value.as_deref()?;
    let echo = std::env::var(vars::EGRESS_ECHO_URL)
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_ECHO.to_owned());
    let proxy = trawl_fetch::normalize_proxy(proxy).map(|u| u.to_string());
    let via_proxy = match &proxy {
        Ok(p) => address(&echo, Some(p), deadline).await,
        Err(e) => Err(e.message.clone()),
    };
    let direct = address(&echo, None, deadline).await;
    let (ok, verdict) = match (&via_proxy, &direct) {
        (Ok(p), Ok(d)) if p == d => (
            false,
            format!(
                "traffic leaves from the same address ({p}) with and without the proxy: it does not change the exit"
            ),
        ),
        (Ok(p), Ok(d)) => (true, format!("traffic leaves through {p} (directly: {d})")),
        (Ok(p), Err(_)) => (
            true,
            format!("traffic leaves through {p}; the direct path did not answer"),
        ),
        (Err(e), _) => (false, format!("the proxy path did not answer: {e}")),
    };
    Some(EgressCheck {
        echo,
        via_proxy: via_proxy.ok(),
        direct: direct.ok(),
        ok,
        verdict,
    })
}

/// The address `echo` reports for a request through `proxy` (or directly).
async fn address(echo: &str, proxy: Option<&str>, deadline: Duration) -> Result<String, String> {
    let client = trawl_search::http_client(proxy, deadline).map_err(|e| e.to_string())?;
    let ask = async {
        let r = client.get(echo).send().await?.error_for_status()?;
        r.text().await
    };
    let text = tokio::time::timeout(deadline, ask)
        .await
        .map_err(|_| "no answer before the deadline".to_owned())?
        .map_err(|e| e.without_url().to_string())?;
    let addr = text.trim();
    if addr.is_empty() || addr.len() > MAX_ADDRESS || addr.contains(char::is_whitespace) {
        return Err("the echo service did not answer with an address".into());
    }
    Ok(addr.to_owned())
}
