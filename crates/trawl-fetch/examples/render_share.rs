//! How many pages of a corpus `--render auto` would send to the browser: runs the tier-2
//! decision ([`trawl_fetch::escalate`]) on every `*.html` / `*.html.gz` file of a directory
//! and prints the share, with the reason for each page it would render.
//!
//! cargo run -p trawl-fetch --example render_share -- /work/shared/bench/extract/wcxb-dev/html

use std::io::Read;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: render_share DIR");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("readable directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".html") || name.ends_with(".html.gz")
        })
        .collect();
    entries.sort();
    let mut rendered = 0;
    for path in &entries {
        let raw = std::fs::read(path).expect("readable file");
        let html = if path.to_string_lossy().ends_with(".gz") {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&raw[..])
                .read_to_end(&mut out)
                .expect("gzip");
            out
        } else {
            raw
        };
        if let Some(reason) = trawl_fetch::escalate::scan(&html).shell_reason() {
            rendered += 1;
            println!("render {}: {reason}", path.display());
        }
    }
    let total = entries.len().max(1);
    println!(
        "{rendered} of {} pages would be rendered ({:.1}%)",
        entries.len(),
        100.0 * rendered as f64 / total as f64
    );
}
