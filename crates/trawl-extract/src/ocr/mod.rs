//! OCR for images (PNG, JPEG, TIFF, WebP) and scanned PDF pages, with Debian's
//! `tesseract-ocr` started as a process ([`engine`]) and its per-word TSV read back
//! ([`tsv`]). This is the one part of trawl-extract that runs anything: it does so only
//! when [`OcrOptions::enabled`] is set (trawl's CLI and MCP servers set it; the library's
//! default leaves it off, so `extract` stays a pure function for other callers).
//!
//! Bounded three ways before and while the engine runs: pages per document, pixels per
//! image (read from the image's header, or a PDF image's dictionary, before anything
//! decodes it), and time per document (the process is killed at the deadline).

pub(crate) mod engine;
pub(crate) mod tsv;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use trawl_core::{ErrorCode, TrawlError};

use engine::EngineError;

/// Whether and how images and scans are read by OCR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OcrOptions {
    /// Read images and scanned PDFs with tesseract (off: they are refused, as without it).
    pub enabled: bool,
    /// The tesseract binary; `None` looks for `tesseract` on the PATH.
    pub tesseract: Option<PathBuf>,
    /// Languages as tesseract names them, `+`-joined (`eng+deu`); `None` is English when
    /// installed, else the first language installed.
    pub languages: Option<String>,
    /// Scanned pages read per PDF ([`DEFAULT_OCR_MAX_PAGES`]); the rest are named, not read.
    pub max_pages: u32,
    /// Pixels one image may have ([`DEFAULT_OCR_MAX_PIXELS`]); a larger one is refused
    /// from its header.
    pub max_pixels: u64,
    /// Time OCR may take for one document ([`DEFAULT_OCR_MAX_TIME`]).
    pub max_time: Duration,
}

/// Default [`OcrOptions::max_pages`].
pub const DEFAULT_OCR_MAX_PAGES: u32 = 50;
/// Default [`OcrOptions::max_pixels`]: 50 million, above an A4 page scanned at 600 dpi
/// (35 million); tesseract holds a few bytes per pixel while it works.
pub const DEFAULT_OCR_MAX_PIXELS: u64 = 50_000_000;
/// Default [`OcrOptions::max_time`]: a page takes 1 to 3 s on one core.
pub const DEFAULT_OCR_MAX_TIME: Duration = Duration::from_secs(120);

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions {
            enabled: false,
            tesseract: None,
            languages: None,
            max_pages: DEFAULT_OCR_MAX_PAGES,
            max_pixels: DEFAULT_OCR_MAX_PIXELS,
            max_time: DEFAULT_OCR_MAX_TIME,
        }
    }
}

/// What `trawl doctor` shows: which tesseract runs, and its languages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OcrStatus {
    /// The program that was run (`tesseract`, or the configured path).
    pub program: PathBuf,
    /// Its version line (`tesseract 5.3.0`).
    pub version: String,
    /// Installed languages (`eng`, `deu`, …).
    pub languages: Vec<String>,
    /// The languages OCR would use with these options.
    pub using: String,
}

/// Whether OCR works with `opts`: tesseract found and run, and its languages; the error
/// says how to install it.
pub fn ocr_status(opts: &OcrOptions) -> Result<OcrStatus, TrawlError> {
    let program = engine::program(opts.tesseract.as_deref());
    let status = (|| {
        let version = engine::version(&program)?;
        let languages = engine::languages(&program)?;
        let using = engine::pick_languages(opts.languages.as_deref(), &languages)?;
        Ok(OcrStatus {
            program: program.clone(),
            version,
            languages,
            using,
        })
    })();
    status.map_err(|e| {
        refusal(
            e,
            opts,
            ErrorCode::UnsupportedContent,
            "OCR is not available",
        )
    })
}

/// The install hint every "tesseract is missing" message ends with.
pub(crate) const INSTALL_HINT: &str = "install it with `apt-get install tesseract-ocr` (plus `tesseract-ocr-LANG` for other \
     languages), or set TRAWL_TESSERACT to its path";

/// One document's OCR: the engine and languages found once, and the document's deadline.
pub(crate) struct Session<'a> {
    opts: &'a OcrOptions,
    program: PathBuf,
    languages: String,
    deadline: Instant,
    /// What was read so far, over every image.
    pub(crate) words: usize,
    confidence_sum: f64,
}

impl<'a> Session<'a> {
    /// Find the engine and the languages; `None` when OCR is off.
    pub(crate) fn start(opts: &'a OcrOptions) -> Result<Option<Self>, EngineError> {
        if !opts.enabled {
            return Ok(None);
        }
        let deadline = Instant::now() + opts.max_time;
        let program = engine::program(opts.tesseract.as_deref());
        let installed = engine::languages(&program)?;
        let languages = engine::pick_languages(opts.languages.as_deref(), &installed)?;
        Ok(Some(Session {
            opts,
            program,
            languages,
            deadline,
            words: 0,
            confidence_sum: 0.0,
        }))
    }

    pub(crate) fn opts(&self) -> &OcrOptions {
        self.opts
    }

    /// The text of one image (encoded: PNG, JPEG, TIFF, WebP, JPEG 2000 or PNM), empty
    /// when it holds none.
    pub(crate) fn read(&mut self, image: &[u8]) -> Result<String, EngineError> {
        let tsv = engine::recognize(&self.program, image, &self.languages, self.deadline)?;
        let read = tsv::parse(&tsv);
        self.words += read.words;
        self.confidence_sum += read.confidence_sum;
        Ok(read.text)
    }

    /// The mean confidence of every word read, 0 to 100, one decimal.
    pub(crate) fn confidence(&self) -> Option<f32> {
        (self.words > 0)
            .then(|| (self.confidence_sum / self.words as f64 * 10.0).round() as f32 / 10.0)
    }
}

/// An engine failure as trawl's error. `code` and `what` are the refusal the document had
/// without OCR (`no_text_layer` for a scan, `unsupported_content` for an image): a missing
/// engine keeps it and adds how to install one.
pub(crate) fn refusal(
    e: EngineError,
    opts: &OcrOptions,
    code: ErrorCode,
    what: &str,
) -> TrawlError {
    match e {
        EngineError::Absent(program) => TrawlError::new(
            code,
            format!(
                "{what}: OCR needs tesseract, and {} was not found; {INSTALL_HINT}",
                if opts.tesseract.is_some() {
                    format!("the configured {}", program.display())
                } else {
                    "`tesseract` on the PATH".to_owned()
                }
            ),
        ),
        EngineError::Language(asked, installed) => TrawlError::invalid_input(format!(
            "OCR language `{asked}` is not installed (installed: {}); install \
             `tesseract-ocr-{asked}` or pick one with --ocr-lang",
            if installed.is_empty() {
                "none".to_owned()
            } else {
                installed.join(", ")
            }
        )),
        EngineError::Timeout => TrawlError::new(
            ErrorCode::TooLarge,
            format!(
                "{what}: OCR took longer than {} s (the limit for one document; \
                 TRAWL_OCR_MAX_TIME raises it)",
                opts.max_time.as_secs()
            ),
        ),
        EngineError::Failed(why) => TrawlError::new(code, format!("{what}: OCR failed: {why}")),
    }
}
