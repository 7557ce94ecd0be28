//! The network flags every fetching command shares (clap types), in their own file so that
//! `cli.rs` and the commands that declare their own arguments (`commands/map.rs`,
//! `commands/crawl.rs`) both take them from here rather than from each other.

use std::path::PathBuf;

use clap::Args;
use trawl_fetch::RenderMode;

use crate::settings::{Deadline, Flags, HostList, ProxyUrl, parse_flag};

/// Network flags shared by every command that fetches. Each sets the setting of the same
/// name, parsed by clap with that setting's own parser.
#[derive(Debug, Args, Clone, Default)]
pub struct NetArgs {
    /// Total deadline per fetch, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        allow_negative_numbers = true,
        value_parser = parse_flag::<Deadline>
    )]
    pub timeout: Option<Deadline>,
    /// Body size cap in bytes (0 = no cap; default 10 MiB).
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true)]
    pub max_bytes: Option<u64>,
    /// Egress proxy (http, https, socks5, socks5h); also TRAWL_PROXY.
    #[arg(long, value_name = "URL", value_parser = parse_flag::<ProxyUrl>)]
    pub proxy: Option<ProxyUrl>,
    /// Allow fetching private, loopback and link-local addresses (deliberate internal use).
    #[arg(long)]
    pub allow_private_hosts: bool,
    /// Allow one host name, IP or CIDR range despite the private-address guard (repeatable).
    #[arg(long = "allow-host", value_name = "HOST|CIDR", value_parser = parse_flag::<HostList>)]
    pub allow_hosts: Vec<HostList>,
    /// Render pages in a local headless browser: auto (app shells only), never, always;
    /// also TRAWL_RENDER. The browser is Debian's `chromium`, or TRAWL_BROWSER.
    #[arg(long, value_name = "auto|never|always", value_parser = parse_flag::<RenderMode>)]
    pub render: Option<RenderMode>,
    /// Your cookies file (Netscape cookies.txt) for pages read: each cookie goes only to
    /// the hosts its domain matches, never logged or recorded. Per site: `[cookies]` in
    /// the config file.
    #[arg(long, value_name = "FILE")]
    pub cookies: Option<PathBuf>,
    /// Languages OCR reads images and scans in, as tesseract names them, `+`-joined
    /// (`eng+deu`); also TRAWL_OCR_LANG. `trawl doctor` lists those installed.
    #[arg(long, value_name = "LANGS")]
    pub ocr_lang: Option<String>,
}

impl NetArgs {
    /// The flags given that set settings, by flag name.
    pub fn setting_flags(&self) -> Flags {
        let mut flags = Flags::default();
        if let Some(t) = self.timeout {
            flags.set("--timeout", t);
        }
        if let Some(b) = self.max_bytes {
            flags.set("--max-bytes", b);
        }
        if let Some(p) = &self.proxy {
            flags.set("--proxy", Some(p.clone()));
        }
        if self.allow_private_hosts {
            flags.set("--allow-private-hosts", true);
        }
        if !self.allow_hosts.is_empty() {
            let hosts = self.allow_hosts.iter().flat_map(|h| h.0.clone()).collect();
            flags.set("--allow-host", HostList(hosts));
        }
        if let Some(r) = self.render {
            flags.set("--render", r);
        }
        if let Some(c) = &self.cookies {
            flags.set("--cookies", Some(c.clone()));
        }
        if let Some(l) = &self.ocr_lang {
            flags.set("--ocr-lang", Some(l.clone()));
        }
        flags
    }
}
