//! Store faults keep their cause and do not stop reads: a directory, a corrupt file, a
//! read-only store and a full disk each get their own message, and a read whose page
//! cannot be kept still answers, with `meta.not_stored` and a warning.
//!
//! A read-only store is made by running trawl as `nobody` (root ignores file modes) and a
//! full disk by a 256 KiB tmpfs in a private mount namespace (`unshare -m`, or `-rm`
//! unprivileged). Where neither can be made the test says so and stops, except under `CI`,
//! where that is a failure.

use std::path::Path;
use std::process::Command;

use trawl_testkit::{Reply, TestServer};

use crate::read::ARTICLE;
use crate::util::{Run, run, run_with_stdin, temp_dir, trawl};

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn prerequisite_missing(what: &str) {
    if trawl_testkit::in_ci() {
        panic!("CI: cannot run this test: {what}");
    }
    eprintln!("skipped: {what}");
}

/// `trawl ARGS` with the isolation of `util::trawl`, run through `wrapper` (a command
/// that ends by running what follows it).
fn wrapped(dir: &Path, wrapper: &[&str]) -> Command {
    let mut cmd = Command::new(wrapper[0]);
    cmd.args(&wrapper[1..])
        .arg(env!("CARGO_BIN_EXE_trawl"))
        .current_dir(dir)
        .env_clear()
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd
}

/// Runs trawl as a user that cannot write `dir` (nobody when root; the caller when not,
/// with `dir` made read-only).
fn unprivileged(dir: &Path) -> Option<Command> {
    if is_root() {
        let probe = Command::new("setpriv")
            .args([
                "--reuid",
                "65534",
                "--regid",
                "65534",
                "--clear-groups",
                "true",
            ])
            .status();
        if !probe.is_ok_and(|s| s.success()) {
            prerequisite_missing("setpriv cannot switch to nobody");
            return None;
        }
        Some(wrapped(
            dir,
            &[
                "setpriv",
                "--reuid",
                "65534",
                "--regid",
                "65534",
                "--clear-groups",
            ],
        ))
    } else {
        Some(wrapped(dir, &["env"]))
    }
}

fn make_read_only(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn not_stored_reason(r: &Run) -> serde_json::Value {
    r.json()["meta"]["not_stored"]["reason"].clone()
}

#[test]
fn a_directory_and_a_corrupt_file_each_say_what_is_wrong() {
    let dir = temp_dir();
    std::fs::create_dir(dir.join("a-directory")).unwrap();
    std::fs::write(
        dir.join("corrupt.db"),
        b"not a database, just text ".repeat(200),
    )
    .unwrap();

    let r = run(trawl(&dir).args(["open", "example.com~0123456789ab", "--store", "a-directory"]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("not a file (a directory)"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("cannot open store at"),
        "said twice: {}",
        r.stderr
    );

    let r = run(trawl(&dir).args(["open", "example.com~0123456789ab", "--store", "corrupt.db"]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("it is corrupt"), "{}", r.stderr);
    assert!(!r.stderr.contains("not a file"), "{}", r.stderr);

    for (store, fault) in [("a-directory", "not_a_file"), ("corrupt.db", "corrupt")] {
        let r = run(trawl(&dir).args(["cache", "doctor", "--store", store, "--json"]));
        assert_eq!(r.code, 1, "{}", r.stdout);
        assert_eq!(r.json()["meta"]["store"]["fault"], fault, "{}", r.stdout);
    }
    std::fs::remove_file(dir.join("corrupt.db")).unwrap();
    let r = run_with_stdin(
        trawl(&dir).args(["read", "-", "--store", "fresh.db", "--json"]),
        Some(b"<p>a healthy store</p>"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(trawl(&dir).args(["cache", "doctor", "--store", "fresh.db", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json()["data"]["healthy"], true);
}

#[test]
fn a_read_only_store_still_answers_reads_with_a_note() {
    let server = TestServer::start();
    server.route("/article.html", Reply::html(ARTICLE));
    let dir = temp_dir();
    std::fs::write(dir.join("page.html"), ARTICLE).unwrap();
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    // A store written while it could be, then made read-only.
    let r = run(trawl(&dir).args(["read", "page.html", "--store", "ro/trawl.db", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let handle = r.json()["data"]["handle"].as_str().unwrap().to_owned();
    make_read_only(&ro.join("trawl.db"), 0o444);
    make_read_only(&ro, 0o555);
    let Some(_) = unprivileged(&dir) else { return };
    let store = ro.join("trawl.db").display().to_string();
    let new_store = ro.join("new.db").display().to_string();

    // What is stored still opens.
    let r = run(unprivileged(&dir)
        .unwrap()
        .args(["open", &handle, "--store", &store]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Amphidromic systems"));

    // `read -`, a file and a URL answer; each says it was not kept.
    let r = run_with_stdin(
        unprivileged(&dir)
            .unwrap()
            .args(["read", "-", "--store", &store, "--json"]),
        Some(b"<p>Notes from a read-only place, still worth reading.</p>"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(not_stored_reason(&r), "read_only", "{}", r.stdout);
    assert!(r.stderr.contains("warning: not stored"), "{}", r.stderr);
    assert!(r.stdout.contains("Notes from a read-only place"));

    let url = server.url("/article.html");
    let r = run(unprivileged(&dir).unwrap().args([
        "read",
        &url,
        "--allow-host",
        "127.0.0.1",
        "--store",
        &store,
        "--json",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(not_stored_reason(&r), "read_only", "{}", r.stdout);
    assert!(
        r.json()["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Amphidromic")
    );

    // A new store in a directory that cannot be written: reads answer from memory.
    let r = run_with_stdin(
        unprivileged(&dir)
            .unwrap()
            .args(["read", "-", "--store", &new_store, "--json"]),
        Some(b"<p>Nothing can be kept here.</p>"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(not_stored_reason(&r), "read_only", "{}", r.stdout);
    assert!(r.stderr.contains("it is read-only"), "{}", r.stderr);

    // Writing commands name the fault; the doctor finds it.
    let r = run(unprivileged(&dir)
        .unwrap()
        .args(["cache", "clear", "--store", &store]));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("it is read-only"), "{}", r.stderr);
    let r = run(unprivileged(&dir)
        .unwrap()
        .args(["cache", "doctor", "--store", &store, "--json"]));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(
        r.json()["meta"]["store"]["fault"],
        "read_only",
        "{}",
        r.stdout
    );
}

#[test]
fn a_full_disk_returns_the_page_with_a_note() {
    let server = TestServer::start();
    // Far more text than the 256 KiB disk holds.
    let paragraph = "<p>Tide gauges along the coast record the water level every few minutes, \
        and their series are the ground truth that every storm-surge model is judged by.</p>";
    let big = format!(
        "<html><body><article><h1>Gauges</h1>{}</article></body></html>",
        {
            let mut s = String::new();
            for i in 0..3000 {
                s.push_str(&paragraph.replace("every few", &format!("every {i}")));
            }
            s
        }
    );
    server.route("/big.html", Reply::html(big.as_str()));
    let dir = temp_dir();
    let disk = dir.join("disk");
    std::fs::create_dir(&disk).unwrap();
    let store = disk.join("trawl.db").display().to_string();
    let url = server.url("/big.html");
    let mount_ns: &[&str] = if is_root() {
        &["unshare", "-m"]
    } else {
        &["unshare", "-rm"]
    };
    // Mount a small tmpfs over `disk`, then run trawl twice: a small read (kept), then
    // the big page (the disk fills).
    let script = format!(
        "mount -t tmpfs -o size=256k tmpfs '{}' || exit 97; \
         printf '<p>a small note that fits</p>' | \"$0\" read - --store '{store}' --json > small.json || exit 98; \
         exec \"$0\" read '{url}' --allow-host 127.0.0.1 --store '{store}' --json",
        disk.display()
    );
    let mut wrapper: Vec<&str> = mount_ns.to_vec();
    wrapper.extend(["sh", "-c", &script]);
    let r = run(&mut wrapped(&dir, &wrapper));
    if r.code == 97 || r.stderr.contains("unshare:") {
        prerequisite_missing(&format!("no private tmpfs: {}", r.stderr.trim()));
        return;
    }
    let small = std::fs::read_to_string(dir.join("small.json")).unwrap();
    let small: serde_json::Value = serde_json::from_str(&small).unwrap();
    assert!(small["meta"].get("not_stored").is_none(), "{small}");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(not_stored_reason(&r), "disk_full", "{}", r.stdout);
    assert!(r.stderr.contains("disk is full"), "{}", r.stderr);
    assert!(
        r.json()["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Tide gauges")
    );

    // With the disk still full, the commands that only read keep answering from the store.
    let handle = small["data"]["handle"].as_str().unwrap().to_owned();
    let script = format!(
        "mount -t tmpfs -o size=256k tmpfs '{disk}' || exit 97; \
         printf '<p>a small note that fits</p>' | \"$0\" read - --store '{store}' --json > small.json || exit 98; \
         \"$0\" read '{url}' --allow-host 127.0.0.1 --store '{store}' --json > big.json; \
         head -c 1M /dev/zero > '{disk}/filler' 2>/dev/null; \
         \"$0\" open {handle} --store '{store}' --json > open.json || exit 91; \
         \"$0\" open --find note --all --store '{store}' --json > find.json || exit 92; \
         \"$0\" cache stats --store '{store}' --json > stats.json || exit 93; \
         \"$0\" sites --store '{store}' --json > sites.json || exit 94; \
         exec \"$0\" crawl list --store '{store}' --json",
        disk = disk.display()
    );
    let _ = std::fs::remove_file(dir.join("small.json"));
    let mut wrapper: Vec<&str> = mount_ns.to_vec();
    wrapper.extend(["sh", "-c", &script]);
    let r = run(&mut wrapped(&dir, &wrapper));
    let stage = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert_eq!(
        r.code,
        0,
        "a read-only command failed on a full disk (exit {}): {}\nopen: {}\nfind: {}\nstats: {}",
        r.code,
        r.stderr,
        stage("open.json"),
        stage("find.json"),
        stage("stats.json")
    );
    let opened: serde_json::Value = serde_json::from_str(&stage("open.json")).unwrap();
    assert!(
        opened["data"]["markdown"]
            .as_str()
            .unwrap_or_default()
            .contains("a small note that fits"),
        "{opened}"
    );
    let found = stage("find.json");
    assert!(found.contains("a small note"), "{found}");
}
