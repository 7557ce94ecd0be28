//! Documents beyond HTML and PDF through the binary: served over loopback HTTP with their
//! Content-Type (or as octet-stream from a URL with no extension), read from files by
//! extension or magic bytes, and from stdin; each gets a handle, pages and `open --find`
//! from the store like a web page. The fixtures are trawl-extract's (`tests/docs/make.py`).

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, run_with_stdin, temp_dir, trawl};

fn fixture(name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../trawl-extract/tests/docs/");
    std::fs::read(format!("{path}{name}")).unwrap()
}

const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

#[test]
fn a_docx_over_http_gets_a_handle_pages_and_find() {
    let dir = temp_dir();
    let store = dir.join("store.db");
    let server = TestServer::start();
    server.route("/report.docx", Reply::ok(DOCX, fixture("report.docx")));
    server.route(
        "/download",
        Reply::ok("application/octet-stream", fixture("survey.xlsx")),
    );
    let read = |url: &str| {
        let mut cmd = trawl(&dir);
        cmd.args(["read", url, "--allow-host", "127.0.0.1", "--json"])
            .env("TRAWL_STORE", &store)
            .env("TRAWL_READERS", "none");
        run(&mut cmd)
    };
    let r = read(&server.url("/report.docx"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    let md = v["data"]["markdown"].as_str().unwrap();
    assert!(
        md.contains("## Harbours") && md.contains("| Northport | 4.2 |"),
        "{md}"
    );
    assert_eq!(v["data"]["title"], "Tidal Survey Report");
    assert_eq!(v["data"]["byline"], "Ada Marsh");
    let handle = v["data"]["handle"].as_str().unwrap().to_owned();
    assert!(handle.starts_with("127.0.0.1~"), "{handle}");

    // An xlsx served as octet-stream from a URL with no extension: the ZIP says what it is.
    let r = read(&server.url("/download"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.json()["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Crew")
    );
    drop(server);

    let open = |args: &[&str]| {
        let mut cmd = trawl(&dir);
        cmd.arg("open").args(args).env("TRAWL_STORE", &store);
        run(&mut cmd)
    };
    let r = open(&[&handle, "--find", "equinox", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let passages = r.json()["data"]["passages"].as_array().unwrap().clone();
    assert!(
        passages[0]["text"]
            .as_str()
            .unwrap()
            .contains("spring equinox"),
        "{passages:?}"
    );
    let r = open(&[&handle, "--page", "1", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.json()["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("# Methods")
    );
}

#[test]
fn files_by_extension_or_magic_and_stdin() {
    let dir = temp_dir();
    for name in [
        "stations-sjis.csv",
        "report.docx",
        "tides.ipynb",
        "harbour.atom",
    ] {
        std::fs::write(dir.join(name), fixture(name)).unwrap();
    }
    // A Shift-JIS CSV, known by its extension only.
    let r = run(trawl(&dir).args(["read", "stations-sjis.csv", "-q", "--store", ":memory:"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("| 東京 | 120 |"), "{}", r.stdout);
    // The same with --url: the base has no extension, the type still comes from the file's.
    let r = run(trawl(&dir).args([
        "read",
        "stations-sjis.csv",
        "-q",
        "--store",
        ":memory:",
        "--url",
        "https://example.org/stations",
    ]));
    assert!(r.stdout.contains("| 大阪 | 80 |"), "{}", r.stdout);
    let r = run(trawl(&dir).args(["read", "tides.ipynb", "--json", "--store", ":memory:"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["data"]["fetched_via"], "file");
    assert!(
        v["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("```python")
    );
    let r = run(trawl(&dir).args(["read", "harbour.atom", "-q", "--store", ":memory:"]));
    assert!(
        r.stdout
            .contains("## [Gauge check](https://example.org/log/1)"),
        "{}",
        r.stdout
    );
    // A docx on stdin: no name, no type, the magic bytes and its members decide.
    let r = run_with_stdin(
        trawl(&dir).args(["read", "-", "-q", "--store", ":memory:"]),
        Some(&fixture("report.docx")),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("# Findings"), "{}", r.stdout);
}

#[test]
fn a_zip_bomb_exits_1_with_too_large() {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.start_file(
        "word/document.xml",
        zip::write::SimpleFileOptions::default().compression_level(Some(9)),
    )
    .unwrap();
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..80 {
        w.write_all(&zeros).unwrap();
    }
    let bomb = w.finish().unwrap().into_inner();
    let dir = temp_dir();
    std::fs::write(dir.join("bomb.docx"), &bomb).unwrap();
    let r = run(trawl(&dir).args(["read", "bomb.docx", "--json", "--store", ":memory:"]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["error"]["code"], "too_large", "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("ZIP bomb"),
        "{v}"
    );
}

fn pdf_fixture(name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../trawl-extract/tests/pdf/");
    std::fs::read(format!("{path}{name}")).unwrap()
}

fn ocr_fixture(name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../trawl-extract/tests/ocr/");
    std::fs::read(format!("{path}{name}")).unwrap()
}

/// A PDF's tables as GFM; a scanned PDF read by OCR (Debian's tesseract, installed by
/// scripts/lib/prereqs.sh), and without OCR the typed `no_text_layer` that says how to
/// get it.
#[test]
fn a_pdf_file_reads_with_its_tables_and_a_scan_reads_by_ocr() {
    let dir = temp_dir();
    std::fs::write(dir.join("invoice.pdf"), pdf_fixture("invoice.pdf")).unwrap();
    std::fs::write(dir.join("scanned.pdf"), ocr_fixture("scan.pdf")).unwrap();
    let r = run(trawl(&dir).args(["read", "invoice.pdf", "-q", "--store", ":memory:"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("| HB-305 | Bilge pump service | 1 | 120.00 | 120.00 |"),
        "{}",
        r.stdout
    );
    let r = run(trawl(&dir).args(["read", "scanned.pdf", "--store", ":memory:"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("ocr: read by tesseract, mean word confidence"),
        "{}",
        r.stdout
    );
    // Both pages, in the order printed.
    let (first, second) = (
        r.stdout.find("Tide tables for the coming season"),
        r.stdout.find("Moorings and charges"),
    );
    assert!(
        matches!((first, second), (Some(a), Some(b)) if a < b),
        "{}",
        r.stdout
    );
    let r = run(trawl(&dir).args(["read", "scanned.pdf", "--json", "--store", ":memory:"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["data"]["ocr"], true);
    assert!(v["data"]["ocr_confidence"].as_f64().unwrap() > 80.0, "{v}");

    let r = run(trawl(&dir).env("TRAWL_OCR", "0").args([
        "read",
        "scanned.pdf",
        "--json",
        "--store",
        ":memory:",
    ]));
    assert_eq!(r.code, 1);
    let v = r.json();
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "no_text_layer");
    assert_eq!(v["error"]["retryable"], false);
    let r = run(trawl(&dir)
        .env("TRAWL_TESSERACT", dir.join("no-tesseract"))
        .args(["read", "scanned.pdf", "--store", ":memory:"]));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("no_text_layer"), "{}", r.stderr);
    assert!(
        r.stderr.contains("apt-get install tesseract-ocr"),
        "{}",
        r.stderr
    );
}

/// Images by OCR through the CLI: a screenshot's paragraph, a photo without text that
/// says so and keeps its EXIF summary (never its position), a 20,000 × 20,000 PNG refused
/// from its header, and a language that is not installed named as such.
#[test]
fn images_read_by_ocr_with_their_bounds() {
    let dir = temp_dir();
    for name in ["paragraph.png", "photo.jpg", "huge.png"] {
        std::fs::write(dir.join(name), ocr_fixture(name)).unwrap();
    }
    let r = run(trawl(&dir).args(["read", "paragraph.png", "-q", "--store", ":memory:"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("The harbour master opens the lock gates two hours before high water."),
        "{}",
        r.stdout
    );

    let r = run(trawl(&dir).args(["read", "photo.jpg", "--store", ":memory:"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("No text found in this image"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "image: 640 × 480 JPEG · taken 2026-06-21T07:44:59 · records a GPS position (not shown)"
        ),
        "{}",
        r.stdout
    );
    let r = run(trawl(&dir).args(["read", "photo.jpg", "--json", "--store", ":memory:"]));
    let v = r.json();
    assert_eq!(v["data"]["word_count"], 0);
    assert_eq!(v["data"]["image"]["gps"], true);
    assert_eq!(v["data"]["image"]["camera"], "Harbourcam HC-2");
    // 50°9'30" N: neither the degrees nor the minutes appear anywhere.
    assert!(
        !r.stdout.contains("50.15") && !r.stdout.contains("\"9\""),
        "{}",
        r.stdout
    );

    let r = run(trawl(&dir).args(["read", "huge.png", "--store", ":memory:"]));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr.contains("too_large") && r.stderr.contains("20000 × 20000"),
        "{}",
        r.stderr
    );

    let r = run(trawl(&dir).args([
        "read",
        "paragraph.png",
        "--ocr-lang",
        "xx",
        "--store",
        ":memory:",
    ]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("`xx` is not installed") && r.stderr.contains("eng"),
        "{}",
        r.stderr
    );
}
