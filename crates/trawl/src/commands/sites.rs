use std::time::Instant;

use trawl_agent::tools::{SitesAction, SitesArgs as ToolArgs, render};
use trawl_core::{Envelope, Meta};

use crate::cli::{SitesArgs, SitesCommand};
use crate::context::build_agent;
use crate::output::{print_fenced, print_json, report_error};
use crate::settings::Settings;

/// `trawl sites [SITE]`, `trawl sites pin SITE TIER|READER`, `trawl sites reset [SITE]`:
/// the same function as the MCP `sites` tool, on the local store.
pub async fn sites(args: &SitesArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let meta = |started: Instant| Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    };
    let tool_args = match &args.action {
        None => ToolArgs {
            action: Some(SitesAction::List),
            site: args.site.clone(),
            reader: None,
        },
        Some(SitesCommand::Pin { site, reader }) => ToolArgs {
            action: Some(SitesAction::Pin),
            site: Some(site.clone()),
            reader: Some(reader.clone()),
        },
        Some(SitesCommand::Reset { site }) => ToolArgs {
            action: Some(SitesAction::Reset),
            site: site.clone(),
            reader: None,
        },
    };
    let result = async { build_agent(settings)?.sites(tool_args).await }.await;
    let out = match result {
        Ok(out) => out,
        Err(err) => return report_error(&err, args.json, meta(started)),
    };
    if args.json {
        print_json(&Envelope::success(&out, meta(started)));
        return 0;
    }
    print_fenced(|fence| render::sites_markdown(&out, fence))
}
