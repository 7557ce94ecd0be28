//! Query-focused reads: the passages of a document that best match a query, in document
//! order, within a token budget, with a marker wherever text was left out.
//!
//! The document is cut into the passages the store indexes ([`passages::split`] at the
//! default page size, so each passage's page number is the one `web_open page=N` opens)
//! and ranked with BM25 over each passage and the heading path above it
//! ([`passages::best`]). Passages are taken best first while they fit the budget, then
//! put back in document order. Each run of taken passages opens with a line naming its
//! page and heading path; each stretch left out becomes one line saying how many tokens
//! and which pages it covered. When no passage holds a query word, the document's opening
//! passages are given instead, and [`Focused::matched`] says so.
//!
//! The budget covers the whole answer, markers included, as [`estimate_tokens`] counts it.

use trawl_text::pager::{DEFAULT_PAGE_TOKENS, estimate_tokens};
use trawl_text::passages::{self, Passage};

/// One passage of a focused read.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusedPassage {
    /// Its page at the default page size.
    pub page: u32,
    /// The heading path above it (` › `-joined; empty before the first heading).
    pub heading: String,
    /// Estimated tokens of its text as given (after a cut, when [`Self::cut`]).
    pub tokens: usize,
    /// BM25 relevance (0 when the opening passages stand in for matches).
    pub score: f64,
    /// Whether the passage was cut short to fit the budget.
    pub cut: bool,
}

/// A document read for one query.
#[derive(Debug, Clone, PartialEq)]
pub struct Focused {
    /// The taken passages with their markers, ready to show.
    pub markdown: String,
    /// The taken passages, in document order.
    pub passages: Vec<FocusedPassage>,
    /// Estimated tokens of [`Self::markdown`].
    pub tokens: usize,
    /// Estimated tokens of the whole document.
    pub document_tokens: usize,
    /// Estimated tokens of the document not given (what the markers stand for).
    pub left_out_tokens: usize,
    /// Passages not given (or given only in part).
    pub left_out_passages: usize,
    /// Whether any passage held a query word (when not, the opening passages are given).
    pub matched: bool,
}

/// The passages of `markdown` that best match `query`, within `max_tokens`.
pub fn focus(markdown: &str, query: &str, max_tokens: usize) -> Focused {
    let parts = passages::split(markdown, DEFAULT_PAGE_TOKENS);
    let document_tokens = estimate_tokens(markdown);
    let ranked = passages::best(&parts, query, None, 0);
    let matched = !ranked.is_empty();
    // (index in `parts`, score), best first; the opening passages when nothing matched.
    let candidates: Vec<(usize, f64)> = if matched {
        ranked
            .iter()
            .map(|(p, score)| (index_of(&parts, p), *score))
            .collect()
    } else {
        (0..parts.len()).map(|i| (i, 0.0)).collect()
    };
    // Every passage may need a header and a gap marker after it, and the answer may open
    // with a gap: reserve the widest gap marker each time, so the total never overshoots.
    let last_page = parts.last().map_or(1, |p| p.page);
    let gap_cost = estimate_tokens(&gap_marker(document_tokens, last_page, last_page)) + 1;
    let mut used = gap_cost;
    let mut taken: Vec<(usize, f64, Option<String>)> = Vec::new();
    for &(i, score) in &candidates {
        let p = &parts[i];
        let cost = estimate_tokens(&p.text) + estimate_tokens(&header(p)) + gap_cost + 2;
        if used + cost <= max_tokens {
            used += cost;
            taken.push((i, score, None));
        } else if !matched {
            // The opening stays one stretch: stop at the first that does not fit.
            break;
        }
    }
    // Not even the best passage fits: give as much of it as does.
    if taken.is_empty()
        && let Some(&(i, score)) = candidates.first()
    {
        let p = &parts[i];
        let room = max_tokens.saturating_sub(used + estimate_tokens(&header(p)) + gap_cost + 2);
        let (text, dropped_start) = from_first_match(&p.text, query);
        let cut = if dropped_start {
            // Two tokens for the `… ` that says the passage's start was dropped.
            let rest = cut_to_tokens(text, room.saturating_sub(2));
            if rest.is_empty() {
                rest
            } else {
                format!("… {rest}")
            }
        } else {
            cut_to_tokens(text, room)
        };
        if !cut.is_empty() {
            taken.push((i, score, Some(cut)));
        }
    }
    taken.sort_by_key(|(i, _, _)| *i);
    assemble(&parts, &taken, document_tokens, matched)
}

fn index_of(parts: &[Passage], p: &Passage) -> usize {
    parts
        .iter()
        .position(|q| std::ptr::eq(q, p))
        .expect("best() returns passages of the slice it was given")
}

fn assemble(
    parts: &[Passage],
    taken: &[(usize, f64, Option<String>)],
    document_tokens: usize,
    matched: bool,
) -> Focused {
    let mut markdown = String::new();
    let mut out = Vec::new();
    let mut given_tokens = 0;
    let mut next = 0;
    let mut last_header: Option<String> = None;
    for (i, score, cut) in taken {
        let p = &parts[*i];
        if *i > next {
            push_gap(&mut markdown, &parts[next..*i]);
            last_header = None;
        }
        let head = header(p);
        if last_header.as_deref() != Some(head.as_str()) {
            markdown.push_str(&head);
            markdown.push('\n');
            last_header = Some(head);
        }
        let text = cut.as_deref().unwrap_or(&p.text);
        markdown.push_str(text);
        markdown.push_str("\n\n");
        let tokens = estimate_tokens(text);
        given_tokens += tokens;
        out.push(FocusedPassage {
            page: p.page,
            heading: p.heading.clone(),
            tokens,
            score: *score,
            cut: cut.is_some(),
        });
        next = i + 1;
    }
    if next < parts.len() {
        push_gap(&mut markdown, &parts[next..]);
    }
    let markdown = markdown.trim_end().to_owned();
    let left_out_passages = parts.len() - out.iter().filter(|p| !p.cut).count();
    Focused {
        tokens: estimate_tokens(&markdown),
        markdown,
        passages: out,
        document_tokens,
        left_out_tokens: document_tokens.saturating_sub(given_tokens),
        left_out_passages,
        matched,
    }
}

/// The line that opens a run of passages: `[page 3 · Setup › Linux]`.
fn header(p: &Passage) -> String {
    if p.heading.is_empty() {
        format!("[page {}]", p.page)
    } else {
        format!("[page {} · {}]", p.page, p.heading)
    }
}

/// The line that stands for left-out text: `[… 1234 tokens left out, pages 2–4 …]`.
fn gap_marker(tokens: usize, first_page: u32, last_page: u32) -> String {
    let pages = if first_page == last_page {
        format!("page {first_page}")
    } else {
        format!("pages {first_page}–{last_page}")
    };
    format!("[… {tokens} tokens left out, {pages} …]")
}

fn push_gap(markdown: &mut String, skipped: &[Passage]) {
    let (Some(first), Some(last)) = (skipped.first(), skipped.last()) else {
        return;
    };
    let tokens = skipped.iter().map(|p| estimate_tokens(&p.text)).sum();
    markdown.push_str(&gap_marker(tokens, first.page, last.page));
    markdown.push_str("\n\n");
}

/// `text` from the start of the line that holds its first query word (all of it when
/// none does), so a passage cut to fit keeps why it matched; and whether lines before it
/// were dropped.
fn from_first_match<'t>(text: &'t str, query: &str) -> (&'t str, bool) {
    let wanted: Vec<String> = passages::terms(query).collect();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        if passages::terms(line).any(|t| wanted.contains(&t)) {
            return (&text[line_start..], line_start > 0);
        }
        line_start += line.len();
    }
    (text, false)
}

/// The longest run of whole words from the start of `text` within `max_tokens`, with
/// `…` after it when words were dropped; empty when not one word fits.
fn cut_to_tokens(text: &str, max_tokens: usize) -> String {
    if estimate_tokens(text) <= max_tokens {
        return text.to_owned();
    }
    // Word ends, as byte offsets; the estimate grows with each word, so search for the last
    // end that still fits.
    let ends: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace()
                && text[i + c.len_utf8()..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map(|(i, c)| i + c.len_utf8())
        .collect();
    let fits = |end: usize| estimate_tokens(&format!("{} …", &text[..end])) <= max_tokens;
    let n = ends.partition_point(|&end| fits(end));
    match n {
        0 => String::new(),
        n => format!("{} …", &text[..ends[n - 1]]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manual of many sections; only "Tides" speaks of amphidromic points.
    fn manual() -> String {
        let mut md = String::from("# Coastal manual\n\nAn introduction to the coast.\n\n");
        for (i, topic) in ["Harbours", "Dunes", "Cliffs", "Tides", "Estuaries", "Reefs"]
            .iter()
            .enumerate()
        {
            md.push_str(&format!("## {topic}\n\n"));
            for j in 0..12 {
                md.push_str(&format!(
                    "Paragraph {j} of section {i} describes {topic} in ordinary words about \
                     sand, water, wind and the people who live along the shore.\n\n"
                ));
            }
            if *topic == "Tides" {
                md.push_str(
                    "Amphidromic points are where the tidal range is nearly zero; the tide \
                     wave rotates around them.\n\n",
                );
            }
        }
        md
    }

    #[test]
    fn the_matching_section_comes_back_within_the_budget() {
        let md = manual();
        let focused = focus(&md, "amphidromic points tidal range", 300);
        assert!(focused.matched);
        assert!(focused.tokens <= 300, "{} tokens", focused.tokens);
        assert!(
            focused.markdown.contains("Amphidromic points are where"),
            "{}",
            focused.markdown
        );
        assert!(focused.markdown.contains("· Coastal manual › Tides]"));
        assert!(!focused.markdown.contains("section 1 describes Dunes"));
        assert!(focused.markdown.starts_with("[… "), "{}", focused.markdown);
        assert!(focused.markdown.ends_with("…]"), "{}", focused.markdown);
        assert!(focused.left_out_tokens > 0 && focused.left_out_passages > 0);
        assert!(focused.document_tokens > 3 * focused.tokens);
        assert!(
            focused
                .passages
                .iter()
                .all(|p| p.heading.ends_with("Tides"))
        );
    }

    #[test]
    fn passages_come_in_document_order_with_one_marker_per_gap() {
        let md = manual();
        let focused = focus(&md, "Harbours Reefs", 2000);
        let pages: Vec<u32> = focused.passages.iter().map(|p| p.page).collect();
        let mut sorted = pages.clone();
        sorted.sort_unstable();
        assert_eq!(pages, sorted);
        let harbour = focused.markdown.find("describes Harbours").unwrap();
        let reef = focused.markdown.find("describes Reefs").unwrap();
        assert!(harbour < reef);
        assert!(!focused.markdown.contains("[… [… "));
        for line in focused.markdown.lines().filter(|l| l.starts_with("[… ")) {
            assert!(line.contains("tokens left out, page"), "{line}");
        }
    }

    #[test]
    fn a_whole_short_document_fits_without_markers() {
        let md = "# Note\n\nThe kettle is on the left shelf.\n";
        let focused = focus(md, "kettle", 500);
        assert_eq!(
            focused.markdown,
            "[page 1 · Note]\nThe kettle is on the left shelf."
        );
        assert_eq!(focused.left_out_passages, 0);
    }

    #[test]
    fn no_match_gives_the_opening_and_says_so() {
        let md = manual();
        let focused = focus(&md, "zeppelin", 200);
        assert!(!focused.matched);
        assert!(focused.markdown.starts_with("[page 1 · Coastal manual]"));
        assert!(focused.tokens <= 200);
    }

    #[test]
    fn a_budget_smaller_than_any_passage_cuts_the_best_one() {
        let md = manual();
        let focused = focus(&md, "amphidromic", 60);
        assert!(focused.tokens <= 60, "{}", focused.tokens);
        assert_eq!(focused.passages.len(), 1);
        assert!(focused.passages[0].cut);
        assert!(
            focused
                .markdown
                .contains("\n… Amphidromic points are where"),
            "{}",
            focused.markdown
        );
    }

    #[test]
    fn a_cut_passage_starts_at_its_first_match() {
        let md = format!(
            "{}The zeppelin moored at the mast.\nMore words after it.\n",
            "Filler line about nothing much at all.\n".repeat(30)
        );
        let focused = focus(&md, "zeppelin", 60);
        assert!(focused.passages[0].cut, "{focused:?}");
        assert!(
            focused.markdown.contains("\n… The zeppelin moored"),
            "{}",
            focused.markdown
        );
        assert!(focused.tokens <= 60);
    }

    #[test]
    fn cutting_keeps_whole_words() {
        assert_eq!(cut_to_tokens("one two three", 100), "one two three");
        let cut = cut_to_tokens(&"word ".repeat(50), 10);
        assert!(cut.ends_with("word …"), "{cut}");
        assert!(estimate_tokens(&cut) <= 10);
        assert_eq!(cut_to_tokens("extraordinarily", 1), "");
    }
}
