//! `map` through the store: a site's map is kept like a read, so asking again within the
//! TTL answers from the store without a request, and `fresh` maps again.
//!
//! Kept in the store's answer cache (the one searches use: a JSON value under a normalized
//! request key, with its own expiry), not as a document: a map is a list of URLs, not page
//! text, so it has no passages to find, no handle to open, and must not count against the
//! documents' size bound. Both backends keep that cache already, so nothing new is stored.
//! The TTL is the caller's (the CLI and the server pass the read TTL, `document_ttl`).

use std::time::{Duration, SystemTime};

use trawl_core::{TrawlError, canonical_url};
use trawl_fetch::Fetcher;
use trawl_store::SharedStore;

use crate::journal::store_error;
use crate::map::{MapOptions, SiteMap, map_site};

/// What the key of a kept map starts with (bumped when [`SiteMap`] changes shape, or a
/// search's answer does: v2 stems its words and answers nothing when nothing matched).
const KEY_PREFIX: &str = "map:v2:";

/// How [`map_site_kept`] uses the store.
#[derive(Debug, Clone, Copy)]
pub struct MapKeeping {
    /// How long a map answers from the store (zero: until the cache is cleared).
    pub ttl: Duration,
    /// Map again even when the store holds a fresh map (the new one replaces it).
    pub fresh: bool,
}

/// The store key of a map: the start URL in canonical form and every option that changes
/// the answer.
fn key_of(start: &url::Url, options: &MapOptions) -> String {
    let key = serde_json::json!({
        "start": canonical_url(start).as_str(),
        "search": options.search.as_deref().map(|s| s.trim().to_lowercase()),
        "limit": options.limit,
        "include": options.include,
        "exclude": options.exclude,
        "subdomains": options.subdomains,
        "allow_ports": options.allow_ports,
        "section_only": options.section_only,
        "sitemap": options.sitemap,
    });
    format!("{KEY_PREFIX}{key}")
}

/// A map worth keeping: it found something and robots.txt answered (an unreachable
/// robots.txt or a site that answered nothing may be a passing outage).
fn worth_keeping(map: &SiteMap) -> bool {
    !map.urls.is_empty() && !map.robots.starts_with("unreachable")
}

/// [`map_site`], answered from `store` when it holds a map of the same request younger than
/// `keeping.ttl` (then `from_store` is set, `age_s` says how old it is and no request is
/// sent); otherwise mapped and kept. The start URL is checked by the guard either way, so
/// a policy that now refuses it is not answered from the store.
pub async fn map_site_kept(
    fetcher: &Fetcher,
    store: &SharedStore,
    options: &MapOptions,
    keeping: MapKeeping,
) -> Result<SiteMap, TrawlError> {
    crate::map::check_limit(options)?;
    let start = fetcher.guard().check_raw(&options.url, None)?;
    let key = key_of(&start, options);
    if !keeping.fresh {
        let k = key.clone();
        // A store that cannot answer is not a reason to fail the map: it is made instead.
        if let Ok(Some(hit)) = store.run(move |s| s.get_search(&k)).await
            && let Ok(mut map) = serde_json::from_value::<SiteMap>(hit.value)
        {
            map.from_store = true;
            map.requests = 0;
            map.age_s = Some(
                SystemTime::now()
                    .duration_since(hit.stored_at)
                    .unwrap_or_default()
                    .as_secs(),
            );
            return Ok(map);
        }
    }
    let mut map = map_site(fetcher, options).await?;
    if worth_keeping(&map) {
        let value = serde_json::to_value(&map)
            .map_err(|e| TrawlError::internal(format!("map: serializing: {e}")))?;
        let ttl = keeping.ttl;
        // As a read does, the answer stands when the store cannot keep it; it says so.
        if let Err(e) = store
            .run(move |s| s.put_search(&key, &value, Some(ttl)))
            .await
        {
            map.notes
                .push(format!("not kept in the store: {}", store_error(e).message));
        }
    }
    Ok(map)
}
