use super::*;

/// Set (to a store path) when this binary runs as the writer child.
const WRITER_ENV: &str = "TRAWL_STORE_TEST_WRITER";
const WRITES: usize = 1000;

fn big_document(i: usize) -> (Document, Vec<Passage>) {
    let mut doc = document(i);
    doc.markdown.push_str(&format!(
        "\n\n{}",
        "Padding paragraph for size. ".repeat(300)
    ));
    let passages = (0..10)
        .map(|k| Passage {
            page: k / 3 + 1,
            heading: format!("Part {k}"),
            text: format!("zebra{i} passage {k} {}", "words in a passage ".repeat(30)),
            range: None,
        })
        .collect();
    (doc, passages)
}

/// Set (to a number) to offset the writer's document numbers.
const WRITER_BASE_ENV: &str = "TRAWL_STORE_TEST_WRITER_BASE";

/// The writer: stores documents one by one and prints `ACK <handle>` after each commit.
/// A no-op in a normal test run.
#[test]
fn writer_child() {
    let Ok(path) = std::env::var(WRITER_ENV) else {
        return;
    };
    let base: usize = std::env::var(WRITER_BASE_ENV).map_or(0, |b| b.parse().unwrap());
    let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
    let mut out = std::io::stdout().lock();
    for i in base..base + WRITES {
        let (doc, passages) = big_document(i);
        let handle = doc.handle.clone();
        store
            .put_document(&DocumentRecord::new(doc, SystemTime::now()), &passages)
            .unwrap();
        writeln!(out, "\nACK {handle}").unwrap();
        out.flush().unwrap();
    }
}

fn spawn_writer(path: &std::path::Path, base: usize) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "crash::writer_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, path)
        .env(WRITER_BASE_ENV, base.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn ack(line: &str) -> Option<String> {
    line.find("ACK ").map(|at| line[at + 4..].trim().to_owned())
}

/// Every acknowledged handle is stored whole, and the file is sound.
fn check_acknowledged(store: &SqliteStore, acked: &[String]) {
    assert_eq!(store.integrity_check().unwrap(), Vec::<String>::new());
    for handle in acked {
        let record = store.get_document(handle).unwrap();
        let record = record.unwrap_or_else(|| panic!("acknowledged {handle} lost"));
        let i = usize::from_str_radix(handle.rsplit_once('~').unwrap().1, 16).unwrap();
        assert_eq!(record.document.markdown, big_document(i).0.markdown);
        let hits = store
            .find(&format!("zebra{i}"), FindScope::Document(handle), 0)
            .unwrap();
        assert_eq!(hits.len(), 10, "{handle}: every passage indexed");
    }
}

#[test]
fn sigkill_mid_write_loses_at_most_the_write_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trawl.db");
    let mut child = spawn_writer(&path, 0);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut acked = Vec::new();
    while acked.len() < 300 {
        let line = lines.next().expect("writer ended early").unwrap();
        acked.extend(ack(&line));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    // Acks written before the kill but not yet read count too.
    acked.extend(lines.map_while(Result::ok).filter_map(|l| ack(&l)));
    assert!(
        !status.success(),
        "the writer finished before it was killed"
    );
    assert!(acked.len() < WRITES);

    let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
    check_acknowledged(&store, &acked);
    let stored = store.stats().unwrap().documents as usize;
    assert!(
        stored == acked.len() || stored == acked.len() + 1,
        "{stored} stored, {} acknowledged",
        acked.len()
    );
}

/// Two writer processes on one file, both killed at a different point each round
/// (the first round also races two processes creating the schema).
#[test]
fn two_writers_killed_at_varied_points_for_20_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trawl.db");
    let mut acked: Vec<String> = Vec::new();
    for round in 0..20 {
        let kill_after = 5 + (round * 37) % 90;
        let (tx, rx) = std::sync::mpsc::channel::<Option<String>>();
        let mut children = Vec::new();
        for writer in 0..2 {
            let mut child = spawn_writer(&path, round * 10_000 + writer * 1_000 + 100_000);
            let stdout = child.stdout.take().unwrap();
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if let Some(handle) = ack(&line) {
                        let _ = tx.send(Some(handle));
                    }
                }
                let _ = tx.send(None);
            });
            children.push(child);
        }
        drop(tx);
        let mut this_round = 0;
        let mut ended = 0;
        while this_round < kill_after && ended < 2 {
            match rx.recv().unwrap() {
                Some(handle) => {
                    acked.push(handle);
                    this_round += 1;
                }
                None => ended += 1,
            }
        }
        // Both writers were still writing when killed: neither died on its own (a busy or
        // locked database would make a writer's unwrap panic and end it early).
        assert_eq!(ended, 0, "round {round}: a writer ended before the kill");
        for child in &mut children {
            let _ = child.kill();
            child.wait().unwrap();
        }
        // Readers end when the pipes close; collect what was acknowledged meanwhile.
        acked.extend(rx.iter().flatten());
        let store = SqliteStore::open(&path, StoreConfig::default()).unwrap();
        check_acknowledged(&store, &acked);
    }
}
