//! Passages in SQLite, by reference (schema version 4): a passage that is exactly a slice
//! of its document's Markdown is stored as that slice's byte range, not as a copy, and the
//! contentless FTS5 index holds only its terms. A find reads the text of the passages it
//! returns, and only theirs, from their documents.

use std::collections::HashMap;
use std::ops::Range;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Deserialize;

use super::body::StoredBody;

use crate::{Passage, PassageHit, Result};

/// Writes one passage's row of the full-text index.
const INDEX_ROW: &str = "INSERT INTO passages_fts(rowid, heading, body) VALUES (?1, ?2, ?3)";

/// The first and the last id of the passages of the document `handle`, as its row names
/// them (schema 7; a document's passages are written together, so their ids are one run):
/// `None` when it has none or is not stored.
pub(super) fn run_of(conn: &Connection, handle: &str) -> Result<Option<(i64, i64)>> {
    let run: Option<(Option<i64>, Option<i64>)> = conn
        .prepare_cached("SELECT passages_from, passages_to FROM documents WHERE handle = ?1")?
        .query_row([handle], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(run.and_then(|(from, to)| from.zip(to)))
}

/// Deletes the passages of the document `handle` (their index rows go by trigger): its run
/// of ids, each row checked against the handle, so a run that ever spanned another
/// document's passages could not take them. Called before the document's row is replaced
/// or deleted, while it still names the run; a document not stored before deletes nothing.
pub(super) fn delete_passages(conn: &Connection, handle: &str) -> Result<()> {
    match run_of(conn, handle)? {
        Some(run) => delete_run(conn, handle, run),
        None => Ok(()),
    }
}

/// Deletes the run `(from, to)` of the document `handle`'s passages, as its row names it
/// (see [`delete_passages`]), for a caller that read the row already.
pub(super) fn delete_run(conn: &Connection, handle: &str, (from, to): (i64, i64)) -> Result<()> {
    conn.prepare_cached(DELETE_RUN)?
        .execute(params![handle, from, to])?;
    Ok(())
}

/// See [`delete_passages`].
const DELETE_RUN: &str = "DELETE FROM passages WHERE id BETWEEN ?2 AND ?3 AND handle = ?1";

/// The passages [`insert_passages`] wrote: the run of their ids, for the document's row,
/// and their index rows when deferred.
#[derive(Debug, Default)]
pub(super) struct Written {
    /// The first and the last id (`None`: no passages).
    pub(super) ids: Option<(i64, i64)>,
    pub(super) deferred: Vec<DeferredIndexRow>,
}

/// A passage's index row, held until its batch ends (see [`insert_passages`]).
#[derive(Debug)]
pub(super) struct DeferredIndexRow {
    rowid: i64,
    heading: String,
    text: String,
}

/// Writes `passages` of the document `handle` whose Markdown is `markdown`, and indexes
/// them. The caller deleted the document's earlier passages (their index rows go with
/// them, by trigger) in the same transaction, and writes the run of ids returned into the
/// document's row.
///
/// Inside a batch (`defer`), the index rows are returned instead, for
/// [`index_deferred`] once the batch's jobs are done: FTS5 writes its pending terms out
/// as a new segment whenever a savepoint opens or ends, and every job of a batch is a
/// savepoint, so indexing each page in its job made a segment a page, each merged again
/// and again as the index grew.
pub(super) fn insert_passages(
    conn: &Connection,
    handle: &str,
    markdown: &str,
    passages: &[Passage],
    defer: bool,
) -> Result<Written> {
    let mut written = Written::default();
    let mut insert = conn.prepare_cached(
        "INSERT INTO passages (handle, page, ord, heading, body, start, len)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut index = conn.prepare_cached(INDEX_ROW)?;
    for (ord, passage) in passages.iter().enumerate() {
        // Kept by reference only when the range gives back exactly the text.
        let range = passage
            .range
            .clone()
            .filter(|r| markdown.get(r.clone()) == Some(passage.text.as_str()));
        let (body, start, len) = match &range {
            Some(r) => ("", Some(r.start as i64), Some(r.len() as i64)),
            None => (passage.text.as_str(), None, None),
        };
        insert.execute(params![
            handle,
            passage.page,
            ord as i64,
            passage.heading,
            body,
            start,
            len
        ])?;
        let rowid = conn.last_insert_rowid();
        let first = written.ids.map_or(rowid, |(first, _)| first);
        written.ids = Some((first, rowid));
        if defer {
            written.deferred.push(DeferredIndexRow {
                rowid,
                heading: passage.heading.clone(),
                text: passage.text.clone(),
            });
        } else {
            index.execute(params![rowid, passage.heading, passage.text])?;
        }
    }
    Ok(written)
}

/// Indexes the rows a batch's jobs deferred, in the batch's transaction and outside any
/// savepoint (so FTS5 writes them as one segment at the commit). A row counts only as its
/// passage is now: a rowid written twice (a document put again, or a freed rowid taken by
/// another passage) is indexed from its last write, and a passage deleted since (its
/// trigger found no index row to delete) is not indexed. Rows of a job that failed were
/// dropped when its savepoint rolled back.
pub(super) fn index_deferred(conn: &Connection, rows: Vec<DeferredIndexRow>) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut last_write = std::collections::HashSet::with_capacity(rows.len());
    let latest: Vec<bool> = rows
        .iter()
        .rev()
        .map(|r| last_write.insert(r.rowid))
        .collect();
    let mut exists = conn.prepare_cached("SELECT 1 FROM passages WHERE id = ?1")?;
    let mut index = conn.prepare_cached(INDEX_ROW)?;
    for (row, latest) in rows.iter().zip(latest.into_iter().rev()) {
        if latest && exists.exists([row.rowid])? {
            index.execute(params![row.rowid, row.heading, row.text])?;
        }
    }
    Ok(())
}

/// The one field of a stored document a find needs (serde skips the rest unparsed).
#[derive(Deserialize)]
struct MarkdownOnly {
    markdown: String,
}

/// Fills in the text of the hits stored by reference, reading each document's Markdown
/// once. A range its document no longer holds (it cannot happen while passages are
/// replaced with their document) drops the hit rather than answer with wrong text.
pub(super) fn passage_texts(
    conn: &Connection,
    hits: Vec<(PassageHit, Option<Range<usize>>)>,
) -> Result<Vec<PassageHit>> {
    let mut markdowns: HashMap<String, Option<String>> = HashMap::new();
    let mut stmt = conn.prepare_cached("SELECT body FROM documents WHERE handle = ?1")?;
    let mut out = Vec::with_capacity(hits.len());
    for (mut hit, range) in hits {
        let Some(range) = range else {
            out.push(hit);
            continue;
        };
        if !markdowns.contains_key(&hit.handle) {
            let body: Option<StoredBody> =
                stmt.query_row([&hit.handle], |row| row.get(0)).optional()?;
            let markdown = body.and_then(|b| {
                serde_json::from_str::<MarkdownOnly>(&b.0)
                    .ok()
                    .map(|m| m.markdown)
            });
            markdowns.insert(hit.handle.clone(), markdown);
        }
        let text = markdowns
            .get(&hit.handle)
            .and_then(Option::as_deref)
            .and_then(|m| m.get(range));
        if let Some(text) = text {
            hit.text = text.to_owned();
            out.push(hit);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use trawl_core::Document;

    use super::super::query_plan;
    use super::super::schema::MIGRATIONS;
    use crate::{DocumentRecord, FindScope, Passage, SqliteStore, Store, StoreConfig};

    fn record(handle_n: u32, markdown: &str) -> DocumentRecord {
        let url = format!("https://example.com/{handle_n}");
        let doc = Document {
            handle: format!("example.com~{handle_n:012}"),
            url: url.clone(),
            final_url: url,
            markdown: markdown.to_owned(),
            ..Document::default()
        };
        DocumentRecord::new(doc, SystemTime::now())
    }

    /// A passage that is a slice of its Markdown is kept as its range (no copy in `body`),
    /// one that is not keeps its text, and find answers both with their text.
    #[test]
    fn passages_are_kept_by_reference_and_found_with_their_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        let markdown = "# Tides\n\nThe kelp forest grows by the breakwater.\n\nOther words.\n";
        let start = markdown.find("The kelp").unwrap();
        let text = "The kelp forest grows by the breakwater.";
        let passages = [
            Passage {
                page: 1,
                heading: "Tides".into(),
                text: text.into(),
                range: Some(start..start + text.len()),
            },
            Passage {
                page: 1,
                heading: "Tides".into(),
                text: "A kelp summary that is not in the text.".into(),
                // A range that does not give back the text is not trusted.
                range: Some(0..5),
            },
        ];
        store.put_document(&record(1, markdown), &passages).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let bodies: Vec<(String, Option<i64>)> = conn
            .prepare("SELECT body, start FROM passages ORDER BY ord")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            bodies,
            [
                (String::new(), Some(start as i64)),
                ("A kelp summary that is not in the text.".to_owned(), None)
            ]
        );
        let mut found: Vec<String> = store
            .find("kelp", FindScope::All, 10)
            .unwrap()
            .into_iter()
            .map(|h| h.text)
            .collect();
        found.sort();
        assert_eq!(found, [passages[1].text.clone(), text.to_owned()]);
        // Replacing the document replaces its index rows: the old words are gone.
        store
            .put_document(&record(1, "# Tides\n\nNothing here.\n"), &[])
            .unwrap();
        assert!(store.find("kelp", FindScope::All, 10).unwrap().is_empty());
        assert!(store.integrity_check().unwrap().is_empty());
    }

    /// A batch indexes its jobs' passages at its end, as one segment, and as they then are:
    /// a document put twice is found by its second text, a failed job's and a deleted
    /// document's passages are not found, a freed rowid taken by another passage is found
    /// by that one's words, and a document indexed before the batch and deleted in it goes.
    #[test]
    fn a_batch_indexes_its_passages_at_its_end_as_they_then_are() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        let put = |n: u32, word: &str| {
            let markdown = format!("# {word}\n\nA {word} by the shore.\n");
            let passage = passage(word, &format!("A {word} by the shore."));
            store.put_document(&record(n, &markdown), &[passage])
        };
        put(9, "walrus").unwrap();
        let segments = || -> i64 {
            rusqlite::Connection::open(&path)
                .unwrap()
                .query_row(
                    "SELECT count(DISTINCT segid) FROM passages_fts_idx",
                    [],
                    |r| r.get(0),
                )
                .unwrap()
        };
        assert_eq!(segments(), 1);
        let handle = |n: u32| format!("example.com~{n:012}");
        let s = &store;
        let jobs: Vec<crate::BatchJob<'_>> = vec![
            Box::new(|| put(1, "kelp")),
            Box::new(|| put(1, "otter")),
            Box::new(|| {
                put(2, "heron")?;
                Err(crate::Error::Backend("this job fails".into()))
            }),
            Box::new(|| put(3, "seal")),
            Box::new(|| s.delete_document(&handle(3)).map(drop)),
            Box::new(|| put(4, "crab")),
            Box::new(|| s.delete_document(&handle(9)).map(drop)),
            Box::new(|| put(5, "gull")),
        ];
        let results = store.batch(jobs);
        assert!(results[2].is_err(), "{results:?}");
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 7);
        let found = |word: &str| -> Vec<String> {
            store
                .find(word, FindScope::All, 10)
                .unwrap()
                .into_iter()
                .map(|h| format!("{} {}", h.handle, h.text))
                .collect()
        };
        for gone in ["kelp", "heron", "seal", "walrus"] {
            assert_eq!(found(gone), Vec::<String>::new(), "{gone}");
        }
        for (n, word) in [(1, "otter"), (4, "crab"), (5, "gull")] {
            assert_eq!(
                found(word),
                [format!("{} A {word} by the shore.", handle(n))]
            );
        }
        // The batch's rows went in as one more segment, not one a job.
        assert_eq!(segments(), 2);
        assert!(store.integrity_check().unwrap().is_empty());
    }

    /// A version-3 store (passages copied, external-content index) opens as version 4 and
    /// its passages are still found, with their text.
    #[test]
    fn a_version_3_store_keeps_its_passages_findable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            for migration in &MIGRATIONS[..3] {
                conn.execute_batch(migration).unwrap();
            }
            conn.pragma_update(None, "user_version", 3).unwrap();
            let body = serde_json::to_string(&record(7, "# Old\n\nA narwhal.\n").document).unwrap();
            conn.execute(
                "INSERT INTO documents (handle, url, final_url, content_hash, fetched_at,
                     size_bytes, body)
                 VALUES ('example.com~000000000007', 'https://example.com/7',
                     'https://example.com/7', 'h', 0, ?1, ?2)",
                rusqlite::params![body.len() as i64, body],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO passages (handle, page, ord, heading, body)
                 VALUES ('example.com~000000000007', 1, 0, 'Old', 'A narwhal.')",
                [],
            )
            .unwrap();
        }
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        assert_eq!(
            store.stats().unwrap().schema_version,
            super::super::schema::SCHEMA_VERSION
        );
        let hits = store.find("narwhal", FindScope::All, 10).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].text, "A narwhal.");
        assert!(store.delete_document("example.com~000000000007").unwrap());
        assert!(
            store
                .find("narwhal", FindScope::All, 10)
                .unwrap()
                .is_empty()
        );
        assert!(store.integrity_check().unwrap().is_empty());
    }

    fn passage(heading: &str, text: &str) -> Passage {
        Passage {
            page: 1,
            heading: heading.to_owned(),
            text: text.to_owned(),
            range: None,
        }
    }

    /// The handles whose passages `word` finds in the whole store.
    fn found_in(store: &SqliteStore, word: &str) -> Vec<String> {
        let mut handles: Vec<String> = store
            .find(word, FindScope::All, 10)
            .unwrap()
            .into_iter()
            .map(|h| h.handle)
            .collect();
        handles.sort();
        handles
    }

    /// Two documents written by a version-6 build: the migration names each one's run of
    /// passage ids and drops the index by handle; each document's passages are then found
    /// in it, replaced with it and deleted with it, and the other's stay.
    #[test]
    fn a_version_6_store_names_each_documents_passages_and_keeps_them_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let handle = |n: u32| format!("example.com~{n:012}");
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            for migration in &MIGRATIONS[..6] {
                conn.execute_batch(migration).unwrap();
            }
            conn.pragma_update(None, "user_version", 6).unwrap();
            for (n, words) in [(1, ["kelp", "otter"]), (2, ["seal", "heron"])] {
                let body = serde_json::to_string(&record(n, "# Old\n").document).unwrap();
                conn.execute(
                    "INSERT INTO documents (handle, url, final_url, content_hash, fetched_at,
                         size_bytes, body)
                     VALUES (?1, ?2, ?2, 'h', 0, ?3, ?4)",
                    rusqlite::params![
                        handle(n),
                        format!("https://example.com/{n}"),
                        body.len() as i64,
                        body
                    ],
                )
                .unwrap();
                for (ord, word) in words.iter().enumerate() {
                    let text = format!("A {word}.");
                    conn.execute(
                        "INSERT INTO passages (handle, page, ord, heading, body)
                         VALUES (?1, 1, ?2, 'Old', ?3)",
                        rusqlite::params![handle(n), ord as i64, text],
                    )
                    .unwrap();
                    conn.execute(
                        "INSERT INTO passages_fts(rowid, heading, body)
                         VALUES (last_insert_rowid(), 'Old', ?1)",
                        [&text],
                    )
                    .unwrap();
                }
            }
        }
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let runs: Vec<(String, i64, i64)> = conn
            .prepare("SELECT handle, passages_from, passages_to FROM documents ORDER BY handle")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(runs, [(handle(1), 1, 2), (handle(2), 3, 4)]);
        let by_handle: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'passages_by_handle'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(by_handle, 0);

        let in_document = |word: &str, n: u32| {
            store
                .find(word, FindScope::Document(&handle(n)), 10)
                .unwrap()
                .len()
        };
        assert_eq!((in_document("otter", 1), in_document("otter", 2)), (1, 0));
        assert_eq!((in_document("seal", 1), in_document("seal", 2)), (0, 1));
        store
            .put_document(
                &record(1, "# New\n\nA walrus.\n"),
                &[passage("New", "A walrus.")],
            )
            .unwrap();
        for gone in ["kelp", "otter"] {
            assert_eq!(found_in(&store, gone), Vec::<String>::new(), "{gone}");
        }
        assert_eq!(found_in(&store, "walrus"), [handle(1)]);
        assert_eq!(found_in(&store, "heron"), [handle(2)]);
        assert!(store.delete_document(&handle(2)).unwrap());
        assert_eq!(found_in(&store, "seal"), Vec::<String>::new());
        assert_eq!(found_in(&store, "walrus"), [handle(1)]);
        assert!(store.integrity_check().unwrap().is_empty());
    }

    /// Every passage of a document goes when it is put again or deleted, its last one too,
    /// and a document written between keeps its own.
    #[test]
    fn a_document_put_again_or_deleted_takes_every_passage_of_its_run() {
        let store = SqliteStore::open(":memory:", StoreConfig::default()).unwrap();
        let words = ["kelp", "otter", "seal"];
        let passages: Vec<Passage> = words
            .iter()
            .map(|w| passage(w, &format!("A {w}.")))
            .collect();
        store
            .put_document(&record(1, "# Three\n"), &passages)
            .unwrap();
        store
            .put_document(&record(2, "# Crab\n"), &[passage("crab", "A crab.")])
            .unwrap();
        store
            .put_document(&record(1, "# Gull\n"), &[passage("gull", "A gull.")])
            .unwrap();
        for gone in words {
            assert_eq!(found_in(&store, gone), Vec::<String>::new(), "{gone}");
        }
        store
            .put_document(&record(3, "# Three\n"), &passages)
            .unwrap();
        assert!(store.delete_document("example.com~000000000003").unwrap());
        for gone in words {
            assert_eq!(found_in(&store, gone), Vec::<String>::new(), "{gone}");
        }
        assert_eq!(found_in(&store, "gull"), ["example.com~000000000001"]);
        assert_eq!(found_in(&store, "crab"), ["example.com~000000000002"]);
        assert!(store.integrity_check().unwrap().is_empty());
    }

    /// A run that covered another document's passages (no build writes one) still replaces
    /// only the document's own: every row is checked against its handle.
    #[test]
    fn a_documents_run_of_ids_takes_only_its_own_passages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        for (n, word) in [(1, "kelp"), (2, "seal"), (3, "crab")] {
            let text = format!("A {word}.");
            store
                .put_document(
                    &record(n, &format!("# {word}\n\n{text}\n")),
                    &[passage(word, &text)],
                )
                .unwrap();
        }
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute(
                "UPDATE documents SET passages_from = 1, passages_to = 3
                 WHERE handle = 'example.com~000000000001'",
                [],
            )
            .unwrap();
        store
            .put_document(
                &record(1, "# otter\n\nAn otter.\n"),
                &[passage("otter", "An otter.")],
            )
            .unwrap();
        assert_eq!(found_in(&store, "kelp"), Vec::<String>::new());
        assert_eq!(found_in(&store, "seal"), ["example.com~000000000002"]);
        assert_eq!(found_in(&store, "crab"), ["example.com~000000000003"]);
        assert_eq!(found_in(&store, "otter"), ["example.com~000000000001"]);
        assert!(store.integrity_check().unwrap().is_empty());
    }

    /// A document's passages are deleted by their ids' range, not by a scan of every
    /// passage (there is no index by handle to scan instead).
    #[test]
    fn deleting_a_documents_passages_reads_only_their_range() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for migration in MIGRATIONS {
            conn.execute_batch(migration).unwrap();
        }
        let plan = query_plan(
            &conn,
            super::DELETE_RUN,
            rusqlite::params!["example.com~000000000001", 1, 2],
        );
        assert!(
            plan[0].contains("SEARCH passages USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"),
            "{plan:?}"
        );
        assert!(
            !plan.iter().any(|step| step.starts_with("SCAN")),
            "{plan:?}"
        );
    }
}
