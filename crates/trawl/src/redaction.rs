//! What this run must never show, gathered once from the settings: every configured key
//! and token, and the credentials inside configured URLs (the Redis URL, the proxy, base-URL
//! overrides). Faces that print text they did not build field by field (the request log,
//! `/metrics`, MCP error results) pass it through this [`Scrubber`]; everything else builds
//! its text from [`trawl_core::SafeUrl`] and masked values in the first place.

use trawl_core::redact::url_secrets;
use trawl_core::{Scrubber, vars};

use crate::settings::Settings;

/// The proxy's credentials: every request through it carries them (`Proxy-Authorization`),
/// so whatever echoes a request may show them.
pub fn proxy_secrets(settings: &Settings) -> Vec<String> {
    settings
        .proxy
        .value
        .as_deref()
        .map(url_secrets)
        .unwrap_or_default()
}

/// The values of `settings` that no output may hold, in all their spellings.
pub fn known_secrets(settings: &Settings) -> Scrubber {
    let mut values: Vec<String> = Vec::new();
    for name in vars::secrets() {
        if let Some(value) = settings.secret(name) {
            values.push(value.to_owned());
            // A secret that is itself a URL (the Redis one) hides its password too.
            values.extend(url_secrets(value));
        }
    }
    values.extend(proxy_secrets(settings));
    for setting in settings.url_overrides.values() {
        values.extend(url_secrets(&setting.value));
    }
    Scrubber::new(values)
}
