//! [`CrawlNotes`] on SQLite: the table `crawl_page_notes`, made on first use like the
//! other crawl tables (see `crawl.rs`), so a store that never crawls has none; and
//! `crawl_link_names`, each distinct link of a crawl once.
//!
//! A page's links are kept as numbers into `crawl_link_names`: a site's pages share most of
//! their links (its navigation, a section's sidebar), and kept whole, deflated, they were a
//! quarter of a crawl's store (17.9 MB of 73.8 MB on a 5,000-page documentation site).
//! Notes written before, as JSON, are read as they are.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::Mutex;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, params};

use super::batch::begin;

use super::SqliteStore;
use super::schema::once;
use crate::crawl_notes::{CrawlNotes, KeptLink, KeptLinks, PageNotes};
use crate::{Error, Result, link_lines};

/// A rowid table, not `WITHOUT ROWID`: a page's note can be 1 to 2 KB, more than an index
/// b-tree keeps in its page (about 1 KB at 4 KiB pages), and every such row spilled into an
/// overflow page mostly empty. Stores made before keep their table as it is.
pub(super) const NOTES_TABLE: &str = "
CREATE TABLE IF NOT EXISTS crawl_page_notes (
    crawl_id TEXT NOT NULL,
    key      TEXT NOT NULL,
    links    TEXT,
    change   TEXT,
    PRIMARY KEY (crawl_id, key)
);
CREATE TABLE IF NOT EXISTS crawl_link_names (
    id       INTEGER PRIMARY KEY,
    crawl_id TEXT NOT NULL,
    link     TEXT NOT NULL,
    UNIQUE (crawl_id, link)
);
";

/// The first byte of a links note kept by reference (a JSON note opens with `{`).
const BY_REFERENCE: u8 = 1;

/// Link names remembered per store: enough for a large site's every link, bounded so a
/// crawl of millions of distinct links does not keep them all in memory (the rest are
/// looked up in the table).
const MOST_REMEMBERED: usize = 200_000;

/// The ids of the current crawl's link names, as committed.
#[derive(Debug, Default)]
pub(super) struct LinkIds(Mutex<Remembered>);

/// Names are remembered by a 64-bit hash, not their text (a quarter of the memory: 15,000
/// names took 2 MB as strings). The hash is keyed at random per process, so a page cannot
/// choose links whose hashes collide; by chance, two of the [`MOST_REMEMBERED`] names
/// collide about once in a billion crawls.
#[derive(Debug, Default)]
struct Remembered {
    crawl: String,
    keys: RandomState,
    ids: HashMap<u64, i64>,
}

impl Remembered {
    /// The key of a link's name (`url`, a tab, `text`: [`name_of`]), hashed from its
    /// parts, so that a page's links are looked up without writing their names out.
    fn key_of(&self, url: &str, text: &str) -> u64 {
        let mut hasher = self.keys.build_hasher();
        hasher.write(url.as_bytes());
        hasher.write_u8(b'\t');
        hasher.write(text.as_bytes());
        hasher.finish()
    }

    /// The key of a name as stored (its URL up to the first tab; a URL has none).
    fn key(&self, name: &str) -> u64 {
        let (url, text) = name.split_once('\t').unwrap_or((name, ""));
        self.key_of(url, text)
    }
}

impl LinkIds {
    fn lock(&self) -> std::sync::MutexGuard<'_, Remembered> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets every id (a crawl's names were deleted, or a write of them rolled back).
    pub(super) fn forget(&self) {
        let mut r = self.lock();
        r.crawl.clear();
        r.ids.clear();
    }

    /// A guard that forgets every id when dropped without [`ForgetUnlessKept::keep`].
    pub(super) fn forget_unless_kept(&self) -> ForgetUnlessKept<'_> {
        ForgetUnlessKept(Some(self))
    }
}

/// See [`LinkIds::forget_unless_kept`].
pub(super) struct ForgetUnlessKept<'a>(Option<&'a LinkIds>);

impl ForgetUnlessKept<'_> {
    pub(super) fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for ForgetUnlessKept<'_> {
    fn drop(&mut self) {
        if let Some(ids) = self.0 {
            ids.forget();
        }
    }
}

/// `url\ttext`, the name a link is kept under.
fn name_of(url: &str, text: &str) -> String {
    let mut name = String::with_capacity(url.len() + text.len() + 1);
    name.push_str(url);
    name.push('\t');
    name.push_str(text);
    name
}

// LEB128 varints, written here: two short functions, where a crate would add a dependency
// for one note format.
fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

impl SqliteStore {
    /// The id of each name in `tx`, made where missing; those made are added to `made`, to
    /// be remembered once the transaction commits.
    fn link_id(
        &self,
        tx: &Connection,
        crawl: &str,
        name: String,
        made: &mut HashMap<String, i64>,
    ) -> Result<i64> {
        if let Some(&id) = made.get(&name) {
            return Ok(id);
        }
        let mut find =
            tx.prepare_cached("SELECT id FROM crawl_link_names WHERE crawl_id = ?1 AND link = ?2")?;
        let id = match find
            .query_row(params![crawl, name], |r| r.get(0))
            .optional()?
        {
            Some(id) => id,
            None => {
                tx.prepare_cached("INSERT INTO crawl_link_names (crawl_id, link) VALUES (?1, ?2)")?
                    .execute(params![crawl, name])?;
                tx.last_insert_rowid()
            }
        };
        made.insert(name, id);
        Ok(id)
    }

    /// A page's links as the numbers of their names.
    fn pack_links(
        &self,
        tx: &Connection,
        crawl: &str,
        links: &KeptLinks,
        made: &mut HashMap<String, i64>,
    ) -> Result<Vec<u8>> {
        // The canonical URL's name is it and an empty text.
        let canonical = links.canonical.as_deref().map(|url| (url, ""));
        let names = || {
            canonical.into_iter().chain(
                links
                    .links
                    .iter()
                    .map(|l| (l.url.as_str(), l.text.as_str())),
            )
        };
        // The ids this crawl committed, under one lock for the page (most of a page's
        // links are the site's, named before); the others are found or made in the table.
        let mut ids: Vec<Option<i64>> = {
            let r = self.link_ids.lock();
            let ours = r.crawl == crawl;
            names()
                .map(|(url, text)| match ours {
                    true => r.ids.get(&r.key_of(url, text)).copied(),
                    false => None,
                })
                .collect()
        };
        for ((url, text), id) in names().zip(&mut ids) {
            if id.is_none() {
                *id = Some(self.link_id(tx, crawl, name_of(url, text), made)?);
            }
        }
        let mut ids = ids.into_iter().flatten();
        let mut out = Vec::with_capacity(2 + links.links.len() * 2);
        out.push(BY_REFERENCE);
        let canonical = match canonical {
            Some(_) => ids.next().map_or(0, |id| id as u64 + 1),
            None => 0,
        };
        push_varint(&mut out, canonical);
        push_varint(&mut out, links.links.len() as u64);
        for id in ids {
            push_varint(&mut out, id as u64);
        }
        Ok(out)
    }

    /// Remembers the names a committed transaction made.
    fn remember(&self, crawl: &str, made: HashMap<String, i64>) {
        let mut r = self.link_ids.lock();
        if r.crawl != crawl || r.ids.len() + made.len() > MOST_REMEMBERED {
            r.ids.clear();
            r.crawl = crawl.to_owned();
        }
        let keyed: Vec<(u64, i64)> = made.iter().map(|(n, id)| (r.key(n), *id)).collect();
        r.ids.extend(keyed);
    }

    /// Whether the table can be read: it exists, or is made now (a read-only store that
    /// never kept notes has none, and answers no notes).
    fn notes_readable(&self, conn: &Connection) -> Result<bool> {
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Ok(conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'crawl_page_notes')",
                [],
                |row| row.get(0),
            )?);
        }
        once(&self.made.notes, conn, NOTES_TABLE)?;
        Ok(true)
    }
}

fn decode(text: Option<String>, what: &'static str) -> Result<Option<serde_json::Value>> {
    text.map(|t| serde_json::from_str(&t).map_err(|source| Error::Decode { what, source }))
        .transpose()
}

/// A links note as read: by reference, or JSON as written before.
enum RawLinks {
    None,
    Json(String),
    Numbers(Vec<u8>),
}

type Raw = (String, RawLinks, Option<String>);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Raw> {
    let links = match r.get_ref(1)? {
        ValueRef::Null => RawLinks::None,
        ValueRef::Blob(b) => RawLinks::Numbers(b.to_vec()),
        ValueRef::Text(t) => RawLinks::Json(String::from_utf8_lossy(t).into_owned()),
        _ => RawLinks::None,
    };
    Ok((r.get(0)?, links, r.get(2)?))
}

/// Reads notes, looking link names up (each once a call).
struct NoteReader<'c> {
    conn: &'c Connection,
    names: HashMap<i64, Option<KeptLink>>,
}

impl NoteReader<'_> {
    fn name(&mut self, id: i64) -> Result<Option<KeptLink>> {
        if let Some(known) = self.names.get(&id) {
            return Ok(known.clone());
        }
        let name: Option<String> = self
            .conn
            .prepare_cached("SELECT link FROM crawl_link_names WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        let link = name.and_then(|n| {
            let (url, text) = n.split_once('\t')?;
            Some(KeptLink {
                url: url.to_owned(),
                text: text.to_owned(),
            })
        });
        self.names.insert(id, link.clone());
        Ok(link)
    }

    /// The links of a note by reference; `None` when a name is missing (its links are then
    /// not known, and the page is fetched in full).
    fn links(&mut self, mut bytes: &[u8]) -> Result<Option<KeptLinks>> {
        let Some((&BY_REFERENCE, rest)) = bytes.split_first() else {
            return Ok(None);
        };
        bytes = rest;
        let (Some(canonical), Some(count)) = (read_varint(&mut bytes), read_varint(&mut bytes))
        else {
            return Ok(None);
        };
        let canonical = match canonical {
            0 => None,
            n => match self.name((n - 1) as i64)? {
                Some(link) => Some(link.url),
                None => return Ok(None),
            },
        };
        let mut links = Vec::with_capacity(count.min(4096) as usize);
        for _ in 0..count {
            let Some(id) = read_varint(&mut bytes) else {
                return Ok(None);
            };
            match self.name(id as i64)? {
                Some(link) => links.push(link),
                None => return Ok(None),
            }
        }
        Ok(Some(KeptLinks { canonical, links }))
    }

    fn notes(&mut self, (key, links, change): Raw) -> Result<PageNotes> {
        let links = match links {
            RawLinks::None => None,
            RawLinks::Json(text) => {
                decode(Some(text), "crawl page links")?.and_then(|v| link_lines::from_note(&v))
            }
            RawLinks::Numbers(bytes) => self.links(&bytes)?,
        };
        Ok(PageNotes {
            key,
            links,
            change: decode(change, "crawl page change")?,
        })
    }
}

impl CrawlNotes for SqliteStore {
    fn put_page_notes(&self, id: &str, notes: &[PageNotes]) -> Result<()> {
        if notes.is_empty() {
            return Ok(());
        }
        let mut conn = self.pool.write()?;
        once(&self.made.notes, &conn, NOTES_TABLE)?;
        let tx = begin(&mut conn)?;
        let mut made = HashMap::new();
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO crawl_page_notes (crawl_id, key, links, change) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(crawl_id, key) DO UPDATE SET
                     links = COALESCE(excluded.links, links),
                     change = COALESCE(excluded.change, change)",
            )?;
            for n in notes {
                let links = match &n.links {
                    Some(links) => Some(self.pack_links(&tx, id, links, &mut made)?),
                    None => None,
                };
                stmt.execute(params![
                    id,
                    n.key,
                    links,
                    n.change.as_ref().map(|v| v.to_string()),
                ])?;
            }
        }
        tx.commit()?;
        self.remember(id, made);
        Ok(())
    }

    fn page_notes(&self, id: &str, keys: &[String]) -> Result<Vec<PageNotes>> {
        let conn = self.pool.get()?;
        if !self.notes_readable(&conn)? {
            return Ok(Vec::new());
        }
        if keys.is_empty() {
            let mut stmt = conn.prepare(
                "SELECT key, links, change FROM crawl_page_notes WHERE crawl_id = ?1 ORDER BY key",
            )?;
            let rows: Vec<Raw> = stmt
                .query_map([id], row)?
                .collect::<rusqlite::Result<_>>()?;
            let mut reader = NoteReader {
                conn: &conn,
                names: HashMap::new(),
            };
            return rows.into_iter().map(|r| reader.notes(r)).collect();
        }
        let mut stmt = conn.prepare_cached(
            "SELECT key, links, change FROM crawl_page_notes WHERE crawl_id = ?1 AND key = ?2",
        )?;
        let mut raws = Vec::new();
        for key in keys {
            if let Some(raw) = stmt.query_row(params![id, key], row).optional()? {
                raws.push(raw);
            }
        }
        let mut reader = NoteReader {
            conn: &conn,
            names: HashMap::new(),
        };
        raws.into_iter().map(|r| reader.notes(r)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Remembered, name_of};
    use crate::{KeptLink, KeptLinks, PageNotes, SqliteStore, Store, StoreConfig};

    fn links(paths: &[&str]) -> KeptLinks {
        KeptLinks {
            canonical: Some("https://example.com/self".into()),
            links: paths
                .iter()
                .map(|p| KeptLink {
                    url: format!("https://example.com/{p}"),
                    text: format!("To {p}"),
                })
                .collect(),
        }
    }

    fn note(key: &str, links: KeptLinks) -> PageNotes {
        PageNotes {
            key: key.into(),
            links: Some(links),
            change: None,
        }
    }

    /// Links shared by pages are kept once, read back in order, and a note written as JSON
    /// by an earlier build still reads.
    #[test]
    fn links_are_kept_once_a_crawl_and_older_notes_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        let c = store.crawl_state().unwrap();
        let nav = ["a", "b", "c", "d"];
        let second = links(&["d", "x", "a"]);
        c.put_page_notes("c1", &[note("k1", links(&nav))]).unwrap();
        // In a batch too, as a crawl writes them.
        let results = store.batch(vec![Box::new(|| {
            store
                .crawl_state()
                .unwrap()
                .put_page_notes("c1", &[note("k2", second.clone())])
        })]);
        assert!(results.iter().all(Result::is_ok));
        c.put_page_notes("c2", &[note("k1", links(&nav))]).unwrap();

        let conn = rusqlite::Connection::open(&path).unwrap();
        let names = |crawl: &str| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM crawl_link_names WHERE crawl_id = ?1",
                [crawl],
                |r| r.get(0),
            )
            .unwrap()
        };
        // Five links and the canonical URL, each once, however many pages name them.
        assert_eq!(names("c1"), 6);
        assert_eq!(names("c2"), 5);
        let got = c.page_notes("c1", &[]).unwrap();
        assert_eq!(got, [note("k1", links(&nav)), note("k2", second.clone())]);
        assert_eq!(
            c.page_notes("c1", &["k2".into()]).unwrap(),
            [note("k2", second)]
        );

        // A note as the build before this one wrote it: deflated lines in JSON.
        let old = crate::link_lines::to_note(&links(&["old"]));
        conn.execute(
            "INSERT INTO crawl_page_notes (crawl_id, key, links) VALUES ('c3', 'k', ?1)",
            [old.to_string()],
        )
        .unwrap();
        assert_eq!(
            c.page_notes("c3", &[]).unwrap(),
            [note("k", links(&["old"]))]
        );

        // Deleting a crawl takes its names, and the ids remembered go with them.
        assert!(!c.delete_crawl("c1").unwrap());
        assert_eq!(names("c1"), 0);
        c.put_page_notes("c1", &[note("k9", links(&["a"]))])
            .unwrap();
        assert_eq!(
            c.page_notes("c1", &[]).unwrap(),
            [note("k9", links(&["a"]))]
        );
    }

    /// A page's links are looked up by the key of their parts; the ids a transaction made
    /// are remembered by the key of their whole names. The two must agree, or every link
    /// would be looked up in the table again.
    #[test]
    fn a_name_and_its_parts_have_one_key() {
        let r = Remembered::default();
        for (url, text) in [
            ("https://example.com/a", "A page"),
            ("https://example.com/", ""),
            ("https://example.com/b?q=1", "two words and more"),
        ] {
            assert_eq!(r.key(&name_of(url, text)), r.key_of(url, text), "{url}");
        }
        assert_ne!(
            r.key_of("https://example.com/a", "b"),
            r.key_of("https://example.com/ab", "")
        );
    }
}
