//! The types settings resolve into, and how each is read from the environment (or a
//! flag, as text) and from the config file, and written back the way the file spells it.
//! Every value is checked here, when it is read, so an error can name where it came from.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use trawl_agent::tools::ReaderKind;
use trawl_fetch::{HostRule, RenderMode};

use trawl_store::StoreFallback as Fallback;

/// A value one setting holds.
pub trait SettingValue: Sized {
    /// Parse the text of an environment variable or a flag.
    fn parse(text: &str) -> Result<Self, String>;

    /// Read it from the config file; a string is parsed like the environment's text.
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::String(s) => Self::parse(s),
            other => Err(format!("expected a string, found {}", other.type_str())),
        }
    }

    /// The value as the config file spells it; `None` when it is unset.
    fn to_toml(&self) -> Option<toml::Value>;

    /// Like [`to_toml`](Self::to_toml), with any credential masked; `true` when something
    /// was masked (then it must not be written back as the value).
    fn shown(&self) -> (Option<toml::Value>, bool) {
        (self.to_toml(), false)
    }
}

impl SettingValue for bool {
    fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err("expected a boolean (1, true, yes, on, 0, false, no, off)".to_owned()),
        }
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        value
            .as_bool()
            .ok_or_else(|| format!("expected true or false, found {}", value.type_str()))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::Boolean(*self))
    }
}

/// A whole number that is not negative.
fn count(value: &toml::Value) -> Result<u64, String> {
    match value.as_integer() {
        Some(n) => u64::try_from(n).map_err(|_| format!("expected a number >= 0, got {n}")),
        None => Err(format!(
            "expected a whole number, found {}",
            value.type_str()
        )),
    }
}

impl SettingValue for u64 {
    fn parse(text: &str) -> Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| "expected a whole number >= 0".to_owned())
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        count(value)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::Integer(
            i64::try_from(*self).unwrap_or(i64::MAX),
        ))
    }
}

impl SettingValue for usize {
    fn parse(text: &str) -> Result<Self, String> {
        u64::parse(text).and_then(|n| usize::try_from(n).map_err(|e| e.to_string()))
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        count(value).and_then(|n| usize::try_from(n).map_err(|e| e.to_string()))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        (*self as u64).to_toml()
    }
}

impl SettingValue for String {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(text.trim().to_owned())
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.clone()))
    }
}

impl SettingValue for PathBuf {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(PathBuf::from(text.trim()))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.to_string_lossy().into_owned()))
    }
}

/// An optional setting: unset unless a layer gives it a value.
impl<T: SettingValue> SettingValue for Option<T> {
    fn parse(text: &str) -> Result<Self, String> {
        T::parse(text).map(Some)
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        T::from_toml(value).map(Some)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        self.as_ref().and_then(T::to_toml)
    }
    fn shown(&self) -> (Option<toml::Value>, bool) {
        self.as_ref().map_or((None, false), T::shown)
    }
}

/// A number of seconds, from a float or an integer.
/// A number of seconds written as text (a flag or an environment variable).
fn seconds_text(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .map_err(|_| "expected a number of seconds".to_owned())
}

fn seconds(value: &toml::Value) -> Result<f64, String> {
    match value {
        toml::Value::Float(f) => Ok(*f),
        toml::Value::Integer(n) => Ok(*n as f64),
        other => Err(format!(
            "expected a number of seconds, found {}",
            other.type_str()
        )),
    }
}

/// A deadline: more than 0 and at most an hour, in seconds (`timeout = 30.0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deadline(pub Duration);

impl Deadline {
    fn checked(secs: f64) -> Result<Self, String> {
        if secs.is_finite() && secs > 0.0 && secs <= 3600.0 {
            Ok(Deadline(Duration::from_secs_f64(secs)))
        } else {
            Err(format!(
                "must be more than 0 and at most 3600 seconds, got {secs}"
            ))
        }
    }
}

impl SettingValue for Deadline {
    fn parse(text: &str) -> Result<Self, String> {
        Self::checked(seconds_text(text)?)
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::checked(seconds(value)?)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::Float(self.0.as_secs_f64()))
    }
}

/// How long something is kept, in seconds; 0 = forever (`document_ttl = 86400.0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ttl(pub Duration);

impl Ttl {
    fn checked(secs: f64) -> Result<Self, String> {
        if secs.is_finite() && secs >= 0.0 {
            Ok(Ttl(Duration::from_secs_f64(secs)))
        } else {
            Err(format!("must be a number of seconds >= 0, got {secs}"))
        }
    }
}

impl SettingValue for Ttl {
    fn parse(text: &str) -> Result<Self, String> {
        Self::checked(seconds_text(text)?)
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::checked(seconds(value)?)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::Float(self.0.as_secs_f64()))
    }
}

/// A duration in whole milliseconds (`search_timeout_ms = 8000`); 0 = none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Millis(pub Duration);

impl SettingValue for Millis {
    fn parse(text: &str) -> Result<Self, String> {
        u64::parse(text).map(|ms| Millis(Duration::from_millis(ms)))
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        count(value).map(|ms| Millis(Duration::from_millis(ms)))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        (self.0.as_millis() as u64).to_toml()
    }
}

/// A crawl bound (crawls at once, pages per crawl): 1 or more.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrawlCount(pub usize);

impl CrawlCount {
    fn checked(n: usize) -> Result<Self, String> {
        if n >= 1 {
            Ok(CrawlCount(n))
        } else {
            Err("must be at least 1".to_owned())
        }
    }
}

impl SettingValue for CrawlCount {
    fn parse(text: &str) -> Result<Self, String> {
        usize::parse(text).and_then(Self::checked)
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        usize::from_toml(value).and_then(Self::checked)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        self.0.to_toml()
    }
}

/// A server's wait or lifetime, in seconds from 0 to a day (`queue_timeout = 30.0`); what
/// 0 means is the setting's to say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds(pub Duration);

impl Seconds {
    /// The longest a server setting may say: a day.
    const MAX_SECS: f64 = 86_400.0;

    fn checked(secs: f64) -> Result<Self, String> {
        if secs.is_finite() && (0.0..=Self::MAX_SECS).contains(&secs) {
            Ok(Seconds(Duration::from_secs_f64(secs)))
        } else {
            Err(format!("must be between 0 and 86400 seconds, got {secs}"))
        }
    }
}

impl SettingValue for Seconds {
    fn parse(text: &str) -> Result<Self, String> {
        Self::checked(seconds_text(text)?)
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::checked(seconds(value)?)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::Float(self.0.as_secs_f64()))
    }
}

impl SettingValue for SocketAddr {
    fn parse(text: &str) -> Result<Self, String> {
        text.trim().parse().map_err(|_| {
            format!(
                "{:?} is not an address (host:port, e.g. 127.0.0.1:8787)",
                text.trim()
            )
        })
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.to_string()))
    }
}

/// Where the store lives when it is not a Redis: a SQLite file, or memory (`:memory:` in
/// the file, the environment and `--store`), which keeps nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreLocation {
    Memory,
    File(PathBuf),
}

impl StoreLocation {
    /// How memory is spelt where a path could be.
    pub const MEMORY: &str = ":memory:";
}

impl std::fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreLocation::Memory => f.write_str(Self::MEMORY),
            StoreLocation::File(path) => write!(f, "{}", path.display()),
        }
    }
}

impl SettingValue for StoreLocation {
    fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "" => Err("expected a file path or :memory:".to_owned()),
            Self::MEMORY => Ok(StoreLocation::Memory),
            path => Ok(StoreLocation::File(PathBuf::from(path))),
        }
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(match self {
            StoreLocation::Memory => Self::MEMORY.to_owned(),
            StoreLocation::File(path) => path.to_string_lossy().into_owned(),
        }))
    }
}

/// Words kept as written (origins, host names): comma-separated in the environment, an
/// array of strings in the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Words(pub Vec<String>);

impl SettingValue for Words {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(Words(split_list(text)))
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Ok(Words(
            list(value)?.into_iter().filter(|s| !s.is_empty()).collect(),
        ))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(string_array(self.0.clone()))
    }
}

/// Pages rendered at the same time: 1 to 32.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tabs(pub usize);

impl Tabs {
    fn checked(n: usize) -> Result<Self, String> {
        if (1..=32).contains(&n) {
            Ok(Tabs(n))
        } else {
            Err(format!("must be between 1 and 32, got {n}"))
        }
    }
}

impl SettingValue for Tabs {
    fn parse(text: &str) -> Result<Self, String> {
        usize::parse(text).and_then(Self::checked)
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        usize::from_toml(value).and_then(Self::checked)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        self.0.to_toml()
    }
}

impl SettingValue for RenderMode {
    fn parse(text: &str) -> Result<Self, String> {
        RenderMode::parse(text).map_err(|_| {
            format!(
                "{:?} is not one of auto, never, always",
                text.trim().to_ascii_lowercase()
            )
        })
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.as_str().to_owned()))
    }
}

impl SettingValue for Fallback {
    fn parse(text: &str) -> Result<Self, String> {
        text.trim().parse()
    }
    fn to_toml(&self) -> Option<toml::Value> {
        let name = match self {
            Fallback::Fail => "none",
            Fallback::Memory => "memory",
        };
        Some(toml::Value::String(name.to_owned()))
    }
}

/// A list: comma-separated in the environment, an array of strings in the file.
fn list(value: &toml::Value) -> Result<Vec<String>, String> {
    let toml::Value::Array(items) = value else {
        return Err(format!(
            "expected an array of strings, found {}",
            value.type_str()
        ));
    };
    items
        .iter()
        .map(|v| {
            v.as_str()
                .map(|s| s.trim().to_owned())
                .ok_or_else(|| format!("expected strings in the array, found {}", v.type_str()))
        })
        .collect()
}

fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn string_array(items: impl IntoIterator<Item = String>) -> toml::Value {
    toml::Value::Array(items.into_iter().map(toml::Value::String).collect())
}

/// Hosted readers, in order (`none` alone: no reader at all).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Readers(pub Vec<ReaderKind>);

impl Readers {
    fn from_names(names: Vec<String>) -> Result<Self, String> {
        let mut out = Vec::new();
        for name in &names {
            match ReaderKind::parse(name) {
                Some(kind) => out.push(kind),
                // `none` empties the list (it stops a default from applying).
                None if name == "none" => return Ok(Readers(Vec::new())),
                None => {
                    return Err(format!(
                        "unknown reader {name:?} (jina, tavily, firecrawl, exa, or none)"
                    ));
                }
            }
        }
        Ok(Readers(out))
    }
}

impl SettingValue for Readers {
    fn parse(text: &str) -> Result<Self, String> {
        Self::from_names(split_list(text))
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_names(list(value)?)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(string_array(self.0.iter().map(|k| k.name().to_owned())))
    }
}

/// Hosts, IPs or CIDR ranges opened past the private-address guard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostList(pub Vec<String>);

impl HostList {
    fn checked(hosts: Vec<String>) -> Result<Self, String> {
        for host in &hosts {
            HostRule::parse(host).map_err(|e| e.message)?;
        }
        Ok(HostList(hosts))
    }

    /// The rules, already checked when the setting was read.
    pub fn rules(&self) -> Vec<HostRule> {
        self.0
            .iter()
            .filter_map(|h| HostRule::parse(h).ok())
            .collect()
    }
}

impl SettingValue for HostList {
    /// Every entry is checked, an empty one too (`--allow-host ""` is a mistake).
    fn parse(text: &str) -> Result<Self, String> {
        Self::checked(text.split(',').map(|h| h.trim().to_owned()).collect())
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::checked(list(value)?)
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(string_array(self.0.clone()))
    }
}

/// Names compared without case (engines).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Names(pub Vec<String>);

impl SettingValue for Names {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(Names(split_list(&text.to_ascii_lowercase())))
    }
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Ok(Names(
            list(value)?
                .into_iter()
                .map(|s| s.to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect(),
        ))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(string_array(self.0.clone()))
    }
}

/// An egress proxy URL (http, https, socks5, socks5h); shown with its password masked.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyUrl(String);

impl std::ops::Deref for ProxyUrl {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl SettingValue for ProxyUrl {
    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        trawl_fetch::normalize_proxy(text).map_err(|e| e.message)?;
        Ok(ProxyUrl(text.to_owned()))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.0.clone()))
    }
    fn shown(&self) -> (Option<toml::Value>, bool) {
        let masked = super::mask_url_password(&self.0);
        let changed = masked != self.0;
        (Some(toml::Value::String(masked)), changed)
    }
}

/// The shared Redis's URL: a secret (it may hold a password), so `Debug` and `Display`
/// mask its credentials; [`RedisUrl::expose`] gives the URL itself.
#[derive(Clone, PartialEq)]
pub struct RedisUrl(String);

impl RedisUrl {
    /// The URL with its credentials, for opening the store.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RedisUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&trawl_core::redact_url(&self.0))
    }
}

impl std::fmt::Debug for RedisUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RedisUrl({self})")
    }
}

impl SettingValue for RedisUrl {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(RedisUrl(text.trim().to_owned()))
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.0.clone()))
    }
    fn shown(&self) -> (Option<toml::Value>, bool) {
        let masked = self.to_string();
        let changed = masked != self.0;
        (Some(toml::Value::String(masked)), changed)
    }
}

/// A base URL (where a provider's requests and its key go).
#[derive(Debug, Clone, PartialEq)]
pub struct BaseUrl(pub url::Url);

impl SettingValue for BaseUrl {
    fn parse(text: &str) -> Result<Self, String> {
        url::Url::parse(text.trim()).map(BaseUrl).map_err(|e| {
            format!(
                "{:?} is not a URL: {e}",
                trawl_core::redact_url(text.trim())
            )
        })
    }
    fn to_toml(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.0.as_str().to_owned()))
    }
    fn shown(&self) -> (Option<toml::Value>, bool) {
        let raw = self.0.as_str();
        let masked = super::mask_url_password(raw);
        let changed = masked != raw;
        (Some(toml::Value::String(masked)), changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_round_trips_through_the_file_syntax() {
        fn again<T: SettingValue + PartialEq + std::fmt::Debug>(v: T) {
            let written = v.to_toml().expect("set");
            assert_eq!(T::from_toml(&written).unwrap(), v, "{written}");
        }
        again(Deadline(Duration::from_millis(1500)));
        again(Ttl(Duration::ZERO));
        again(Millis(Duration::from_millis(8000)));
        again(Tabs(4));
        again(RenderMode::Always);
        again(Readers(vec![ReaderKind::Exa, ReaderKind::Jina]));
        again(HostList(vec!["10.0.0.0/8".into()]));
        assert!(HostList::parse("10.0.0.0/8,").is_err(), "an empty host");
        again(true);
        again(12_u64);
        again(Fallback::Memory);
        assert_eq!(
            Deadline(Duration::from_secs(30))
                .to_toml()
                .unwrap()
                .to_string(),
            "30.0"
        );
    }

    #[test]
    fn bad_values_say_what_was_expected() {
        let render = <RenderMode as SettingValue>::parse("sometimes").unwrap_err();
        assert!(render.contains("sometimes"), "{render}");
        assert!(Deadline::parse("0").is_err() && Deadline::parse("soon").is_err());
        assert!(Tabs::parse("33").is_err());
        assert!(
            Readers::parse("jina,nobody")
                .unwrap_err()
                .contains("nobody")
        );
        assert_eq!(Readers::parse("none").unwrap(), Readers(Vec::new()));
        assert!(bool::parse("maybe").is_err());
        assert!(u64::from_toml(&toml::Value::Integer(-1)).is_err());
    }

    #[test]
    fn server_values_are_checked_and_typed() {
        assert!(Seconds::parse("-1").is_err() && Seconds::parse("NaN").is_err());
        assert!(Seconds::parse("86401").is_err());
        assert_eq!(Seconds::parse("0.5").unwrap().0, Duration::from_millis(500));
        again_seconds();
        assert_eq!(
            StoreLocation::parse(":memory:").unwrap(),
            StoreLocation::Memory
        );
        assert_eq!(
            StoreLocation::parse("/tmp/t.db").unwrap(),
            StoreLocation::File(PathBuf::from("/tmp/t.db"))
        );
        assert!(StoreLocation::parse(" ").is_err());
        assert!(SocketAddr::parse("not-an-address").is_err());
        let words = Words::from_toml(&toml::Value::Array(vec!["a".into(), "b".into()]));
        assert_eq!(words.unwrap(), Words::parse("a, b").unwrap());
    }

    fn again_seconds() {
        let written = Seconds(Duration::from_secs(20)).to_toml().unwrap();
        assert_eq!(
            Seconds::from_toml(&written).unwrap(),
            Seconds(Duration::from_secs(20))
        );
        let written = StoreLocation::Memory.to_toml().unwrap();
        assert_eq!(
            StoreLocation::from_toml(&written).unwrap(),
            StoreLocation::Memory
        );
    }

    #[test]
    fn credentials_are_masked_when_shown() {
        let redis = RedisUrl::parse("redis://u:pw-secret@127.0.0.1:6379/0").unwrap();
        let (shown, masked) = redis.shown();
        assert!(masked && !shown.unwrap().to_string().contains("pw-secret"));
        assert!(!format!("{redis:?} {redis}").contains("pw-secret"));
        let plain = RedisUrl::parse("redis://127.0.0.1:6379").unwrap();
        assert!(!plain.shown().1);
    }
}
