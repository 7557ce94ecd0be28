//! Provider key health kept in the store, so a key that hit its quota in one process is
//! not retried by the next one for the rest of its cooldown.

use trawl_search::{KeyState, KeyStateStore};
use trawl_store::SharedStore;

use trawl_text::cpu::blocking_in_place;

/// [`KeyStateStore`] over the store. Calls are short single-row SQLite reads and writes
/// that the router makes synchronously once per engine call; they run through
/// [`blocking_in_place`] so the async worker they happen on hands its other tasks off first.
#[derive(Debug, Clone)]
pub struct StoredKeyStates(pub SharedStore);

impl KeyStateStore for StoredKeyStates {
    fn load(&self, engine: &str, key_id: &str) -> KeyState {
        blocking_in_place(|| self.0.store().get_key_state(engine, key_id))
            .ok()
            .flatten()
            .and_then(|k| serde_json::from_value(k.state).ok())
            .unwrap_or_default()
    }

    fn save(&self, engine: &str, key_id: &str, state: KeyState) {
        if let Ok(value) = serde_json::to_value(state) {
            // Losing one health update only costs a retry later; never fail the search.
            let _ = blocking_in_place(|| self.0.store().put_key_state(engine, key_id, &value));
        }
    }
}
