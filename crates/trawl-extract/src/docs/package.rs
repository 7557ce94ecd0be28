//! A ZIP container read under the budget: Office Open XML, OpenDocument and EPUB are ZIPs
//! of XML parts, and a plain archive is one too. Every member is expanded through
//! [`Package::read`], which stops at the budget's byte cap whatever the member's header
//! claims (a bomb's headers lie about sizes).

use std::io::{Cursor, Read};

use zip::ZipArchive;

use crate::docs::budget::{DocError, Meter};

pub(crate) struct Package<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    meter: &'a Meter,
    format: &'static str,
}

impl<'a> Package<'a> {
    /// Open the ZIP directory of `bytes`; `format` names the format in errors.
    pub(crate) fn open(
        bytes: &'a [u8],
        meter: &'a Meter,
        format: &'static str,
    ) -> Result<Self, DocError> {
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| DocError::Malformed {
            format,
            why: format!("zip: {e}"),
        })?;
        if zip.len() > meter.budget.max_members {
            return Err(DocError::TooManyMembers {
                count: zip.len(),
                cap: meter.budget.max_members,
            });
        }
        Ok(Package { zip, meter, format })
    }

    /// Member names in directory order.
    pub(crate) fn names(&self) -> Vec<String> {
        // A name that is not valid in its declared encoding cannot be asked for by name.
        self.zip
            .file_names()
            .filter_map(|n| n.ok().map(std::borrow::Cow::into_owned))
            .collect()
    }

    /// Whether a member of that name exists.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.zip.index_for_name(name).is_some()
    }

    /// The expanded bytes of member `name`, or `None` when there is no such member.
    pub(crate) fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, DocError> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(None);
        };
        self.read_index(index).map(Some)
    }

    /// Member `name` as text (UTF-8, or UTF-16 with a BOM), or `None`.
    pub(crate) fn read_text(&mut self, name: &str) -> Result<Option<String>, DocError> {
        Ok(self.read(name)?.map(|b| decode_xml_text(&b)))
    }

    fn read_index(&mut self, index: usize) -> Result<Vec<u8>, DocError> {
        let format = self.format;
        let mut file = self.zip.by_index(index).map_err(|e| DocError::Malformed {
            format,
            why: format!("zip member {index}: {e}"),
        })?;
        let name = file
            .name()
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_else(|_| format!("#{index}"));
        let remaining = self.meter.remaining();
        // Never trust the declared size for the allocation either.
        let hint = file.size().min(remaining).min(16 << 20) as usize;
        let mut out = Vec::with_capacity(hint);
        // One byte past what is left shows the member would pass the cap.
        let read = (&mut file)
            .take(remaining.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| DocError::Malformed {
                format,
                why: format!("zip member `{name}`: {e}"),
            })?;
        self.meter.spend(read as u64, &name)?;
        Ok(out)
    }

    /// Members whose name is `path` as calamine finds it: ASCII case ignored, `\` read as
    /// `/` (calamine keeps the last of several; all are returned).
    pub(crate) fn names_like(&self, path: &str) -> Vec<String> {
        self.names()
            .into_iter()
            .filter(|n| n.replace('\\', "/").eq_ignore_ascii_case(path))
            .collect()
    }

    /// Member `name` read again after [`Package::verify_all`] has counted it: the same bytes
    /// expand the same way, so they are not counted twice (and never past the cap).
    pub(crate) fn reread(&mut self, name: &str) -> Result<Option<Vec<u8>>, DocError> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(None);
        };
        let format = self.format;
        let malformed = |e: &dyn std::fmt::Display| DocError::Malformed {
            format,
            why: format!("zip member `{name}`: {e}"),
        };
        let cap = self.meter.budget.max_expanded_bytes;
        let mut file = self.zip.by_index(index).map_err(|e| malformed(&e))?;
        let mut out = Vec::with_capacity(file.size().min(cap).min(16 << 20) as usize);
        (&mut file)
            .take(cap)
            .read_to_end(&mut out)
            .map_err(|e| malformed(&e))?;
        Ok(Some(out))
    }

    /// Expand every member once, counting it against the budget and keeping nothing: for a
    /// reader (calamine) that expands members itself, beyond the budget's reach.
    pub(crate) fn verify_all(&mut self) -> Result<(), DocError> {
        let format = self.format;
        for index in 0..self.zip.len() {
            let mut file = self.zip.by_index(index).map_err(|e| DocError::Malformed {
                format,
                why: format!("zip member {index}: {e}"),
            })?;
            let name = file
                .name()
                .map(std::borrow::Cow::into_owned)
                .unwrap_or_else(|_| format!("#{index}"));
            let remaining = self.meter.remaining();
            let read = std::io::copy(
                &mut (&mut file).take(remaining.saturating_add(1)),
                &mut std::io::sink(),
            )
            .map_err(|e| DocError::Malformed {
                format,
                why: format!("zip member `{name}`: {e}"),
            })?;
            self.meter.spend(read, &name)?;
        }
        Ok(())
    }
}

/// XML parts are UTF-8 unless a BOM says UTF-16.
pub(crate) fn decode_xml_text(bytes: &[u8]) -> String {
    match encoding_rs::Encoding::for_bom(bytes) {
        Some((enc, bom)) => enc
            .decode_without_bom_handling(&bytes[bom..])
            .0
            .into_owned(),
        None => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Whether `bytes` start like a ZIP file (a local file header, or an empty archive).
pub(crate) fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}
