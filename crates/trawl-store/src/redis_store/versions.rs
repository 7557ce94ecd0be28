//! [`VersionStore`] on Redis: one hash per handle, `P ver:{handle}`, whose field `last`
//! is the last number given and whose field `N` is older copy N as JSON. Its expiry is
//! moved with each kept copy to that of a document read now, and it is deleted with its
//! document (the delete script, and so eviction and prune) and by clearing documents.

use std::collections::HashMap;
use std::sync::LazyLock;

use redis::{Commands, Script};
use serde::{Deserialize, Serialize};

use super::RedisStore;
use crate::versions::{MAX_VERSIONS, VersionInfo, VersionStore};
use crate::{DocumentRecord, Error, Result, from_millis, to_millis};

/// Keeps one copy: ARGV = prefix, handle, copy JSON, copies kept, ttl ms (empty: none).
/// One script, so a copy never lands without its number (or the reverse). Copies are
/// added one at a time, so dropping the one that fell out of the window is enough.
static PUT_VERSION: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local k = ARGV[1] .. 'ver:' .. ARGV[2]
local n = redis.call('HINCRBY', k, 'last', 1)
redis.call('HSET', k, tostring(n), ARGV[3])
local old = n - tonumber(ARGV[4])
if old >= 1 then redis.call('HDEL', k, tostring(old)) end
if ARGV[5] ~= '' then redis.call('PEXPIRE', k, ARGV[5]) else redis.call('PERSIST', k) end
return n
"#,
    )
});

/// An older copy as kept in `P ver:{handle}`.
#[derive(Serialize, Deserialize)]
struct StoredVersion {
    body: String,
    content_hash: String,
    fetched_at: i64,
    etag: Option<String>,
    last_modified: Option<String>,
}

impl StoredVersion {
    fn decode(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|source| Error::Decode {
            what: "document version",
            source,
        })
    }
}

impl VersionStore for RedisStore {
    fn put_version(&self, record: &DocumentRecord) -> Result<u32> {
        let stored = StoredVersion {
            body: serde_json::to_string(&record.document).map_err(|e| Error::Backend(e.into()))?,
            content_hash: record.content_hash.clone(),
            fetched_at: to_millis(record.fetched_at),
            etag: record.etag.clone(),
            last_modified: record.last_modified.clone(),
        };
        let json = serde_json::to_string(&stored).map_err(|e| Error::Backend(e.into()))?;
        // As long as the document read now, which replaces the copy kept here, is kept.
        let ttl = self
            .document_ttl_ms(crate::expiry(self.now(), self.config.document_ttl))
            .map(|t| t.to_string())
            .unwrap_or_default();
        let n: i64 = self.with_conn(|conn| {
            Ok(PUT_VERSION
                .arg(&self.prefix)
                .arg(record.handle())
                .arg(&json)
                .arg(MAX_VERSIONS)
                .arg(&ttl)
                .invoke(conn)?)
        })?;
        u32::try_from(n).map_err(|e| Error::Backend(e.into()))
    }

    fn get_version(&self, handle: &str, version: u32) -> Result<Option<DocumentRecord>> {
        let key = self.key(&format!("ver:{handle}"));
        let text: Option<String> =
            self.with_conn(|conn| Ok(conn.hget(&key, version.to_string())?))?;
        let Some(text) = text else { return Ok(None) };
        let stored = StoredVersion::decode(&text)?;
        let document = serde_json::from_str(&stored.body).map_err(|source| Error::Decode {
            what: "document",
            source,
        })?;
        Ok(Some(DocumentRecord {
            document,
            content_hash: stored.content_hash,
            fetched_at: from_millis(stored.fetched_at),
            // An older copy is never fresh: it is history, not a cache.
            expires_at: Some(from_millis(stored.fetched_at)),
            etag: stored.etag,
            last_modified: stored.last_modified,
        }))
    }

    fn list_versions(&self, handle: &str) -> Result<Vec<VersionInfo>> {
        let key = self.key(&format!("ver:{handle}"));
        let fields: HashMap<String, String> = self.with_conn(|conn| Ok(conn.hgetall(&key)?))?;
        let mut versions = Vec::new();
        for (field, text) in &fields {
            let Ok(version) = field.parse::<u32>() else {
                continue;
            };
            let stored = StoredVersion::decode(text)?;
            versions.push(VersionInfo {
                version,
                fetched_at: from_millis(stored.fetched_at),
                content_hash: stored.content_hash,
            });
        }
        versions.sort_by_key(|v| v.version);
        Ok(versions)
    }
}
