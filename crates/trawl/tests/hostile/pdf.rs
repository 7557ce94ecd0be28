//! A PDF bomb (a small file whose content stream inflates to 16 MiB) through `trawl read`:
//! a typed `too_large`, and a peak resident size far below what reading it unbounded took
//! (1.0 GB for this shape before the budget).

use std::process::Stdio;

use crate::util::{temp_dir, trawl};

/// The documented bound on `trawl read`'s peak resident memory for a refused bomb: the
/// binary itself, the file, and the 16 MiB the prescan keeps of one stream.
const REFUSED_BOMB_PEAK_RSS: u64 = 256 << 20;

/// Run `cmd` to the end; its exit code, stdout, and peak resident size in bytes (from
/// wait4's rusage, the child's own figure).
#[allow(
    clippy::zombie_processes,
    reason = "the child is reaped by wait4 below, which std cannot see"
)]
pub(crate) fn run_measured(cmd: &mut std::process::Command) -> (i32, String, u64) {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn trawl");
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
        out
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 writes only into the two out-pointers, which live across the call;
    // `pid` is our own child, not yet waited for.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    // ru_maxrss is in KiB on Linux.
    (code, reader.join().unwrap(), usage.ru_maxrss as u64 * 1024)
}

#[test]
fn a_pdf_bomb_read_from_a_file_is_too_large_within_bounded_memory() {
    let dir = temp_dir();
    let bomb = trawl_testkit::pdf::content_bomb(16 << 20);
    assert!(bomb.len() < 100_000, "{} bytes", bomb.len());
    let path = dir.join("bomb.pdf");
    std::fs::write(&path, &bomb).unwrap();
    let (code, stdout, peak) = run_measured(
        trawl(&dir)
            .args(["--store", ":memory:", "read", "--json"])
            .arg(&path),
    );
    assert_eq!(code, 1, "{stdout}");
    let envelope: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(envelope["error"]["code"], "too_large", "{envelope}");
    assert!(
        peak < REFUSED_BOMB_PEAK_RSS,
        "peak RSS {} MiB, bound {} MiB",
        peak >> 20,
        REFUSED_BOMB_PEAK_RSS >> 20
    );
    // An ordinary PDF still reads.
    let fine = dir.join("fine.pdf");
    std::fs::write(&fine, trawl_testkit::minimal_pdf("Plain words here")).unwrap();
    let (code, stdout, _) = run_measured(
        trawl(&dir)
            .args(["--store", ":memory:", "read", "--json"])
            .arg(&fine),
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("Plain words here"), "{stdout}");
}

/// The PDF budget is a setting: a document the default reads is refused as `too_large`
/// once `TRAWL_PDF_MAX_DECODED_BYTES` (or the config file's `pdf_max_decoded_bytes`) is
/// below what its streams decode to.
#[test]
fn the_pdf_budget_is_a_setting() {
    let dir = temp_dir();
    let path = dir.join("inflating.pdf");
    std::fs::write(&path, trawl_testkit::pdf::content_bomb(1 << 20)).unwrap();
    let read = |envs: &[(&str, &str)], config: Option<&str>| {
        let mut cmd = trawl(&dir);
        if let Some(text) = config {
            let file = dir.join("config.toml");
            std::fs::write(&file, text).unwrap();
            cmd.arg("--config").arg(&file);
        }
        cmd.envs(envs.iter().copied())
            .args(["--store", ":memory:", "read", "--json"])
            .arg(&path);
        let (code, stdout, _) = run_measured(&mut cmd);
        let envelope: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        (code, envelope)
    };
    let (code, envelope) = read(&[], None);
    assert_eq!(code, 0, "the default budget reads it: {envelope}");
    let (code, envelope) = read(&[("TRAWL_PDF_MAX_DECODED_BYTES", "65536")], None);
    assert_eq!(code, 1, "{envelope}");
    assert_eq!(envelope["error"]["code"], "too_large", "{envelope}");
    let (code, envelope) = read(&[], Some("pdf_max_decoded_bytes = 65536\n"));
    assert_eq!(code, 1, "{envelope}");
    assert_eq!(envelope["error"]["code"], "too_large", "{envelope}");
}
