//! A document's JSON as SQLite keeps it (`documents.body`, `document_versions.body`):
//! compressed with zstd into a BLOB. Markdown and its JSON compress about four to one, and
//! the documents were most of a crawl's store. Rows written before as TEXT are read as
//! they are, so a store needs no rewrite.

use std::sync::Mutex;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};

/// zstd's level: 1. A document's JSON is a few to a few tens of KB, where level 3 (zstd's
/// default, its "double fast" match finder, 5 % of a crawl's CPU) packed the bench site's
/// documents only 0.3 % smaller than level 1's fast one, which runs 11 % fewer instructions
/// and touches smaller tables; higher levels gain a few percent for several times the time.
/// Either reads back the same.
const LEVEL: i32 = 1;

/// One compressor for the process: a new zstd context a document allocated its tables and
/// probed the CPU each time (1 % of a crawl's CPU), and one a thread kept a context on every
/// thread that ever wrote (8 MB more at a crawl's peak). Writes take the store's one writer
/// turn anyway, so they seldom wait for it.
static PACKER: Mutex<Option<zstd::bulk::Compressor<'static>>> = Mutex::new(None);

/// A document's JSON, written into a buffer sized for it once: grown from empty, it was
/// copied as it doubled (a crawl writes one a page).
pub(super) fn document_json(document: &trawl_core::Document) -> serde_json::Result<String> {
    let mut json = Vec::with_capacity(document.markdown.len() + document.text.len() + 1024);
    serde_json::to_writer(&mut json, document)?;
    // serde_json writes UTF-8 only; checked all the same, as `to_string` is not.
    String::from_utf8(json).map_err(|e| serde_json::Error::io(std::io::Error::other(e)))
}

/// The JSON, compressed.
pub(super) fn pack(json: &str) -> Vec<u8> {
    let mut packer = PACKER.lock().unwrap_or_else(|p| p.into_inner());
    if packer.is_none() {
        *packer = zstd::bulk::Compressor::new(LEVEL).ok();
    }
    // Compressing from memory into memory cannot fail but on allocation.
    packer
        .as_mut()
        .and_then(|p| p.compress(json.as_bytes()).ok())
        .unwrap_or_else(|| json.as_bytes().to_vec())
}

/// A body read back: the JSON text, from a compressed BLOB or a TEXT of an older row.
pub(super) struct StoredBody(pub(super) String);

impl FromSql for StoredBody {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let bytes = match value {
            ValueRef::Text(text) => return Ok(StoredBody(utf8(text.to_vec())?)),
            ValueRef::Blob(blob) => blob,
            _ => return Err(FromSqlError::InvalidType),
        };
        // `pack` falls back to the plain bytes if compression failed: a zstd frame opens
        // with its magic number.
        if !bytes.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            return Ok(StoredBody(utf8(bytes.to_vec())?));
        }
        let json = zstd::stream::decode_all(bytes).map_err(|e| FromSqlError::Other(e.into()))?;
        Ok(StoredBody(utf8(json)?))
    }
}

fn utf8(bytes: Vec<u8>) -> FromSqlResult<String> {
    String::from_utf8(bytes).map_err(|e| FromSqlError::Other(e.into()))
}
