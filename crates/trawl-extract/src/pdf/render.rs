//! A document's pages as text with their tables in GFM: the text is written from the glyphs
//! left outside tables exactly as pdf-extract's plain-text output writes it (a line break
//! where the baseline jumps, a space where a new string starts past a gap), so its reading
//! order is the drawing order; each table stands where its first word was drawn.

use super::layout::{self, Table};
use super::page::{Glyph, Page};
use crate::docs::gfm;

/// Rows and columns of one PDF table shown in full (a page holds far fewer).
const MAX_ROWS: usize = 5_000;
const MAX_COLUMNS: usize = 200;

/// The document's text so far, and pdf-extract's plain-text state, carried across pages
/// as it carries it. Pages are written as they end, so only one page's glyphs are held.
pub(crate) struct Writer {
    out: String,
    last_end: f64,
    last_y: f64,
    /// Glyphs with text seen (zero at the end means no text layer).
    pub(crate) glyphs: usize,
}

impl Writer {
    pub(crate) fn new() -> Self {
        Writer {
            out: String::new(),
            last_end: 100_000.0,
            last_y: 0.0,
            glyphs: 0,
        }
    }

    /// Write one page: its tables found, its other text as pdf-extract writes it.
    pub(crate) fn page(&mut self, page: &Page) {
        let words = layout::words(page);
        let found = layout::tables(page, &words);
        write_page(self, page, &words, &found);
    }

    /// Write a page's glyphs as text only, with no search for tables.
    pub(crate) fn plain(&mut self, page: &Page) {
        write_page(self, page, &[], &[]);
    }

    /// Write one glyph as pdf-extract's plain-text output does: a line break where the
    /// baseline jumps, a space past a gap, both only where a shown string starts.
    pub(crate) fn put(&mut self, g: &Glyph, text: &str, opens_run: bool) {
        if !text.trim().is_empty() {
            self.glyphs += 1;
        }
        if opens_run {
            let size = g.size;
            if (g.y - self.last_y).abs() > size * 1.5 {
                self.out.push('\n');
            }
            if g.x < self.last_end && (g.y - self.last_y).abs() > size * 0.5 {
                self.out.push('\n');
            }
            if g.x > self.last_end + size * 0.1 {
                self.out.push(' ');
            }
        }
        self.out.push_str(text);
        self.last_y = g.y;
        self.last_end = g.end;
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }
}

fn write_page(w: &mut Writer, page: &Page, words: &[layout::Word], tables: &[Table]) {
    // Which table, if any, each glyph belongs to, and where each table is written.
    let mut owner: Vec<Option<usize>> = vec![None; page.glyphs.len()];
    let mut anchor: Vec<Option<usize>> = vec![None; page.glyphs.len()];
    for (t, table) in tables.iter().enumerate() {
        for &i in &table.words {
            for slot in &mut owner[words[i].first..=words[i].last] {
                *slot = Some(t);
            }
        }
        if let Some(first) = table.words.iter().map(|&i| words[i].first).min() {
            anchor[first] = Some(t);
        }
    }
    let mut opens_run = false;
    let mut previous_owned = false;
    for (i, g) in page.glyphs.iter().enumerate() {
        if let Some(t) = anchor[i] {
            w.out.push_str("\n\n");
            w.out
                .push_str(&gfm::table(&tables[t].rows, MAX_ROWS, MAX_COLUMNS));
            w.out.push_str("\n\n");
            w.last_end = 100_000.0;
        }
        let text = page.glyph_text(g);
        // A space drawn between two of a table's words is the table's too.
        let owned = owner[i].is_some() || (previous_owned && text.trim().is_empty());
        previous_owned = owned;
        if owned {
            opens_run |= g.opens_run;
            continue;
        }
        let opens = std::mem::take(&mut opens_run) || g.opens_run;
        w.put(g, text, opens);
    }
}
