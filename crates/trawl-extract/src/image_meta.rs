//! What an image says of itself in words: its title, author and description, from its XMP
//! packet (Dublin Core, as Lightroom, Photoshop and stock libraries write it) or else its
//! EXIF (`ImageDescription`, `Artist`, and Windows' `XPTitle`/`XPAuthor`/`XPComment`).
//! They open the image's Markdown as a front block, like a document's own metadata, and
//! stay inside the fence: they are the file's words, not trawl's.

use std::io::Cursor;

use exif::{Context, Exif, In, Tag, Value};

/// An image's own title, author and description; each only when it holds something.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ImageWords {
    pub(crate) title: Option<String>,
    pub(crate) author: Option<String>,
    pub(crate) description: Option<String>,
}

/// Longest XMP packet parsed: real ones are a few KiB (a thumbnail can make one larger).
const MAX_XMP_BYTES: usize = 1 << 20;
/// Longest value kept: these are metadata, not the text to read.
const MAX_CHARS: usize = 512;

const XP_TITLE: u16 = 0x9C9B;
const XP_COMMENT: u16 = 0x9C9C;
const XP_AUTHOR: u16 = 0x9C9D;

pub(crate) fn image_words(bytes: &[u8]) -> ImageWords {
    let xmp = xmp_words(bytes).unwrap_or_default();
    let exif = exif::Reader::new()
        .read_from_container(&mut Cursor::new(bytes))
        .ok();
    let from_exif = |tag: Tag| exif.as_ref().and_then(|e| ascii(e, tag));
    let from_xp = |id: u16| exif.as_ref().and_then(|e| xp(e, id));
    ImageWords {
        title: xmp.title.or_else(|| from_xp(XP_TITLE)),
        author: xmp
            .author
            .or_else(|| from_exif(Tag::Artist))
            .or_else(|| from_xp(XP_AUTHOR)),
        description: xmp
            .description
            .or_else(|| from_exif(Tag::ImageDescription))
            .or_else(|| from_xp(XP_COMMENT)),
    }
}

/// One line of at most [`MAX_CHARS`], or nothing.
fn clean(text: &str) -> Option<String> {
    let text: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_CHARS)
        .collect();
    (!text.is_empty()).then_some(text)
}

fn ascii(exif: &Exif, tag: Tag) -> Option<String> {
    match &exif.get_field(tag, In::PRIMARY)?.value {
        Value::Ascii(parts) => clean(&String::from_utf8_lossy(parts.first()?)),
        _ => None,
    }
}

/// Windows' XP tags: UTF-16LE in a BYTE array, ending in a NUL.
fn xp(exif: &Exif, id: u16) -> Option<String> {
    match &exif.get_field(Tag(Context::Tiff, id), In::PRIMARY)?.value {
        Value::Byte(bytes) => {
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .take_while(|&u| u != 0)
                .collect();
            clean(&String::from_utf16_lossy(&units))
        }
        _ => None,
    }
}

/// The XMP packet wherever the format keeps it (a JPEG's APP1, a PNG's iTXt, a TIFF tag, a
/// WebP chunk): found by its `x:xmpmeta` element, not by each container's rules, so one
/// reader serves every format. A compressed iTXt is not read.
fn xmp_words(bytes: &[u8]) -> Option<ImageWords> {
    let start = memchr::memmem::find(bytes, b"<x:xmpmeta")?;
    let end_tag = b"</x:xmpmeta>";
    let window = &bytes[start..bytes.len().min(start + MAX_XMP_BYTES)];
    let end = memchr::memmem::find(window, end_tag)? + end_tag.len();
    let packet = std::str::from_utf8(&window[..end]).ok()?;
    // roxmltree refuses a DTD: no entity expansion from a hostile packet.
    let doc = roxmltree::Document::parse(packet).ok()?;
    const DC: &str = "http://purl.org/dc/elements/1.1/";
    let dc = |name: &str| {
        doc.descendants().find(|n| {
            n.is_element() && n.tag_name().namespace() == Some(DC) && n.tag_name().name() == name
        })
    };
    // A language alternative: the `x-default` item, else the first.
    let alt = |name: &str| {
        let node = dc(name)?;
        let items: Vec<_> = node
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "li")
            .collect();
        let chosen = items
            .iter()
            .find(|n| {
                n.attributes()
                    .any(|a| a.name() == "lang" && a.value() == "x-default")
            })
            .or(items.first());
        match chosen {
            Some(li) => clean(&text_of(li)),
            None => clean(&text_of(&node)),
        }
    };
    let creators = dc("creator").and_then(|node| {
        let names: Vec<String> = node
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "li")
            .filter_map(|li| clean(&text_of(&li)))
            .collect();
        clean(&names.join(", "))
    });
    Some(ImageWords {
        title: alt("title"),
        author: creators,
        description: alt("description"),
    })
}

fn text_of(node: &roxmltree::Node<'_, '_>) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xmp_dublin_core_is_read_wherever_it_sits() {
        let packet = r#"<?xpacket begin=""?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="fr">Le port</rdf:li><rdf:li xml:lang="x-default">The harbour at dawn</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>Ann Quay</rdf:li><rdf:li>Bo Pier</rdf:li></rdf:Seq></dc:creator><dc:description><rdf:Alt><rdf:li xml:lang="x-default">Boats  leaving
 on the tide.</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>"#;
        let mut bytes = b"\xff\xd8\xff\xe1\x00\x00http://ns.adobe.com/xap/1.0/\0".to_vec();
        bytes.extend_from_slice(packet.as_bytes());
        let words = image_words(&bytes);
        assert_eq!(words.title.as_deref(), Some("The harbour at dawn"));
        assert_eq!(words.author.as_deref(), Some("Ann Quay, Bo Pier"));
        assert_eq!(
            words.description.as_deref(),
            Some("Boats leaving on the tide.")
        );
    }

    #[test]
    fn a_packet_with_a_dtd_is_not_read() {
        let bytes =
            br#"<x:xmpmeta><!DOCTYPE x [<!ENTITY a "aaaa">]><dc:title>&a;</dc:title></x:xmpmeta>"#;
        assert_eq!(image_words(bytes), ImageWords::default());
    }
}
