//! The request log: one logfmt line per tool call (tool, query or URL, engines or readers
//! used, counts, outcome, latency) to stderr and, optionally, to a file rotated by size.
//!
//! Written by hand rather than with tracing + tracing-appender + logroller: the log is one
//! line per call built from typed fields, and the size-based rotation it needs is a rename
//! chain of a few lines, which costs less than three crates and a subscriber whose other
//! output (rmcp's own spans) would then have to be filtered out of this log.
//! Never logged: page bodies, tool answers, tokens, keys, or URL query values that look
//! like credentials. Subjects arrive redacted ([`trawl_core::redact_url`]), and every line
//! also passes the server's [`Scrubber`] (the configured keys and passwords, in all their
//! spellings) before it is written.
//!
//! Lines are written by a thread of the log's own, so a slow disk or a full stderr pipe
//! never holds an async worker (nor a lock) while the file is written.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use trawl_core::Scrubber;

/// Longest value written for one field; longer values are cut with `…`.
const MAX_FIELD_CHARS: usize = 200;

/// Where the request log goes.
#[derive(Debug, Clone)]
pub struct LogConfig {
    pub stderr: bool,
    pub file: Option<PathBuf>,
    /// Rotate the file when it would grow past this many bytes (0 = never rotate).
    pub max_bytes: u64,
    /// How many rotated files (`FILE.1` … `FILE.N`) to keep, at least 1.
    pub keep: usize,
    /// The secrets no line may hold.
    pub secrets: Scrubber,
}

/// The request log of one server.
#[derive(Debug)]
pub struct RequestLog {
    /// To the writer thread; `None` once closed.
    lines: Mutex<Option<mpsc::Sender<Message>>>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    secrets: Scrubber,
}

#[derive(Debug)]
enum Message {
    Line(String),
    /// Answered once every line sent before it has been written.
    Flush(mpsc::Sender<()>),
}

impl RequestLog {
    pub fn open(config: &LogConfig) -> std::io::Result<Self> {
        let mut file = match &config.file {
            Some(path) => Some(RotatingFile::open(
                path,
                config.max_bytes,
                config.keep.max(1),
            )?),
            None => None,
        };
        let stderr = config.stderr;
        let (tx, rx) = mpsc::channel::<Message>();
        let writer = std::thread::Builder::new()
            .name("trawl-request-log".into())
            .spawn(move || {
                for message in rx {
                    match message {
                        Message::Line(line) => {
                            if stderr {
                                let _ = std::io::stderr().lock().write_all(line.as_bytes());
                            }
                            if let Some(file) = &mut file
                                && let Err(e) = file.write_line(line.as_bytes())
                            {
                                eprintln!("trawl: cannot write the request log: {e}");
                            }
                        }
                        Message::Flush(done) => {
                            let _ = done.send(());
                        }
                    }
                }
            })?;
        Ok(RequestLog {
            lines: Mutex::new(Some(tx)),
            writer: Mutex::new(Some(writer)),
            secrets: config.secrets.clone(),
        })
    }

    /// Write one event: `ts=… event=… key=value …`.
    pub fn event(&self, event: &str, fields: &[(&str, String)]) {
        let mut line = format!("ts={} event={}", timestamp(SystemTime::now()), event);
        for (key, value) in fields {
            line.push(' ');
            line.push_str(key);
            line.push('=');
            line.push_str(&quote(value));
        }
        line.push('\n');
        let line = self.secrets.scrub(&line);
        if let Some(tx) = &*self.lines.lock().unwrap_or_else(|p| p.into_inner()) {
            let _ = tx.send(Message::Line(line));
        }
    }

    /// Wait until every line logged so far is written (blocking: call it off the runtime,
    /// or at exit).
    pub fn flush(&self) {
        let (done, written) = mpsc::channel();
        let sent = self
            .lines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|tx| tx.send(Message::Flush(done)).is_ok());
        if sent {
            let _ = written.recv();
        }
    }
}

impl Drop for RequestLog {
    fn drop(&mut self) {
        self.lines.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(writer) = self.writer.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = writer.join();
        }
    }
}

/// One finished tool call, as the log shows it.
#[derive(Debug, Default)]
pub struct CallRecord {
    pub tool: &'static str,
    /// What was asked: `query=…`, `url=…`, `handle=…`, … (already redacted).
    pub subject: Vec<(&'static str, String)>,
    /// What was used and found: `engines=…`, `hits=…`, `readers=…`, `pages=…`.
    pub details: Vec<(&'static str, String)>,
    /// `ok`, or the error code.
    pub outcome: String,
    pub elapsed: Duration,
}

impl RequestLog {
    pub fn call(&self, record: &CallRecord) {
        let mut fields: Vec<(&str, String)> = vec![("tool", record.tool.to_owned())];
        fields.extend(record.subject.iter().map(|(k, v)| (*k, v.clone())));
        fields.extend(record.details.iter().map(|(k, v)| (*k, v.clone())));
        fields.push(("outcome", record.outcome.clone()));
        fields.push(("latency_ms", record.elapsed.as_millis().to_string()));
        self.event("tool_call", &fields);
    }
}

/// A logfmt value: bare when safe, otherwise quoted with `"` and `\` escaped; newlines and
/// other control characters become spaces, so one call is always one line.
fn quote(value: &str) -> String {
    let mut cut: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_FIELD_CHARS)
        .collect();
    if value.chars().count() > MAX_FIELD_CHARS {
        cut.push('…');
    }
    let bare = !cut.is_empty()
        && cut
            .chars()
            .all(|c| !c.is_whitespace() && c != '"' && c != '=' && c != '\\');
    if bare {
        return cut;
    }
    let mut out = String::with_capacity(cut.len() + 2);
    out.push('"');
    for c in cut.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// RFC 3339 UTC with milliseconds, from the civil-from-days algorithm (no date crate needed).
fn timestamp(now: SystemTime) -> String {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// An append-only file that moves itself to `FILE.1` (and `FILE.1` to `FILE.2`, …) before a
/// write would take it past `max_bytes`, keeping `keep` old files.
#[derive(Debug)]
struct RotatingFile {
    path: PathBuf,
    file: File,
    size: u64,
    max_bytes: u64,
    keep: usize,
}

impl RotatingFile {
    fn open(path: &Path, max_bytes: u64, keep: usize) -> std::io::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let size = file.metadata()?.len();
        Ok(RotatingFile {
            path: path.to_path_buf(),
            file,
            size,
            max_bytes,
            keep,
        })
    }

    fn rotated(&self, n: usize) -> PathBuf {
        let mut name = self.path.clone().into_os_string();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn write_line(&mut self, line: &[u8]) -> std::io::Result<()> {
        if self.max_bytes > 0 && self.size > 0 && self.size + line.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        self.file.write_all(line)?;
        self.size += line.len() as u64;
        Ok(())
    }

    fn rotate(&mut self) -> std::io::Result<()> {
        let _ = std::fs::remove_file(self.rotated(self.keep));
        for n in (1..self.keep).rev() {
            let from = self.rotated(n);
            if from.exists() {
                std::fs::rename(&from, self.rotated(n + 1))?;
            }
        }
        std::fs::rename(&self.path, self.rotated(1))?;
        self.file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::redact_url;

    #[test]
    fn rotates_by_size_and_keeps_n_files() {
        let dir = std::env::temp_dir().join(format!("trawl-log-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("logs").join("calls.log");
        let log = RequestLog::open(&LogConfig {
            stderr: false,
            file: Some(path.clone()),
            max_bytes: 300,
            keep: 2,
            secrets: Scrubber::default(),
        })
        .unwrap();
        for i in 0..40 {
            log.event("tick", &[("n", i.to_string())]);
        }
        log.flush();
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let rotated = |n: usize| PathBuf::from(format!("{}.{n}", path.display()));
        assert!(size(&path) > 0 && size(&path) <= 300);
        assert!(size(&rotated(1)) > 0 && size(&rotated(1)) <= 300);
        assert!(size(&rotated(2)) > 0);
        assert!(!rotated(3).exists());
        let last = std::fs::read_to_string(&path).unwrap();
        assert!(last.trim_end().ends_with("n=39"), "{last}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn values_stay_on_one_line_and_credentials_are_masked() {
        assert_eq!(quote("rust"), "rust");
        assert_eq!(quote("two words"), "\"two words\"");
        assert_eq!(quote("a\"b\nc"), "\"a\\\"b c\"");
        assert_eq!(quote(""), "\"\"");
        assert!(quote(&"x".repeat(500)).ends_with('…'));
        let url = redact_url("https://u:pw@example.com/p?q=rust&api_key=sk-123&token=abc");
        assert!(
            !url.contains("sk-123") && !url.contains("abc") && !url.contains("pw@"),
            "{url}"
        );
        assert!(url.contains("q=rust"), "{url}");
    }

    #[test]
    fn lines_never_hold_a_configured_secret() {
        let dir = std::env::temp_dir().join(format!("trawl-log-scrub-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("calls.log");
        let log = RequestLog::open(&LogConfig {
            stderr: false,
            file: Some(path.clone()),
            max_bytes: 0,
            keep: 1,
            secrets: Scrubber::new(["sk-canary-42/x"]),
        })
        .unwrap();
        log.event(
            "tool_call",
            &[
                ("error", "upstream said: bad key sk-canary-42/x".to_owned()),
                ("url", "https://e.test/?q=sk-canary-42%2Fx".to_owned()),
            ],
        );
        log.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("sk-canary"), "{text}");
        assert!(text.contains("bad key ****"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let t = UNIX_EPOCH + Duration::from_millis(1_795_980_000_123);
        assert_eq!(timestamp(t), "2026-11-29T19:20:00.123Z");
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }
}
