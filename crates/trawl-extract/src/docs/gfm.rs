//! Writing rows of cells as a GFM table, the one shape every table of every format becomes.

/// A GFM table of `rows` (the first is the header), at most `max_rows` body rows and
/// `max_columns` columns; what is left out is said in a line under the table.
pub(crate) fn table(rows: &[Vec<String>], max_rows: usize, max_columns: usize) -> String {
    let Some(width) = rows.iter().map(Vec::len).max().filter(|&w| w > 0) else {
        return String::new();
    };
    let shown = width.min(max_columns);
    let mut out = String::new();
    let line = |out: &mut String, row: &[String]| {
        out.push('|');
        for i in 0..shown {
            out.push(' ');
            out.push_str(&cell(row.get(i).map_or("", String::as_str)));
            out.push_str(" |");
        }
        out.push('\n');
    };
    line(&mut out, &rows[0]);
    out.push('|');
    for _ in 0..shown {
        out.push_str("---|");
    }
    out.push('\n');
    let body = &rows[1..];
    for row in body.iter().take(max_rows) {
        line(&mut out, row);
    }
    let mut left_out = Vec::new();
    if body.len() > max_rows {
        left_out.push(format!("{} more rows", body.len() - max_rows));
    }
    if width > shown {
        left_out.push(format!("{} more columns", width - shown));
    }
    if !left_out.is_empty() {
        out.push_str(&format!("\n*({} not shown)*\n", left_out.join(", ")));
    }
    out
}

/// One cell's text on one line, with the pipe escaped.
pub(crate) fn cell(text: &str) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    folded.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_rule_body_and_what_was_left_out() {
        let rows: Vec<Vec<String>> = vec![
            vec!["a".into(), "b|c".into()],
            vec!["1".into()],
            vec!["2".into(), "x\ny".into()],
            vec!["3".into(), "z".into()],
        ];
        let t = table(&rows, 2, 10);
        assert_eq!(
            t,
            "| a | b\\|c |\n|---|---|\n| 1 |  |\n| 2 | x y |\n\n*(1 more rows not shown)*\n"
        );
        assert!(table(&[], 5, 5).is_empty());
    }
}
