//! How much work one document may cost: the bytes its ZIP members and XML parts expand to,
//! how many members and XML nodes it may have, how deeply archives and elements nest, and
//! how long reading it may take. Every ZIP and XML path reads through a [`Meter`], so a ZIP
//! bomb, a billion-laughs XML or a sheet of a million rows ends in a typed error instead of
//! filling memory.

use std::cell::Cell;
use std::fmt;
use std::time::{Duration, Instant};

use trawl_core::{ErrorCode, TrawlError};

/// The caps on one document read (see the constants for why each default is what it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocBudget {
    /// Bytes all decompressed members together may expand to.
    pub max_expanded_bytes: u64,
    /// Entries a ZIP directory may list (and items a feed may hold).
    pub max_members: usize,
    /// How deeply archives may nest inside archives (1: members are read, archives inside
    /// them are not opened).
    pub max_depth: usize,
    /// Nodes (elements, text, attributes) one XML part may parse into.
    pub max_xml_nodes: u32,
    /// How deeply elements may nest in one XML part.
    pub max_xml_depth: usize,
    /// Rows written per table (sheet or CSV); the rest are counted, not written.
    pub max_rows: usize,
    /// Columns written per table.
    pub max_columns: usize,
    /// Wall-clock time one document may take.
    pub max_time: Duration,
}

/// 64 MiB expanded: a 300-page report's document.xml is a few MB and the largest real
/// workbooks agents are sent are tens of MB; a ZIP bomb's first member already exceeds it.
pub const DEFAULT_MAX_EXPANDED_BYTES: u64 = 64 << 20;
/// 10,000 members: an EPUB or a source archive has hundreds; a crafted directory of a
/// million empty entries costs memory before a byte is expanded.
pub const DEFAULT_MAX_MEMBERS: usize = 10_000;
/// Two levels: an archive of Office files (each itself a ZIP) reads; a ZIP quine does not.
pub const DEFAULT_MAX_DEPTH: usize = 2;
/// Four million nodes: about 300 MB of tree at most, far more than any real document part.
pub const DEFAULT_MAX_XML_NODES: u32 = 4_000_000;
/// 256 levels: real documents nest a few dozen deep; the converters recurse per level.
pub const DEFAULT_MAX_XML_DEPTH: usize = 256;
/// 5,000 rows per table: past that a table is data to download, not text to read.
pub const DEFAULT_MAX_ROWS: usize = 5_000;
/// 200 columns per table, for the same reason.
pub const DEFAULT_MAX_COLUMNS: usize = 200;
/// 20 seconds: a real document converts in well under a second.
pub const DEFAULT_MAX_TIME: Duration = Duration::from_secs(20);

impl Default for DocBudget {
    fn default() -> Self {
        DocBudget {
            max_expanded_bytes: DEFAULT_MAX_EXPANDED_BYTES,
            max_members: DEFAULT_MAX_MEMBERS,
            max_depth: DEFAULT_MAX_DEPTH,
            max_xml_nodes: DEFAULT_MAX_XML_NODES,
            max_xml_depth: DEFAULT_MAX_XML_DEPTH,
            max_rows: DEFAULT_MAX_ROWS,
            max_columns: DEFAULT_MAX_COLUMNS,
            max_time: DEFAULT_MAX_TIME,
        }
    }
}

/// Why a document was refused or could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DocError {
    /// Its members expand past `max_expanded_bytes`.
    ExpandedTooLarge { cap: u64, member: String },
    /// Its ZIP directory lists more than `max_members` entries.
    TooManyMembers { count: usize, cap: usize },
    /// Archives nest deeper than `max_depth`.
    TooDeep { cap: usize },
    /// An XML part has more nodes or deeper nesting than allowed.
    XmlTooLarge { part: String, what: &'static str },
    /// An XML part declares entities or a DTD: never expanded, so refused.
    XmlEntities { part: String },
    /// Reading took longer than `max_time`.
    TooSlow { cap: Duration },
    /// A legacy workbook's sheet spans more cells than may be laid out to read it.
    SheetTooLarge { rows: u64, columns: u64, cap: u64 },
    /// The bytes are not the format they claim to be.
    Malformed { format: &'static str, why: String },
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocError::ExpandedTooLarge { cap, member } => write!(
                f,
                "document expands past {} MiB (at member `{member}`): refused as a possible ZIP bomb",
                cap >> 20
            ),
            DocError::TooManyMembers { count, cap } => {
                write!(
                    f,
                    "archive lists {count} members, more than the {cap} allowed"
                )
            }
            DocError::TooDeep { cap } => {
                write!(
                    f,
                    "archives nest more than {cap} deep: inner archives not opened"
                )
            }
            DocError::XmlTooLarge { part, what } => {
                write!(f, "xml part `{part}` has too many {what}")
            }
            DocError::XmlEntities { part } => write!(
                f,
                "xml part `{part}` declares a DTD or entities, which trawl never expands"
            ),
            DocError::TooSlow { cap } => {
                write!(f, "document took longer than {} s to read", cap.as_secs())
            }
            DocError::Malformed { format, why } => write!(f, "not a readable {format}: {why}"),
            DocError::SheetTooLarge { rows, columns, cap } => write!(
                f,
                "a sheet spans {rows} rows × {columns} columns ({} cells), more than the {cap} \
                 a legacy workbook may span to be read (its reader lays the whole area out)",
                rows.saturating_mul(*columns)
            ),
        }
    }
}

impl From<DocError> for TrawlError {
    fn from(e: DocError) -> Self {
        let code = match e {
            DocError::ExpandedTooLarge { .. }
            | DocError::TooManyMembers { .. }
            | DocError::TooDeep { .. }
            | DocError::XmlTooLarge { .. }
            | DocError::SheetTooLarge { .. } => ErrorCode::TooLarge,
            DocError::TooSlow { .. } => ErrorCode::Timeout,
            DocError::XmlEntities { .. } | DocError::Malformed { .. } => {
                ErrorCode::UnsupportedContent
            }
        };
        // The same bytes would fail the same way: no retry helps.
        TrawlError::new(code, e.to_string()).with_retryable(false)
    }
}

/// A [`DocBudget`] being spent by one document read (nested archives share it).
#[derive(Debug)]
pub(crate) struct Meter {
    pub(crate) budget: DocBudget,
    expanded: Cell<u64>,
    started: Instant,
}

impl Meter {
    pub(crate) fn new(budget: DocBudget) -> Self {
        Meter {
            budget,
            expanded: Cell::new(0),
            started: Instant::now(),
        }
    }

    /// Bytes still allowed to expand.
    pub(crate) fn remaining(&self) -> u64 {
        self.budget
            .max_expanded_bytes
            .saturating_sub(self.expanded.get())
    }

    /// Count `n` expanded bytes of `member`, failing once the total passes the cap.
    pub(crate) fn spend(&self, n: u64, member: &str) -> Result<(), DocError> {
        let total = self.expanded.get().saturating_add(n);
        self.expanded.set(total);
        if total > self.budget.max_expanded_bytes {
            return Err(DocError::ExpandedTooLarge {
                cap: self.budget.max_expanded_bytes,
                member: member.to_owned(),
            });
        }
        self.check_time()
    }

    /// Fail once the document has taken longer than `max_time`.
    pub(crate) fn check_time(&self) -> Result<(), DocError> {
        if self.started.elapsed() > self.budget.max_time {
            return Err(DocError::TooSlow {
                cap: self.budget.max_time,
            });
        }
        Ok(())
    }
}
