//! `trawl doctor`'s OCR line: whether tesseract runs, its version and languages, and which
//! languages a read would use. OCR is optional: without it images and scans are refused
//! with the install hint, so a failure here warns and never makes the machine unhealthy.

use serde::Serialize;

use crate::settings::Settings;

/// What `doctor --json` says of OCR.
#[derive(Debug, Serialize)]
pub(crate) struct OcrCheck {
    /// Whether OCR is turned on (`TRAWL_OCR`).
    pub enabled: bool,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Installed languages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    /// The languages a read uses (`--ocr-lang`, or English when installed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub using: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Run `tesseract --version` and `--list-langs` (a few milliseconds; no image is read).
pub(crate) async fn check_ocr(settings: &Settings) -> OcrCheck {
    let opts = settings.ocr_options();
    let enabled = opts.enabled;
    let status = tokio::task::spawn_blocking(move || trawl_extract::ocr_status(&opts)).await;
    let mut check = OcrCheck {
        enabled,
        ok: false,
        program: None,
        version: None,
        languages: Vec::new(),
        using: None,
        error: None,
    };
    match status {
        Ok(Ok(s)) => {
            check.ok = true;
            check.program = Some(s.program.display().to_string());
            check.version = Some(s.version);
            check.languages = s.languages;
            check.using = Some(s.using);
        }
        Ok(Err(e)) => check.error = Some(e.message),
        Err(e) => check.error = Some(format!("the check stopped: {e}")),
    }
    check
}

/// The human line: `ok   ocr  tesseract 5.3.0, reads eng (installed: eng, deu)`.
pub(crate) fn print_ocr(check: &OcrCheck) {
    let (mark, what) = match (&check.version, &check.error) {
        _ if !check.enabled => ("ok  ", "off (TRAWL_OCR=0)".to_owned()),
        (Some(version), _) => (
            "ok  ",
            format!(
                "{version}, reads {} (installed: {})",
                check.using.as_deref().unwrap_or("?"),
                check.languages.join(", ")
            ),
        ),
        (None, error) => (
            "warn",
            format!(
                "{}; images and scanned PDFs are refused",
                error.as_deref().unwrap_or("not available")
            ),
        ),
    };
    println!("{mark} {:<14} {what}", "ocr");
}
