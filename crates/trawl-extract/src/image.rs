//! Images (PNG, JPEG, TIFF, WebP) as documents: their size from the header (imagesize),
//! a summary of their EXIF (kamadak-exif: date, camera, whether a GPS position is
//! recorded), their own title, author and description (`image_meta`), and their text
//! read by OCR. A huge image is refused from its header, before
//! anything decodes it.

use std::io::Cursor;

use exif::{In, Tag, Value};
use trawl_core::{Document, ErrorCode, ImageInfo, PageType, TrawlError};

use crate::image_meta;
use crate::ocr::{self, OcrOptions, Session};

/// The image formats read: the ones tesseract's leptonica decodes that photos, scans and
/// screenshots come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Png,
    Jpeg,
    Tiff,
    Webp,
}

impl Format {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Tiff => "tiff",
            Format::Webp => "webp",
        }
    }
}

/// The image format `bytes` start with, from their magic numbers.
pub(crate) fn sniff(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Format::Png)
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        Some(Format::Jpeg)
    } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        Some(Format::Tiff)
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some(Format::Webp)
    } else {
        None
    }
}

/// The image's format and size from its header, refused past `max_pixels` (0: no limit).
pub(crate) fn dimensions(
    bytes: &[u8],
    format: Format,
    max_pixels: u64,
) -> Result<(u32, u32), TrawlError> {
    let size = imagesize::blob_size(bytes).map_err(|e| {
        TrawlError::new(
            ErrorCode::UnsupportedContent,
            format!("unreadable {} image: {e}", format.name()),
        )
    })?;
    let (width, height) = (
        u32::try_from(size.width).unwrap_or(u32::MAX),
        u32::try_from(size.height).unwrap_or(u32::MAX),
    );
    let pixels = u64::from(width) * u64::from(height);
    if max_pixels > 0 && pixels > max_pixels {
        return Err(TrawlError::new(
            ErrorCode::TooLarge,
            format!(
                "{} image is {width} × {height} ({:.0} million pixels), more than the {:.0} \
                 million OCR reads (refused before decoding; TRAWL_OCR_MAX_PIXELS raises it)",
                format.name(),
                pixels as f64 / 1e6,
                max_pixels as f64 / 1e6
            ),
        ));
    }
    Ok((width, height))
}

/// An image as a Document: its text by OCR, its size and EXIF in `image`. An image OCR
/// finds no text in is a Document that says so (metadata kept), not invented text.
pub(crate) fn read(
    bytes: &[u8],
    format: Format,
    opts: &OcrOptions,
    doc: &mut Document,
) -> Result<(), TrawlError> {
    let what = format!("cannot read image/{} content", format.name());
    let refuse = |e| ocr::refusal(e, opts, ErrorCode::UnsupportedContent, &what);
    if !opts.enabled {
        return Err(TrawlError::new(
            ErrorCode::UnsupportedContent,
            format!(
                "{what}: OCR is off (TRAWL_OCR=0 or `ocr = false`; turn it on to read images with tesseract)"
            ),
        ));
    }
    // The header first: a huge image is refused before anything is started or decoded.
    let (width, height) = dimensions(bytes, format, opts.max_pixels)?;
    let Some(mut session) = Session::start(opts).map_err(refuse)? else {
        return Err(TrawlError::internal("OCR is on but did not start"));
    };
    let mut info = exif_summary(bytes);
    info.format = format.name().to_owned();
    info.width = width;
    info.height = height;
    let text = session.read(bytes).map_err(refuse)?;
    doc.ocr = true;
    doc.ocr_confidence = session.confidence();
    doc.page_type = PageType::Other;
    doc.text = text;
    let body = if doc.text.is_empty() {
        format!(
            "_No text found in this image ({width} × {height} {}, read by OCR)._\n",
            format.name().to_ascii_uppercase()
        )
    } else {
        format!("{}\n", doc.text)
    };
    // The image's own title, author and description open it, as a document's do.
    let words = image_meta::image_words(bytes);
    doc.title.clone_from(&words.title);
    doc.byline.clone_from(&words.author);
    doc.description.clone_from(&words.description);
    doc.published.clone_from(&info.taken);
    let own = crate::docs::FrontMatter {
        title: words.title.as_deref(),
        author: words.author.as_deref(),
        date: info.taken.as_deref(),
        language: None,
        description: words.description.as_deref(),
    };
    doc.markdown = crate::docs::front_block(&own, &body);
    doc.word_count = crate::dom::word_count(&doc.text);
    doc.quality_score = if doc.word_count == 0 { 0.0 } else { 0.9 };
    doc.image = Some(info);
    Ok(())
}

/// Date, camera and GPS presence from the image's EXIF, when it has any. A broken EXIF
/// block is no EXIF: the image is still read.
fn exif_summary(bytes: &[u8]) -> ImageInfo {
    let mut info = ImageInfo::default();
    let Ok(exif) = exif::Reader::new().read_from_container(&mut Cursor::new(bytes)) else {
        return info;
    };
    let text = |tag: Tag| -> Option<String> {
        match &exif.get_field(tag, In::PRIMARY)?.value {
            Value::Ascii(parts) => parts
                .first()
                .map(|p| String::from_utf8_lossy(p).trim().to_owned())
                .filter(|s| !s.is_empty()),
            _ => None,
        }
    };
    info.taken = text(Tag::DateTimeOriginal)
        .or_else(|| text(Tag::DateTime))
        .and_then(|d| iso_date(&d));
    info.camera = match (text(Tag::Make), text(Tag::Model)) {
        // Many cameras repeat the make in the model ("Canon" + "Canon EOS R5").
        (Some(make), Some(model)) if model.starts_with(&make) => Some(model),
        (Some(make), Some(model)) => Some(format!("{make} {model}")),
        (make, model) => make.or(model),
    };
    info.gps = exif.get_field(Tag::GPSLatitude, In::PRIMARY).is_some()
        || exif.get_field(Tag::GPSLongitude, In::PRIMARY).is_some();
    info
}

/// EXIF's `2026:06:21 07:44:59` as `2026-06-21T07:44:59`; a date that is not in that
/// shape (or all zeros, as some cameras write for "unknown") is left out.
fn iso_date(exif: &str) -> Option<String> {
    let b = exif.as_bytes();
    let shaped = b.len() >= 19
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b' '
        && b[13] == b':'
        && b[16] == b':'
        && b[..19]
            .iter()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10 | 13 | 16) || c.is_ascii_digit());
    if !shaped || exif.starts_with("0000") {
        return None;
    }
    Some(format!(
        "{}-{}-{}T{}",
        &exif[..4],
        &exif[5..7],
        &exif[8..10],
        &exif[11..19]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_their_magic() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some(Format::Png));
        assert_eq!(sniff(b"\xff\xd8\xff\xe0"), Some(Format::Jpeg));
        assert_eq!(sniff(b"II*\0...."), Some(Format::Tiff));
        assert_eq!(sniff(b"MM\0*...."), Some(Format::Tiff));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some(Format::Webp));
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(sniff(b"GIF89a"), None);
    }

    #[test]
    fn exif_dates_become_iso() {
        assert_eq!(
            iso_date("2026:06:21 07:44:59").as_deref(),
            Some("2026-06-21T07:44:59")
        );
        assert_eq!(iso_date("0000:00:00 00:00:00"), None);
        assert_eq!(iso_date("June 2026"), None);
        assert_eq!(iso_date("2026:06:21 07:44:5"), None);
    }
}
