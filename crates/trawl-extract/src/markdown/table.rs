//! Tables: GFM pipe tables for data, plain blocks for layout tables.

use super::Writer;
use crate::dom::{AttrName, NodeId, Tag};

/// Most columns a table keeps; more would let one wide row blow up every other row.
const MAX_TABLE_COLUMNS: usize = 64;

impl Writer<'_> {
    pub(super) fn table(&mut self, id: NodeId) {
        let rows = self.table_rows(id);
        let Some(rows) = rows else {
            // A layout table: its cells are just blocks.
            self.block(2);
            self.children(id);
            self.block(2);
            return;
        };
        if rows.is_empty() {
            return;
        }
        if self.inline_only > 0 || !self.md() {
            self.block(2);
            for row in &rows {
                self.block(1);
                self.flush();
                self.out.push_str(&row.join(" | "));
            }
            self.block(2);
            return;
        }
        let columns = rows
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .clamp(1, MAX_TABLE_COLUMNS);
        self.block(2);
        self.flush();
        for (r, row) in rows.iter().enumerate() {
            if r > 0 {
                self.out.push('\n');
                self.out.push_str(&self.prefix);
            }
            self.out.push('|');
            for c in 0..columns {
                self.out.push(' ');
                self.out.push_str(row.get(c).map_or("", String::as_str));
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
    fn table_rows(&self, table: NodeId) -> Option<Vec<Vec<String>>> {
        let end = self.dom.subtree_end(table);
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut i = table + 1;
        while i < end {
            let node = self.dom.node(i);
            if self.dropped[i as usize] {
                i = self.dom.subtree_end(i);
                continue;
            }
            match node.tag {
                Tag::Table => return None,
                Tag::Tr => rows.push(Vec::new()),
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
                        ) && self.dom.raw_text(d).len() > 200
                    }) {
                        return None;
                    }
                    if rows.is_empty() {
                        rows.push(Vec::new());
                    }
                    let mut cell = Writer::new(self.dom, self.dropped, self.base, self.mode);
                    cell.inline_only = 1;
                    cell.children(i);
                    let text = cell.out.trim().replace('|', "\\|").replace('\n', " ");
                    let row = rows.last_mut().expect("a row was pushed");
                    if row.len() < MAX_TABLE_COLUMNS {
                        row.push(text);
                        let span = self
                            .dom
                            .attr(i, AttrName::Colspan)
                            .and_then(|s| s.trim().parse::<usize>().ok())
                            .unwrap_or(1);
                        for _ in 1..span.min(MAX_TABLE_COLUMNS - row.len() + 1) {
                            row.push(String::new());
                        }
                    }
                    i = cell_end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        rows.retain(|r| !r.is_empty());
        Some(rows)
    }
}
