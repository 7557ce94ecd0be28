use std::time::Instant;

use serde::Serialize;
use trawl_core::{Document, Envelope, Meta};
use trawl_extract::ExtractOptions;
use trawl_fetch::Fetcher;

use crate::cli::{ReadArgs, ReadFormat};
use crate::output::{print_json, report_error};
use crate::reader::{self, Input};
use crate::settings::Settings;

/// The `read` contract: the document plus which page of it this is.
#[derive(Debug, Serialize)]
struct ReadData {
    #[serde(flatten)]
    document: Document,
    page: usize,
    pages: usize,
}

/// `trawl read URL|FILE|-`.
pub async fn read(args: &ReadArgs, settings: &Settings) -> i32 {
    let started = Instant::now();
    let json = args.json || args.format == ReadFormat::Json;
    let meta = |started: Instant| Meta {
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Meta::default()
    };
    let result = async {
        let input = Input::classify(&args.input)?;
        let fetcher = Fetcher::new(settings.fetch_config()?)?;
        let opts = ExtractOptions {
            include_comments: args.comments,
        };
        reader::read(&fetcher, &input, args.url.as_deref(), &opts).await
    }
    .await;
    let mut doc = match result {
        Ok(doc) => doc,
        Err(err) => return report_error(&err, json, meta(started)),
    };
    if json {
        if args.format != ReadFormat::Text {
            doc.text.clear();
        }
        let data = ReadData {
            document: doc,
            page: 1,
            pages: 1,
        };
        print_json(&Envelope::success(data, meta(started)));
        return 0;
    }
    let body = match args.format {
        ReadFormat::Text => &doc.text,
        _ => &doc.markdown,
    };
    if !args.quiet {
        println!("# {}", doc.title.as_deref().unwrap_or("(untitled)"));
        println!("url: {}", doc.final_url);
        println!(
            "handle: {} · {} words · via {} · {:?} · quality {:.2}",
            doc.handle,
            doc.word_count,
            serde_json::to_value(doc.fetched_via)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            doc.page_type,
            doc.quality_score
        );
        println!("---");
    }
    println!("{}", body.trim_end());
    0
}
