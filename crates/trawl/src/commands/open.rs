use std::time::Instant;

use trawl_agent::tools::{Agent, OpenOut, WebOpenArgs, render};
use trawl_core::{Envelope, Meta, TrawlError};
use trawl_store::{FindScope, UrlState};

use crate::cli::OpenArgs;
use crate::context::build_agent;
use crate::output::{print_fenced, print_json, report_error};
use crate::settings::Settings;

/// How many times `limit` hits of the whole store a crawl's find looks through first.
const CRAWL_FIND_WIDENING: usize = 20;

/// Passages matching `find` in the pages crawl `id` stored, best first, at most `limit`.
async fn find_in_crawl(
    agent: &Agent,
    id: &str,
    find: &str,
    limit: usize,
) -> Result<OpenOut, TrawlError> {
    if !find.chars().any(char::is_alphanumeric) {
        return Err(TrawlError::invalid_input(
            "find: needs at least one letter or digit",
        ));
    }
    let store = agent.store();
    let handles: Vec<String> = trawl_crawl::pages(store, id, &[UrlState::Done], 0, 0)
        .await?
        .into_iter()
        .filter_map(|u| u.handle)
        .collect();
    let query = find.to_owned();
    let mut hits = store
        .run(move |s| {
            // The store's best hits, kept where they are the crawl's: when enough are, they
            // are the crawl's best (a crawl's page ranked higher would be among them). Else
            // each page is searched in turn (a crawl that is a small part of the store).
            // (`limit` is 1 to 50.)
            let crawl: std::collections::HashSet<&str> =
                handles.iter().map(String::as_str).collect();
            let widest = limit.saturating_mul(CRAWL_FIND_WIDENING);
            let best = s.find(&query, FindScope::All, widest)?;
            let scanned_all = best.len() < widest;
            let hits: Vec<_> = best
                .into_iter()
                .filter(|h| crawl.contains(h.handle.as_str()))
                .collect();
            if hits.len() >= limit || scanned_all {
                return Ok(hits);
            }
            let mut hits = Vec::new();
            for handle in &handles {
                hits.extend(s.find(&query, FindScope::Document(handle), limit)?);
            }
            Ok(hits)
        })
        .await
        .map_err(|e| TrawlError::internal(format!("store: {e}")))?;
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits.truncate(limit);
    Ok(OpenOut {
        handle: None,
        title: None,
        url: None,
        page: None,
        pages: None,
        markdown: None,
        find: Some(find.to_owned()),
        passages: Some(trawl_agent::tools::passages_out(store, hits).await?),
        version: None,
        crawl: Some(id.to_owned()),
    })
}

/// `trawl open HANDLE [--page N | --find WORDS] [--all | --crawl ID]`: from the store, no
/// network.
pub async fn open(args: &OpenArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let meta = |started: Instant| Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    };
    if args.handle.is_none() && !args.all && args.crawl.is_none() {
        let err = TrawlError::invalid_input(
            "give the document's HANDLE (printed by `trawl read`), or --find WORDS --all to search every stored document (--crawl ID: one crawl's pages)",
        );
        return report_error(&err, args.json, meta(started));
    }
    let result = async {
        let agent = build_agent(settings)?;
        if let Some(id) = &args.crawl {
            let find = args
                .find
                .as_deref()
                .ok_or_else(|| TrawlError::invalid_input("--crawl needs --find WORDS"))?;
            let limit = args.limit.unwrap_or(8).clamp(1, 50) as usize;
            return find_in_crawl(&agent, id, find, limit).await;
        }
        agent
            .web_open(WebOpenArgs {
                handle: args.handle.clone(),
                page: args.page,
                find: args.find.clone(),
                all: Some(args.all),
                page_size_tokens: args.page_size_tokens,
                limit: args.limit,
                version: args.version,
            })
            .await
    }
    .await;
    let out = match result {
        Ok(out) => out,
        Err(err) => return report_error(&speak_cli(err), args.json, meta(started)),
    };
    if args.json {
        print_json(&Envelope::success(&out, meta(started)));
        return 0;
    }
    if args.raw {
        if let Some(md) = &out.markdown {
            println!("{}", md.trim_end());
        }
        for (rank, p) in out.passages.iter().flatten().enumerate() {
            println!(
                "[#{} · {}{} page {}]\n{}\n",
                rank + 1,
                p.url
                    .as_deref()
                    .map(|u| format!("{u} · "))
                    .unwrap_or_default(),
                p.handle,
                p.page,
                p.text.trim()
            );
        }
        return 0;
    }
    print_fenced(|fence| render::open_markdown_as(&out, fence, render::Voice::Person))
}

/// The agent's errors name tools (`read it first with web_fetch`); a person runs commands.
fn speak_cli(mut err: TrawlError) -> TrawlError {
    err.message = err.message.replace(
        "read it first with web_fetch",
        "read it first with `trawl read URL`",
    );
    err
}
