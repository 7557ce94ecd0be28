//! Word documents (docx): headings from the paragraph styles, lists from numbering, tables
//! as GFM, links from relationships, footnotes and endnotes at the end, comments only when
//! asked, pictures as `![alt](name)`.
//!
//! Hand-written over roxmltree: the docx crates on crates.io write documents or expose the
//! raw tree; none turns styles and numbering into Markdown structure.

use std::collections::HashMap;

use roxmltree::Node;

use crate::ExtractOptions;
use crate::docs::budget::{DocError, Meter};
use crate::docs::package::Package;
use crate::docs::{
    Converted, Rel, core_properties, gfm, image_name, image_ref, rel, relationships, xml,
};

const MAIN: &str = "word/document.xml";

/// What a paragraph style says: its display name, outline level, numbering and parent.
#[derive(Debug, Default, Clone)]
struct Style {
    name: String,
    outline: Option<usize>,
    num: Option<(String, usize)>,
    based_on: Option<String>,
}

/// Everything a paragraph needs to be written.
struct Ctx<'r> {
    rels: &'r [Rel],
    styles: HashMap<String, Style>,
    /// numId → level → ordered?
    numbering: HashMap<String, HashMap<usize, bool>>,
    notes: Vec<(String, String)>,
    footnotes: HashMap<String, String>,
    endnotes: HashMap<String, String>,
    comments: Option<HashMap<String, String>>,
    max_rows: usize,
    max_columns: usize,
}

pub(crate) fn convert(
    bytes: &[u8],
    opts: &ExtractOptions,
    meter: &Meter,
) -> Result<Converted, DocError> {
    let mut pkg = Package::open(bytes, meter, "docx")?;
    let text = pkg.read_text(MAIN)?.ok_or_else(|| DocError::Malformed {
        format: "docx",
        why: format!("no {MAIN}"),
    })?;
    let rels = relationships(&mut pkg, MAIN, meter)?;
    let part_of = |kind: &str| {
        rels.iter()
            .find(|r| r.kind.ends_with(kind) && !r.external)
            .map(|r| r.target.clone())
    };
    let styles = match part_of("/styles") {
        Some(p) => read_styles(&mut pkg, &p, meter)?,
        None => HashMap::new(),
    };
    let numbering = match part_of("/numbering") {
        Some(p) => read_numbering(&mut pkg, &p, meter)?,
        None => HashMap::new(),
    };
    let footnotes = match part_of("/footnotes") {
        Some(p) => read_notes(&mut pkg, &p, "footnote", meter)?,
        None => HashMap::new(),
    };
    let endnotes = match part_of("/endnotes") {
        Some(p) => read_notes(&mut pkg, &p, "endnote", meter)?,
        None => HashMap::new(),
    };
    let comments = match (opts.include_comments, part_of("/comments")) {
        (true, Some(p)) => Some(read_notes(&mut pkg, &p, "comment", meter)?),
        (true, None) => Some(HashMap::new()),
        (false, _) => None,
    };
    let props = core_properties(&mut pkg, meter)?;
    let doc = xml::parse(&text, MAIN, meter)?;
    let mut ctx = Ctx {
        rels: &rels,
        styles,
        numbering,
        notes: Vec::new(),
        footnotes,
        endnotes,
        comments,
        max_rows: meter.budget.max_rows,
        max_columns: meter.budget.max_columns,
    };
    let mut blocks = Vec::new();
    if let Some(body) = xml::find(doc.root_element(), "body") {
        body_blocks(body, &mut ctx, &mut blocks, meter)?;
    }
    let mut markdown = join_blocks(&blocks);
    if !ctx.notes.is_empty() {
        markdown.push_str("\n\n");
        for (label, text) in &ctx.notes {
            markdown.push_str(&format!("[^{label}]: {text}\n"));
        }
    }
    Ok(Converted { markdown, ..props })
}

/// A block of output: list items are joined by one line break, everything else by a blank
/// line.
enum Block {
    Item(String),
    Other(String),
}

fn join_blocks(blocks: &[Block]) -> String {
    let mut out = String::new();
    let mut prev_item = false;
    for b in blocks {
        let (text, item) = match b {
            Block::Item(t) => (t, true),
            Block::Other(t) => (t, false),
        };
        if text.trim().is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str(if item && prev_item { "\n" } else { "\n\n" });
        }
        out.push_str(text.trim_end());
        prev_item = item;
    }
    out
}

fn body_blocks(
    node: Node<'_, '_>,
    ctx: &mut Ctx<'_>,
    out: &mut Vec<Block>,
    meter: &Meter,
) -> Result<(), DocError> {
    meter.check_time()?;
    for child in xml::elements(node) {
        match child.tag_name().name() {
            "p" => out.push(paragraph(child, ctx)),
            "tbl" => out.push(Block::Other(table(child, ctx))),
            // Content controls, tracked insertions and custom XML wrap ordinary blocks.
            "sdt" | "sdtContent" | "ins" | "customXml" | "smartTag" => {
                body_blocks(child, ctx, out, meter)?
            }
            _ => {}
        }
    }
    Ok(())
}

fn paragraph(p: Node<'_, '_>, ctx: &mut Ctx<'_>) -> Block {
    let ppr = xml::child(p, "pPr");
    let style_id = ppr
        .and_then(|pr| xml::child(pr, "pStyle"))
        .and_then(|s| xml::attr(s, "val"))
        .map(str::to_owned);
    let own_outline = ppr
        .and_then(|pr| xml::child(pr, "outlineLvl"))
        .and_then(|o| xml::attr(o, "val"))
        .and_then(|v| v.parse::<usize>().ok());
    let own_num = ppr.and_then(|pr| xml::child(pr, "numPr")).and_then(num_pr);
    let style = style_id
        .as_deref()
        .map(|id| resolved_style(&ctx.styles, id))
        .unwrap_or_default();
    let text = inline(p, ctx).trim().to_owned();
    if text.is_empty() {
        return Block::Other(String::new());
    }
    let lname = style.name.to_ascii_lowercase();
    let level = if lname == "title" {
        Some(1)
    } else if let Some(n) = lname
        .strip_prefix("heading ")
        .and_then(|n| n.trim().parse::<usize>().ok())
    {
        Some(n)
    } else {
        own_outline
            .or(style.outline)
            .filter(|&l| l < 9)
            .map(|l| l + 1)
    };
    if let Some(level) = level {
        let text = text.replace('\n', " ");
        return Block::Other(format!("{} {text}", "#".repeat(level.clamp(1, 6))));
    }
    let num = own_num.or(style.num.clone()).filter(|(id, _)| id != "0");
    let list = match num {
        Some((id, lvl)) => {
            let ordered = ctx.numbering.get(&id).and_then(|l| l.get(&lvl)).copied();
            Some((ordered.unwrap_or(lname.contains("number")), lvl))
        }
        None if lname.starts_with("list bullet") => Some((false, 0)),
        None if lname.starts_with("list number") => Some((true, 0)),
        None => None,
    };
    match list {
        Some((ordered, lvl)) => {
            let indent = "   ".repeat(lvl.min(8));
            let marker = if ordered { "1." } else { "-" };
            Block::Item(format!("{indent}{marker} {}", text.replace('\n', " ")))
        }
        None => Block::Other(text.replace('\n', "  \n")),
    }
}

/// A style with what it inherits from the styles it is based on filled in.
fn resolved_style(styles: &HashMap<String, Style>, id: &str) -> Style {
    let mut out = styles.get(id).cloned().unwrap_or_default();
    let mut next = out.based_on.clone();
    // A style chain is a few links; a loop in a crafted file stops here.
    for _ in 0..16 {
        let Some(parent) = next.as_deref().and_then(|p| styles.get(p)) else {
            break;
        };
        if out.outline.is_none() {
            out.outline = parent.outline;
        }
        if out.num.is_none() {
            out.num = parent.num.clone();
        }
        next = parent.based_on.clone();
    }
    out
}

fn num_pr(pr: Node<'_, '_>) -> Option<(String, usize)> {
    let id = xml::child(pr, "numId").and_then(|n| xml::attr(n, "val"))?;
    let lvl = xml::child(pr, "ilvl")
        .and_then(|n| xml::attr(n, "val"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    Some((id.to_owned(), lvl))
}

/// Runs of text with their emphasis, merged before they are written so that `**a** **b**`
/// comes out as `**a b**`.
#[derive(Default)]
struct Runs {
    segs: Vec<(String, bool, bool)>,
}

impl Runs {
    fn push(&mut self, text: &str, bold: bool, italic: bool) {
        match self.segs.last_mut() {
            Some(last) if last.1 == bold && last.2 == italic => last.0.push_str(text),
            _ => self.segs.push((text.to_owned(), bold, italic)),
        }
    }

    fn finish(self) -> String {
        let mut out = String::new();
        for (text, bold, italic) in self.segs {
            let mark = match (bold, italic) {
                (true, true) => "***",
                (true, false) => "**",
                (false, true) => "*",
                (false, false) => "",
            };
            let core = text.trim();
            if mark.is_empty() || core.is_empty() {
                out.push_str(&text);
                continue;
            }
            // Markers hug the words: the spaces around them stay outside.
            let lead = &text[..text.len() - text.trim_start().len()];
            let trail = &text[text.trim_end().len()..];
            out.push_str(lead);
            out.push_str(mark);
            out.push_str(core);
            out.push_str(mark);
            out.push_str(trail);
        }
        out
    }
}

fn inline(node: Node<'_, '_>, ctx: &mut Ctx<'_>) -> String {
    let mut runs = Runs::default();
    inline_into(node, ctx, &mut runs);
    runs.finish()
}

fn on(rpr: Option<Node<'_, '_>>, local: &str) -> bool {
    rpr.and_then(|r| xml::child(r, local))
        .is_some_and(|b| !matches!(xml::attr(b, "val"), Some("0" | "false" | "none")))
}

fn inline_into(node: Node<'_, '_>, ctx: &mut Ctx<'_>, runs: &mut Runs) {
    for child in xml::elements(node) {
        match child.tag_name().name() {
            "r" => run(child, ctx, runs),
            "hyperlink" => {
                let inner = inline(child, ctx);
                let target = xml::attr(child, "id")
                    .and_then(|id| rel(ctx.rels, id))
                    .filter(|r| r.external)
                    .map(|r| r.target.clone())
                    .filter(|t| {
                        t.starts_with("http://")
                            || t.starts_with("https://")
                            || t.starts_with("mailto:")
                    });
                match target {
                    Some(t) if !inner.trim().is_empty() => runs.push(
                        &format!("[{}]({})", inner.trim(), t.replace(['(', ')', ' '], "_")),
                        false,
                        false,
                    ),
                    _ => runs.push(&inner, false, false),
                }
            }
            // Deleted text is not the document's text.
            "del" | "moveFrom" | "pPr" | "rPr" => {}
            "commentReference" => comment_ref(child, ctx, runs),
            // Fields, insertions, smart tags and content controls hold runs.
            _ => inline_into(child, ctx, runs),
        }
    }
}

fn run(r: Node<'_, '_>, ctx: &mut Ctx<'_>, runs: &mut Runs) {
    let rpr = xml::child(r, "rPr");
    let (bold, italic) = (on(rpr, "b"), on(rpr, "i"));
    for part in xml::elements(r) {
        match part.tag_name().name() {
            "t" => runs.push(part.text().unwrap_or(""), bold, italic),
            "tab" => runs.push(" ", bold, italic),
            "br" | "cr" => runs.push("\n", false, false),
            "noBreakHyphen" => runs.push("-", bold, italic),
            "footnoteReference" | "endnoteReference" => {
                let id = xml::attr(part, "id").unwrap_or("");
                let foot = part.tag_name().name() == "footnoteReference";
                let text = if foot {
                    ctx.footnotes.get(id)
                } else {
                    ctx.endnotes.get(id)
                };
                if let Some(text) = text.cloned() {
                    let label = if foot {
                        id.to_owned()
                    } else {
                        format!("e{id}")
                    };
                    runs.push(&format!("[^{label}]"), false, false);
                    ctx.notes.push((label, text));
                }
            }
            "commentReference" => comment_ref(part, ctx, runs),
            "drawing" | "pict" | "object" => {
                if let Some(img) = picture(part, ctx) {
                    runs.push(&img, false, false);
                }
            }
            // Alternate content: the first choice only, or the picture would appear twice.
            "AlternateContent" => {
                if let Some(img) = xml::elements(part).next().and_then(|c| picture(c, ctx)) {
                    runs.push(&img, false, false);
                }
            }
            _ => {}
        }
    }
}

fn comment_ref(node: Node<'_, '_>, ctx: &mut Ctx<'_>, runs: &mut Runs) {
    let id = xml::attr(node, "id").unwrap_or("");
    let Some(text) = ctx.comments.as_ref().and_then(|c| c.get(id)).cloned() else {
        return;
    };
    let label = format!("c{id}");
    if ctx.notes.iter().any(|(l, _)| *l == label) {
        return;
    }
    runs.push(&format!("[^{label}]"), false, false);
    ctx.notes.push((label, format!("Comment: {text}")));
}

/// A picture as `![alt](file name)`; the bytes are never inlined.
fn picture(node: Node<'_, '_>, ctx: &Ctx<'_>) -> Option<String> {
    let props = xml::find(node, "docPr").or_else(|| xml::find(node, "cNvPr"));
    let alt = props
        .and_then(|p| {
            xml::attr(p, "descr")
                .filter(|d| !d.trim().is_empty())
                .or_else(|| xml::attr(p, "title"))
        })
        .unwrap_or("");
    let target = node
        .descendants()
        .filter(|n| n.is_element() && matches!(n.tag_name().name(), "blip" | "imagedata"))
        .find_map(|b| xml::attr(b, "embed").or_else(|| xml::attr(b, "id")))
        .and_then(|id| rel(ctx.rels, id))
        .map(|r| image_name(&r.target).to_owned());
    if alt.is_empty() && target.is_none() {
        return None;
    }
    Some(image_ref(alt, target.as_deref().unwrap_or("")))
}

fn table(tbl: Node<'_, '_>, ctx: &mut Ctx<'_>) -> String {
    let mut rows = Vec::new();
    for tr in xml::children(tbl, "tr") {
        let mut row = Vec::new();
        for tc in xml::children(tr, "tc") {
            let pr = xml::child(tc, "tcPr");
            let span = pr
                .and_then(|p| xml::child(p, "gridSpan"))
                .and_then(|g| xml::attr(g, "val"))
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(1)
                .clamp(1, 64);
            // The continuation of a vertical merge shows empty, as the cell above holds it.
            let continued = pr
                .and_then(|p| xml::child(p, "vMerge"))
                .is_some_and(|v| xml::attr(v, "val") != Some("restart"));
            let text = if continued {
                String::new()
            } else {
                cell_text(tc, ctx)
            };
            row.push(text);
            row.extend(std::iter::repeat_n(String::new(), span - 1));
        }
        rows.push(row);
    }
    gfm::table(&rows, ctx.max_rows, ctx.max_columns)
}

/// A cell's paragraphs on one line (a nested table's text too).
fn cell_text(tc: Node<'_, '_>, ctx: &mut Ctx<'_>) -> String {
    let mut parts = Vec::new();
    for child in xml::elements(tc) {
        match child.tag_name().name() {
            "p" => parts.push(inline(child, ctx)),
            "tbl" => parts.push(xml::text(child)),
            _ => {}
        }
    }
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn read_styles(
    pkg: &mut Package<'_>,
    part: &str,
    meter: &Meter,
) -> Result<HashMap<String, Style>, DocError> {
    let Some(text) = pkg.read_text(part)? else {
        return Ok(HashMap::new());
    };
    let doc = xml::parse(&text, part, meter)?;
    let mut out = HashMap::new();
    for s in xml::children(doc.root_element(), "style") {
        let Some(id) = xml::attr(s, "styleId") else {
            continue;
        };
        let ppr = xml::child(s, "pPr");
        out.insert(
            id.to_owned(),
            Style {
                name: xml::child(s, "name")
                    .and_then(|n| xml::attr(n, "val"))
                    .unwrap_or("")
                    .to_owned(),
                outline: ppr
                    .and_then(|p| xml::child(p, "outlineLvl"))
                    .and_then(|o| xml::attr(o, "val"))
                    .and_then(|v| v.parse().ok()),
                num: ppr.and_then(|p| xml::child(p, "numPr")).and_then(num_pr),
                based_on: xml::child(s, "basedOn")
                    .and_then(|b| xml::attr(b, "val"))
                    .map(str::to_owned),
            },
        );
    }
    Ok(out)
}

fn read_numbering(
    pkg: &mut Package<'_>,
    part: &str,
    meter: &Meter,
) -> Result<HashMap<String, HashMap<usize, bool>>, DocError> {
    let Some(text) = pkg.read_text(part)? else {
        return Ok(HashMap::new());
    };
    let doc = xml::parse(&text, part, meter)?;
    let root = doc.root_element();
    let mut abstracts: HashMap<&str, HashMap<usize, bool>> = HashMap::new();
    for a in xml::children(root, "abstractNum") {
        let Some(id) = xml::attr(a, "abstractNumId") else {
            continue;
        };
        let levels = xml::children(a, "lvl")
            .filter_map(|l| {
                let ilvl = xml::attr(l, "ilvl")?.parse().ok()?;
                let fmt = xml::child(l, "numFmt")
                    .and_then(|f| xml::attr(f, "val"))
                    .unwrap_or("bullet");
                Some((ilvl, !matches!(fmt, "bullet" | "none")))
            })
            .collect();
        abstracts.insert(id, levels);
    }
    let mut out = HashMap::new();
    for n in xml::children(root, "num") {
        let (Some(id), Some(abs)) = (
            xml::attr(n, "numId"),
            xml::child(n, "abstractNumId").and_then(|a| xml::attr(a, "val")),
        ) else {
            continue;
        };
        if let Some(levels) = abstracts.get(abs) {
            out.insert(id.to_owned(), levels.clone());
        }
    }
    Ok(out)
}

/// Footnotes, endnotes or comments by id, as one line of text each (separators skipped).
fn read_notes(
    pkg: &mut Package<'_>,
    part: &str,
    element: &str,
    meter: &Meter,
) -> Result<HashMap<String, String>, DocError> {
    let Some(text) = pkg.read_text(part)? else {
        return Ok(HashMap::new());
    };
    let doc = xml::parse(&text, part, meter)?;
    let mut out = HashMap::new();
    for n in xml::children(doc.root_element(), element) {
        if xml::attr(n, "type").is_some_and(|t| t != "normal") {
            continue;
        }
        let Some(id) = xml::attr(n, "id") else {
            continue;
        };
        let body = xml::children(n, "p")
            .map(|p| {
                xml::fold_spaces(
                    &p.descendants()
                        .filter(|t| xml::is(*t, "t"))
                        .filter_map(|t| t.text())
                        .collect::<String>(),
                )
            })
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let body = match xml::attr(n, "author").filter(|_| element == "comment") {
            Some(author) => format!("{author}: {body}"),
            None => body,
        };
        out.insert(id.to_owned(), body);
    }
    Ok(out)
}
