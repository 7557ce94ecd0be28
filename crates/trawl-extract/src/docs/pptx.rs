//! PowerPoint decks (pptx): each slide marked with its number and title, then its text,
//! tables (GFM), charts (title, categories and values as a table), picture alt text and
//! speaker notes, in the deck's slide order.

use roxmltree::Node;

use crate::docs::budget::{DocError, Meter};
use crate::docs::package::Package;
use crate::docs::{
    Converted, Rel, core_properties, gfm, image_name, image_ref, rel, relationships, xml,
};

const MAIN: &str = "ppt/presentation.xml";

pub(crate) fn convert(bytes: &[u8], meter: &Meter) -> Result<Converted, DocError> {
    let mut pkg = Package::open(bytes, meter, "pptx")?;
    let text = pkg.read_text(MAIN)?.ok_or_else(|| DocError::Malformed {
        format: "pptx",
        why: format!("no {MAIN}"),
    })?;
    let rels = relationships(&mut pkg, MAIN, meter)?;
    let order: Vec<String> = {
        let doc = xml::parse(&text, MAIN, meter)?;
        xml::find(doc.root_element(), "sldIdLst")
            .map(|list| {
                xml::children(list, "sldId")
                    .filter_map(|s| {
                        s.attributes()
                            .find(|a| a.name() == "id" && a.namespace().is_some())
                            .map(|a| a.value().to_owned())
                    })
                    .filter_map(|id: String| rel(&rels, &id).map(|r| r.target.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let props = core_properties(&mut pkg, meter)?;
    let mut slides = Vec::new();
    for (i, part) in order.iter().enumerate() {
        meter.check_time()?;
        slides.push(slide(&mut pkg, part, i + 1, meter)?);
    }
    Ok(Converted {
        markdown: slides.join("\n\n"),
        ..props
    })
}

fn slide(
    pkg: &mut Package<'_>,
    part: &str,
    number: usize,
    meter: &Meter,
) -> Result<String, DocError> {
    let Some(text) = pkg.read_text(part)? else {
        return Ok(format!("## Slide {number}"));
    };
    let rels = relationships(pkg, part, meter)?;
    let doc = xml::parse(&text, part, meter)?;
    let mut title = None;
    let mut blocks = Vec::new();
    if let Some(tree) = xml::find(doc.root_element(), "spTree") {
        shapes(tree, pkg, &rels, meter, &mut title, &mut blocks)?;
    }
    let mut out = match title {
        Some(t) => format!("## Slide {number}: {t}"),
        None => format!("## Slide {number}"),
    };
    for b in blocks.iter().filter(|b| !b.trim().is_empty()) {
        out.push_str("\n\n");
        out.push_str(b.trim_end());
    }
    if let Some(notes) = rels.iter().find(|r| r.kind.ends_with("/notesSlide")) {
        let notes = notes_text(pkg, &notes.target, meter)?;
        if !notes.is_empty() {
            out.push_str("\n\n### Notes\n\n");
            out.push_str(&notes);
        }
    }
    Ok(out)
}

fn placeholder_type<'a>(sp: Node<'a, '_>) -> Option<&'a str> {
    sp.descendants()
        .find(|n| xml::is(*n, "ph"))
        .map(|ph| xml::attr(ph, "type").unwrap_or("body"))
}

fn shapes(
    tree: Node<'_, '_>,
    pkg: &mut Package<'_>,
    rels: &[Rel],
    meter: &Meter,
    title: &mut Option<String>,
    out: &mut Vec<String>,
) -> Result<(), DocError> {
    for shape in xml::elements(tree) {
        match shape.tag_name().name() {
            "sp" => {
                let Some(body) = xml::child(shape, "txBody") else {
                    continue;
                };
                let kind = placeholder_type(shape);
                if matches!(kind, Some("title" | "ctrTitle")) && title.is_none() {
                    let t = paragraphs(body).join(" ");
                    if !t.is_empty() {
                        *title = Some(t);
                        continue;
                    }
                }
                // Slide numbers, dates and footers repeat on every slide: not content.
                if matches!(kind, Some("sldNum" | "dt" | "ftr")) {
                    continue;
                }
                let bullets = matches!(kind, Some("body" | "obj"));
                out.push(text_body(body, bullets));
            }
            "graphicFrame" => {
                if let Some(tbl) = xml::find(shape, "tbl") {
                    out.push(table(tbl, meter));
                } else if let Some(chart) = xml::find(shape, "chart") {
                    let target = shape_rel(chart, rels);
                    if let Some(target) = target {
                        out.push(chart_text(pkg, &target, meter)?);
                    }
                }
            }
            "pic" => {
                let alt = xml::find(shape, "cNvPr")
                    .and_then(|p| {
                        xml::attr(p, "descr")
                            .filter(|d| !d.trim().is_empty())
                            .or_else(|| xml::attr(p, "title"))
                    })
                    .unwrap_or("");
                let target = xml::find(shape, "blip")
                    .and_then(|b| xml::attr(b, "embed"))
                    .and_then(|id| rel(rels, id))
                    .map(|r| image_name(&r.target).to_owned())
                    .unwrap_or_default();
                if !alt.is_empty() || !target.is_empty() {
                    out.push(image_ref(alt, &target));
                }
            }
            "grpSp" => shapes(shape, pkg, rels, meter, title, out)?,
            _ => {}
        }
    }
    Ok(())
}

/// The relationship id an element names in the `r:` namespace (`r:id`, `r:embed`).
fn shape_rel(node: Node<'_, '_>, rels: &[Rel]) -> Option<String> {
    node.attributes()
        .find(|a| a.name() == "id" && a.namespace().is_some())
        .and_then(|a| rel(rels, a.value()))
        .map(|r| r.target.clone())
}

/// The text of each `a:p` of a text body.
fn paragraphs(body: Node<'_, '_>) -> Vec<String> {
    xml::children(body, "p")
        .map(para_text)
        .filter(|t| !t.is_empty())
        .collect()
}

fn para_text(p: Node<'_, '_>) -> String {
    let mut s = String::new();
    for n in xml::elements(p) {
        match n.tag_name().name() {
            "r" | "fld" => s.push_str(xml::child(n, "t").and_then(|t| t.text()).unwrap_or("")),
            "br" => s.push(' '),
            _ => {}
        }
    }
    xml::fold_spaces(&s)
}

fn text_body(body: Node<'_, '_>, bullets: bool) -> String {
    let mut lines = Vec::new();
    for p in xml::children(body, "p") {
        let t = para_text(p);
        if t.is_empty() {
            continue;
        }
        if bullets {
            let lvl = xml::child(p, "pPr")
                .and_then(|pr| xml::attr(pr, "lvl"))
                .and_then(|l| l.parse::<usize>().ok())
                .unwrap_or(0)
                .min(8);
            lines.push(format!("{}- {t}", "  ".repeat(lvl)));
        } else {
            lines.push(t);
        }
    }
    lines.join(if bullets { "\n" } else { "\n\n" })
}

fn table(tbl: Node<'_, '_>, meter: &Meter) -> String {
    let rows: Vec<Vec<String>> = xml::children(tbl, "tr")
        .map(|tr| {
            xml::children(tr, "tc")
                .map(|tc| {
                    xml::child(tc, "txBody")
                        .map(|b| paragraphs(b).join(" "))
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect();
    gfm::table(&rows, meter.budget.max_rows, meter.budget.max_columns)
}

/// A chart's title, then its series' values by category as a table.
fn chart_text(pkg: &mut Package<'_>, part: &str, meter: &Meter) -> Result<String, DocError> {
    let Some(text) = pkg.read_text(part)? else {
        return Ok(String::new());
    };
    let doc = xml::parse(&text, part, meter)?;
    let root = doc.root_element();
    let title = xml::find(root, "title")
        .map(|t| {
            t.descendants()
                .filter(|n| xml::is(*n, "t") || xml::is(*n, "v"))
                .filter_map(|n| n.text())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .map(|t: String| xml::fold_spaces(&t))
        .unwrap_or_default();
    let points = |node: Option<Node<'_, '_>>| -> Vec<String> {
        node.map(|n| {
            n.descendants()
                .filter(|p| xml::is(*p, "pt"))
                .map(|p| {
                    xml::child(p, "v")
                        .and_then(|v| v.text())
                        .unwrap_or("")
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
    };
    let mut header = vec![String::new()];
    let mut columns: Vec<Vec<String>> = Vec::new();
    let mut categories: Vec<String> = Vec::new();
    for ser in root.descendants().filter(|n| xml::is(*n, "ser")) {
        header.push(points(xml::child(ser, "tx")).join(" "));
        let cats = points(xml::child(ser, "cat"));
        if cats.len() > categories.len() {
            categories = cats;
        }
        columns.push(points(xml::child(ser, "val")));
    }
    let mut out = if title.is_empty() {
        "Chart".to_owned()
    } else {
        format!("Chart: {title}")
    };
    if !columns.is_empty() {
        let n = categories
            .len()
            .max(columns.iter().map(Vec::len).max().unwrap_or(0));
        let mut rows = vec![header];
        for i in 0..n {
            let mut row = vec![categories.get(i).cloned().unwrap_or_default()];
            row.extend(
                columns
                    .iter()
                    .map(|c| c.get(i).cloned().unwrap_or_default()),
            );
            rows.push(row);
        }
        out.push_str("\n\n");
        out.push_str(&gfm::table(
            &rows,
            meter.budget.max_rows,
            meter.budget.max_columns,
        ));
    }
    Ok(out)
}

fn notes_text(pkg: &mut Package<'_>, part: &str, meter: &Meter) -> Result<String, DocError> {
    let Some(text) = pkg.read_text(part)? else {
        return Ok(String::new());
    };
    let doc = xml::parse(&text, part, meter)?;
    let mut out = Vec::new();
    if let Some(tree) = xml::find(doc.root_element(), "spTree") {
        for sp in tree.descendants().filter(|n| xml::is(*n, "sp")) {
            // The notes page repeats the slide's image and number; the notes are the body.
            if placeholder_type(sp) != Some("body") {
                continue;
            }
            if let Some(body) = xml::child(sp, "txBody") {
                out.extend(paragraphs(body));
            }
        }
    }
    Ok(out.join("\n\n"))
}
