//! Printing answers: the Envelope for `--json`, human text otherwise, errors on stderr.

use std::io::Write;

use serde::Serialize;
use trawl_core::{Envelope, ErrorCode, Meta, TrawlError};

/// Exit status for an error: 2 for bad usage (invalid input), 1 for a request-level error.
pub fn exit_code(err: &TrawlError) -> i32 {
    if err.code == ErrorCode::InvalidInput {
        2
    } else {
        1
    }
}

pub fn print_json<T: Serialize>(envelope: &Envelope<T>) {
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer_pretty(&mut out, envelope);
    let _ = writeln!(out);
}

/// Report an error: the Envelope on stdout when `json`, always a line on stderr.
pub fn report_error(err: &TrawlError, json: bool, meta: Meta) -> i32 {
    if json {
        print_json(&Envelope::<()>::failure(err.clone(), meta));
    }
    eprintln!("error[{}]: {}", err.code, err.message);
    exit_code(err)
}
