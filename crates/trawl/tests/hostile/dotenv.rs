//! A `.env` that is not a file: a link to `/dev/zero` (aborted every command), a FIFO
//! (hung trawl at start), a link to `/dev/stdin` (made `trawl mcp` swallow the client's
//! first message), a link to a private key and a file holding one (its first line was
//! echoed). Each time trawl starts, warns without echoing anything of it, and answers.

use std::ffi::CString;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{temp_dir, trawl};

const SECRET_LINE: &str = "-----BEGIN OPENSSH PRIVATE KEY-----";
const SECRET_BODY: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ";

fn make_fifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path only.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Run `cmd` with stdin closed, killing it (and failing) if it has not ended in 60 s: a
/// hang is what one of these files caused.
fn run_bounded(cmd: &mut Command) -> (i32, String, String) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("trawl hung on a hostile .env");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A working directory whose `.env` is made by `make`, with a page to read.
fn dir_with(make: impl FnOnce(&Path)) -> std::path::PathBuf {
    let dir = temp_dir();
    std::fs::write(dir.join("notes.txt"), "plain notes, kept as they are\n").unwrap();
    make(&dir);
    dir
}

fn secret_file(path: &Path) {
    std::fs::write(path, format!("{SECRET_LINE}\n{SECRET_BODY}\n")).unwrap();
}

#[test]
fn a_hostile_dotenv_is_not_read_and_trawl_still_answers() {
    let outside = temp_dir();
    let key = outside.join("id_ed25519");
    secret_file(&key);
    let cases: Vec<(&str, std::path::PathBuf, &str)> = vec![
        (
            "link to /dev/zero",
            dir_with(|d| std::os::unix::fs::symlink("/dev/zero", d.join(".env")).unwrap()),
            "link to outside the directory",
        ),
        (
            "FIFO",
            dir_with(|d| make_fifo(&d.join(".env"))),
            "not a regular file",
        ),
        (
            "link to a private key",
            dir_with(|d| std::os::unix::fs::symlink(&key, d.join(".env")).unwrap()),
            "link to outside the directory",
        ),
        (
            "a private key as .env",
            dir_with(|d| secret_file(&d.join(".env"))),
            "line 1",
        ),
        (
            "a huge file",
            dir_with(|d| std::fs::write(d.join(".env"), "A=1\n".repeat(20_000)).unwrap()),
            "larger than 64 KiB",
        ),
    ];
    for (what, dir, warning) in cases {
        let (code, stdout, stderr) =
            run_bounded(trawl(&dir).args(["--store", ":memory:", "read", "notes.txt"]));
        assert_eq!(code, 0, "{what}: {stderr}");
        assert!(stdout.contains("plain notes, kept as they are"), "{what}");
        assert!(stderr.contains(warning), "{what}: {stderr}");
        for shown in [&stdout, &stderr] {
            assert!(
                !shown.contains("BEGIN OPENSSH") && !shown.contains(SECRET_BODY),
                "{what}: the file's content is echoed"
            );
        }
        let (code, stdout, stderr) = run_bounded(trawl(&dir).args(["config", "show"]));
        assert_eq!(code, 0, "{what}: {stderr}");
        assert!(!stdout.contains("BEGIN OPENSSH") && !stdout.contains(SECRET_BODY));
    }
}

#[test]
fn a_dotenv_linked_to_stdin_leaves_the_first_mcp_message_to_the_server() {
    let dir = dir_with(|d| std::os::unix::fs::symlink("/dev/stdin", d.join(".env")).unwrap());
    let mut child = trawl(&dir)
        .args(["--store", ":memory:", "mcp", "--fetch-only"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"0"}}}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let answer = rx.recv_timeout(Duration::from_secs(60));
    drop(stdin);
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let answer = answer.expect("the server answered initialize");
    let reply: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(reply["id"], 1, "{reply}");
    assert!(reply["result"]["serverInfo"].is_object(), "{reply}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".env: it is a link"), "{stderr}");
}
