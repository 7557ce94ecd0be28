//! `trawl read --screenshot FILE`: the PNGs a browser read brought back, written to disk.
//! The one after every action goes to FILE; each `screenshot` action's goes beside it as
//! `FILE-actionN.png`. A path that cannot be written is an error before anything is lost:
//! the page was read and stored, and the message says so.

use std::path::{Path, PathBuf};

use trawl_agent::tools::FetchOut;
use trawl_core::{ErrorCode, TrawlError};

/// Write every screenshot of `out` and say where on stderr.
pub(super) fn write_screenshots(file: &Path, out: &mut FetchOut) -> Result<(), TrawlError> {
    for doc in out.results.iter_mut().filter_map(|r| r.document.as_mut()) {
        let Some(browser) = doc.browser.as_mut() else {
            continue;
        };
        for shot in &mut browser.screenshots {
            let path = match shot.action {
                None => file.to_owned(),
                Some(n) => beside(file, n),
            };
            std::fs::write(&path, &shot.png).map_err(|e| {
                TrawlError::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "could not write the screenshot to {}: {e} (the page was read and stored as {})",
                        path.display(),
                        doc.handle
                    ),
                )
            })?;
            let cut = shot
                .cut_from
                .map(|h| format!(", cut at {} of {h} px", shot.height))
                .unwrap_or_default();
            eprintln!(
                "screenshot: {} ({}x{} PNG{cut})",
                path.display(),
                shot.width,
                shot.height
            );
            // Written: the bytes need not stay in memory or reach the JSON.
            shot.png = Vec::new();
        }
    }
    Ok(())
}

/// `shot.png` → `shot-action3.png`.
fn beside(file: &Path, action: usize) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "screenshot".into());
    let ext = file
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_else(|| "png".into());
    file.with_file_name(format!("{stem}-action{action}.{ext}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_screenshots_go_beside_the_file() {
        assert_eq!(
            beside(Path::new("/tmp/out/page.png"), 2),
            PathBuf::from("/tmp/out/page-action2.png")
        );
        assert_eq!(
            beside(Path::new("shot"), 1),
            PathBuf::from("shot-action1.png")
        );
    }
}
