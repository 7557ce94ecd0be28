//! How a failed command ends, in one place: the `error[code]: message` line, one line per
//! cause and an optional `next:` hint on stderr ([`print_error`]), and the process exit
//! status the error's code maps to ([`ExitStatus`]). `output::report_error` adds the
//! Envelope on stdout under `--json`.

use trawl_core::{ErrorCode, TrawlError};

/// The exit status of a `trawl` process. Tests and scripts depend on the numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// The command did what it was asked.
    Success = 0,
    /// A request-level error: the request was fine, answering it failed.
    Failure = 1,
    /// Bad usage: the request itself is malformed (`invalid_input`).
    Usage = 2,
}

impl ExitStatus {
    /// The status a command ends with when it fails with `code`.
    pub fn for_error(code: ErrorCode) -> Self {
        match code {
            ErrorCode::InvalidInput => ExitStatus::Usage,
            _ => ExitStatus::Failure,
        }
    }

    /// The status of a check (`doctor`, `cache doctor`): success when healthy.
    pub fn from_health(healthy: bool) -> Self {
        if healthy {
            ExitStatus::Success
        } else {
            ExitStatus::Failure
        }
    }

    /// The number the process exits with.
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// The exit status number for `err` (see [`ExitStatus::for_error`]).
pub fn exit_code(err: &TrawlError) -> i32 {
    ExitStatus::for_error(err.code()).code()
}

/// The one spelling of an error's head line, `error[code]: message`, for stderr, the MCP
/// error text and a search hit that could not be read.
pub fn error_line(code: impl std::fmt::Display, message: &str) -> String {
    format!("error[{code}]: {message}")
}

/// Say `err` on stderr: `error[code]: message` (with `subject`, the input it is about,
/// before the message in a batch), then `  caused by: …` per cause (redacted), then the
/// `hint` as `next: …`.
pub fn print_error(err: &TrawlError, subject: Option<&str>, hint: Option<&str>) {
    let mut text = match subject {
        Some(subject) => error_line(err.code(), &format!("{subject}: {}", err.message())),
        None => error_line(err.code(), err.message()),
    };
    for cause in err.causes() {
        text.push_str("\n  caused by: ");
        text.push_str(&cause);
    }
    if let Some(hint) = hint {
        text.push_str("\nnext: ");
        text.push_str(hint);
    }
    eprintln!("{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_input_is_usage_and_everything_else_a_failure() {
        assert_eq!(ExitStatus::for_error(ErrorCode::InvalidInput).code(), 2);
        assert_eq!(ExitStatus::for_error(ErrorCode::Timeout).code(), 1);
        assert_eq!(ExitStatus::for_error(ErrorCode::Internal).code(), 1);
        assert_eq!(ExitStatus::Success.code(), 0);
        assert_eq!(ExitStatus::from_health(true), ExitStatus::Success);
        assert_eq!(ExitStatus::from_health(false).code(), 1);
    }
}
