use super::*;

#[test]
fn an_empty_file_becomes_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dirs/trawl.db");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"").unwrap();
    let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
    assert_eq!(store.stats().unwrap().schema_version, 7);
    put(&store, 1, SystemTime::now());
    drop(store);
    let reopened = SqliteStore::open(&path, StoreConfig::default()).unwrap();
    assert!(
        reopened
            .get_document("example.com~000000000001")
            .unwrap()
            .is_some()
    );
    assert!(reopened.integrity_check().unwrap().is_empty());
    let stats = reopened.stats().unwrap();
    assert!(stats.size_bytes.unwrap() > 0);
    assert_eq!(stats.location, path.display().to_string());
}

#[test]
fn missing_directories_are_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/trawl.db");
    SqliteStore::open(&path, StoreConfig::default()).unwrap();
    assert!(path.exists());
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trawl.db");
    drop(SqliteStore::open(&path, StoreConfig::default()).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let err = SqliteStore::open(&path, StoreConfig::default()).unwrap_err();
    assert!(
        matches!(err, Error::SchemaTooNew { found: 99, .. }),
        "{err:?}"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trawl.db");
    std::fs::write(
        &path,
        b"this is not an sqlite file, it is a text file ".repeat(100),
    )
    .unwrap();
    let err = SqliteStore::open(&path, StoreConfig::default()).unwrap_err();
    assert!(matches!(err, Error::Open { .. }), "{err:?}");
}
