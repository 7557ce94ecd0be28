//! What pdf-extract draws, kept with its position: every glyph (origin, advance, size, and
//! whether it opens a shown string) and every straight ruling line, page by page. The
//! layout pass ([`super::layout`]) finds tables in it; the text around them is written
//! from the same glyphs exactly as pdf-extract's own plain-text output would write it.

use pdf_extract::{MediaBox, OutputDev, OutputError, Path, PathOp, Transform};

use super::decode::Budget;
use super::page::{Glyph, Page, Rule};
use super::render::Writer;

/// A filled rectangle thinner than this (in PDF units) is a ruling line.
const THIN: f64 = 2.0;
/// At most this many rules are kept a page: a vector drawing has thousands of strokes,
/// none of them a table's, and the grid search is quadratic in them.
const MAX_RULES: usize = 2_000;

/// Glyphs of one page held for the table search; past it the page is written as plain
/// text glyph by glyph (a dense page of small print holds about 10,000), so memory stays
/// bounded whatever a page draws.
const MAX_PAGE_GLYPHS: usize = 100_000;

/// The most the table search of one page holds: its glyphs (48 bytes each, their text
/// beside), words (about 80 bytes each) and rows, for [`MAX_PAGE_GLYPHS`].
pub(crate) const MAX_LAYOUT_MEMORY: u64 = 32 << 20;

/// The output device: collects each [`Page`] and hands it to the [`Writer`] when it
/// ends; stopped once the document's time is up.
pub(crate) struct Collect<'a> {
    page: Page,
    pub(crate) writer: Writer,
    budget: &'a Budget,
    /// Set when it stopped for time.
    pub(crate) late: bool,
    opens_run: bool,
}

impl<'a> Collect<'a> {
    pub(crate) fn new(budget: &'a Budget) -> Self {
        Collect {
            page: Page::default(),
            writer: Writer::new(),
            budget,
            late: false,
            opens_run: false,
        }
    }

    fn on_time(&mut self) -> Result<(), OutputError> {
        if self.budget.check_time().is_err() {
            self.late = true;
            return Err(OutputError::FormatError(std::fmt::Error));
        }
        Ok(())
    }

    fn rules(&mut self, ctm: &Transform, path: &Path, filled: bool) {
        let at = |x: f64, y: f64| {
            (
                x * ctm.m11 + y * ctm.m21 + ctm.m31,
                x * ctm.m12 + y * ctm.m22 + ctm.m32,
            )
        };
        let mut found = Vec::new();
        let mut last: Option<(f64, f64)> = None;
        let mut start: Option<(f64, f64)> = None;
        for op in &path.ops {
            match *op {
                PathOp::MoveTo(x, y) => {
                    last = Some(at(x, y));
                    start = last;
                }
                PathOp::LineTo(x, y) => {
                    let to = at(x, y);
                    if let (Some(from), false) = (last, filled) {
                        found.extend(segment(from, to));
                    }
                    last = Some(to);
                }
                PathOp::CurveTo(.., x, y) => last = Some(at(x, y)),
                PathOp::Close => {
                    if let (Some(from), Some(to), false) = (last, start, filled) {
                        found.extend(segment(from, to));
                    }
                    last = start;
                }
                PathOp::Rect(x, y, w, h) => {
                    let (a, b) = (at(x, y), at(x + w, y + h));
                    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
                    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
                    if filled {
                        // A thin bar is a line; a cell's background is not.
                        if y1 - y0 < THIN && x1 - x0 > THIN {
                            let mid = (y0 + y1) / 2.0;
                            found.extend(segment((x0, mid), (x1, mid)));
                        } else if x1 - x0 < THIN && y1 - y0 > THIN {
                            let mid = (x0 + x1) / 2.0;
                            found.extend(segment((mid, y0), (mid, y1)));
                        }
                    } else {
                        found.extend(segment((x0, y0), (x1, y0)));
                        found.extend(segment((x0, y1), (x1, y1)));
                        found.extend(segment((x0, y0), (x0, y1)));
                        found.extend(segment((x1, y0), (x1, y1)));
                    }
                }
            }
        }
        let page = &mut self.page;
        let room = MAX_RULES.saturating_sub(page.rules.len());
        page.rules.extend(found.into_iter().take(room));
    }
}

/// A straight line as a [`Rule`] when it is horizontal or vertical (within a tenth of a
/// unit); slanted lines are no table's.
fn segment(a: (f64, f64), b: (f64, f64)) -> Option<Rule> {
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    let finite = [x0, x1, y0, y1].iter().all(|v| v.is_finite());
    if !finite {
        return None;
    }
    if y1 - y0 < 0.1 && x1 - x0 > 1.0 {
        let y = (y0 + y1) / 2.0;
        Some(Rule {
            x0,
            y0: y,
            x1,
            y1: y,
        })
    } else if x1 - x0 < 0.1 && y1 - y0 > 1.0 {
        let x = (x0 + x1) / 2.0;
        Some(Rule {
            x0: x,
            y0,
            x1: x,
            y1,
        })
    } else {
        None
    }
}

impl OutputDev for Collect<'_> {
    fn begin_page(
        &mut self,
        _page_num: u32,
        _media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.on_time()?;
        self.page = Page::default();
        Ok(())
    }
    fn end_page(&mut self) -> Result<(), OutputError> {
        let page = std::mem::take(&mut self.page);
        if !page.overflowed {
            self.writer.page(&page);
        }
        self.on_time()
    }
    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        self.on_time()?;
        // As pdf-extract's plain-text output measures it (`transform_vector` of a square).
        let size = ((font_size * (trm.m11 + trm.m21)) * (font_size * (trm.m12 + trm.m22))).sqrt();
        let opens_run = std::mem::take(&mut self.opens_run);
        let page = &mut self.page;
        let mut glyph = Glyph {
            x: trm.m31,
            y: trm.m32,
            end: trm.m31 + width * size,
            size,
            opens_run,
            text: (0, 0),
        };
        if page.overflowed {
            self.writer.put(&glyph, char, opens_run);
            return Ok(());
        }
        let start = page.text.len() as u32;
        page.text.push_str(char);
        glyph.text = (start, page.text.len() as u32);
        page.glyphs.push(glyph);
        if page.glyphs.len() >= MAX_PAGE_GLYPHS {
            self.writer.plain(page);
            *page = Page {
                overflowed: true,
                ..Page::default()
            };
        }
        Ok(())
    }
    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.opens_run = true;
        Ok(())
    }
    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
    fn stroke(
        &mut self,
        ctm: &Transform,
        _colorspace: &pdf_extract::ColorSpace,
        _color: &[f64],
        path: &Path,
    ) -> Result<(), OutputError> {
        self.on_time()?;
        self.rules(ctm, path, false);
        Ok(())
    }
    fn fill(
        &mut self,
        ctm: &Transform,
        _colorspace: &pdf_extract::ColorSpace,
        _color: &[f64],
        path: &Path,
    ) -> Result<(), OutputError> {
        self.on_time()?;
        self.rules(ctm, path, true);
        Ok(())
    }
}
