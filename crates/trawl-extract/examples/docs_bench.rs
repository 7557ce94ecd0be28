//! Convert document files to Markdown the way `trawl read FILE` does, for inspection and
//! for the documents benchmark (BENCHMARKS.md): `docs_bench [--print] [--rounds N] FILE...`.
//! Prints each file's Markdown with `--print`; otherwise files per second over N rounds
//! (peak RSS is measured from outside, by the benchmark script).

use std::time::Instant;

fn main() {
    let mut print = false;
    let mut rounds = 1usize;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--print" => print = true,
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds N")
            }
            _ => files.push(a),
        }
    }
    let inputs: Vec<(String, Vec<u8>, url::Url)> = files
        .iter()
        .map(|f| {
            let abs = std::fs::canonicalize(f).expect("file exists");
            let url = url::Url::from_file_path(&abs).expect("absolute path");
            (f.clone(), std::fs::read(&abs).expect("read file"), url)
        })
        .collect();
    let opts = trawl_extract::ExtractOptions::default();
    let start = Instant::now();
    let (mut ok, mut failed) = (0usize, 0usize);
    for _ in 0..rounds {
        for (name, bytes, url) in &inputs {
            let ext = url.path().rsplit('.').next().unwrap_or("");
            let ct = trawl_extract::content_type_for_extension(ext);
            match trawl_extract::extract(bytes, ct, url, &opts) {
                Ok(doc) => {
                    ok += 1;
                    if print {
                        println!(
                            "==> {name} (title {:?}, by {:?}, {:?})",
                            doc.title, doc.byline, doc.published
                        );
                        println!("{}", doc.markdown);
                    }
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("{name}: {}: {}", e.code.as_str(), e.message);
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if !print {
        println!(
            "{ok} converted, {failed} failed, {secs:.3} s, {:.1} files/s",
            ok as f64 / secs
        );
    }
}
