use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

use trawl_agent::tools::{AgentConfig, FetchOut, Progress, WebFetchArgs, render};
use trawl_core::{Envelope, Meta, TrawlError};
use trawl_extract::ExtractOptions;

use crate::cli::{ReadArgs, ReadFormat};
use crate::context::build_agent_with;
use crate::errors::{exit_code, print_error};
use crate::output::{print_fenced, print_json, report_error};
use crate::reader::Input;
use crate::settings::Settings;

fn meta(started: Instant) -> Meta {
    Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    }
}

/// `trawl read URL... | FILE | -`.
pub async fn read(args: &ReadArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let json = args.json || args.format == ReadFormat::Json;
    let mut out = match run(args, settings).await {
        Ok(out) => out,
        Err(err) => return report_error(&err, json, meta(started)),
    };
    // A read the store could not keep still answers; the note goes in `meta` (and the
    // warning to stderr), not in the page.
    let not_stored = out.not_stored.take();
    if let Some(note) = &not_stored {
        eprintln!("warning: not stored: {}", note.message);
    }
    let meta = |started: Instant| {
        let mut m = meta(started);
        if let Some(note) = &not_stored {
            m.extra.insert(
                "not_stored".to_owned(),
                serde_json::to_value(note).unwrap_or_default(),
            );
        }
        m
    };
    // A page that needed a browser and found none: one hint for the whole run.
    if let Some(hint) = out
        .results
        .iter()
        .filter_map(|r| r.document.as_ref())
        .flat_map(|d| d.attempts.iter())
        .find(|a| a.reader == "render" && a.outcome == "unavailable")
        .and_then(|a| a.detail.clone())
    {
        eprintln!("hint: a page looked script-built but was read without a browser: {hint}");
    }
    let first_error = out
        .results
        .iter()
        .find_map(|r| r.error.clone())
        .map(TrawlError::from);
    // Thin pages and pages asking to sign in: said in `meta` (and on stderr for a pipe,
    // whose output has no header to say it in).
    let notes: Vec<serde_json::Value> = out
        .results
        .iter()
        .filter_map(|r| r.document.as_ref())
        .flat_map(|d| {
            trawl_agent::tools::thin::notes(&d.attempts).map(move |a| {
                serde_json::json!({"url": d.final_url, "note": a.outcome, "detail": a.detail})
            })
        })
        .collect();
    if args.quiet || args.format == ReadFormat::Text {
        for n in &notes {
            eprintln!(
                "note: {} ({}): {}",
                n["note"].as_str().unwrap_or_default(),
                n["url"].as_str().unwrap_or_default(),
                n["detail"].as_str().unwrap_or_default()
            );
        }
    }
    let meta = |started: Instant| {
        let mut m = meta(started);
        if !notes.is_empty() {
            m.extra
                .insert("notes".to_owned(), serde_json::Value::Array(notes.clone()));
        }
        m
    };
    // Read while the store did not answer: said in `meta` (and on stderr), since the
    // handles may not open later.
    let store_unavailable = out.results.iter().any(|r| {
        r.document.as_ref().is_some_and(|d| {
            d.attempts
                .iter()
                .any(|a| a.outcome == trawl_agent::tools::STORE_UNAVAILABLE)
        })
    });
    let meta = |started| {
        let mut m = meta(started);
        if store_unavailable {
            m.extra.insert(
                trawl_agent::tools::STORE_UNAVAILABLE.into(),
                serde_json::Value::Bool(true),
            );
        }
        m
    };
    if store_unavailable && !json {
        eprintln!("warning: the store did not answer; read from the network and not kept");
    }
    if json {
        if out.results.len() == 1 {
            let item = out.results.into_iter().next().expect("one result");
            match (item.document, first_error.clone()) {
                (Some(doc), _) => print_json(&Envelope::success(doc, meta(started))),
                (None, Some(err)) => return report_error(&err, true, meta(started)),
                (None, None) => {}
            }
        } else {
            print_json(&Envelope::success(&out, meta(started)));
            if let Some(err) = &first_error {
                print_error(err, None, None);
            }
        }
        return first_error.map_or(0, |err| exit_code(&err).max(1));
    }
    // Human mode says each failure once: on stderr when nothing was read, inline in the
    // batch's Markdown (with a count on stderr) when some inputs were.
    let failed = out.results.iter().filter(|r| r.error.is_some()).count();
    if out.results.iter().any(|r| r.document.is_some()) {
        print_human(args, settings, &out);
        if failed > 0 {
            eprintln!(
                "error: {failed} of {} inputs could not be read (see above)",
                out.results.len()
            );
        }
    } else {
        for e in out.results.iter().filter_map(|r| r.error.clone()) {
            print_error(&TrawlError::from(e), None, None);
        }
    }
    first_error.map_or(0, |err| exit_code(&err).max(1))
}

async fn run(args: &ReadArgs, settings: &Settings) -> Result<FetchOut, TrawlError> {
    let extract = settings.extract_options(ExtractOptions {
        include_comments: args.comments,
        ..ExtractOptions::default()
    });
    let config = AgentConfig {
        offline: args.offline,
        extract: extract.clone(),
        ..AgentConfig::default()
    };
    let agent = build_agent_with(settings, config)?;
    let out = read_with(&agent, args, &extract).await;
    // Nothing outlives `trawl read`: the browser (if a page needed one) is closed here.
    agent.shutdown().await;
    out
}

async fn read_with(
    agent: &trawl_agent::tools::Agent,
    args: &ReadArgs,
    extract: &ExtractOptions,
) -> Result<FetchOut, TrawlError> {
    let inputs: Vec<Input> = args
        .inputs
        .iter()
        .map(|i| Input::classify(i))
        .collect::<Result<_, _>>()?;
    let urls: Vec<String> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Url(u) => Some(u.clone()),
            _ => None,
        })
        .collect();
    if urls.len() != inputs.len() {
        // A file, stdin, files, a folder, or any of them among URLs: one batch, a result an
        // input (one file or stdin is a batch of one).
        let entries = super::read_files::expand(args, inputs)?;
        let bar = shows_progress(entries.len(), args.json, std::io::stderr().is_terminal())
            .then(|| progress_bar(entries.len()));
        let out =
            super::read_files::read_batch(agent, args, extract, entries, progress_of(&bar)).await;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        return out;
    }
    if args.url.is_some() {
        return Err(TrawlError::invalid_input(
            "--url only applies to a file or stdin",
        ));
    }
    if let Some(browser) = browser_args(args)? {
        let [url] = urls.as_slice() else {
            return Err(TrawlError::invalid_input(
                "--screenshot, --action and --wait-for read one URL in the browser",
            ));
        };
        if args.changes {
            return Err(TrawlError::invalid_input(
                "give --changes or browser steps (--action, --screenshot), not both",
            ));
        }
        let mut out = agent
            .web_fetch(
                WebFetchArgs {
                    url: Some(url.clone()),
                    page: args.page,
                    page_size_tokens: page_size_tokens(args),
                    query: args.query.clone(),
                    max_tokens: args.max_tokens,
                    ..browser
                },
                None,
            )
            .await?;
        if let Some(file) = &args.screenshot {
            super::screenshot::write_screenshots(file, &mut out)?;
        }
        return Ok(out);
    }
    let bar = shows_progress(urls.len(), args.json, std::io::stderr().is_terminal())
        .then(|| progress_bar(urls.len()));
    let progress = progress_of(&bar);
    let batch = urls.len() > 1;
    let mut out = agent
        .web_fetch(
            WebFetchArgs {
                url: (!batch).then(|| urls[0].clone()),
                urls: batch.then_some(urls),
                page: args.page,
                page_size_tokens: page_size_tokens(args),
                fresh: Some(args.fresh),
                query: args.query.clone(),
                max_tokens: args.max_tokens,
                changes: args.changes.then_some(true),
                ..WebFetchArgs::default()
            },
            progress,
        )
        .await;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Ok(out) = &mut out {
        hint_plain_http(&args.inputs, out);
    }
    out
}

/// An address given without a scheme is tried as `https://`; a server that speaks plain
/// HTTP then fails the TLS handshake with words no one connects to the cause. Its error
/// says what was tried and what to give instead (trawl does not fall back to plain HTTP on
/// its own: that would be a downgrade nobody asked for).
fn hint_plain_http(inputs: &[String], out: &mut FetchOut) {
    let tls_words = [
        "tls",
        "ssl",
        "handshake",
        "invalidcontenttype",
        "corrupt message",
    ];
    for item in &mut out.results {
        let Some(error) = item.error.as_mut() else {
            continue;
        };
        let given = inputs
            .iter()
            .find(|raw| !raw.contains("://") && item.input == format!("https://{}", raw.trim()));
        let lower = error.message.to_lowercase();
        if let Some(given) = given
            && tls_words.iter().any(|w| lower.contains(w))
        {
            error.message.push_str(&format!(
                " (hint: {given} has no scheme, so it was read as https://; if the server speaks plain HTTP, give http://{given})"
            ));
        }
    }
}

/// The browser part of `trawl read` as `web_fetch` takes it, or `None` when no browser
/// step was asked for. Steps are checked here, before anything is fetched.
fn browser_args(args: &ReadArgs) -> Result<Option<WebFetchArgs>, TrawlError> {
    let mut actions = Vec::new();
    if let Some(selector) = &args.wait_for {
        actions.push(trawl_fetch::browse::Action::parse_spec(&format!(
            "wait:{selector}"
        ))?);
    }
    for spec in &args.actions {
        actions.push(trawl_fetch::browse::Action::parse_spec(spec)?);
    }
    let shots_by_actions = actions
        .iter()
        .any(|a| matches!(a, trawl_fetch::browse::Action::Screenshot { .. }));
    if shots_by_actions && args.screenshot.is_none() {
        return Err(TrawlError::invalid_input(
            "a screenshot action needs --screenshot FILE: its image is written beside FILE",
        ));
    }
    if actions.is_empty() && args.screenshot.is_none() {
        if args.viewport.is_some() {
            return Err(TrawlError::invalid_input(
                "--viewport applies to --screenshot or --action",
            ));
        }
        return Ok(None);
    }
    Ok(Some(WebFetchArgs {
        actions: Some(actions.iter().map(|a| a.to_json()).collect()),
        screenshot: args.screenshot.is_some().then_some(true),
        full_page: args.full_page.then_some(true),
        viewport: args.viewport.clone(),
        ..WebFetchArgs::default()
    }))
}

/// A batch read shows a progress bar on a terminal from its start (pages can take seconds
/// each); a pipe, a single read or `--json` gets nothing on stderr.
fn shows_progress(urls: usize, json: bool, stderr_is_terminal: bool) -> bool {
    urls > 1 && !json && stderr_is_terminal
}

/// The batch's progress, reported to `bar` when there is one.
fn progress_of(bar: &Option<indicatif::ProgressBar>) -> Option<Progress> {
    bar.clone().map(|bar| {
        Arc::new(move |done: usize, total: usize| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }) as Progress
    })
}

fn progress_bar(total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total as u64);
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} reading {bar:30} {pos}/{len} pages  {elapsed}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(std::time::Duration::from_millis(100));
    bar
}

/// `-q` is for pipes, where a page cut short loses words without a sign: it prints the
/// whole document unless `--page` or `--page-size-tokens` asks for pages.
pub(super) fn page_size_tokens(args: &ReadArgs) -> Option<u32> {
    if args.quiet && args.page.is_none() && args.page_size_tokens.is_none() {
        Some(0)
    } else {
        args.page_size_tokens
    }
}

/// Body-only output has no footer: say on stderr which documents have more pages and the
/// command that prints the next one.
fn note_more_pages(out: &FetchOut) {
    for doc in out.results.iter().filter_map(|r| r.document.as_ref()) {
        if doc.page < doc.pages {
            eprintln!(
                "note: this is page {} of {} of {}; next: trawl open {} --page {} \
                 (or read with --page-size-tokens 0 for the whole document)",
                doc.page,
                doc.pages,
                doc.final_url,
                doc.handle,
                doc.page + 1
            );
        }
    }
}

fn print_human(args: &ReadArgs, _settings: &Settings, out: &FetchOut) {
    if args.quiet || args.format == ReadFormat::Text || args.raw {
        note_more_pages(out);
    }
    if args.quiet || args.format == ReadFormat::Text {
        // Body only: for pipes. Text format strips Markdown syntax. A batch heads each
        // document with `==> INPUT <==`, as head(1) does for several files, so the
        // documents can be told apart (and split); a failed input says why on stderr.
        let batch = out.results.len() > 1;
        let mut first = true;
        for item in &out.results {
            if let Some(doc) = &item.document {
                // A change-tracking read's news is its diff; its status goes to stderr.
                if let Some(changes) = &doc.changes {
                    eprintln!(
                        "change_status: {} ({}, version {})",
                        changes.change_status.as_str(),
                        doc.final_url,
                        changes.version
                    );
                    if let Some(diff) = &changes.diff {
                        println!("{}", diff.trim_end());
                        continue;
                    }
                    if doc.markdown.is_empty() {
                        continue;
                    }
                }
                // A pipe reads what the page is first: the first page opens with its
                // title (the extractor keeps an H1 equal to <title> in metadata).
                let markdown = if doc.page <= 1 {
                    crate::output::titled(&doc.markdown, doc.title.as_deref())
                } else {
                    doc.markdown.clone()
                };
                let body = if args.format == ReadFormat::Text {
                    crate::output::markdown_to_text(&markdown)
                } else {
                    markdown
                };
                if batch {
                    let gap = if first { "" } else { "\n" };
                    println!("{gap}==> {} <==", item.input);
                }
                first = false;
                println!("{}", body.trim_end());
            } else if let Some(e) = &item.error {
                print_error(&TrawlError::from(e.clone()), Some(&item.input), None);
            }
        }
        return;
    }
    if args.raw {
        for item in &out.results {
            if let Some(doc) = &item.document {
                println!("# {}", doc.title.as_deref().unwrap_or("(untitled)"));
                println!("url: {}", doc.final_url);
                println!(
                    "handle: {} · page {}/{} · {} words · via {} · quality {:.2}",
                    doc.handle,
                    doc.page,
                    doc.pages,
                    doc.word_count,
                    serde_json::to_value(doc.fetched_via)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    doc.quality_score
                );
                println!("---");
                println!("{}", doc.markdown.trim_end());
            }
        }
        return;
    }
    // The read's exit status is decided by its results; a fence failure is only reported.
    let _ = print_fenced(|fence| render::fetch_markdown_as(out, fence, render::Voice::Person));
}

#[cfg(test)]
mod tests {
    use super::shows_progress;

    #[test]
    fn only_a_batch_on_a_terminal_shows_progress() {
        assert!(shows_progress(2, false, true));
        assert!(!shows_progress(1, false, true), "one page");
        assert!(!shows_progress(5, false, false), "a pipe");
        assert!(!shows_progress(5, true, true), "--json");
    }
}
