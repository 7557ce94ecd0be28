//! `trawl crawl export ID`: a kept crawl written out of the store, as files (`--out DIR`:
//! one Markdown file a page, paths mirroring the URLs, and `index.jsonl`) or as JSON lines
//! on stdout (`--jsonl`). Nothing is fetched: the pages are the stored copies.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use trawl_core::TrawlError;
use trawl_crawl::{CrawlUrl, UrlState};
use trawl_store::SharedStore;

/// Rows read from the store at a time.
const BATCH: usize = 500;

/// One page as `index.jsonl` and `--jsonl` list it.
#[derive(Serialize)]
struct ExportedPage {
    url: String,
    title: Option<String>,
    handle: String,
    status: Option<u16>,
    fetched_at: Option<String>,
    /// The Markdown file, relative to `--out` (with `--out`).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// The page's Markdown (with `--jsonl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    markdown: Option<String>,
    /// Why the page could not be written (its stored copy is gone: `cache clear`).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Where the pages go.
pub enum ExportTo<'a> {
    Folder(&'a Path),
    Stdout,
}

/// How many pages were written, and how many could not be.
pub struct Exported {
    pub written: usize,
    pub missing: usize,
}

/// Writes crawl `id`'s stored pages to `to`.
pub async fn export(
    store: &SharedStore,
    id: &str,
    to: ExportTo<'_>,
) -> Result<Exported, TrawlError> {
    if let ExportTo::Folder(dir) = to {
        prepare(dir)?;
    }
    let mut index = match to {
        ExportTo::Folder(dir) => Some(create(&dir.join("index.jsonl"))?),
        ExportTo::Stdout => None,
    };
    let mut used = HashSet::new();
    let mut done = Exported {
        written: 0,
        missing: 0,
    };
    let mut offset = 0;
    loop {
        let rows = trawl_crawl::pages(store, id, &[UrlState::Done], offset, BATCH).await?;
        offset += rows.len();
        for row in &rows {
            let Some(page) = exported(store, row).await? else {
                continue;
            };
            let (mut page, markdown) = page;
            match to {
                ExportTo::Folder(dir) => {
                    if let Some(markdown) = markdown {
                        let file = unique(file_for(&page.url), &mut used);
                        let path = dir.join(&file);
                        if let Some(parent) = path.parent() {
                            std::fs::create_dir_all(parent).map_err(|e| io(&path, e))?;
                        }
                        std::fs::write(&path, markdown).map_err(|e| io(&path, e))?;
                        page.file = Some(file.to_string_lossy().into_owned());
                    }
                    let index = index.as_mut().expect("a folder export has an index");
                    line(index, &page).map_err(|e| io(&dir.join("index.jsonl"), e))?;
                }
                ExportTo::Stdout => {
                    page.markdown = markdown;
                    let mut out = std::io::stdout().lock();
                    line(&mut out, &page).map_err(|e| {
                        TrawlError::internal(format!("cannot write to stdout: {e}"))
                    })?;
                }
            }
            if page.error.is_some() {
                done.missing += 1;
            } else {
                done.written += 1;
            }
        }
        if rows.len() < BATCH {
            break;
        }
    }
    if let Some(mut index) = index {
        index
            .flush()
            .map_err(|e| TrawlError::internal(format!("cannot write index.jsonl: {e}")))?;
    }
    Ok(done)
}

/// A done row's listing and its Markdown (`None` when its stored copy is gone).
async fn exported(
    store: &SharedStore,
    row: &CrawlUrl,
) -> Result<Option<(ExportedPage, Option<String>)>, TrawlError> {
    let Some(handle) = row.handle.clone() else {
        return Ok(None);
    };
    let key = handle.clone();
    let record = store
        .run(move |s| s.get_document(&key))
        .await
        .map_err(|e| TrawlError::internal(format!("store: {e}")))?;
    let mut page = ExportedPage {
        url: row.url.clone(),
        title: row.title.clone(),
        handle,
        status: row.status,
        fetched_at: None,
        file: None,
        markdown: None,
        error: None,
    };
    let Some(record) = record else {
        page.error = Some("its stored copy is gone (the cache was cleared)".to_owned());
        return Ok(Some((page, None)));
    };
    page.fetched_at = Some(
        chrono::DateTime::<chrono::Utc>::from(record.fetched_at)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    );
    let doc = &record.document;
    page.title = doc.title.clone().or(page.title);
    let markdown = crate::output::titled(&doc.markdown, doc.title.as_deref());
    Ok(Some((page, Some(markdown))))
}

/// The folder must be new or empty: an export never overwrites files.
fn prepare(dir: &Path) -> Result<(), TrawlError> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(TrawlError::invalid_input(format!(
                    "{} is not empty: export into a new or empty folder",
                    dir.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))
        }
        Err(e) => Err(io(dir, e)),
    }
}

fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, TrawlError> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(|e| io(path, e))
}

fn line(out: &mut impl Write, page: &ExportedPage) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, page)?;
    out.write_all(b"\n")
}

fn io(path: &Path, e: std::io::Error) -> TrawlError {
    TrawlError::invalid_input(format!("cannot write {}: {e}", path.display()))
}

/// The file a URL's page goes to: `host[_port]/path`, a folder's page as `index.md`, an
/// extension replaced by `.md`, a query kept as a suffix. Every part is made safe: no
/// `..`, no separators, no control characters, at most 100 bytes.
pub fn file_for(url: &str) -> PathBuf {
    let parsed = url::Url::parse(url).ok();
    let mut path = PathBuf::new();
    let host = parsed
        .as_ref()
        .and_then(|u| {
            u.host_str().map(|h| match u.port() {
                Some(p) => format!("{h}_{p}"),
                None => h.to_owned(),
            })
        })
        .unwrap_or_else(|| "site".to_owned());
    path.push(safe(&host));
    let segments: Vec<String> = parsed
        .as_ref()
        .and_then(|u| u.path_segments().map(|s| s.map(decoded).collect()))
        .unwrap_or_default();
    let (dirs, last) = match segments.split_last() {
        Some((last, dirs)) if !last.is_empty() => (dirs, Some(last.as_str())),
        Some((_, dirs)) => (dirs, None),
        None => (&[][..], None),
    };
    for dir in dirs.iter().filter(|d| !d.is_empty()) {
        path.push(safe(dir));
    }
    let mut name = match last {
        Some(last) => {
            // `page.html` → `page`: a short extension goes, `.md` takes its place.
            let name = safe(last);
            match name.rsplit_once('.') {
                Some((stem, ext))
                    if !stem.is_empty()
                        && (1..=5).contains(&ext.len())
                        && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
                {
                    stem.to_owned()
                }
                _ => name,
            }
        }
        None => "index".to_owned(),
    };
    if let Some(query) = parsed.as_ref().and_then(|u| u.query()) {
        name.push('_');
        name.push_str(&safe(query));
    }
    path.push(format!("{}.md", truncate(&name, 100)));
    debug_assert!(path.components().all(|c| matches!(c, Component::Normal(_))));
    path
}

fn decoded(segment: &str) -> String {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8_lossy()
        .into_owned()
}

/// One path part with nothing a file system or a shell would read as more than a name.
fn safe(part: &str) -> String {
    let cleaned: String = part
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '=' | '+' | ',') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cleaned = cleaned.trim_start_matches('.');
    if cleaned.is_empty() {
        "_".to_owned()
    } else {
        truncate(cleaned, 100).to_owned()
    }
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `file`, or `file-2.md`, `file-3.md`… when another page took it (`/a` and `/a.html`).
fn unique(file: PathBuf, used: &mut HashSet<PathBuf>) -> PathBuf {
    if used.insert(file.clone()) {
        return file;
    }
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    for n in 2.. {
        let other = file.with_file_name(format!("{stem}-{n}.md"));
        if used.insert(other.clone()) {
            return other;
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_mirror_urls_and_stay_inside_the_folder() {
        let f = |u: &str| file_for(u).to_string_lossy().into_owned();
        assert_eq!(f("https://example.com/"), "example.com/index.md");
        assert_eq!(f("https://example.com/docs/"), "example.com/docs/index.md");
        assert_eq!(f("http://127.0.0.1:8080/a/b.html"), "127.0.0.1_8080/a/b.md");
        assert_eq!(f("https://example.com/a?page=2"), "example.com/a_page=2.md");
        // The URL parser resolves dot segments; what is left of one, decoded, is a name.
        assert_eq!(
            f("https://example.com/%2e%2e/%2e%2e/etc/passwd"),
            "example.com/etc/passwd.md"
        );
        assert_eq!(
            f("https://example.com/..%2F..%2Fetc"),
            "example.com/_.._etc.md"
        );
        assert_eq!(f("https://example.com/a%2Fb"), "example.com/a_b.md");
        assert_eq!(f("https://example.com/.env"), "example.com/env.md");
    }

    #[test]
    fn a_taken_file_gets_a_number() {
        let mut used = HashSet::new();
        let a = unique(PathBuf::from("h/a.md"), &mut used);
        let b = unique(PathBuf::from("h/a.md"), &mut used);
        assert_eq!(a, PathBuf::from("h/a.md"));
        assert_eq!(b, PathBuf::from("h/a-2.md"));
    }
}
