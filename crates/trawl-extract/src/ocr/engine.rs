//! Debian's `tesseract`, run as a process: found on the PATH or at a configured path (never
//! downloaded), fed the image on stdin, its TSV read from stdout, killed at the deadline.
//!
//! There is no maintained pure-Rust OCR engine of tesseract's quality, and the bindings
//! (leptess, tesseract-rs) link libtesseract into trawl, where a crash in the engine on a
//! hostile image would take the server with it. A process can be killed at a deadline and
//! its memory is returned when it ends.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Why tesseract gave no answer.
#[derive(Debug)]
pub(crate) enum EngineError {
    /// Not installed (or the configured path does not exist).
    Absent(PathBuf),
    /// A language asked for is not installed: (asked, installed).
    Language(String, Vec<String>),
    /// Still running at the deadline: killed.
    Timeout,
    /// It ran and failed: its exit status and the end of its stderr.
    Failed(String),
}

/// Most bytes of TSV read from one run: a dense A4 page at 600 dpi is about 200 KB.
const MAX_OUTPUT: u64 = 16 << 20;
/// Most bytes of stderr kept for an error message.
const MAX_STDERR: u64 = 4 << 10;

/// The program to run: the configured path, or `tesseract` looked up on the PATH.
pub(crate) fn program(configured: Option<&Path>) -> PathBuf {
    configured.map_or_else(|| PathBuf::from("tesseract"), Path::to_path_buf)
}

fn command(program: &Path) -> Command {
    let mut cmd = Command::new(program);
    // tesseract's OpenMP threads spin while they wait; on a shared machine one thread per
    // page is faster overall (tesseract's own docs advise it for parallel runs).
    cmd.env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// The languages whose traineddata is installed, as `tesseract --list-langs` names them
/// (`osd`, orientation detection, is not a language and is left out). Remembered per
/// program for the life of the process: installing a language needs a restart.
pub(crate) fn languages(program: &Path) -> Result<Vec<String>, EngineError> {
    static SEEN: Mutex<Vec<(PathBuf, Vec<String>)>> = Mutex::new(Vec::new());
    if let Some((_, langs)) = SEEN
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|(p, _)| p == program)
    {
        return Ok(langs.clone());
    }
    let mut cmd = command(program);
    cmd.arg("--list-langs").stdin(Stdio::null());
    let child = spawn(&mut cmd, program)?;
    let out = finish(child, None, Instant::now() + Duration::from_secs(10))?;
    // The first line is "List of available languages in ... (N):".
    let langs: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "osd")
        .map(str::to_owned)
        .collect();
    SEEN.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((program.to_path_buf(), langs.clone()));
    Ok(langs)
}

/// The `-l` argument: the languages asked for (`eng+deu`), each checked against what is
/// installed, or English when installed, else the first installed language.
pub(crate) fn pick_languages(
    asked: Option<&str>,
    installed: &[String],
) -> Result<String, EngineError> {
    let Some(asked) = asked.map(str::trim).filter(|a| !a.is_empty()) else {
        return installed
            .iter()
            .find(|l| *l == "eng")
            .or_else(|| installed.first())
            .cloned()
            .ok_or_else(|| EngineError::Language("any language".into(), Vec::new()));
    };
    for lang in asked.split('+') {
        if !installed.iter().any(|l| l == lang) {
            return Err(EngineError::Language(lang.to_owned(), installed.to_vec()));
        }
    }
    Ok(asked.to_owned())
}

/// Recognize one image (any format leptonica reads: PNG, JPEG, TIFF, WebP, PNM) in
/// `languages`; the TSV tesseract writes, by the deadline.
pub(crate) fn recognize(
    program: &Path,
    image: &[u8],
    languages: &str,
    deadline: Instant,
) -> Result<String, EngineError> {
    let mut cmd = command(program);
    // `stdin stdout`: image in, text out, no temporary files; `tsv` is the config that
    // writes one row per word with its confidence.
    cmd.args(["stdin", "stdout", "-l", languages, "tsv"]);
    let child = spawn(&mut cmd, program)?;
    let out = finish(child, Some(image), deadline)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// tesseract's version line (`tesseract 5.3.0`), for `trawl doctor`.
pub(crate) fn version(program: &Path) -> Result<String, EngineError> {
    let mut cmd = command(program);
    cmd.arg("--version").stdin(Stdio::null());
    let child = spawn(&mut cmd, program)?;
    let out = finish(child, None, Instant::now() + Duration::from_secs(10))?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .next()
        .unwrap_or("tesseract")
        .trim()
        .to_owned())
}

fn spawn(cmd: &mut Command, program: &Path) -> Result<Child, EngineError> {
    cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            EngineError::Absent(program.to_path_buf())
        }
        _ => EngineError::Failed(format!("could not start {}: {e}", program.display())),
    })
}

/// Feed `input` to the child, collect its stdout, and wait for it until `deadline`, when
/// it is killed. Threads write and read, so a child that fills a pipe never blocks the
/// other side.
fn finish(
    mut child: Child,
    input: Option<&[u8]>,
    deadline: Instant,
) -> Result<Vec<u8>, EngineError> {
    let stdin = child.stdin.take();
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    std::thread::scope(|scope| {
        if let (Some(mut pipe), Some(input)) = (stdin, input) {
            // A child that exits early closes the pipe: the write error is its answer,
            // read from its status below.
            scope.spawn(move || {
                let _ = pipe.write_all(input);
            });
        }
        let out = scope.spawn(move || {
            let mut buf = Vec::new();
            let _ = (&mut stdout).take(MAX_OUTPUT).read_to_end(&mut buf);
            // Past the cap the rest is drained, so the child can finish.
            let _ = std::io::copy(&mut stdout, &mut std::io::sink());
            buf
        });
        let err = scope.spawn(move || {
            let mut buf = Vec::new();
            let _ = (&mut stderr).take(MAX_STDERR).read_to_end(&mut buf);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            buf
        });
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Err(EngineError::Timeout);
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Err(EngineError::Failed(format!("waiting for tesseract: {e}")));
                }
            }
        };
        let out = out.join().unwrap_or_default();
        let err = err.join().unwrap_or_default();
        status.and_then(|status| {
            if status.success() {
                Ok(out)
            } else {
                let err = String::from_utf8_lossy(&err);
                let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
                Err(EngineError::Failed(format!(
                    "tesseract {status}: {}",
                    last.trim()
                )))
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_checked_against_what_is_installed() {
        let installed = vec!["deu".to_owned(), "eng".to_owned()];
        assert_eq!(pick_languages(None, &installed).unwrap(), "eng");
        assert_eq!(
            pick_languages(Some("deu+eng"), &installed).unwrap(),
            "deu+eng"
        );
        assert!(matches!(
            pick_languages(Some("fra"), &installed),
            Err(EngineError::Language(l, _)) if l == "fra"
        ));
        assert_eq!(pick_languages(None, &["fra".to_owned()]).unwrap(), "fra");
        assert!(pick_languages(None, &[]).is_err());
    }
}
