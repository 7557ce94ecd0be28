//! PDFs within their budget: bombs built by trawl-testkit end in `too_large` (or are
//! refused) after a bounded amount of work, and ordinary files still read.

use std::time::Duration;

use trawl_core::ErrorCode;
use trawl_extract::{ExtractOptions, PdfLimits, extract};
use trawl_testkit::pdf;

fn read(bytes: &[u8], limits: PdfLimits) -> Result<String, trawl_core::TrawlError> {
    let url = url::Url::parse("https://example.com/f.pdf").unwrap();
    let opts = ExtractOptions {
        pdf: limits,
        ..ExtractOptions::default()
    };
    extract(bytes, Some("application/pdf"), &url, &opts).map(|d| d.markdown)
}

fn too_large(bytes: &[u8], limits: PdfLimits) -> String {
    let err = read(bytes, limits).expect_err("the bomb must be refused");
    assert_eq!(err.code, ErrorCode::TooLarge, "{}", err.message);
    err.message
}

#[test]
fn a_content_stream_bomb_is_too_large_per_page() {
    let bomb = pdf::content_bomb(16 << 20);
    assert!(bomb.len() < 100_000, "a small file: {} bytes", bomb.len());
    let message = too_large(&bomb, PdfLimits::default());
    assert!(message.contains("page 1"), "{message}");
    assert!(message.contains("4 MiB"), "{message}");
}

#[test]
fn decoding_stops_at_the_document_budget() {
    let limits = PdfLimits {
        max_decoded_bytes: 1 << 20,
        ..PdfLimits::default()
    };
    for (name, bomb) in [
        ("content", pdf::content_bomb(4 << 20)),
        ("object stream", pdf::object_stream_bomb(8 << 20)),
        ("xref stream", pdf::xref_stream_bomb(8 << 20)),
    ] {
        let message = too_large(&bomb, limits);
        assert!(
            message.contains("decode to more than 1 MiB"),
            "{name}: {message}"
        );
    }
}

#[test]
fn forms_are_counted_each_time_they_are_drawn() {
    // 2^24 draws of a 24-byte form: 400 MB of parsing from a 4 KB file.
    let fan = pdf::form_fan(24);
    assert!(fan.len() < 8_000);
    let message = too_large(&fan, PdfLimits::default());
    assert!(message.contains("page 1 draws more than"), "{message}");
    // A shallow fan is an ordinary page.
    let text = read(&pdf::form_fan(3), PdfLimits::default()).unwrap();
    assert!(text.contains("fan"), "{text}");
}

#[test]
fn a_form_that_draws_itself_is_refused_before_it_overflows_the_stack() {
    let err = read(&pdf::form_loop(), PdfLimits::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnsupportedContent);
    assert!(err.message.contains("draws itself"), "{}", err.message);
}

#[test]
fn zero_means_no_limit_and_ordinary_files_read() {
    let none = PdfLimits {
        max_decoded_bytes: 0,
        max_page_content_bytes: 0,
        max_time: Duration::ZERO,
    };
    let text = read(&pdf::content_bomb(64 << 10), none).unwrap();
    assert!(text.contains("Hello"));
    let text = read(&pdf::content_bomb(64 << 10), PdfLimits::default()).unwrap();
    assert!(text.contains("Hello"));
}

#[test]
fn the_time_budget_stops_a_slow_document() {
    // A page just under the per-page cap takes far longer than a millisecond.
    let limits = PdfLimits {
        max_time: Duration::from_millis(1),
        ..PdfLimits::default()
    };
    let message = too_large(&pdf::content_bomb(3 << 20), limits);
    assert!(message.contains("took longer than"), "{message}");
}

#[test]
fn a_page_past_the_glyph_cap_is_written_whole_as_plain_text() {
    // 840 KB of `(Hello) Tj`: 110,000 glyphs on one page, past the 100,000 the table
    // search holds; the rest is written as it is drawn, every word kept.
    let len = 840_000;
    let text = read(&pdf::content_bomb(len), PdfLimits::default()).unwrap();
    let drawn = pdf::text_operators(len)
        .windows(b"(Hello) Tj".len())
        .filter(|w| *w == b"(Hello) Tj")
        .count();
    assert!(drawn * 5 > 100_000, "{drawn}");
    assert_eq!(text.matches("Hello").count(), drawn);
}

/// Writes the bomb shapes into the `pdf` fuzz target's corpus (run by hand:
/// `TRAWL_WRITE_FUZZ_SEEDS=1 cargo test -p trawl-extract --test pdf -- --ignored`), so the
/// seeds committed there are the very files these tests refuse.
#[test]
#[ignore = "writes fuzz/corpus/pdf; run by hand"]
fn write_fuzz_seeds() {
    if std::env::var_os("TRAWL_WRITE_FUZZ_SEEDS").is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/pdf");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in [
        ("seed-minimal", trawl_testkit::minimal_pdf("Plain words")),
        ("seed-form-fan-3", pdf::form_fan(3)),
        ("bomb-content-16mib", pdf::content_bomb(16 << 20)),
        (
            "bomb-object-stream-64mib",
            pdf::object_stream_bomb(64 << 20),
        ),
        ("bomb-xref-stream-64mib", pdf::xref_stream_bomb(64 << 20)),
        ("bomb-form-fan-24", pdf::form_fan(24)),
        ("bomb-form-loop", pdf::form_loop()),
    ] {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}
