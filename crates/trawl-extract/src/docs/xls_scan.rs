//! The area each sheet of a legacy Excel workbook (BIFF in an OLE2 compound file) would
//! take, found before calamine opens it: calamine builds every sheet as a dense range at
//! open (and reserves what a `DIMENSIONS` record declares), so one cell at A1 and one at
//! IV65536 costs 16.7 million cells. The workbook stream is walked record by record, never
//! decoded, and a sheet whose cells or declared dimensions span too large an area is
//! refused before any of that is allocated. No crate offers this scan; calamine's own
//! compound-file reader is private, so the `cfb` crate opens the container.

use std::io::{Cursor, Read};

/// A sheet's extent: rows and columns from its first to its last cell (or as declared).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Extent {
    pub(crate) rows: u64,
    pub(crate) columns: u64,
}

impl Extent {
    pub(crate) fn cells(self) -> u64 {
        self.rows.saturating_mul(self.columns)
    }
}

/// Running bounds of one sheet's cells.
#[derive(Default)]
struct Bounds {
    first: Option<(u32, u32)>,
    last: (u32, u32),
    declared: Option<Extent>,
}

impl Bounds {
    fn cell(&mut self, row: u32, col: u32) {
        let (r0, c0) = self.first.get_or_insert((row, col));
        *r0 = (*r0).min(row);
        *c0 = (*c0).min(col);
        self.last = (self.last.0.max(row), self.last.1.max(col));
    }

    fn extent(&self) -> Extent {
        let cells = self.first.map_or(
            Extent {
                rows: 0,
                columns: 0,
            },
            |(r0, c0)| Extent {
                rows: u64::from(self.last.0 - r0) + 1,
                columns: u64::from(self.last.1 - c0) + 1,
            },
        );
        match self.declared {
            Some(d) if d.cells() > cells.cells() => d,
            _ => cells,
        }
    }
}

fn u16_at(data: &[u8], at: usize) -> Option<u32> {
    data.get(at..at + 2)
        .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    data.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The largest extent among the workbook's sheets, or `None` when the file is not a BIFF
/// workbook this scan can read (calamine then says what it is).
pub(crate) fn largest_sheet(bytes: &[u8]) -> Option<Extent> {
    let mut file = cfb::CompoundFile::open(Cursor::new(bytes)).ok()?;
    let name = ["/Workbook", "/Book"]
        .into_iter()
        .find(|n| file.is_stream(n))?;
    let mut stream = Vec::new();
    file.open_stream(name).ok()?.read_to_end(&mut stream).ok()?;
    Some(scan(&stream))
}

/// Walks the records: each BOF after the globals opens a substream (a sheet), its cell
/// records widen its bounds, its EOF closes it.
fn scan(stream: &[u8]) -> Extent {
    let mut largest = Extent {
        rows: 0,
        columns: 0,
    };
    let mut sheet: Option<Bounds> = None;
    let mut at = 0usize;
    while let (Some(kind), Some(len)) = (u16_at(stream, at), u16_at(stream, at + 2)) {
        let start = at + 4;
        let end = (start + len as usize).min(stream.len());
        let data = &stream[start..end];
        at = end;
        match kind {
            // BOF: a new substream; the first is the workbook globals, which hold no cells.
            0x0809 => sheet = Some(Bounds::default()),
            // EOF
            0x000A => {
                if let Some(b) = sheet.take() {
                    let e = b.extent();
                    if e.cells() > largest.cells() {
                        largest = e;
                    }
                }
            }
            // DIMENSIONS (BIFF8): first row u32, last row + 1 u32, first col u16, last col + 1.
            0x0200 => {
                if let (Some(b), Some(r0), Some(r1), Some(c0), Some(c1)) = (
                    sheet.as_mut(),
                    u32_at(data, 0),
                    u32_at(data, 4),
                    u16_at(data, 8),
                    u16_at(data, 10),
                ) {
                    b.declared = Some(Extent {
                        rows: u64::from(r1.saturating_sub(r0)),
                        columns: u64::from(c1.saturating_sub(c0)),
                    });
                }
            }
            // Cells: row u16 at 0, column u16 at 2 (BLANK, NUMBER, LABEL, BOOLERR, RK,
            // LABELSST, RSTRING, FORMULA).
            0x0201 | 0x0203 | 0x0204 | 0x0205 | 0x027E | 0x00FD | 0x00D6 | 0x0006 => {
                if let (Some(b), Some(r), Some(c)) =
                    (sheet.as_mut(), u16_at(data, 0), u16_at(data, 2))
                {
                    b.cell(r, c);
                }
            }
            // MULRK, MULBLANK: row, first column, …, last column in the final two bytes.
            0x00BD | 0x00BE => {
                if let (Some(b), Some(r), Some(c0), Some(c1)) = (
                    sheet.as_mut(),
                    u16_at(data, 0),
                    u16_at(data, 2),
                    data.len().checked_sub(2).and_then(|i| u16_at(data, i)),
                ) {
                    b.cell(r, c0);
                    b.cell(r, c1.max(c0));
                }
            }
            _ => {}
        }
    }
    largest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: u16, data: &[u8]) -> Vec<u8> {
        let mut out = kind.to_le_bytes().to_vec();
        out.extend((data.len() as u16).to_le_bytes());
        out.extend(data);
        out
    }

    fn number(row: u16, col: u16) -> Vec<u8> {
        let mut data = row.to_le_bytes().to_vec();
        data.extend(col.to_le_bytes());
        data.extend([0u8; 10]);
        record(0x0203, &data)
    }

    #[test]
    fn two_far_cells_span_the_area_between_them() {
        let mut stream = record(0x0809, &[0; 16]);
        stream.extend(record(0x000A, &[]));
        stream.extend(record(0x0809, &[0; 16]));
        stream.extend(number(0, 0));
        stream.extend(number(65_535, 255));
        stream.extend(record(0x000A, &[]));
        assert_eq!(
            scan(&stream),
            Extent {
                rows: 65_536,
                columns: 256
            }
        );
    }

    #[test]
    fn declared_dimensions_count_when_larger() {
        let mut stream = record(0x0809, &[0; 16]);
        let mut dims = 0u32.to_le_bytes().to_vec();
        dims.extend(65_536u32.to_le_bytes());
        dims.extend(0u16.to_le_bytes());
        dims.extend(256u16.to_le_bytes());
        dims.extend([0, 0]);
        stream.extend(record(0x0200, &dims));
        stream.extend(number(0, 0));
        stream.extend(record(0x000A, &[]));
        assert_eq!(scan(&stream).cells(), 65_536 * 256);
    }
}
