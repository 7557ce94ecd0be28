//! tesseract's TSV output (one row per block, paragraph, line and word, a word's row with
//! its confidence) into paragraphs of text and the mean word confidence.
//!
//! Columns: level, page_num, block_num, par_num, line_num, word_num, left, top, width,
//! height, conf, text. Only level-5 rows are words; the others only open a new block,
//! paragraph or line.

/// The text tesseract read from one image, and how sure it was.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Read {
    /// Paragraphs separated by a blank line, each paragraph's lines joined by spaces.
    pub(crate) text: String,
    /// Words kept.
    pub(crate) words: usize,
    /// Sum of the kept words' confidences (0 to 100 each), for a mean over pages.
    pub(crate) confidence_sum: f64,
}

/// A word below this confidence that holds no letter or digit (`|`, `~`, `—`) is the
/// engine reading an edge or a speck as ink: left out rather than printed as text.
const SPECK_CONFIDENCE: f32 = 60.0;

pub(crate) fn parse(tsv: &str) -> Read {
    let mut read = Read::default();
    // (block, paragraph) of the paragraph being written.
    let mut at: Option<(u32, u32)> = None;
    let mut paragraph = String::new();
    for row in tsv.lines().skip(1) {
        let cols: Vec<&str> = row.splitn(12, '\t').collect();
        if cols.len() < 12 || cols[0] != "5" {
            continue;
        }
        let num = |i: usize| cols[i].parse::<u32>().unwrap_or(0);
        let Ok(conf) = cols[10].trim().parse::<f32>() else {
            continue;
        };
        let word = cols[11].trim();
        if word.is_empty() || conf < 0.0 {
            continue;
        }
        if conf < SPECK_CONFIDENCE && !word.chars().any(char::is_alphanumeric) {
            continue;
        }
        // Pages of one image are one page here: a new block or paragraph is a new
        // paragraph.
        let key = (num(1) * 100_000 + num(2), num(3));
        if at != Some(key) {
            flush(&mut read.text, &mut paragraph);
            at = Some(key);
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(word);
        read.words += 1;
        read.confidence_sum += f64::from(conf);
    }
    flush(&mut read.text, &mut paragraph);
    read
}

fn flush(text: &mut String, paragraph: &mut String) {
    if paragraph.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(paragraph);
    paragraph.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n";

    fn word(block: u32, par: u32, line: u32, conf: f32, text: &str) -> String {
        format!("5\t1\t{block}\t{par}\t{line}\t1\t0\t0\t10\t10\t{conf}\t{text}\n")
    }

    #[test]
    fn words_join_into_lines_and_paragraphs_with_their_mean_confidence() {
        let tsv = [
            HEAD.to_owned(),
            "1\t1\t0\t0\t0\t0\t0\t0\t640\t480\t-1\t\n".to_owned(),
            word(1, 1, 1, 96.0, "Tide"),
            word(1, 1, 1, 90.0, "tables"),
            word(1, 1, 2, 94.0, "for"),
            word(1, 2, 1, 92.0, "Moorings"),
            word(2, 1, 1, 88.0, "Charges"),
        ]
        .concat();
        let read = parse(&tsv);
        assert_eq!(read.text, "Tide tables for\n\nMoorings\n\nCharges");
        assert_eq!(read.words, 5);
        assert!((read.confidence_sum / read.words as f64 - 92.0).abs() < 1e-9);
    }

    #[test]
    fn specks_and_empty_rows_are_not_words() {
        let tsv = [
            HEAD.to_owned(),
            word(1, 1, 1, 30.0, "|"),
            word(1, 1, 1, 95.0, "—"),
            word(1, 1, 1, 20.0, "a1"),
            word(1, 1, 1, -1.0, ""),
            "5\t1\tbroken row\n".to_owned(),
        ]
        .concat();
        let read = parse(&tsv);
        assert_eq!(read.text, "— a1");
        assert_eq!(read.words, 2);
        assert_eq!(parse("").words, 0);
    }
}
