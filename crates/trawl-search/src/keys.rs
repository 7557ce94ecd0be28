//! API-key state: which keys may be used now. Kept behind [`KeyStateStore`] so the store
//! crate can persist it (and share it between replicas); [`InMemoryKeyStore`] is the
//! default. Keys are identified by a hash, never stored.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// After a 429 without `Retry-After`.
pub const RATE_LIMIT_COOLDOWN: Duration = Duration::from_secs(15 * 60);
/// After a 402 or a quota message.
pub const QUOTA_COOLDOWN: Duration = Duration::from_secs(24 * 60 * 60);
/// Consecutive auth failures that mark a key invalid.
pub const AUTH_FAILURES_TO_INVALID: u32 = 3;

/// The state of one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum KeyStatus {
    /// Usable.
    #[default]
    Ok,
    /// Rate limited until `until`.
    Cooldown,
    /// Out of quota or credits until `until`.
    QuotaExhausted,
    /// Refused too many times in a row; not used again until reconfigured.
    Invalid,
}

/// One key's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct KeyState {
    /// Current status.
    pub status: KeyStatus,
    /// When a cooldown or quota state ends.
    pub until: Option<SystemTime>,
    /// Auth failures in a row.
    pub auth_failures: u32,
}

impl KeyState {
    /// Whether the key may be used at `now` (cooldowns expire by themselves).
    pub fn usable(&self, now: SystemTime) -> bool {
        match self.status {
            KeyStatus::Ok => true,
            KeyStatus::Invalid => false,
            KeyStatus::Cooldown | KeyStatus::QuotaExhausted => self.until.is_none_or(|u| now >= u),
        }
    }

    /// A successful call resets the auth-failure count and any expired state.
    pub fn succeeded(&mut self) {
        *self = Self::default();
    }

    /// A 429: cool down for `retry_after`, or 15 minutes when the engine did not say.
    pub fn rate_limited(&mut self, now: SystemTime, retry_after: Option<Duration>) {
        self.status = KeyStatus::Cooldown;
        self.until = Some(now + retry_after.unwrap_or(RATE_LIMIT_COOLDOWN));
    }

    /// A 402 or quota message: 24 hours.
    pub fn quota_exhausted(&mut self, now: SystemTime) {
        self.status = KeyStatus::QuotaExhausted;
        self.until = Some(now + QUOTA_COOLDOWN);
    }

    /// A 401/403: invalid after three in a row.
    pub fn auth_failed(&mut self) {
        self.auth_failures += 1;
        if self.auth_failures >= AUTH_FAILURES_TO_INVALID {
            self.status = KeyStatus::Invalid;
            self.until = None;
        }
    }
}

/// Where key states live. Implementations must be cheap to call from async code.
pub trait KeyStateStore: Send + Sync + std::fmt::Debug {
    /// The state of `key_id` for `engine` (default state when unknown).
    fn load(&self, engine: &str, key_id: &str) -> KeyState;
    /// Save the state of `key_id` for `engine`.
    fn save(&self, engine: &str, key_id: &str, state: KeyState);
}

/// Key states in process memory.
#[derive(Debug, Default)]
pub struct InMemoryKeyStore {
    states: Mutex<HashMap<(String, String), KeyState>>,
}

impl KeyStateStore for InMemoryKeyStore {
    fn load(&self, engine: &str, key_id: &str) -> KeyState {
        self.states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(engine.to_owned(), key_id.to_owned()))
            .copied()
            .unwrap_or_default()
    }

    fn save(&self, engine: &str, key_id: &str, state: KeyState) {
        self.states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((engine.to_owned(), key_id.to_owned()), state);
    }
}

/// A stable id for a provider key, safe to store and log: the first 16 hex digits of
/// SHA-256 over `"trawl key fingerprint\0" + engine + "\0" + key`. The same formula as
/// `trawl_store::key_fingerprint`, so a store-backed [`KeyStateStore`] can use it as is.
pub fn key_id(engine: &str, key: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"trawl key fingerprint\0");
    h.update(engine.as_bytes());
    h.update(b"\0");
    h.update(key.as_bytes());
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_transitions() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let mut s = KeyState::default();
        s.rate_limited(now, Some(Duration::from_secs(30)));
        assert!(!s.usable(now));
        assert!(s.usable(now + Duration::from_secs(30)));
        s.rate_limited(now, None);
        assert!(!s.usable(now + Duration::from_secs(14 * 60)));
        assert!(s.usable(now + RATE_LIMIT_COOLDOWN));
        s.quota_exhausted(now);
        assert!(!s.usable(now + Duration::from_secs(23 * 3600)));
        let mut a = KeyState::default();
        a.auth_failed();
        a.auth_failed();
        assert!(a.usable(now));
        a.auth_failed();
        assert_eq!(a.status, KeyStatus::Invalid);
        assert!(!a.usable(now + QUOTA_COOLDOWN * 10));
    }

    #[test]
    fn key_ids_hide_keys() {
        let id = key_id("exa", "sk-secret");
        assert_eq!(id, "4169accd427c4134");
        assert_ne!(id, key_id("tavily", "sk-secret"));
        assert!(!id.contains("secret"));
        let store = InMemoryKeyStore::default();
        let mut s = KeyState::default();
        s.auth_failed();
        store.save("exa", &id, s);
        assert_eq!(store.load("exa", &id).auth_failures, 1);
        assert_eq!(store.load("exa", "other"), KeyState::default());
    }
}
