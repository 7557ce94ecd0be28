//! `trawl map URL`: a site's URLs from its robots.txt, sitemaps, llms.txt, feeds and start
//! page, without reading its pages.

use std::time::Instant;

use clap::Args;
use trawl_core::{Envelope, Meta};
use trawl_crawl::{DEFAULT_MAP_LIMIT, MapKeeping, MapOptions, SiteMap, map_site_kept};

use crate::context::build_agent;
use crate::net_args::NetArgs;
use crate::output::{print_fenced, print_json, report_error};
use crate::settings::Settings;

/// `trawl map URL [--search Q] [--limit N] [--include RE] [--exclude RE] [--subdomains]`.
#[derive(Debug, Args)]
pub struct MapArgs {
    /// The site's start URL.
    pub url: String,
    /// Rank the URLs by relevance to these words (path words, sitemap and feed titles,
    /// anchor text).
    #[arg(long, value_name = "QUERY")]
    pub search: Option<String>,
    /// At most this many URLs.
    #[arg(long, default_value_t = DEFAULT_MAP_LIMIT)]
    pub limit: usize,
    /// Keep only URLs whose path matches this regular expression (repeatable: any of them).
    #[arg(long, value_name = "REGEX")]
    pub include: Vec<String>,
    /// Leave out URLs whose path matches this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub exclude: Vec<String>,
    /// Subdomains of the start host belong to the site.
    #[arg(long)]
    pub subdomains: bool,
    /// Another port of the start host that belongs to the site (repeatable). A site is its
    /// scheme, host and port: without it, links to other ports are not followed.
    #[arg(long, value_name = "PORT")]
    pub allow_port: Vec<u16>,
    /// The whole site: without it a start URL with a path (`/docs/`) keeps to the paths
    /// under it, as Firecrawl does.
    #[arg(long)]
    pub whole_site: bool,
    /// Map again even when the store holds a map of this request younger than the read
    /// TTL (`document_ttl`); the new map replaces it.
    #[arg(long)]
    pub fresh: bool,
    /// Print the Envelope as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub net: NetArgs,
}

fn meta(started: Instant) -> Meta {
    Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    }
}

/// Runs `trawl map`.
pub async fn map(args: &MapArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let options = MapOptions {
        url: args.url.clone(),
        search: args.search.clone(),
        limit: args.limit,
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        subdomains: args.subdomains,
        allow_ports: args.allow_port.clone(),
        section_only: !args.whole_site,
        sitemap: true,
    };
    let result = async {
        let agent = build_agent(settings)?;
        let keeping = MapKeeping {
            ttl: settings.store_config().document_ttl,
            fresh: args.fresh,
        };
        map_site_kept(agent.fetcher()?, agent.store(), &options, keeping).await
    }
    .await;
    let map = match result {
        Ok(map) => map,
        Err(err) => return report_error(&err, args.json, meta(started)),
    };
    if args.json {
        print_json(&Envelope::success(&map, meta(started)));
        return 0;
    }
    for note in &map.notes {
        eprintln!("note: {note}");
    }
    print_fenced(|fence| human(&map, fence))
}

/// A header line, then the URLs (site-provided text: inside the fence).
fn human(map: &SiteMap, fence: &trawl_agent::fence::Fence) -> String {
    let mut list = String::new();
    for u in &map.urls {
        list.push_str(&u.url);
        list.push_str(&format!("  [{}]", u.source.as_str()));
        if let Some(l) = &u.lastmod {
            list.push_str(&format!("  {l}"));
        }
        if let Some(s) = u.score {
            list.push_str(&format!("  score {s:.2}"));
        }
        if let Some(t) = &u.title {
            list.push_str(&format!("  \"{t}\""));
        }
        list.push('\n');
    }
    let how = match (map.from_store, map.age_s) {
        (true, Some(age)) => format!("from the store, mapped {age} s ago; --fresh maps again"),
        (true, None) => "from the store; --fresh maps again".to_owned(),
        (false, _) => format!("{} requests", map.requests),
    };
    format!(
        "{} of {} URLs found for {} ({} sitemap file(s), robots.txt {}, {how})\n{}",
        map.urls.len(),
        map.found,
        map.start,
        map.sitemaps.len(),
        map.robots,
        fence.wrap(&list)
    )
}
