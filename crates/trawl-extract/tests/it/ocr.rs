//! OCR with the real tesseract (installed by scripts/lib/prereqs.sh): fixtures in tests/ocr.

use trawl_extract::{ExtractOptions, OcrOptions, extract};

fn read(name: &str) -> Result<trawl_core::Document, trawl_core::TrawlError> {
    let path = format!("{}/tests/ocr/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    let url = url::Url::parse(&format!("file:///ocr/{name}")).unwrap();
    let opts = ExtractOptions {
        ocr: OcrOptions {
            enabled: true,
            ..OcrOptions::default()
        },
        ..ExtractOptions::default()
    };
    extract(&bytes, None, &url, &opts)
}

/// Share of the rendered words found in order (longest common subsequence).
fn recall(name: &str, got: &str) -> f64 {
    let want = std::fs::read_to_string(format!("{}/tests/ocr/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    let norm = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (a, b) = (norm(&want), norm(got));
    let mut row = vec![0usize; b.len() + 1];
    for x in &a {
        let mut prev = 0;
        for (j, y) in b.iter().enumerate() {
            let keep = row[j + 1];
            row[j + 1] = if x == y {
                prev + 1
            } else {
                row[j + 1].max(row[j])
            };
            prev = keep;
        }
    }
    row[b.len()] as f64 / a.len() as f64
}

#[test]
fn a_screenshot_of_a_paragraph_reads_in_order() {
    for (name, format) in [
        ("paragraph.png", "png"),
        ("paragraph.webp", "webp"),
        ("paragraph.tif", "tiff"),
    ] {
        let doc = read(name).unwrap();
        assert!(doc.ocr, "{name}");
        assert_eq!(doc.image.as_ref().unwrap().format, format);
        let r = recall("paragraph.txt", &doc.markdown);
        eprintln!("{name} recall {r:.3}, confidence {:?}", doc.ocr_confidence);
        assert!(r >= 0.95, "{name}: {r} {}", doc.markdown);
    }
}

#[test]
fn a_scanned_pdf_of_two_pages_reads_in_order() {
    let doc = read("scan.pdf").unwrap();
    assert!(doc.ocr);
    assert_eq!(doc.pages, Some(2));
    let r = recall("scan.txt", &doc.markdown);
    eprintln!("scan recall {r:.3}, confidence {:?}", doc.ocr_confidence);
    assert!(r >= 0.95, "{r} {}", doc.markdown);
}

#[test]
fn a_photo_without_text_says_so_and_keeps_its_exif() {
    let doc = read("photo.jpg").unwrap();
    assert_eq!(doc.word_count, 0, "{}", doc.markdown);
    assert!(doc.markdown.contains("No text found"), "{}", doc.markdown);
    // Its own words (EXIF ImageDescription, Artist, Windows' XPTitle) open it.
    assert!(
        doc.markdown.starts_with(
            "# The harbour at dawn\n\nAuthors: Harbour Office  \nDate: 2026-06-21T07:44:59  \n\
             Description: Boats leaving the harbour on the morning tide\n\n"
        ),
        "{}",
        doc.markdown
    );
    assert_eq!(doc.title.as_deref(), Some("The harbour at dawn"));
    assert_eq!(doc.byline.as_deref(), Some("Harbour Office"));
    let image = doc.image.unwrap();
    assert_eq!((image.width, image.height), (640, 480));
    assert_eq!(image.taken.as_deref(), Some("2026-06-21T07:44:59"));
    assert_eq!(image.camera.as_deref(), Some("Harbourcam HC-2"));
    assert!(image.gps);
}

#[test]
fn a_huge_png_is_refused_from_its_header() {
    let err = read("huge.png").unwrap_err();
    assert_eq!(err.code.as_str(), "too_large", "{}", err.message);
    assert!(err.message.contains("20000 × 20000"), "{}", err.message);
}
