//! `trawl read` of local files as a batch: one file or stdin (a batch of one), several
//! files (`docs/*.docx`), a folder with `--recursive`, or files mixed with URLs. Every input
//! is one result, in the order given (a folder's files sorted by path), so a folder converts
//! like a list of URLs reads.

use std::path::{Path, PathBuf};

use trawl_agent::tools::{Agent, FetchItem, FetchOut, Progress, WebFetchArgs};
use trawl_core::{ErrorBody, TrawlError};
use trawl_extract::ExtractOptions;

use crate::cli::ReadArgs;
use crate::reader::{self, Input};

/// More files than this under the folders of one command is a mistake (`-r ~`), not a
/// batch: refused before anything is read.
const MAX_FILES: usize = 10_000;

/// One input of the batch once folders are expanded.
pub(super) enum Entry {
    Local(Input, String),
    Url(String),
}

/// Reads `entries` (from [`expand`]) as one batch, telling `report` as each is done.
pub(super) async fn read_batch(
    agent: &Agent,
    args: &ReadArgs,
    extract: &ExtractOptions,
    entries: Vec<Entry>,
    report: Option<Progress>,
) -> Result<FetchOut, TrawlError> {
    let page_args = WebFetchArgs {
        page: args.page,
        page_size_tokens: super::read::page_size_tokens(args),
        query: args.query.clone(),
        max_tokens: args.max_tokens,
        ..WebFetchArgs::default()
    };
    // A local file or stdin is held to the same cap as a download (--max-bytes).
    let max_bytes = agent.fetcher()?.config().max_bytes;
    let mut results: Vec<Option<FetchItem>> = Vec::with_capacity(entries.len());
    let mut not_stored = None;
    let mut urls = Vec::new();
    for (done, entry) in entries.iter().enumerate() {
        match entry {
            Entry::Url(url) => {
                urls.push(url.clone());
                results.push(None);
            }
            Entry::Local(input, name) => {
                let read = match reader::read_local(input, args.url.as_deref(), extract, max_bytes)
                {
                    Ok(doc) => agent.read_document_as(doc, page_args.clone()).await,
                    Err(e) => Err(e),
                };
                results.push(Some(match read {
                    Ok(mut out) => {
                        not_stored = not_stored.or(out.not_stored.take());
                        let mut item = out.results.pop().ok_or_else(|| {
                            TrawlError::internal("a local read answered no result")
                        })?;
                        item.input = name.clone();
                        item
                    }
                    Err(e) => failed(name, e),
                }));
            }
        }
        if let Some(report) = &report {
            report(done + 1, entries.len());
        }
    }
    let mut folded = Vec::new();
    if !urls.is_empty() {
        let out = read_urls(agent, args, page_args, urls).await?;
        not_stored = not_stored.or(out.not_stored);
        folded = out.folded;
        let mut answers = out.results.into_iter();
        for slot in results.iter_mut().filter(|r| r.is_none()) {
            *slot = answers.next();
        }
    }
    Ok(FetchOut {
        results: results.into_iter().flatten().collect(),
        folded,
        not_stored,
    })
}

/// The URLs of a mixed batch, read as `trawl read URL...` reads them.
async fn read_urls(
    agent: &Agent,
    args: &ReadArgs,
    page_args: WebFetchArgs,
    urls: Vec<String>,
) -> Result<FetchOut, TrawlError> {
    let batch = urls.len() > 1;
    agent
        .web_fetch(
            WebFetchArgs {
                url: (!batch).then(|| urls[0].clone()),
                urls: batch.then_some(urls),
                fresh: Some(args.fresh),
                ..page_args
            },
            None,
        )
        .await
}

fn failed(name: &str, e: TrawlError) -> FetchItem {
    FetchItem {
        input: name.to_owned(),
        ok: false,
        document: None,
        error: Some(ErrorBody::from(e)),
    }
}

/// The inputs of a batch with a file, a folder or stdin among them: folders become their
/// files; stdin may be given once. Refused here, before anything is read: `--changes`
/// (a file has no origin to ask again) and `--url` with more than one input.
pub(super) fn expand(args: &ReadArgs, inputs: Vec<Input>) -> Result<Vec<Entry>, TrawlError> {
    if args.changes {
        return Err(TrawlError::invalid_input(
            "--changes needs a URL: a file or stdin has no origin to ask again",
        ));
    }
    let recursive = args.recursive;
    let mut entries = Vec::new();
    let mut stdin_seen = false;
    for input in inputs {
        match input {
            Input::Url(url) => entries.push(Entry::Url(url)),
            Input::Stdin => {
                if std::mem::replace(&mut stdin_seen, true) {
                    return Err(TrawlError::invalid_input(
                        "- (standard input) can be given once",
                    ));
                }
                entries.push(Entry::Local(Input::Stdin, "-".to_owned()));
            }
            Input::File(path) if path.is_dir() => {
                if !recursive {
                    return Err(TrawlError::invalid_input(format!(
                        "{} is a folder: add --recursive to read the files under it",
                        path.display()
                    )));
                }
                let files = files_under(&path)?;
                if files.is_empty() {
                    return Err(TrawlError::invalid_input(format!(
                        "{} holds no file to read (hidden files are skipped)",
                        path.display()
                    )));
                }
                for file in files {
                    let name = file.display().to_string();
                    entries.push(Entry::Local(Input::File(file), name));
                }
            }
            Input::File(path) => {
                let name = path.display().to_string();
                entries.push(Entry::Local(Input::File(path), name));
            }
        }
        if entries.len() > MAX_FILES {
            return Err(TrawlError::invalid_input(format!(
                "more than {MAX_FILES} files to read: name a smaller folder"
            )));
        }
    }
    if args.url.is_some() && entries.len() > 1 {
        return Err(TrawlError::invalid_input(
            "--url names one file or stdin: give it with a single input",
        ));
    }
    Ok(entries)
}

/// The regular files under `dir`, sorted by path; hidden files and folders (a leading
/// `.`: `.git`, `.venv`) are not walked, and symbolic links are not followed.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, TrawlError> {
    let hidden = |e: &walkdir::DirEntry| {
        e.depth() > 0 && e.file_name().to_str().is_some_and(|n| n.starts_with('.'))
    };
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !hidden(e))
    {
        let entry = entry.map_err(|e| {
            TrawlError::invalid_input(format!("cannot list {}: {e}", dir.display()))
        })?;
        if entry.file_type().is_file() {
            files.push(entry.into_path());
            if files.len() > MAX_FILES {
                return Err(TrawlError::invalid_input(format!(
                    "more than {MAX_FILES} files under {}: name a smaller folder",
                    dir.display()
                )));
            }
        }
    }
    Ok(files)
}
