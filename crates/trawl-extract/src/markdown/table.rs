//! Tables: GFM pipe tables for data, plain blocks for layout tables.

use super::Writer;
use crate::dom::{AttrName, NodeId, Tag};

/// Most columns a table keeps; more would let one wide row blow up every other row.
const MAX_TABLE_COLUMNS: usize = 64;

/// A data table's cells, rendered and escaped: each cell a span of `text`, each row a
/// span of `cells`. One buffer for the whole table rather than a `String` per cell: a
/// docs page's tables hold hundreds of cells.
#[derive(Default)]
struct Cells {
    text: String,
    /// Start and end of each cell in `text`.
    cells: Vec<(usize, usize)>,
    /// Start and end of each row in `cells`.
    rows: Vec<(usize, usize)>,
}

impl Cells {
    fn row(&self, r: usize) -> &[(usize, usize)] {
        let (start, end) = self.rows[r];
        &self.cells[start..end]
    }

    fn cell(&self, (start, end): (usize, usize)) -> &str {
        &self.text[start..end]
    }

    /// Close the open row (every cell pushed since the last close), unless it is empty.
    fn end_row(&mut self, row_start: usize) {
        if self.cells.len() > row_start {
            self.rows.push((row_start, self.cells.len()));
        }
    }
}

impl Writer<'_> {
    pub(super) fn table(&mut self, id: NodeId) {
        let Some(cells) = self.table_rows(id) else {
            // A layout table: its cells are just blocks.
            self.block(2);
            self.children(id);
            self.block(2);
            return;
        };
        if cells.rows.is_empty() {
            return;
        }
        if self.inline_only > 0 || !self.md() {
            self.block(2);
            for r in 0..cells.rows.len() {
                self.block(1);
                self.flush();
                for (c, &cell) in cells.row(r).iter().enumerate() {
                    if c > 0 {
                        self.out.push_str(" | ");
                    }
                    self.out.push_str(cells.cell(cell));
                }
            }
            self.block(2);
            return;
        }
        let columns = (0..cells.rows.len())
            .map(|r| cells.row(r).len())
            .max()
            .unwrap_or(0)
            .clamp(1, MAX_TABLE_COLUMNS);
        self.block(2);
        self.flush();
        // The table's text, its pipes and spaces, and a prefix a row: reserved at once.
        let rows = cells.rows.len();
        self.out
            .reserve(cells.text.len() + (rows + 1) * (3 * columns + 2 + self.prefix.len()));
        for r in 0..rows {
            let row = cells.row(r);
            if r > 0 {
                self.out.push('\n');
                self.out.push_str(&self.prefix);
            }
            self.out.push('|');
            for c in 0..columns {
                self.out.push(' ');
                if let Some(&cell) = row.get(c) {
                    self.out.push_str(cells.cell(cell));
                }
                self.out.push_str(" |");
            }
            if r == 0 {
                self.out.push('\n');
                self.out.push_str(&self.prefix);
                self.out.push('|');
                for _ in 0..columns {
                    self.out.push_str(" --- |");
                }
            }
        }
        self.block(2);
    }

    /// Cells of a data table rendered inline, or `None` for a layout table (one that
    /// nests tables or holds long block content in a cell).
    fn table_rows(&self, table: NodeId) -> Option<Cells> {
        let end = self.dom.subtree_end(table);
        // Sized for the table's text once, not grown cell by cell (an escaped `|` or two
        // past the eighth more is the rare case).
        let text_len = self.dom.text_len(table);
        let mut cells = Cells {
            text: String::with_capacity(text_len + text_len / 8),
            ..Cells::default()
        };
        // Start in `cells.cells` of the open row, if a row is open.
        let mut row_start: Option<usize> = None;
        // One writer renders every cell in turn, its buffer kept from cell to cell.
        let mut cell: Option<Writer<'_>> = None;
        let mut i = table + 1;
        while i < end {
            let node = self.dom.node(i);
            if self.dropped[i as usize] {
                i = self.dom.subtree_end(i);
                continue;
            }
            match node.tag {
                Tag::Table => return None,
                Tag::Tr => {
                    if let Some(start) = row_start {
                        cells.end_row(start);
                    }
                    row_start = Some(cells.cells.len());
                }
                Tag::Td | Tag::Th => {
                    let cell_end = self.dom.subtree_end(i);
                    if (i + 1..cell_end).any(|d| {
                        matches!(
                            self.dom.node(d).tag,
                            Tag::Table
                                | Tag::P
                                | Tag::Div
                                | Tag::Ul
                                | Tag::Ol
                                | Tag::Pre
                                | Tag::H1
                                | Tag::H2
                                | Tag::H3
                        ) && self.dom.text_len(d) > 200
                    }) {
                        return None;
                    }
                    let start = *row_start.get_or_insert(cells.cells.len());
                    let cell = cell.get_or_insert_with(|| {
                        Writer::with_out(
                            self.dom,
                            self.dropped,
                            self.base,
                            self.mode,
                            String::new(),
                        )
                    });
                    cell.reset_inline();
                    cell.children(i);
                    if cells.cells.len() - start < MAX_TABLE_COLUMNS {
                        let text_start = cells.text.len();
                        push_cell_escaped(&mut cells.text, cell.out.trim());
                        cells.cells.push((text_start, cells.text.len()));
                        let span = self
                            .dom
                            .attr(i, AttrName::Colspan)
                            .and_then(|s| s.trim().parse::<usize>().ok())
                            .unwrap_or(1);
                        let len = cells.cells.len() - start;
                        for _ in 1..span.min(MAX_TABLE_COLUMNS - len + 1) {
                            let at = cells.text.len();
                            cells.cells.push((at, at));
                        }
                    }
                    i = cell_end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        if let Some(start) = row_start {
            cells.end_row(start);
        }
        Some(cells)
    }
}

/// `text` with `|` escaped and line breaks made spaces, as a pipe table's cell needs it,
/// pushed onto `out` in one pass.
fn push_cell_escaped(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = memchr::memchr2(b'|', b'\n', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        out.push_str(if rest.as_bytes()[at] == b'|' {
            "\\|"
        } else {
            " "
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::push_cell_escaped;

    #[test]
    fn cell_escape_is_the_two_replaces() {
        for text in ["", "plain", "a|b", "|", "||x|", "a\nb", "\n|\n", "é|ü\nß"] {
            let mut out = String::from("kept ");
            push_cell_escaped(&mut out, text);
            let replaced = text.replace('|', "\\|").replace('\n', " ");
            assert_eq!(out, format!("kept {replaced}"), "{text:?}");
        }
    }
}
