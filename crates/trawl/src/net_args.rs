//! The network flags every fetching command shares (clap types), in their own file so that
//! `cli.rs` and the commands that declare their own arguments (`commands/map.rs`,
//! `commands/crawl.rs`) both take them from here rather than from each other.

use std::collections::BTreeMap;

use clap::Args;

/// Network flags shared by every command that fetches.
#[derive(Debug, Args, Clone, Default)]
pub struct NetArgs {
    /// Total deadline per fetch, in seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub timeout: Option<f64>,
    /// Body size cap in bytes (0 = no cap; default 10 MiB).
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true)]
    pub max_bytes: Option<u64>,
    /// Egress proxy (http, https, socks5, socks5h); also TRAWL_PROXY.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Allow fetching private, loopback and link-local addresses (deliberate internal use).
    #[arg(long)]
    pub allow_private_hosts: bool,
    /// Allow one host name, IP or CIDR range despite the private-address guard (repeatable).
    #[arg(long = "allow-host", value_name = "HOST|CIDR")]
    pub allow_hosts: Vec<String>,
    /// Render pages in a local headless browser: auto (app shells only), never, always;
    /// also TRAWL_RENDER. The browser is Debian's `chromium`, or TRAWL_BROWSER.
    #[arg(long, value_name = "auto|never|always")]
    pub render: Option<String>,
    /// Your cookies file (Netscape cookies.txt) for pages read: each cookie goes only to
    /// the hosts its domain matches, never logged or recorded. Per site: `[cookies]` in
    /// the config file.
    #[arg(long, value_name = "FILE")]
    pub cookies: Option<String>,
}

impl NetArgs {
    /// The flags given, by flag name, as text.
    pub fn setting_flags(&self) -> BTreeMap<&'static str, String> {
        let mut flags = BTreeMap::new();
        if let Some(t) = self.timeout {
            flags.insert("--timeout", t.to_string());
        }
        if let Some(b) = self.max_bytes {
            flags.insert("--max-bytes", b.to_string());
        }
        if let Some(p) = &self.proxy {
            flags.insert("--proxy", p.clone());
        }
        if self.allow_private_hosts {
            flags.insert("--allow-private-hosts", "true".to_owned());
        }
        if !self.allow_hosts.is_empty() {
            flags.insert("--allow-host", self.allow_hosts.join(","));
        }
        if let Some(r) = &self.render {
            flags.insert("--render", r.clone());
        }
        if let Some(c) = &self.cookies {
            flags.insert("--cookies", c.clone());
        }
        flags
    }
}
