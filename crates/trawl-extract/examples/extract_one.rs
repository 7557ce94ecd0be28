//! Extract one saved page and print its Markdown: `extract_one FILE [URL [NEEDLE]]`. With
//! NEEDLE, print instead how the element holding that text and its ancestors fare in the
//! boilerplate stage (`trawl_extract::explain`).

use std::io::Read;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: extract_one FILE[.gz] [URL]");
        std::process::exit(2);
    };
    let raw = std::fs::read(path).expect("read FILE");
    let mut bytes = Vec::new();
    if path.ends_with(".gz") {
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut bytes)
            .expect("gunzip");
    } else {
        bytes = raw;
    }
    let url =
        url::Url::parse(args.get(2).map_or("https://example.com/", String::as_str)).expect("URL");
    if let Some(needle) = args.get(3) {
        print!("{}", trawl_extract::explain(&bytes, &url, needle));
        return;
    }
    match trawl_extract::extract(
        &bytes,
        Some("text/html"),
        &url,
        &trawl_extract::ExtractOptions::default(),
    ) {
        Ok(doc) => {
            let mut meta = doc.clone();
            meta.markdown.clear();
            meta.text.clear();
            meta.json_ld.clear();
            eprintln!("{meta:?}");
            print!("{}", doc.markdown);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
