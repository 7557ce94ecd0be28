//! A scanned PDF's pages as images for OCR: the largest image each page draws (a scanner
//! writes one per page), passed on in a format tesseract reads. JPEG (DCT) and JPEG 2000
//! (JPX) data are already such files; raw samples (Flate, LZW or none; lopdf undoes the
//! PNG predictors img2pdf and others use) become a PNM file, whose header is one line, so
//! no image encoder is needed. Other encodings (CCITT fax, JBIG2, CMYK, indexed colour)
//! are named in the text as pages not read.

use pdf_extract::{Dictionary, Document, Object, ObjectId, xobject::PdfImage};

/// One page's image, ready for OCR, or why it could not be.
pub(crate) enum PageImage {
    /// An encoded image file (JPEG, JPEG 2000 or PNM).
    File(Vec<u8>),
    /// The page draws no image.
    None,
    /// The page's image is in a form OCR is not given: why.
    Unread(String),
    /// The image has more pixels than OCR reads: (width, height).
    TooLarge(u64, u64),
}

/// The image page `page` draws, within `max_pixels` (0: no limit).
pub(crate) fn page_image(doc: &Document, page: ObjectId, max_pixels: u64) -> PageImage {
    let Ok(images) = doc.get_page_images(page) else {
        return PageImage::None;
    };
    let Some(image) = images
        .iter()
        .max_by_key(|i| i.width.max(0).saturating_mul(i.height.max(0)))
    else {
        return PageImage::None;
    };
    let (width, height) = (image.width.max(0) as u64, image.height.max(0) as u64);
    if width == 0 || height == 0 {
        return PageImage::None;
    }
    if max_pixels > 0 && width.saturating_mul(height) > max_pixels {
        return PageImage::TooLarge(width, height);
    }
    match encode(doc, image, width, height) {
        Ok(file) => PageImage::File(file),
        Err(why) => PageImage::Unread(why),
    }
}

fn encode(
    doc: &Document,
    image: &PdfImage<'_>,
    width: u64,
    height: u64,
) -> Result<Vec<u8>, String> {
    let filters = image.filters.clone().unwrap_or_default();
    match filters.last().map(String::as_str) {
        // A JPEG or JPEG 2000 file as it was written, maybe behind a general filter.
        Some("DCTDecode" | "JPXDecode") => {
            if filters.len() == 1 {
                return Ok(image.content.to_vec());
            }
            let mut stream = doc
                .get_object(image.id)
                .and_then(Object::as_stream)
                .map_err(|e| e.to_string())?
                .clone();
            stream
                .dict
                .set("Filter", Object::Name(filters[0].clone().into_bytes()));
            return stream
                .decompressed_content()
                .map_err(|e| format!("image data: {e}"));
        }
        None | Some("FlateDecode" | "LZWDecode") => {}
        Some(other) => return Err(format!("a {other} image")),
    }
    if let Some(png) = as_png(doc, image, &filters, width, height) {
        return Ok(png);
    }
    let samples = doc
        .get_object(image.id)
        .and_then(Object::as_stream)
        .and_then(|s| s.decompressed_content())
        .map_err(|e| format!("image data: {e}"))?;
    let mask = matches!(
        image.origin_dict.get(b"ImageMask"),
        Ok(Object::Boolean(true))
    );
    let components = if mask { 1 } else { components(doc, image)? };
    let bits = if mask {
        1
    } else {
        image.bits_per_component.unwrap_or(8)
    };
    let row = match (components, bits) {
        (1, 1) => width.div_ceil(8),
        (1 | 3, 8) => width * components,
        _ => return Err(format!("a {components}-channel {bits}-bit image")),
    };
    let need = usize::try_from(row * height).map_err(|_| "an image too large".to_owned())?;
    if samples.len() < need {
        return Err(format!(
            "an image with {} bytes of samples where {need} were declared",
            samples.len()
        ));
    }
    let samples = &samples[..need];
    let mut file = match (components, bits) {
        (1, 1) => format!("P4\n{width} {height}\n"),
        (1, _) => format!("P5\n{width} {height}\n255\n"),
        _ => format!("P6\n{width} {height}\n255\n"),
    }
    .into_bytes();
    if bits == 1 {
        // PBM's 1 is black; in a PDF a gray sample of 1 is white, and an image mask
        // paints (black) its 0s, both unless /Decode [1 0] says the reverse.
        let reversed = matches!(
            image.origin_dict.get(b"Decode").and_then(Object::as_array),
            Ok(d) if d.first().and_then(|v| v.as_float().ok()) == Some(1.0)
        );
        file.extend(samples.iter().map(|b| if reversed { *b } else { !b }));
    } else {
        file.extend_from_slice(samples);
    }
    Ok(file)
}

/// A Flate image with a PNG predictor as the PNG file it already is: its stream is a PNG's
/// `IDAT` (zlib, a filter byte before each row), so it needs only the PNG's header around
/// it, and tesseract decodes it. This is also why it is not handed to lopdf to undo the
/// predictors: lopdf 0.42 adds the Average filter's two neighbours without halving their
/// sum (`a + b / 2`), which smears every row a PNG encoder filtered that way (PIL's
/// `optimize` picks it for text rows).
fn as_png(
    doc: &Document,
    image: &PdfImage<'_>,
    filters: &[String],
    width: u64,
    height: u64,
) -> Option<Vec<u8>> {
    if filters != ["FlateDecode"]
        || image.origin_dict.get(b"ImageMask").is_ok()
        || image.origin_dict.get(b"Decode").is_ok()
    {
        return None;
    }
    let params = match image.origin_dict.get(b"DecodeParms").ok()? {
        Object::Reference(id) => doc.get_object(*id).ok()?.as_dict().ok()?,
        Object::Dictionary(d) => d,
        Object::Array(a) => match a.first()? {
            Object::Reference(id) => doc.get_object(*id).ok()?.as_dict().ok()?,
            Object::Dictionary(d) => d,
            _ => return None,
        },
        _ => return None,
    };
    let int =
        |key: &[u8], default: i64| params.get(key).and_then(Object::as_i64).unwrap_or(default);
    let components = components(doc, image).ok()?;
    let bits = image.bits_per_component.unwrap_or(8);
    let colour_type = match components {
        1 => 0u8,
        3 => 2,
        _ => return None,
    };
    if !(10..=15).contains(&int(b"Predictor", 1))
        || int(b"Colors", 1) != components as i64
        || int(b"BitsPerComponent", 8) != bits
        || !matches!(bits, 1 | 8)
        || u64::try_from(int(b"Columns", 1)).ok()? != width
    {
        return None;
    }
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&u32::try_from(width).ok()?.to_be_bytes());
    ihdr.extend_from_slice(&u32::try_from(height).ok()?.to_be_bytes());
    ihdr.extend_from_slice(&[bits as u8, colour_type, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png_chunk(&mut png, b"IHDR", &ihdr);
    png_chunk(&mut png, b"IDAT", image.content);
    png_chunk(&mut png, b"IEND", &[]);
    Some(png)
}

fn png_chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    // A chunk is at most 2^31 - 1 bytes; a longer image stream is past every bound anyway.
    png.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.sum().to_be_bytes());
}

/// Colour components of an image's colour space: 1 (gray) or 3 (RGB), following an ICC
/// profile's `/N`; anything else is not given to OCR.
fn components(doc: &Document, image: &PdfImage<'_>) -> Result<u64, String> {
    match image.color_space.as_deref() {
        Some("DeviceGray" | "CalGray" | "G") | None => Ok(1),
        Some("DeviceRGB" | "CalRGB" | "RGB") => Ok(3),
        Some("ICCBased") => {
            let n = icc_components(doc, image.origin_dict).unwrap_or(0);
            match n {
                1 | 3 => Ok(n),
                _ => Err(format!("a {n}-channel ICC image")),
            }
        }
        Some(other) => Err(format!("a {other} image")),
    }
}

fn icc_components(doc: &Document, dict: &Dictionary) -> Option<u64> {
    let space = dict.get(b"ColorSpace").ok()?;
    let space = match space {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        other => other,
    };
    let profile = space.as_array().ok()?.get(1)?;
    let profile = match profile {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        other => other,
    };
    let n = profile
        .as_stream()
        .ok()?
        .dict
        .get(b"N")
        .ok()?
        .as_i64()
        .ok()?;
    u64::try_from(n).ok()
}
