//! Tables found in a page's positioned glyphs. No PDF crate that trawl can use finds them
//! (pdf-extract gives glyphs; pdf_oxide's Markdown finds ruled tables only, and loses the
//! reading order around them: BENCHMARKS §12.2), so this is trawl's own, in two passes:
//!
//! 1. **ruled**: the page's horizontal and vertical rules are joined where they touch; a
//!    group with at least three of each is a grid, whose lines are the cell borders;
//! 2. **borderless**: the remaining words are set in rows by baseline and cut into
//!    segments at wide gaps; consecutive rows of two or more segments whose segments
//!    fall into the same columns (projected on the x axis) make a table. A lone line
//!    between two such rows, inside one column right of the first, is a cell's wrapped
//!    line and joins the row it is nearer to.
//!
//! A two-column article looks like a borderless table of two columns, so a block is
//! prose, not a table, when its rows are not drawn one after the other (each column's
//! lines are drawn before the next column's, so a row's two halves are far apart in the
//! drawing order) and its segments are sentences rather than cells (four words or more
//! on average).

use super::page::{Glyph, Page, Rule};

/// A word: glyphs drawn one after another on one baseline with no gap.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    pub(crate) x0: f64,
    pub(crate) x1: f64,
    pub(crate) y: f64,
    pub(crate) em: f64,
    /// Its glyphs: `first..=last` in drawing order.
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) text: String,
}

/// A table found on a page: its rows of cells (the first is the header) and the words it
/// took, by index in the page's words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Table {
    pub(crate) rows: Vec<Vec<String>>,
    pub(crate) words: Vec<usize>,
}

/// Rules closer than this (PDF units) touch.
const TOUCH: f64 = 2.0;
/// A gap wider than this many ems between two words of a row separates two cells.
const CELL_GAP: f64 = 1.0;
/// Rows whose baselines are further apart than this many ems are not one table.
const ROW_GAP: f64 = 2.6;
/// A block whose segments hold this many words on average reads as prose.
const PROSE_WORDS: f64 = 4.0;
/// A borderless table is cut after this many rows: checking a row against the block is
/// linear in the block, and no page holds so many rows of a real table.
const MAX_BLOCK_ROWS: usize = 1_000;

/// The page's words, in drawing order, split as pdf-extract's plain-text output puts a
/// space or a line break (a new shown string with a gap, a jump in baseline) and at spaces.
pub(crate) fn words(page: &Page) -> Vec<Word> {
    let mut words: Vec<Word> = Vec::new();
    let mut open = false;
    for (i, g) in page.glyphs.iter().enumerate() {
        let text = page.glyph_text(g);
        if text.trim().is_empty() {
            open = false;
            continue;
        }
        let joins = open
            && words.last().is_some_and(|w| {
                let dy = (g.y - w.y).abs();
                let gap = g.x - w.x1;
                dy < 0.3 * w.em && !(g.opens_run && (gap > 0.1 * g.em() || gap < -0.5 * w.em))
            });
        if joins {
            let w = words.last_mut().expect("open word");
            w.x1 = w.x1.max(g.end);
            w.last = i;
            w.text.push_str(text);
        } else {
            words.push(word_of(g, i, text));
        }
        open = true;
    }
    words
}

fn word_of(g: &Glyph, i: usize, text: &str) -> Word {
    Word {
        x0: g.x,
        x1: g.end.max(g.x),
        y: g.y,
        em: g.em(),
        first: i,
        last: i,
        text: text.to_owned(),
    }
}

/// The tables of a page: ruled ones first, then borderless ones among the words left.
pub(crate) fn tables(page: &Page, words: &[Word]) -> Vec<Table> {
    let mut taken = vec![false; words.len()];
    let mut found = Vec::new();
    for grid in grids(&page.rules) {
        if let Some(table) = ruled(&grid, words, &mut taken) {
            found.push(table);
        }
    }
    found.extend(borderless(words, &mut taken));
    found
}

/// A grid of rules: column borders left to right, row borders top to bottom.
#[derive(Debug, PartialEq)]
struct Grid {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

/// Groups of touching rules that form grids.
fn grids(rules: &[Rule]) -> Vec<Grid> {
    let mut parent: Vec<usize> = (0..rules.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for a in 0..rules.len() {
        for b in a + 1..rules.len() {
            if touch(&rules[a], &rules[b]) {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra] = rb;
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<Rule>> = Default::default();
    for (i, rule) in rules.iter().enumerate() {
        groups.entry(root(&mut parent, i)).or_default().push(*rule);
    }
    let mut out = Vec::new();
    for group in groups.values() {
        let xs = distinct(group.iter().filter(|r| r.is_vertical()).map(|r| r.x0));
        let mut ys = distinct(group.iter().filter(|r| r.is_horizontal()).map(|r| r.y0));
        ys.reverse();
        if xs.len() >= 3 && ys.len() >= 3 {
            out.push(Grid { xs, ys });
        }
    }
    out
}

/// Whether two rules touch: crossing, meeting at an end, or overlapping on one line.
fn touch(a: &Rule, b: &Rule) -> bool {
    a.x0 <= b.x1 + TOUCH && b.x0 <= a.x1 + TOUCH && a.y0 <= b.y1 + TOUCH && b.y0 <= a.y1 + TOUCH
}

/// Sorted values with those closer than [`TOUCH`] merged.
fn distinct(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut all: Vec<f64> = values.collect();
    all.sort_by(f64::total_cmp);
    all.dedup_by(|b, a| *b - *a < TOUCH);
    all
}

/// The cells of `grid`, filled with the words inside it (each taken).
fn ruled(grid: &Grid, words: &[Word], taken: &mut [bool]) -> Option<Table> {
    let (cols, rows) = (grid.xs.len() - 1, grid.ys.len() - 1);
    let mut cells: Vec<Vec<Vec<usize>>> = vec![vec![Vec::new(); cols]; rows];
    let mut took = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if taken[i] {
            continue;
        }
        let (cx, cy) = ((w.x0 + w.x1) / 2.0, w.y + 0.3 * w.em);
        let col = grid.xs.windows(2).position(|p| p[0] <= cx && cx < p[1]);
        let row = grid.ys.windows(2).position(|p| p[0] >= cy && cy > p[1]);
        if let (Some(col), Some(row)) = (col, row) {
            cells[row][col].push(i);
            took.push(i);
        }
    }
    let rows = fill(cells, words);
    if rows.iter().flatten().filter(|c| !c.is_empty()).count() < 2 {
        return None;
    }
    for &i in &took {
        taken[i] = true;
    }
    Some(Table { rows, words: took })
}

/// Cell texts from word indices (each cell's words top to bottom, left to right), with
/// empty rows and columns dropped.
fn fill(cells: Vec<Vec<Vec<usize>>>, words: &[Word]) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = cells
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|mut cell| {
                    cell.sort_by(|&a, &b| {
                        let (a, b) = (&words[a], &words[b]);
                        if (a.y - b.y).abs() < 0.35 * a.em.max(b.em) {
                            a.x0.total_cmp(&b.x0)
                        } else {
                            b.y.total_cmp(&a.y)
                        }
                    });
                    let texts: Vec<&str> = cell.iter().map(|&i| words[i].text.as_str()).collect();
                    texts.join(" ")
                })
                .collect()
        })
        .filter(|row: &Vec<String>| row.iter().any(|c| !c.is_empty()))
        .collect();
    let width = rows.first().map_or(0, Vec::len);
    for col in (0..width).rev() {
        if rows.iter().all(|r| r[col].is_empty()) {
            for row in &mut rows {
                row.remove(col);
            }
        }
    }
    rows
}

/// One row of words on a baseline, cut into segments at wide gaps.
#[derive(Debug)]
struct Row {
    y: f64,
    em: f64,
    /// Each segment's word indices, left to right, and its x extent.
    segments: Vec<(Vec<usize>, f64, f64)>,
}

/// The words not taken, in rows top to bottom.
fn rows(words: &[Word], taken: &[bool]) -> Vec<Row> {
    let mut order: Vec<usize> = (0..words.len()).filter(|&i| !taken[i]).collect();
    order.sort_by(|&a, &b| words[b].y.total_cmp(&words[a].y));
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for i in order {
        let w = &words[i];
        match rows.last_mut() {
            Some(row) if (words[row[0]].y - w.y).abs() < 0.35 * w.em => row.push(i),
            _ => rows.push(vec![i]),
        }
    }
    rows.into_iter()
        .map(|mut row| {
            row.sort_by(|&a, &b| words[a].x0.total_cmp(&words[b].x0));
            let mut segments: Vec<(Vec<usize>, f64, f64)> = Vec::new();
            for i in row.iter().copied() {
                let w = &words[i];
                match segments.last_mut() {
                    Some((seg, _, x1)) if w.x0 - *x1 <= CELL_GAP * w.em => {
                        seg.push(i);
                        *x1 = x1.max(w.x1);
                    }
                    _ => segments.push((vec![i], w.x0, w.x1)),
                }
            }
            Row {
                y: words[row[0]].y,
                em: row.iter().map(|&i| words[i].em).fold(0.0, f64::max),
                segments,
            }
        })
        .collect()
}

/// Borderless tables among the words not taken.
fn borderless(words: &[Word], taken: &mut [bool]) -> Vec<Table> {
    let rows = rows(words, taken);
    let mut found = Vec::new();
    let mut block: Vec<&Row> = Vec::new();
    // Rows of one segment inside a column, held until a row of the block follows them (a
    // cell's wrapped line, a row with one cell filled); then they are rows of the block.
    let mut pending: Vec<&Row> = Vec::new();
    let mut columns: Vec<(f64, f64)> = Vec::new();
    for row in rows.iter().chain(std::iter::once(&Row {
        y: f64::NEG_INFINITY,
        em: 0.0,
        segments: Vec::new(),
    })) {
        let near = pending
            .last()
            .or(block.last())
            .is_some_and(|last| last.y - row.y <= ROW_GAP * last.em.max(row.em));
        let room = block.len() + pending.len() < MAX_BLOCK_ROWS;
        let merged = (row.segments.len() >= 2 && near && room)
            .then(|| merge(&columns, row))
            .flatten()
            .filter(|cols| {
                block
                    .iter()
                    .chain(&pending)
                    .chain([&row])
                    .all(|r| fits(cols, r))
            });
        if let Some(cols) = merged {
            block.append(&mut pending);
            block.push(row);
            columns = cols;
            continue;
        }
        // A wrapped line may be wider than its column so far: it may widen one column,
        // not join two.
        let widened = (row.segments.len() == 1 && !block.is_empty() && near && room)
            .then(|| merge(&columns, row))
            .flatten()
            .filter(|cols| cols.len() == columns.len() && pending.len() < 2)
            .filter(|cols| {
                block
                    .iter()
                    .chain(&pending)
                    .chain([&row])
                    .all(|r| fits(cols, r))
            });
        if let Some(cols) = widened {
            pending.push(row);
            columns = cols;
            continue;
        }
        if let Some(table) = accept(&block, &columns, words) {
            for &i in &table.words {
                taken[i] = true;
            }
            found.push(table);
        }
        block.clear();
        pending.clear();
        columns.clear();
        if row.segments.len() >= 2 {
            block.push(row);
            columns = merge(&[], row).unwrap_or_default();
        }
    }
    found
}

/// The columns of a block with `row` added: the union of their x extents, overlapping
/// intervals merged.
fn merge(columns: &[(f64, f64)], row: &Row) -> Option<Vec<(f64, f64)>> {
    let mut all: Vec<(f64, f64)> = columns.to_vec();
    all.extend(row.segments.iter().map(|s| (s.1, s.2)));
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (x0, x1) in all {
        match out.last_mut() {
            Some(last) if x0 <= last.1 => last.1 = last.1.max(x1),
            _ => out.push((x0, x1)),
        }
    }
    (out.len() >= 2).then_some(out)
}

/// Whether each segment of `row` falls in a column of its own.
fn fits(columns: &[(f64, f64)], row: &Row) -> bool {
    let mut used = vec![false; columns.len()];
    row.segments.iter().all(|s| {
        let Some(c) = columns.iter().position(|c| c.0 <= s.1 && s.2 <= c.1) else {
            return false;
        };
        !std::mem::replace(&mut used[c], true)
    })
}

/// A block as a table, unless it is too small or reads as prose in columns.
fn accept(block: &[&Row], columns: &[(f64, f64)], words: &[Word]) -> Option<Table> {
    if block.len() < 3 && !(block.len() == 2 && columns.len() >= 3) {
        return None;
    }
    let segments: usize = block.iter().map(|r| r.segments.len()).sum();
    let in_segments: usize = block
        .iter()
        .flat_map(|r| &r.segments)
        .map(|s| s.0.len())
        .sum();
    let wordy = in_segments as f64 / segments as f64 >= PROSE_WORDS;
    let apart = block.iter().filter(|r| !drawn_together(r)).count();
    if wordy && apart * 2 >= block.len() {
        return None;
    }
    let place = |x0: f64, x1: f64| {
        columns
            .iter()
            .position(|c| c.0 <= x0 && x1 <= c.1)
            .expect("the block's rows fit its columns")
    };
    // A lone segment right of the first column is a cell's wrapped line: it belongs to
    // the row it is closer to, the one above when the cells are aligned to the top, the
    // one below when they are aligned to the bottom.
    let lone = |r: usize| match block[r].segments.as_slice() {
        [(_, x0, x1)] if r > 0 => Some(place(*x0, *x1)).filter(|&c| c > 0),
        _ => None,
    };
    let mut cells: Vec<Vec<Vec<usize>>> = Vec::with_capacity(block.len());
    let mut carried: Vec<(usize, &[usize])> = Vec::new();
    let mut took = Vec::new();
    for (r, row) in block.iter().enumerate() {
        took.extend(row.segments.iter().flat_map(|s| s.0.iter().copied()));
        if let Some(c) = lone(r) {
            let up = block[r - 1].y - row.y;
            let down = block
                .get(r + 1)
                .map_or(f64::INFINITY, |next| row.y - next.y);
            if down + 0.5 < up {
                carried.push((c, &row.segments[0].0));
            } else if let Some(above) = cells.last_mut() {
                above[c].extend(row.segments[0].0.iter().copied());
            }
            continue;
        }
        let mut new = vec![Vec::new(); columns.len()];
        for (c, ids) in carried.drain(..) {
            new[c].extend(ids.iter().copied());
        }
        for (seg, x0, x1) in &row.segments {
            new[place(*x0, *x1)].extend(seg.iter().copied());
        }
        cells.push(new);
    }
    if let Some(last) = cells.last_mut() {
        for (c, ids) in carried {
            last[c].extend(ids.iter().copied());
        }
    }
    Some(Table {
        rows: fill(cells, words),
        words: took,
    })
}

/// Whether a row's words were drawn one after another (no other row's words between).
/// Word indices are in drawing order, so a row drawn at once has consecutive ones.
fn drawn_together(row: &Row) -> bool {
    let mut ids: Vec<usize> = row
        .segments
        .iter()
        .flat_map(|s| s.0.iter().copied())
        .collect();
    ids.sort_unstable();
    ids.windows(2).all(|p| p[1] == p[0] + 1)
}

#[cfg(test)]
mod tests {
    use super::super::page::Glyph;
    use super::*;

    /// A page of words drawn in the order given, each a string of 5-unit glyphs at size 10.
    fn page(drawn: &[(&str, f64, f64)]) -> Page {
        let mut page = Page::default();
        for &(word, x, y) in drawn {
            for (i, c) in word.chars().enumerate() {
                let start = page.text.len() as u32;
                page.text.push(c);
                let x = x + 5.0 * i as f64;
                page.glyphs.push(Glyph {
                    x,
                    y,
                    end: x + 5.0,
                    size: 10.0,
                    opens_run: i == 0,
                    text: (start, page.text.len() as u32),
                });
            }
        }
        page
    }

    fn found(page: &Page) -> Vec<Vec<Vec<String>>> {
        let words = words(page);
        tables(page, &words).into_iter().map(|t| t.rows).collect()
    }

    #[test]
    fn a_table_drawn_column_by_column_is_still_a_table() {
        let mut drawn = Vec::new();
        for (col, x) in [(["a", "b", "c"], 0.0), (["1", "2", "3"], 100.0)] {
            for (row, text) in col.iter().enumerate() {
                drawn.push((*text, x, 700.0 - 14.0 * row as f64));
            }
        }
        assert_eq!(found(&page(&drawn)), [[["a", "1"], ["b", "2"], ["c", "3"]]]);
    }

    #[test]
    fn prose_columns_drawn_one_after_the_other_are_not_a_table() {
        let line = "word word word word word";
        let mut drawn = Vec::new();
        for x in [0.0, 200.0] {
            for row in 0..6 {
                for (i, w) in line.split(' ').enumerate() {
                    drawn.push((w, x + 30.0 * i as f64, 700.0 - 14.0 * f64::from(row)));
                }
            }
        }
        assert!(found(&page(&drawn)).is_empty());
        // Two lines side by side are not enough for a table either.
        assert!(found(&page(&[("a", 0.0, 700.0), ("b", 100.0, 700.0)])).is_empty());
    }

    #[test]
    fn a_grid_needs_three_lines_each_way() {
        let h = |y| Rule {
            x0: 0.0,
            y0: y,
            x1: 100.0,
            y1: y,
        };
        let v = |x| Rule {
            x0: x,
            y0: 0.0,
            x1: x,
            y1: 40.0,
        };
        // A box around a paragraph is not a table.
        assert!(grids(&[h(0.0), h(40.0), v(0.0), v(100.0)]).is_empty());
        let grid = grids(&[h(0.0), h(20.0), h(40.0), v(0.0), v(50.0), v(100.0)]);
        assert_eq!(
            grid,
            [Grid {
                xs: vec![0.0, 50.0, 100.0],
                ys: vec![40.0, 20.0, 0.0]
            }]
        );
    }
}
