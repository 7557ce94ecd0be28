//! A page as pdf-extract draws it, kept with positions: its glyphs (origin, advance, size,
//! whether each opens a shown string) and its straight ruling lines. [`super::ink`] collects
//! them, [`super::layout`] finds tables in them and [`super::render`] writes them out.

/// One glyph in page space (PDF units, y up).
#[derive(Debug, Clone)]
pub(crate) struct Glyph {
    /// The origin.
    pub(crate) x: f64,
    pub(crate) y: f64,
    /// Where the advance ends (`x` + width).
    pub(crate) end: f64,
    /// The size as pdf-extract's plain-text output computes it (NaN for a skewed matrix,
    /// as there, so the text comes out the same).
    pub(crate) size: f64,
    /// Whether a shown string starts here (pdf-extract's `begin_word`): only there does
    /// its plain-text output consider breaking the line or adding a space.
    pub(crate) opens_run: bool,
    /// The glyph's text: a range of [`Page::text`].
    pub(crate) text: (u32, u32),
}

impl Glyph {
    /// The size to measure layout with: never NaN or zero.
    pub(crate) fn em(&self) -> f64 {
        if self.size.is_finite() && self.size > 0.5 {
            self.size
        } else {
            10.0
        }
    }
}

/// An axis-aligned ruling line (a stroked line or rectangle edge, or a thin filled
/// rectangle), from `(x0, y0)` to `(x1, y1)` with `x0 <= x1`, `y0 <= y1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rule {
    pub(crate) x0: f64,
    pub(crate) y0: f64,
    pub(crate) x1: f64,
    pub(crate) y1: f64,
}

impl Rule {
    pub(crate) fn is_horizontal(&self) -> bool {
        self.y1 - self.y0 < 0.01 && self.x1 - self.x0 > 0.01
    }
    pub(crate) fn is_vertical(&self) -> bool {
        self.x1 - self.x0 < 0.01 && self.y1 - self.y0 > 0.01
    }
}

/// One page's glyphs (in drawing order) and rules.
#[derive(Debug, Default)]
pub(crate) struct Page {
    pub(crate) glyphs: Vec<Glyph>,
    pub(crate) text: String,
    pub(crate) rules: Vec<Rule>,
    /// Past the glyphs a page may hold for the table search: the page is written as plain
    /// text as it is drawn (see `ink`).
    pub(crate) overflowed: bool,
}

impl Page {
    pub(crate) fn glyph_text(&self, g: &Glyph) -> &str {
        &self.text[g.text.0 as usize..g.text.1 as usize]
    }
}
