use std::time::Instant;

use trawl_agent::tools::{WebOpenArgs, render};
use trawl_core::{Envelope, Meta, TrawlError};

use crate::cli::OpenArgs;
use crate::context::build_agent;
use crate::output::{print_fenced, print_json, report_error};
use crate::settings::Settings;

/// `trawl open HANDLE [--page N | --find WORDS] [--all]`: from the store, no network.
pub async fn open(args: &OpenArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let meta = |started: Instant| Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    };
    if args.handle.is_none() && !args.all {
        let err = TrawlError::invalid_input(
            "give the document's HANDLE (printed by `trawl read`), or --find WORDS --all to search every stored document",
        );
        return report_error(&err, args.json, meta(started));
    }
    let result = async {
        let agent = build_agent(settings)?;
        agent
            .web_open(WebOpenArgs {
                handle: args.handle.clone(),
                page: args.page,
                find: args.find.clone(),
                all: Some(args.all),
                page_size_tokens: args.page_size_tokens,
                limit: args.limit,
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
        for p in out.passages.iter().flatten() {
            println!(
                "[{} page {} · score {:.2}]\n{}\n",
                p.handle,
                p.page,
                p.score,
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
