//! `Content-Encoding`, decoded here rather than by the HTTP client: reqwest decodes one
//! coding and drops the header, so `gzip, gzip` (or two `Content-Encoding: gzip` headers)
//! came back as gzip bytes read as text. Codings are undone in reverse of the order they
//! were applied, at most [`MAX_CODINGS`] deep, each stage's output under the body cap; an
//! unknown coding is `unsupported_content`.

use std::io::Read;

use reqwest::header::{self, HeaderMap, HeaderValue};
use trawl_core::{ErrorCode, TrawlError};

/// Codings one response may stack.
pub(crate) const MAX_CODINGS: usize = 3;

/// What trawl asks for: the codings [`decode`] undoes.
pub(crate) fn accept_encoding() -> HeaderValue {
    HeaderValue::from_static("gzip, br, zstd, deflate")
}

/// The codings named by every `Content-Encoding` header, in the order they were applied
/// (`identity` left out), lower case.
pub(crate) fn codings(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::CONTENT_ENCODING)
        .iter()
        .flat_map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .filter(|c| !c.is_empty() && c != "identity")
        .collect()
}

/// Why a body could not be decoded.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// A stage's output passed the cap.
    TooLarge,
    /// A coding trawl does not know, or more than [`MAX_CODINGS`].
    Unsupported(String),
    /// A body that is not what its coding says (truncated, garbage).
    Corrupt(String),
}

/// `body` with `codings` undone, last applied first; `cap` bounds every stage's output
/// (0: no cap).
pub(crate) fn decode(body: &[u8], codings: &[String], cap: u64) -> Result<Vec<u8>, Refusal> {
    if codings.len() > MAX_CODINGS {
        return Err(Refusal::Unsupported(format!(
            "{} stacked content codings ({}); at most {MAX_CODINGS} are decoded",
            codings.len(),
            codings.join(", ")
        )));
    }
    let mut current = body.to_vec();
    for coding in codings.iter().rev() {
        let input = current.as_slice();
        current = match coding.as_str() {
            "gzip" | "x-gzip" => capped(flate2::read::MultiGzDecoder::new(input), cap, coding)?,
            "deflate" => {
                // HTTP's deflate is zlib-wrapped; some servers send it raw.
                capped(flate2::read::ZlibDecoder::new(input), cap, coding).or_else(|e| match e {
                    Refusal::TooLarge => Err(e),
                    _ => capped(flate2::read::DeflateDecoder::new(input), cap, coding),
                })?
            }
            "br" => capped(
                brotli_decompressor::Decompressor::new(input, 64 * 1024),
                cap,
                coding,
            )?,
            "zstd" => {
                let decoder = zstd::stream::read::Decoder::new(input)
                    .map_err(|e| Refusal::Corrupt(format!("corrupt zstd body: {e}")))?;
                capped(decoder, cap, coding)?
            }
            other => {
                return Err(Refusal::Unsupported(format!(
                    "content coding {other:?} is not supported"
                )));
            }
        };
    }
    Ok(current)
}

fn capped(reader: impl Read, cap: u64, coding: &str) -> Result<Vec<u8>, Refusal> {
    let limit = if cap == 0 { u64::MAX } else { cap + 1 };
    let mut out = Vec::new();
    reader
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| Refusal::Corrupt(format!("corrupt {coding} body: {e}")))?;
    if cap > 0 && out.len() as u64 > cap {
        return Err(Refusal::TooLarge);
    }
    Ok(out)
}

/// The refusal as the error a fetch answers with.
pub(crate) fn error(refusal: Refusal, too_large: impl FnOnce() -> TrawlError) -> TrawlError {
    match refusal {
        Refusal::TooLarge => too_large(),
        Refusal::Unsupported(why) => TrawlError::new(ErrorCode::UnsupportedContent, why),
        Refusal::Corrupt(why) => TrawlError::new(ErrorCode::Upstream, why),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn stacked_codings_are_undone_in_order_and_bounded() {
        let mut headers = HeaderMap::new();
        headers.append(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        headers.append(
            header::CONTENT_ENCODING,
            HeaderValue::from_static("identity, GZIP"),
        );
        assert_eq!(codings(&headers), ["gzip", "gzip"]);
        let twice = gzip(&gzip(b"<p>hello</p>"));
        assert_eq!(
            decode(&twice, &codings(&headers), 1 << 20).unwrap(),
            b"<p>hello</p>"
        );
        let four = vec!["gzip".to_owned(); 4];
        assert!(matches!(
            decode(&twice, &four, 0),
            Err(Refusal::Unsupported(_))
        ));
        let bomb = gzip(&vec![0; 4 << 20]);
        assert!(matches!(
            decode(&bomb, &four[..1], 1 << 20),
            Err(Refusal::TooLarge)
        ));
        let odd = vec!["compress".to_owned()];
        assert!(matches!(
            decode(b"x", &odd, 0),
            Err(Refusal::Unsupported(_))
        ));
    }
}
