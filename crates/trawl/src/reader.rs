//! The read path for one input: URL (guard → fetch → extract), file, or stdin.

use std::io::Read;
use std::path::Path;

use trawl_core::{Document, ErrorCode, FetchedVia, TrawlError};
use trawl_extract::{ExtractOptions, extract};
use url::Url;

/// What the user asked to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Url(String),
    File(std::path::PathBuf),
    Stdin,
}

impl Input {
    /// `-` is stdin; anything with a scheme is a URL; an existing path is a file; a bare
    /// `host.tld/...` is taken as https.
    pub fn classify(raw: &str) -> Result<Self, TrawlError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(TrawlError::invalid_input("input: empty URL or path"));
        }
        if raw == "-" {
            return Ok(Input::Stdin);
        }
        if raw.contains("://") || raw.starts_with("data:") || raw.starts_with("javascript:") {
            return Ok(Input::Url(raw.to_owned()));
        }
        let path = Path::new(raw);
        if path.exists() {
            return Ok(Input::File(path.to_path_buf()));
        }
        if trawl_core::is_valid_handle(raw) {
            return Err(TrawlError::invalid_input(format!(
                "{raw} is the handle of a stored document, not a URL; open it with `trawl open {raw}`"
            )));
        }
        if looks_like_a_path(raw) {
            return Err(TrawlError::invalid_input(format!("no such file: {raw}")));
        }
        let host = raw.split(['/', '?', '#']).next().unwrap_or("");
        if host.contains('.') && !host.contains(' ') && !raw.starts_with('.') {
            return Ok(Input::Url(format!("https://{raw}")));
        }
        Err(TrawlError::invalid_input(format!(
            "input: {raw:?} is neither a URL nor an existing file"
        )))
    }
}

/// A name meant as a local file: a path written as one (`./`, `../`, `/`, `~/`), or a bare
/// name with a document's extension (`paper.pdf`), which no one means as a host.
fn looks_like_a_path(raw: &str) -> bool {
    if ["./", "../", "/", "~/"].iter().any(|p| raw.starts_with(p)) {
        return true;
    }
    !raw.contains('/') && guess_type_from_path(Path::new(raw)).is_some()
}

fn base_url(explicit: Option<&str>, fallback: impl FnOnce() -> Url) -> Result<Url, TrawlError> {
    match explicit {
        Some(u) => Url::parse(u).map_err(|e| TrawlError::invalid_input(format!("--url: {e}"))),
        None => Ok(fallback()),
    }
}

fn guess_type_from_path(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "html" | "htm" | "xhtml" => "text/html",
        "pdf" => "application/pdf",
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        // Office, OpenDocument, EPUB, notebooks, CSV, feeds, archives: trawl-extract's list.
        other => return trawl_extract::content_type_for_extension(other),
    })
}

/// Read a file or stdin into a Document (URLs go through the agent tools instead).
pub fn read_local(
    input: &Input,
    base: Option<&str>,
    opts: &ExtractOptions,
    max_bytes: u64,
) -> Result<Document, TrawlError> {
    match input {
        Input::Url(_) => Err(TrawlError::internal("read_local called with a URL")),
        Input::File(path) => {
            let cannot = |e: std::io::Error| {
                TrawlError::invalid_input(format!("cannot read {}: {e}", path.display()))
            };
            let file = std::fs::File::open(path).map_err(cannot)?;
            // Refused before reading when the size is known; the bounded read below holds
            // the cap for a file that grows meanwhile (or a FIFO that reports no size).
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            if max_bytes > 0 && len > max_bytes {
                return Err(too_large(&path.display().to_string(), len, max_bytes));
            }
            let bytes = read_capped(file, max_bytes, &path.display().to_string())?;
            let url = base_url(base, || {
                let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                Url::from_file_path(&abs)
                    .unwrap_or_else(|_| Url::parse("file:///unknown").expect("static URL"))
            })?;
            let mut doc = extract(&bytes, guess_type_from_path(path), &url, opts)?;
            doc.fetched_via = FetchedVia::File;
            Ok(doc)
        }
        Input::Stdin => {
            let bytes = read_capped(std::io::stdin(), max_bytes, "standard input")?;
            let url = base_url(base, || {
                Url::parse("file:///dev/stdin").expect("static URL")
            })?;
            let mut doc = extract(&bytes, None, &url, opts)?;
            doc.fetched_via = FetchedVia::Stdin;
            Ok(doc)
        }
    }
}

/// At most `max_bytes` of `source` (0 = no cap), or `too_large` naming `what`.
fn read_capped(source: impl Read, max_bytes: u64, what: &str) -> Result<Vec<u8>, TrawlError> {
    let mut bytes = Vec::new();
    let limit = if max_bytes == 0 {
        u64::MAX
    } else {
        max_bytes + 1
    };
    source
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| TrawlError::new(ErrorCode::Internal, format!("reading {what}: {e}")))?;
    if max_bytes > 0 && bytes.len() as u64 > max_bytes {
        return Err(too_large(what, bytes.len() as u64, max_bytes));
    }
    Ok(bytes)
}

fn too_large(what: &str, len: u64, max_bytes: u64) -> TrawlError {
    TrawlError::new(
        ErrorCode::TooLarge,
        format!(
            "{what} is {}{len} bytes, more than --max-bytes {max_bytes} (local files and standard \
             input have the same cap as downloads; raise it with --max-bytes or TRAWL_MAX_BYTES)",
            if len > max_bytes + 1 { "" } else { "over " }
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_inputs() {
        assert_eq!(Input::classify("-").unwrap(), Input::Stdin);
        assert_eq!(
            Input::classify("http://x.org/a").unwrap(),
            Input::Url("http://x.org/a".into())
        );
        assert_eq!(
            Input::classify("example.com/page").unwrap(),
            Input::Url("https://example.com/page".into())
        );
        assert_eq!(
            Input::classify("Cargo.toml").unwrap(),
            Input::File("Cargo.toml".into())
        );
        assert!(Input::classify("no such thing").is_err());
        let no_file = Input::classify("paper.pdf").unwrap_err();
        assert_eq!(no_file.message, "no such file: paper.pdf");
        let handle = Input::classify("127.0.0.1~0123456789ab").unwrap_err();
        assert!(handle.message.contains("trawl open 127.0.0.1~0123456789ab"));
        assert_eq!(
            Input::classify("docs.rs/serde/index.html").unwrap(),
            Input::Url("https://docs.rs/serde/index.html".into())
        );
        assert!(Input::classify("").is_err());
    }
}
