//! A PDF bomb (a small file whose content stream inflates to 16 MiB) through `trawl read`:
//! a typed `too_large`, and a peak resident size far below what reading it unbounded took
//! (1.0 GB for this shape before the budget).

use std::process::Stdio;

use crate::util::{temp_dir, trawl};

/// The documented bound on `trawl read`'s peak resident memory for a refused bomb: the
/// binary itself, the file, and the 16 MiB the prescan keeps of one stream.
const REFUSED_BOMB_PEAK_RSS: u64 = 256 << 20;

/// Run `cmd` to the end; its exit code, stdout, and peak resident size in bytes: the
/// child's own `VmHWM`, read every 5 ms while it runs (the last reading before it exits).
/// wait4's `ru_maxrss` would not do: Linux carries the parent's peak across fork and exec,
/// so a test process holding large fixtures would be charged to the child.
pub(crate) fn run_measured(cmd: &mut std::process::Command) -> (i32, String, u64) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn trawl");
    let status_file = format!("/proc/{}/status", child.id());
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
        out
    });
    let mut peak_kib = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    (
        status.code().unwrap_or(-1),
        reader.join().unwrap(),
        peak_kib * 1024,
    )
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
