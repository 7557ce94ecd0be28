//! ZIP archives: each member converted in turn (documents through their reader, HTML,
//! text, Markdown and JSON as a web page would be), under one budget shared with the
//! members, so nested archives, member counts and expanded bytes are all bounded.

use url::Url;

use crate::ExtractOptions;
use crate::docs::budget::{DocError, Meter};
use crate::docs::package::Package;
use crate::docs::{Converted, convert as convert_kind, detect};

pub(crate) fn convert(
    bytes: &[u8],
    url: &Url,
    opts: &ExtractOptions,
    meter: &Meter,
    depth: usize,
) -> Result<Converted, DocError> {
    if depth >= meter.budget.max_depth {
        return Err(DocError::TooDeep {
            cap: meter.budget.max_depth,
        });
    }
    let mut pkg = Package::open(bytes, meter, "zip")?;
    let mut sections = Vec::new();
    for name in pkg.names() {
        meter.check_time()?;
        if name.ends_with('/') {
            continue;
        }
        let member = match pkg.read(&name) {
            Ok(Some(member)) => member,
            Ok(None) => continue,
            // One member the ZIP reader cannot expand (encrypted, an unknown method) is
            // named and skipped; a cap reached ends the read.
            Err(e @ DocError::Malformed { .. }) => {
                sections.push(format!("## {name}\n\n*({e})*"));
                continue;
            }
            Err(e) => return Err(e),
        };
        let member_url = url
            .join(&name.replace(['?', '#'], "_"))
            .unwrap_or_else(|_| url.clone());
        let body = member_markdown(&member, &member_url, opts, meter, depth)?;
        sections.push(format!("## {name}\n\n{}", body.trim_end()));
    }
    Ok(Converted {
        markdown: sections.join("\n\n"),
        ..Converted::default()
    })
}

/// One member of a package (an archive's file, a message's attachment) at `url`, as
/// Markdown: read as its own format one level deeper, else as a page. A cap reached
/// (expanded bytes, members, time) ends the whole read, so a bomb inside ends it; any
/// other failure is said in place, with the member's size.
pub(crate) fn member_markdown(
    data: &[u8],
    url: &Url,
    opts: &ExtractOptions,
    meter: &Meter,
    depth: usize,
) -> Result<String, DocError> {
    Ok(match detect(data, None, url) {
        Some(kind) => match convert_kind(kind, data, None, url, opts, meter, depth + 1) {
            Ok(c) => c.markdown,
            Err(
                e @ (DocError::ExpandedTooLarge { .. }
                | DocError::TooManyMembers { .. }
                | DocError::TooSlow { .. }),
            ) => return Err(e),
            Err(e) => format!("*({e})*"),
        },
        None => match crate::extract(data, None, url, opts) {
            Ok(doc) => doc.markdown,
            Err(e) => format!("*({}; {} bytes)*", e.message, data.len()),
        },
    })
}
