//! OpenDocument text (odt) and presentations (odp): `content.xml` for the body,
//! `meta.xml` for title, author and date. Spreadsheets (ods) are read by `ods`.
//! Hand-written over roxmltree for the same reason as docx: no crate writes ODF as Markdown.

use roxmltree::Node;

use crate::ExtractOptions;
use crate::docs::budget::{DocError, Meter};
use crate::docs::package::Package;
use crate::docs::{Converted, gfm, image_name, image_ref, xml};

struct Ctx {
    notes: Vec<(String, String)>,
    comments: bool,
    max_rows: usize,
    max_columns: usize,
}

fn open<'a>(
    bytes: &'a [u8],
    meter: &'a Meter,
    format: &'static str,
) -> Result<(Package<'a>, String, Converted), DocError> {
    let mut pkg = Package::open(bytes, meter, format)?;
    let content = pkg
        .read_text("content.xml")?
        .ok_or_else(|| DocError::Malformed {
            format,
            why: "no content.xml".into(),
        })?;
    let mut out = Converted::default();
    if let Some(meta) = pkg.read_text("meta.xml")? {
        let doc = xml::parse(&meta, "meta.xml", meter)?;
        let get = |name: &str| {
            xml::find(doc.root_element(), name)
                .map(xml::text)
                .filter(|t| !t.is_empty())
        };
        out.title = get("title");
        out.author = get("initial-creator").or_else(|| get("creator"));
        out.language = get("language");
        out.description = get("description");
        out.created = get("creation-date").or_else(|| get("date"));
    }
    Ok((pkg, content, out))
}

pub(crate) fn convert_text(
    bytes: &[u8],
    opts: &ExtractOptions,
    meter: &Meter,
) -> Result<Converted, DocError> {
    let (_pkg, content, mut out) = open(bytes, meter, "odt")?;
    let doc = xml::parse(&content, "content.xml", meter)?;
    let mut ctx = Ctx {
        notes: Vec::new(),
        comments: opts.include_comments,
        max_rows: meter.budget.max_rows,
        max_columns: meter.budget.max_columns,
    };
    let mut blocks = Vec::new();
    if let Some(body) = xml::find(doc.root_element(), "text")
        .filter(|n| n.parent_element().is_some_and(|p| xml::is(p, "body")))
    {
        blocks_of(body, &mut ctx, 0, &mut blocks);
    }
    let mut md = blocks
        .into_iter()
        .filter(|b| !b.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    if !ctx.notes.is_empty() {
        md.push_str("\n\n");
        for (label, text) in &ctx.notes {
            md.push_str(&format!("[^{label}]: {text}\n"));
        }
    }
    out.markdown = md;
    Ok(out)
}

fn blocks_of(node: Node<'_, '_>, ctx: &mut Ctx, list_depth: usize, out: &mut Vec<String>) {
    for child in xml::elements(node) {
        match child.tag_name().name() {
            "h" => {
                let level = xml::attr(child, "outline-level")
                    .and_then(|l| l.parse::<usize>().ok())
                    .unwrap_or(1)
                    .clamp(1, 6);
                let t = xml::fold_spaces(&inline(child, ctx));
                if !t.is_empty() {
                    out.push(format!("{} {t}", "#".repeat(level)));
                }
            }
            "p" => out.push(inline(child, ctx).trim().to_owned()),
            "list" => out.push(list(child, ctx, list_depth)),
            "table" => out.push(table(child, ctx)),
            "section" | "index-body" | "table-of-content" => blocks_of(child, ctx, list_depth, out),
            _ => {}
        }
    }
}

fn list(node: Node<'_, '_>, ctx: &mut Ctx, depth: usize) -> String {
    let mut lines = Vec::new();
    let indent = "  ".repeat(depth.min(8));
    for item in xml::children(node, "list-item") {
        let mut first = true;
        for child in xml::elements(item) {
            match child.tag_name().name() {
                "p" | "h" => {
                    let t = xml::fold_spaces(&inline(child, ctx));
                    if t.is_empty() {
                        continue;
                    }
                    if first {
                        lines.push(format!("{indent}- {t}"));
                        first = false;
                    } else {
                        lines.push(format!("{indent}  {t}"));
                    }
                }
                "list" => lines.push(list(child, ctx, depth + 1)),
                _ => {}
            }
        }
    }
    lines.join("\n")
}

fn inline(node: Node<'_, '_>, ctx: &mut Ctx) -> String {
    let mut s = String::new();
    for child in node.children() {
        if child.is_text() {
            s.push_str(child.text().unwrap_or(""));
            continue;
        }
        if !child.is_element() {
            continue;
        }
        match child.tag_name().name() {
            "s" => {
                let n = xml::attr(child, "c")
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(1);
                s.push_str(&" ".repeat(n.min(8)));
            }
            "tab" => s.push(' '),
            "line-break" => s.push_str("  \n"),
            "a" => {
                let inner = inline(child, ctx);
                match xml::attr(child, "href").filter(|h| {
                    h.starts_with("http://")
                        || h.starts_with("https://")
                        || h.starts_with("mailto:")
                }) {
                    Some(h) if !inner.trim().is_empty() => s.push_str(&format!(
                        "[{}]({})",
                        inner.trim(),
                        h.replace(['(', ')', ' '], "_")
                    )),
                    _ => s.push_str(&inner),
                }
            }
            "note" => {
                let label = xml::child(child, "note-citation")
                    .map(xml::text)
                    .unwrap_or_default();
                let label = if label.is_empty() {
                    (ctx.notes.len() + 1).to_string()
                } else {
                    label
                };
                let body = xml::child(child, "note-body")
                    .map(xml::text)
                    .unwrap_or_default();
                s.push_str(&format!("[^{label}]"));
                ctx.notes.push((label, body));
            }
            "annotation" => {
                if ctx.comments {
                    let label = format!("c{}", ctx.notes.len() + 1);
                    let author = xml::child(child, "creator")
                        .map(xml::text)
                        .unwrap_or_default();
                    let body = xml::children(child, "p")
                        .map(xml::text)
                        .collect::<Vec<_>>()
                        .join(" ");
                    s.push_str(&format!("[^{label}]"));
                    let text = if author.is_empty() {
                        body
                    } else {
                        format!("{author}: {body}")
                    };
                    ctx.notes.push((label, format!("Comment: {text}")));
                }
            }
            "frame" => s.push_str(&frame_image(child)),
            "annotation-end" | "bookmark" | "bookmark-start" | "bookmark-end"
            | "soft-page-break" => {}
            _ => s.push_str(&inline(child, ctx)),
        }
    }
    s
}

/// A frame's picture as `![alt](name)`: the alt text from `svg:desc` or `svg:title`.
fn frame_image(frame: Node<'_, '_>) -> String {
    let Some(img) = xml::child(frame, "image") else {
        return String::new();
    };
    let alt = xml::child(frame, "desc")
        .or_else(|| xml::child(frame, "title"))
        .map(xml::text)
        .unwrap_or_default();
    let name = xml::attr(img, "href").map(image_name).unwrap_or("");
    image_ref(&alt, name)
}

fn table(node: Node<'_, '_>, ctx: &mut Ctx) -> String {
    let mut rows = Vec::new();
    for row in node.descendants().filter(|n| xml::is(*n, "table-row")) {
        // Rows repeat by attribute; a table is text here, so one copy is written.
        let mut cells = Vec::new();
        for cell in xml::elements(row) {
            match cell.tag_name().name() {
                "table-cell" => {
                    let t = xml::children(cell, "p")
                        .map(|p| xml::fold_spaces(&inline(p, ctx)))
                        .collect::<Vec<_>>()
                        .join(" ");
                    let repeat = xml::attr(cell, "number-columns-repeated")
                        .and_then(|r| r.parse::<usize>().ok())
                        .unwrap_or(1);
                    // Trailing empty repeated cells pad rows to the sheet's width: skip them.
                    let n = if t.is_empty() {
                        1
                    } else {
                        repeat.clamp(1, ctx.max_columns)
                    };
                    cells.extend(std::iter::repeat_n(t, n));
                }
                "covered-table-cell" => cells.push(String::new()),
                _ => {}
            }
            if cells.len() >= ctx.max_columns {
                break;
            }
        }
        while cells.last().is_some_and(String::is_empty) {
            cells.pop();
        }
        rows.push(cells);
        if rows.len() > ctx.max_rows + 1 {
            break;
        }
    }
    gfm::table(&rows, ctx.max_rows, ctx.max_columns)
}

pub(crate) fn convert_presentation(bytes: &[u8], meter: &Meter) -> Result<Converted, DocError> {
    let (_pkg, content, mut out) = open(bytes, meter, "odp")?;
    let doc = xml::parse(&content, "content.xml", meter)?;
    let mut ctx = Ctx {
        notes: Vec::new(),
        comments: false,
        max_rows: meter.budget.max_rows,
        max_columns: meter.budget.max_columns,
    };
    let mut slides = Vec::new();
    let pages = doc.root_element().descendants().filter(|n| {
        xml::is(*n, "page")
            && n.parent_element()
                .is_some_and(|p| xml::is(p, "presentation"))
    });
    for (i, page) in pages.enumerate() {
        let mut title = None;
        let mut blocks = Vec::new();
        let mut notes = Vec::new();
        for child in xml::elements(page) {
            match child.tag_name().name() {
                "frame" => {
                    let class = xml::attr(child, "class");
                    let text = frame_text(child, &mut ctx);
                    if class == Some("title") && title.is_none() && !text.is_empty() {
                        title = Some(xml::fold_spaces(&text));
                    } else if !text.is_empty() {
                        blocks.push(text);
                    }
                }
                "notes" => {
                    for f in child
                        .descendants()
                        .filter(|n| xml::is(*n, "frame") && xml::attr(*n, "class") == Some("notes"))
                    {
                        let t = frame_text(f, &mut ctx);
                        if !t.is_empty() {
                            notes.push(t);
                        }
                    }
                }
                _ => {}
            }
        }
        let n = i + 1;
        let mut s = match title {
            Some(t) => format!("## Slide {n}: {t}"),
            None => format!("## Slide {n}"),
        };
        for b in blocks {
            s.push_str("\n\n");
            s.push_str(&b);
        }
        if !notes.is_empty() {
            s.push_str("\n\n### Notes\n\n");
            s.push_str(&notes.join("\n\n"));
        }
        slides.push(s);
    }
    out.markdown = slides.join("\n\n");
    Ok(out)
}

fn frame_text(frame: Node<'_, '_>, ctx: &mut Ctx) -> String {
    if let Some(tb) = xml::child(frame, "text-box") {
        let mut blocks = Vec::new();
        blocks_of(tb, ctx, 0, &mut blocks);
        return blocks
            .into_iter()
            .filter(|b| !b.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");
    }
    if let Some(t) = xml::child(frame, "table") {
        return table(t, ctx);
    }
    frame_image(frame)
}
