//! Wikipedia infoboxes as Markdown tables, every row shape kept: label and value as
//! `th`+`td` (most boxes) or `td`+`td` (the species box's "Kingdom:" rows), header rows
//! spanning the box, images with their captions, and lists inside a cell. The box is
//! taken out of the article afterwards, so anything not written here would be lost.

use std::fmt::Write as _;

use scraper::{ElementRef, Node, Selector};
use url::Url;

fn select(s: &str) -> Selector {
    Selector::parse(s).expect("a valid selector")
}

/// Elements inside a box that are decoration, not content: the geological timeline bar
/// (a row of period letters), the "edit this classification" pencil, styles.
pub const DECORATION: &str = "#Timeline-row, .taxobox-edit-taxonomy, style, .mw-editsection";

/// Block elements whose end separates a cell's items ("; ").
fn ends_an_item(name: &str) -> bool {
    matches!(name, "br" | "li" | "p" | "div" | "ul" | "ol" | "dd" | "dt")
}

/// A cell's text on one line: items (lines, list entries, paragraphs) joined by "; ",
/// footnote markers left out, `|` escaped for the table.
fn cell_text(cell: ElementRef<'_>) -> String {
    let mut items: Vec<String> = vec![String::new()];
    collect_text(cell, &mut items);
    items
        .iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .replace('|', "\\|")
}

fn collect_text(element: ElementRef<'_>, items: &mut Vec<String>) {
    for child in element.children() {
        match child.value() {
            Node::Text(t) => items.last_mut().expect("never empty").push_str(t),
            Node::Element(e) => {
                let Some(child) = ElementRef::wrap(child) else {
                    continue;
                };
                if e.name() == "sup" && e.classes().any(|c| c == "reference") {
                    continue;
                }
                if e.name() == "br" {
                    items.push(String::new());
                    continue;
                }
                let block = ends_an_item(e.name());
                if block {
                    items.push(String::new());
                }
                collect_text(child, items);
                if block {
                    items.push(String::new());
                }
            }
            _ => {}
        }
    }
}

/// The images in a cell as Markdown images: the alt text, else the file's name.
fn cell_images(cell: ElementRef<'_>, article: &Url) -> Vec<String> {
    let img = select("img");
    cell.select(&img)
        .filter_map(|i| {
            let src = article.join(i.value().attr("src")?).ok()?;
            let alt = i.value().attr("alt").unwrap_or("").trim();
            let name = if alt.is_empty() {
                // A thumbnail's path ends ".../thumb/a/ab/NAME/250px-NAME": the file is NAME.
                let thumb = src.path().contains("/thumb/");
                src.path_segments()
                    .and_then(|mut s| {
                        let last = s.next_back();
                        if thumb { s.next_back() } else { last }
                    })
                    .map(|s| {
                        percent_encoding::percent_decode_str(s)
                            .decode_utf8_lossy()
                            .into_owned()
                    })
                    .unwrap_or_default()
            } else {
                alt.to_owned()
            };
            Some(format!("![{}]({src})", name.replace(['[', ']'], "")))
        })
        .collect()
}

/// The rows of `table` that are its own (not those of a table nested in a cell).
fn own_rows(table: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    let tr = select("tr");
    table
        .select(&tr)
        .filter(|row| {
            row.ancestors()
                .filter_map(ElementRef::wrap)
                .find(|a| a.value().name() == "table")
                .is_some_and(|t| t.id() == table.id())
        })
        .collect()
}

/// One infobox as a two-column Markdown table, or `None` when it holds nothing.
pub fn render(table: ElementRef<'_>, article: &Url) -> Option<String> {
    let mut rows = Vec::new();
    if let Some(caption) = table.select(&select("caption")).next() {
        let text = cell_text(caption);
        if !text.is_empty() {
            rows.push(format!("| **{text}** | |"));
        }
    }
    for row in own_rows(table) {
        let cells: Vec<ElementRef<'_>> = row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| matches!(c.value().name(), "th" | "td"))
            .collect();
        match cells.as_slice() {
            [] => {}
            [only] => {
                let text = cell_text(*only);
                let images = cell_images(*only, article);
                let header = only.value().name() == "th";
                let line = match (header, images.is_empty(), text.is_empty()) {
                    (_, true, true) => continue,
                    (true, true, false) => format!("| **{text}** | |"),
                    (_, false, _) if text.is_empty() => format!("| {} | |", images.join(" ")),
                    (_, false, _) => format!("| {} {text} | |", images.join(" ")),
                    (false, true, false) => format!("| {text} | |"),
                };
                rows.push(line);
            }
            [label, values @ ..] => {
                let label = cell_text(*label);
                let label = label.strip_suffix(':').unwrap_or(&label).trim().to_owned();
                let value = values
                    .iter()
                    .map(|v| {
                        let images = cell_images(*v, article);
                        let text = cell_text(*v);
                        [images.join(" "), text]
                            .into_iter()
                            .filter(|s| !s.is_empty())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("; ");
                if label.is_empty() && value.is_empty() {
                    continue;
                }
                rows.push(format!("| {label} | {value} |"));
            }
        }
    }
    if rows.is_empty() {
        return None;
    }
    let mut out = String::from("| | |\n|---|---|\n");
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
    Some(out)
}
