//! Outlook messages (.msg, [MS-OXMSG]): a compound file whose streams are the message's
//! properties. Read: `# Subject`, a From/To/Cc/Date block, the body (HTML through trawl's
//! HTML writer when there is one, else the plain text), then each attachment under
//! `## Attachments`, read as archive members are (`archive::member_markdown`) within the
//! same budget.
//!
//! Hand-written over the `cfb` crate (already used for .xls): the few property streams a
//! reader needs are named in the format's documentation, and no maintained Rust crate
//! reads .msg.

use std::io::{Cursor, Read};

use url::Url;

use crate::ExtractOptions;
use crate::docs::budget::{DocError, Meter};
use crate::docs::{Converted, html_to_markdown, xml};

type Cfb<'a> = cfb::CompoundFile<Cursor<&'a [u8]>>;

/// Property ids ([MS-OXPROPS]) read from a message.
const SUBJECT: u16 = 0x0037;
const SENDER_NAME: u16 = 0x0C1A;
const SENDER_EMAIL: u16 = 0x0C1F;
const SENDER_SMTP: u16 = 0x5D01;
const SENT_REPRESENTING_NAME: u16 = 0x0042;
const DISPLAY_TO: u16 = 0x0E04;
const DISPLAY_CC: u16 = 0x0E03;
const BODY: u16 = 0x1000;
const HTML: u16 = 0x1013;
const RTF_COMPRESSED: u16 = 0x1009;
const CLIENT_SUBMIT_TIME: u16 = 0x0039;
const DELIVERY_TIME: u16 = 0x0E06;
const ATTACH_LONG_FILENAME: u16 = 0x3707;
const ATTACH_FILENAME: u16 = 0x3704;
const ATTACH_DATA: u16 = 0x3701;

/// Whether a compound file is an Outlook message: it has the message's property stream
/// and a subject, or the named-property storage every message carries.
pub(crate) fn is_msg(bytes: &[u8]) -> bool {
    let Ok(file) = cfb::CompoundFile::open(Cursor::new(bytes)) else {
        return false;
    };
    file.is_stream("/__properties_version1.0")
        && (file.is_storage("/__nameid_version1.0")
            || file.is_stream(stream_name("", SUBJECT, 0x001F))
            || file.is_stream(stream_name("", SUBJECT, 0x001E)))
}

pub(crate) fn convert(
    bytes: &[u8],
    url: &Url,
    opts: &ExtractOptions,
    meter: &Meter,
    depth: usize,
) -> Result<Converted, DocError> {
    let mut file = cfb::CompoundFile::open(Cursor::new(bytes)).map_err(malformed)?;
    let subject = text(&mut file, "", SUBJECT, meter)?;
    let sender = [SENDER_NAME, SENT_REPRESENTING_NAME]
        .into_iter()
        .find_map(|id| text(&mut file, "", id, meter).ok().flatten());
    let address = [SENDER_SMTP, SENDER_EMAIL]
        .into_iter()
        .find_map(|id| text(&mut file, "", id, meter).ok().flatten())
        .filter(|a| a.contains('@'));
    let from = match (sender, address) {
        (Some(name), Some(addr)) if name != addr => Some(format!("{name} <{addr}>")),
        (Some(name), _) => Some(name),
        (None, addr) => addr,
    };
    let to = text(&mut file, "", DISPLAY_TO, meter)?;
    let cc = text(&mut file, "", DISPLAY_CC, meter)?;
    let date = [CLIENT_SUBMIT_TIME, DELIVERY_TIME]
        .into_iter()
        .find_map(|id| time_property(&mut file, id, meter));

    let mut md = String::new();
    if let Some(s) = &subject {
        md.push_str(&format!("# {}\n\n", xml::fold_spaces(s)));
    }
    let header: Vec<String> = [("From", &from), ("To", &to), ("Cc", &cc), ("Date", &date)]
        .into_iter()
        .filter_map(|(label, v)| {
            let v = xml::fold_spaces(v.as_deref()?);
            (!v.is_empty()).then(|| format!("{label}: {v}"))
        })
        .collect();
    if !header.is_empty() {
        md.push_str(&header.join("  \n"));
        md.push_str("\n\n");
    }
    md.push_str(body(&mut file, url, meter)?.trim());
    md.push('\n');
    let attachments = attachments(&mut file, url, opts, meter, depth)?;
    if !attachments.is_empty() {
        md.push_str("\n## Attachments\n\n");
        md.push_str(&attachments.join("\n\n"));
        md.push('\n');
    }
    Ok(Converted {
        markdown: md,
        title: subject,
        author: from,
        created: date,
        ..Converted::default()
    })
}

/// The body: HTML through the HTML writer when the message has it, else its plain text.
fn body(file: &mut Cfb<'_>, url: &Url, meter: &Meter) -> Result<String, DocError> {
    let html = match raw(file, &stream_name("", HTML, 0x0102), meter)? {
        Some(bytes) => Some(crate::charset::decode_html(&bytes, Some("text/html"))),
        None => text(file, "", HTML, meter)?,
    };
    if let Some(html) = html.filter(|h| !h.trim().is_empty()) {
        return Ok(html_to_markdown(&html, url));
    }
    if let Some(plain) = text(file, "", BODY, meter)? {
        return Ok(plain.replace("\r\n", "\n"));
    }
    if file.is_stream(stream_name("", RTF_COMPRESSED, 0x0102)) {
        return Ok("*(the body is only in compressed RTF, which trawl does not read)*".into());
    }
    Ok(String::new())
}

/// Each attachment under `### name`, read as its own format (an archive member's budget),
/// or named with its size when trawl cannot read it.
fn attachments(
    file: &mut Cfb<'_>,
    url: &Url,
    opts: &ExtractOptions,
    meter: &Meter,
    depth: usize,
) -> Result<Vec<String>, DocError> {
    let mut dirs: Vec<String> = file
        .read_root_storage()
        .filter(|e| e.is_storage() && e.name().starts_with("__attach_version1.0_#"))
        .map(|e| e.name().to_owned())
        .collect();
    dirs.sort();
    if dirs.len() > meter.budget.max_members {
        return Err(DocError::TooManyMembers {
            count: dirs.len(),
            cap: meter.budget.max_members,
        });
    }
    let mut out = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        meter.check_time()?;
        let name = [ATTACH_LONG_FILENAME, ATTACH_FILENAME]
            .into_iter()
            .find_map(|id| text(file, dir, id, meter).ok().flatten())
            .unwrap_or_else(|| format!("attachment {}", i + 1));
        let name = xml::fold_spaces(&name);
        let Some(data) = raw(file, &stream_name(dir, ATTACH_DATA, 0x0102), meter)? else {
            // An embedded message or an OLE object: named, not read.
            out.push(format!(
                "### {name}\n\n*(an embedded item trawl does not read)*"
            ));
            continue;
        };
        let member_url = url
            .join(&name.replace(['?', '#', '/'], "_"))
            .unwrap_or_else(|_| url.clone());
        let read = super::archive::member_markdown(&data, &member_url, opts, meter, depth)?;
        out.push(format!("### {name}\n\n{}", read.trim_end()));
    }
    Ok(out)
}

/// `__substg1.0_IIIITTTT` under `dir` (the root when empty).
fn stream_name(dir: &str, id: u16, kind: u16) -> String {
    format!("{dir}/__substg1.0_{id:04X}{kind:04X}")
}

/// A stream's bytes, counted against the document's expanded-bytes budget; `None` when the
/// message does not have it.
fn raw(file: &mut Cfb<'_>, path: &str, meter: &Meter) -> Result<Option<Vec<u8>>, DocError> {
    if !file.is_stream(path) {
        return Ok(None);
    }
    let stream = file.open_stream(path).map_err(malformed)?;
    let mut bytes = Vec::new();
    // One byte past what is left, so an over-budget stream is seen, not cut.
    stream
        .take(meter.remaining().saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(malformed)?;
    meter.spend(bytes.len() as u64, path)?;
    Ok(Some(bytes))
}

/// A string property: UTF-16 (`001F`) or 8-bit (`001E`, read as Windows-1252 unless it is
/// UTF-8), without its trailing NULs.
fn text(file: &mut Cfb<'_>, dir: &str, id: u16, meter: &Meter) -> Result<Option<String>, DocError> {
    if let Some(bytes) = raw(file, &stream_name(dir, id, 0x001F), meter)? {
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        return Ok(Some(trimmed(String::from_utf16_lossy(&units))));
    }
    if let Some(bytes) = raw(file, &stream_name(dir, id, 0x001E), meter)? {
        let text = match std::str::from_utf8(&bytes) {
            Ok(s) => s.to_owned(),
            Err(_) => encoding_rs::WINDOWS_1252.decode(&bytes).0.into_owned(),
        };
        return Ok(Some(trimmed(text)));
    }
    Ok(None)
}

fn trimmed(s: String) -> String {
    s.trim_end_matches('\0').trim().to_owned()
}

/// A time property (`PT_SYSTIME`) of the message, from its fixed-size property stream: a
/// 32-byte header, then 16-byte entries (tag, flags, 8-byte value), as RFC 3339 UTC.
fn time_property(file: &mut Cfb<'_>, id: u16, meter: &Meter) -> Option<String> {
    const PT_SYSTIME: u16 = 0x0040;
    let bytes = raw(file, "/__properties_version1.0", meter).ok()??;
    let entries = bytes.get(32..)?;
    entries.chunks_exact(16).find_map(|e| {
        let tag = u32::from_le_bytes(e[0..4].try_into().ok()?);
        if tag != (u32::from(id) << 16 | u32::from(PT_SYSTIME)) {
            return None;
        }
        filetime(u64::from_le_bytes(e[8..16].try_into().ok()?))
    })
}

/// A Windows FILETIME (100 ns since 1601) as RFC 3339 UTC, when it is a plausible date.
fn filetime(ticks: u64) -> Option<String> {
    const UNIX_EPOCH_TICKS: u64 = 116_444_736_000_000_000;
    let since = ticks.checked_sub(UNIX_EPOCH_TICKS)?;
    let secs = i64::try_from(since / 10_000_000).ok()?;
    let time = chrono::DateTime::from_timestamp(secs, 0)?;
    Some(time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn malformed(e: std::io::Error) -> DocError {
    DocError::Malformed {
        format: "Outlook message",
        why: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetimes_read_as_utc_dates() {
        // 2018-11-01T17:42:01Z in 100 ns ticks since 1601.
        assert_eq!(
            filetime(131_855_677_210_000_000).as_deref(),
            Some("2018-11-01T17:42:01Z")
        );
        assert_eq!(filetime(0), None);
    }
}
