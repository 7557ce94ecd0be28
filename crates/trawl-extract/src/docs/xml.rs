//! XML parts parsed under the budget with roxmltree, which refuses a DTD (so no entity is
//! ever declared, expanded or fetched) and stops at a node limit. Helpers read elements by
//! local name, since the formats' namespace prefixes vary between writers.

use roxmltree::{Document, Node, ParsingOptions};

use crate::docs::budget::{DocError, Meter};

/// Parse `text` (the part called `part`) under `meter`'s caps.
pub(crate) fn parse<'a>(
    text: &'a str,
    part: &str,
    meter: &Meter,
) -> Result<Document<'a>, DocError> {
    meter.check_time()?;
    let opts = ParsingOptions {
        allow_dtd: false,
        nodes_limit: meter.budget.max_xml_nodes,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, opts).map_err(|e| match e {
        roxmltree::Error::DtdDetected
        | roxmltree::Error::EntityReferenceLoop(_)
        | roxmltree::Error::UnknownEntityReference(..) => DocError::XmlEntities {
            part: part.to_owned(),
        },
        roxmltree::Error::NodesLimitReached => DocError::XmlTooLarge {
            part: part.to_owned(),
            what: "nodes",
        },
        other => DocError::Malformed {
            format: "xml",
            why: format!("`{part}`: {other}"),
        },
    })?;
    // The converters recurse once per level; a deeper part is refused before they start.
    let cap = meter.budget.max_xml_depth;
    // Each node's depth from its parent's (descendants come in document order, parents
    // first); no recursion, so the check itself cannot overflow the stack.
    let mut depths = vec![0u16; doc.descendants().count()];
    for n in doc.descendants() {
        let Some(parent) = n.parent() else { continue };
        let d = depths[parent.id().get_usize()].saturating_add(1);
        depths[n.id().get_usize()] = d;
        if usize::from(d) > cap {
            return Err(DocError::XmlTooLarge {
                part: part.to_owned(),
                what: "levels of nesting",
            });
        }
    }
    meter.check_time()?;
    Ok(doc)
}

/// Element children of `node`.
pub(crate) fn elements<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(Node::is_element)
}

/// The first element child named `local`.
pub(crate) fn child<'a, 'i>(node: Node<'a, 'i>, local: &str) -> Option<Node<'a, 'i>> {
    elements(node).find(|n| n.tag_name().name() == local)
}

/// Element children named `local`.
pub(crate) fn children<'a, 'i: 'a>(
    node: Node<'a, 'i>,
    local: &'a str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    elements(node).filter(move |n| n.tag_name().name() == local)
}

/// The first descendant element named `local` (`node` itself included).
pub(crate) fn find<'a, 'i>(node: Node<'a, 'i>, local: &str) -> Option<Node<'a, 'i>> {
    node.descendants()
        .find(|n| n.is_element() && n.tag_name().name() == local)
}

/// An attribute by local name, whatever its namespace.
pub(crate) fn attr<'a>(node: Node<'a, '_>, local: &str) -> Option<&'a str> {
    node.attributes()
        .find(|a| a.name() == local)
        .map(|a| a.value())
}

/// Is `node` an element named `local`?
pub(crate) fn is(node: Node<'_, '_>, local: &str) -> bool {
    node.is_element() && node.tag_name().name() == local
}

/// All the text under `node`, whitespace runs folded to one space.
pub(crate) fn text(node: Node<'_, '_>) -> String {
    let mut out = String::new();
    for t in node.descendants().filter(Node::is_text) {
        out.push_str(t.text().unwrap_or(""));
        out.push(' ');
    }
    fold_spaces(&out)
}

/// Whitespace runs folded to one space, trimmed.
pub(crate) fn fold_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
