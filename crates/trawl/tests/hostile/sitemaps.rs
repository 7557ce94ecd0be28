//! A sitemap flood: robots.txt names an index of four gzipped sitemaps of 1.6 M URLs each
//! (the shape that took `trawl map --limit 5` to 513 MB and `trawl crawl --limit 10` to
//! 885 MB and 310 MB of SQLite). Now each reads as it inflates and stops at what the
//! request needs: bounded peak memory, a small store, and notes that say what was not read.

use std::io::Write;
use std::process::{Command, Stdio};

use trawl_testkit::{Reply, TestServer};

use super::pdf::run_measured;
use crate::util::{temp_dir, trawl};

/// URLs in each sitemap.
const URLS: usize = 1_600_000;
/// The bound on each command's peak resident memory.
const PEAK_RSS: u64 = 200 << 20;
/// The bound on the store's growth.
const STORE_GROWTH: u64 = 50 << 20;

/// One sitemap of `URLS` relative locations (`/p0` …), gzipped by the system's gzip (a
/// debug build's deflate would take a minute for 48 MB).
fn flood() -> Vec<u8> {
    let mut xml = String::with_capacity(URLS * 31 + 100);
    xml.push_str(
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for i in 0..URLS {
        xml.push_str(&format!("<url><loc>/p{i:x}</loc></url>\n"));
    }
    xml.push_str("</urlset>\n");
    let mut gzip = Command::new("gzip")
        .args(["-1", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip");
    let mut stdin = gzip.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(xml.as_bytes()).unwrap());
    let out = gzip.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// The flood's routes on `server`: robots.txt, the index, its four sitemaps, a home page
/// and the first 40 pages the sitemaps name.
pub(crate) fn flood_routes(server: &TestServer) {
    let gz = flood();
    server.route(
        "/robots.txt",
        Reply::ok(
            "text/plain",
            format!("User-agent: *\nSitemap: {}\n", server.url("/index.xml")),
        ),
    );
    let index: String = (0..4)
        .map(|i| format!("<sitemap><loc>/s{i}.xml.gz</loc></sitemap>"))
        .collect();
    server.route(
        "/index.xml",
        Reply::ok(
            "application/xml",
            format!("<?xml version=\"1.0\"?><sitemapindex>{index}</sitemapindex>"),
        ),
    );
    for i in 0..4 {
        server.route(
            &format!("/s{i}.xml.gz"),
            Reply::ok("application/gzip", gz.clone()),
        );
    }
    server.route(
        "/",
        Reply::html("<html><head><title>Flood</title></head><body><p>Home.</p></body></html>"),
    );
    for i in 0..40 {
        server.route(
            &format!("/p{i:x}"),
            Reply::html(format!(
                "<html><head><title>Page {i}</title></head><body><article><h1>Page {i}</h1>\
                 <p>Harbour seals rest on the sandbanks at low tide and hunt when it turns {i}.</p>\
                 </article></body></html>"
            )),
        );
    }
}

fn site() -> TestServer {
    let server = TestServer::start();
    flood_routes(&server);
    server
}

fn store_size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("store.db"))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

#[test]
fn a_sitemap_flood_maps_and_crawls_in_bounded_memory_and_store() {
    let server = site();
    let dir = temp_dir();
    let store = dir.join("store.db");
    let store = store.to_str().unwrap();
    let (code, stdout, peak) = run_measured(trawl(&dir).args([
        "--store",
        store,
        "map",
        &server.url("/"),
        "--limit",
        "5",
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(code, 0, "{stdout}");
    eprintln!("map --limit 5: peak RSS {} MiB", peak >> 20);
    assert!(peak < PEAK_RSS, "map: peak RSS {} MiB", peak >> 20);
    let map: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        map["data"]["urls"].as_array().map(Vec::len),
        Some(5),
        "{map}"
    );
    let notes = map["data"]["notes"].to_string();
    assert!(notes.contains("sitemaps: stopped at 5 URLs"), "{notes}");
    assert!(
        notes.contains("3 named sitemap file(s) not read"),
        "{notes}"
    );
    // Only the first sitemap was asked for.
    assert_eq!(server.hits("/s1.xml.gz"), 0);

    let before = store_size(&dir);
    let (code, stdout, peak) = run_measured(trawl(&dir).args([
        "--store",
        store,
        "crawl",
        &server.url("/"),
        "--limit",
        "10",
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(code, 0, "{stdout}");
    assert!(peak < PEAK_RSS, "crawl: peak RSS {} MiB", peak >> 20);
    let grown = store_size(&dir).saturating_sub(before);
    eprintln!(
        "crawl --limit 10: peak RSS {} MiB, store grew {} KiB",
        peak >> 20,
        grown >> 10
    );
    assert!(grown < STORE_GROWTH, "store grew {} MiB", grown >> 20);
    let crawl: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let summary = crawl["data"].to_string();
    assert!(
        summary.contains("sitemaps: stopped at 1000 URLs"),
        "{summary}"
    );
    assert_eq!(server.hits("/s1.xml.gz"), 0);

    // With a search every candidate is ranked, up to the documented 100,000.
    let (code, stdout, peak) = run_measured(trawl(&dir).args([
        "--store",
        store,
        "map",
        &server.url("/"),
        "--search",
        "page harbour",
        "--limit",
        "5",
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(code, 0, "{stdout}");
    eprintln!("map --search: peak RSS {} MiB", peak >> 20);
    assert!(peak < PEAK_RSS, "map --search: peak RSS {} MiB", peak >> 20);
    let map: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        map["data"]["notes"]
            .to_string()
            .contains("sitemaps: stopped at 100000 URLs"),
        "{map}"
    );
}
