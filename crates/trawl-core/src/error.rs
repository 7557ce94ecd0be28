//! [`TrawlError`]: the one error every face shows, asked reqwest's way (`code()`,
//! `is_retryable()`, `message()`, `source()`), with the chain of what led to it kept as
//! real `std::error::Error` sources and listed, redacted, by [`TrawlError::causes`].
//! [`TriedFirst`] is the link that keeps a way of reading which failed before the one
//! whose error is returned (a site reader, a hosted reader, an anti-bot tier).

use std::error::Error;
use std::fmt;
use std::sync::Arc;

use crate::code::ErrorCode;
use crate::redact::{Scrubber, redact_text};

/// A link of a cause chain, shared: errors are cloned into answers and attempts.
type Source = Arc<dyn Error + Send + Sync + 'static>;

/// A request-level error: a stable code, a human message, whether a retry may help, and
/// what caused it.
///
/// `code`, `message` and `retryable` stay public fields for the code that builds and
/// rewords errors (the accessors say the same); the causes are private `source()` links.
/// Their text may hold what the message never does (a URL with a token, an upstream's
/// echo of the request), so they are shown only through [`TrawlError::causes`], which
/// redacts each one; `Debug` shows them that way too.
#[derive(Clone)]
pub struct TrawlError {
    /// The stable code, part of the contract.
    pub code: ErrorCode,
    /// A human-readable message; never contains secrets.
    pub message: String,
    /// Whether the same request may succeed later.
    pub retryable: bool,
    source: Option<Source>,
}

impl TrawlError {
    /// An error with `code`'s default retryability.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        TrawlError {
            code,
            message: message.into(),
            retryable: code.default_retryable(),
            source: None,
        }
    }

    /// The same error, saying explicitly whether a retry may help.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// An `invalid_input` error: the request itself is malformed.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    /// An `internal` error: a bug or unexpected state inside trawl.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    /// The stable code, part of the contract.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The human-readable message (without the causes).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the same request may succeed later.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// The message, owned.
    pub fn into_message(self) -> String {
        self.message
    }

    /// The same error, with `cause` (and its own causes) added after the causes it has.
    pub fn caused_by(mut self, cause: impl Error + Send + Sync + 'static) -> Self {
        self.source = Some(append(self.source.take(), Arc::new(cause)));
        self
    }

    /// The same error, with `earlier` kept as a cause: `tried` (e.g. "site reader
    /// `github`") failed that way before the attempt this error is about.
    pub fn after(self, tried: impl Into<String>, earlier: TrawlError) -> Self {
        self.caused_by(TriedFirst {
            tried: tried.into(),
            error: earlier,
        })
    }

    /// The same error, with what caused `e` (its sources, not `e` itself, whose text the
    /// message is built from) added as causes, as text; a source whose text the message
    /// already holds is left out.
    pub fn with_causes_of(self, e: &(dyn Error + 'static)) -> Self {
        let texts: Vec<String> = std::iter::successors(e.source(), |&e| e.source())
            .map(|e| e.to_string())
            .filter(|text| !self.message.contains(text.as_str()))
            .collect();
        self.with_cause_texts(texts)
    }

    /// The same error, with causes known only as (already redacted) text, e.g. read back
    /// from the Envelope's `error.causes`.
    pub fn with_cause_texts(self, texts: impl IntoIterator<Item = String>) -> Self {
        let texts: Vec<String> = texts.into_iter().collect();
        match chain_of_texts(texts, None) {
            Some(chain) => Self {
                source: Some(append(self.source, chain)),
                ..self
            },
            None => self,
        }
    }

    /// The same error with every known secret in `scrubber` removed from its message and
    /// causes; the causes are kept as text from here on (for a face that shows them).
    pub fn scrubbed(&self, scrubber: &Scrubber) -> Self {
        let causes = self
            .causes()
            .map(|c| scrubber.scrub(&c))
            .collect::<Vec<_>>();
        TrawlError::new(self.code, scrubber.scrub(&self.message))
            .with_retryable(self.retryable)
            .with_cause_texts(causes)
    }

    /// What led to this error, outermost first, each as text with the URLs in it
    /// redacted ([`redact_text`]); empty when nothing did.
    pub fn causes(&self) -> impl Iterator<Item = String> + '_ {
        std::iter::successors(self.source(), |&e| e.source()).map(|e| redact_text(&e.to_string()))
    }
}

impl fmt::Display for TrawlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl fmt::Debug for TrawlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrawlError")
            .field("code", &self.code)
            .field("message", &self.message)
            .field("retryable", &self.retryable)
            .field("causes", &self.causes().collect::<Vec<_>>())
            .finish()
    }
}

impl Error for TrawlError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// Two errors are equal when they say the same: code, message, retryability and causes.
impl PartialEq for TrawlError {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.message == other.message
            && self.retryable == other.retryable
            && self.causes().eq(other.causes())
    }
}

impl Eq for TrawlError {}

/// A way of reading that failed before the one whose error is returned. Shown as
/// "site reader `github` failed: http_error: …"; its source is what caused that
/// earlier error, so the chain goes on without saying the earlier error twice.
#[derive(Debug, Clone)]
pub struct TriedFirst {
    /// What was tried ("site reader `github`", "hosted reader `jina`", "tier `plain`").
    pub tried: String,
    /// How it failed.
    pub error: TrawlError,
}

impl fmt::Display for TriedFirst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.tried, self.error)
    }
}

impl Error for TriedFirst {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.error.source()
    }
}

/// A cause known only by its text (a foreign error's link copied so more can follow it,
/// or a cause read back from the wire).
#[derive(Debug)]
struct CauseText {
    text: String,
    next: Option<Source>,
}

impl fmt::Display for CauseText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Error for CauseText {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.next.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// `texts` as a chain of [`CauseText`] links ending in `then`.
fn chain_of_texts(texts: Vec<String>, then: Option<Source>) -> Option<Source> {
    texts.into_iter().rev().fold(then, |next, text| {
        Some(Arc::new(CauseText { text, next }) as Source)
    })
}

/// `chain` with `tail` after its last link. trawl's own links are rebuilt with the tail
/// added; a foreign error cannot take a new source, so its links are kept as text.
fn append(chain: Option<Source>, tail: Source) -> Source {
    let Some(head) = chain else {
        return tail;
    };
    if let Some(e) = head.downcast_ref::<TrawlError>() {
        let mut e = e.clone();
        e.source = Some(append(e.source.take(), tail));
        return Arc::new(e);
    }
    if let Some(t) = head.downcast_ref::<TriedFirst>() {
        let mut t = t.clone();
        t.error.source = Some(append(t.error.source.take(), tail));
        return Arc::new(t);
    }
    if let Some(c) = head.downcast_ref::<CauseText>() {
        return Arc::new(CauseText {
            text: c.text.clone(),
            next: Some(append(c.next.clone(), tail)),
        });
    }
    let texts = std::iter::successors(Some(&*head as &(dyn Error + 'static)), |&e| e.source())
        .map(|e| e.to_string())
        .collect();
    chain_of_texts(texts, Some(tail)).unwrap_or_else(|| unreachable!("a chain of one or more"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("connection refused by http://user:pw@127.0.0.1:9/?token=T0KEN-42")]
    struct Refused;

    #[derive(Debug, thiserror::Error)]
    #[error("could not connect")]
    struct Connect(#[source] Refused);

    #[test]
    fn a_fresh_error_has_no_causes() {
        let e = TrawlError::new(ErrorCode::Timeout, "timed out");
        assert!(e.source().is_none());
        assert_eq!(e.causes().count(), 0);
        assert!(e.is_retryable());
        assert_eq!(e.code(), ErrorCode::Timeout);
        assert_eq!(e.message(), "timed out");
    }

    #[test]
    fn causes_follow_the_source_chain_redacted() {
        let e = TrawlError::new(ErrorCode::Upstream, "fetch failed").caused_by(Connect(Refused));
        let causes: Vec<String> = e.causes().collect();
        assert_eq!(causes.len(), 2, "{causes:?}");
        assert_eq!(causes[0], "could not connect");
        assert!(
            !causes[1].contains("T0KEN-42") && !causes[1].contains("pw"),
            "{causes:?}"
        );
        assert!(
            causes[1].starts_with("connection refused by http://"),
            "{causes:?}"
        );
        assert!(e.source().unwrap().downcast_ref::<Connect>().is_some());
        assert!(!format!("{e:?}").contains("T0KEN-42"));
    }

    #[test]
    fn an_earlier_failure_is_kept_after_the_causes_already_there() {
        let earlier =
            TrawlError::new(ErrorCode::RateLimited, "github answered 429").caused_by(CauseText {
                text: "retry after 60 s".into(),
                next: None,
            });
        let e = TrawlError::new(ErrorCode::Upstream, "fetch failed")
            .caused_by(Connect(Refused))
            .after("site reader `github`", earlier);
        let causes: Vec<String> = e.causes().collect();
        assert_eq!(causes.len(), 4, "{causes:?}");
        assert_eq!(causes[0], "could not connect");
        assert_eq!(
            causes[2],
            "site reader `github` failed: rate_limited: github answered 429"
        );
        assert_eq!(causes[3], "retry after 60 s");
    }

    #[test]
    fn the_causes_of_a_foreign_error_are_kept_unless_the_message_says_them() {
        let e = Connect(Refused);
        let kept = TrawlError::new(ErrorCode::Upstream, format!("reader: {e}")).with_causes_of(&e);
        assert_eq!(kept.causes().count(), 1);
        assert!(
            kept.causes()
                .all(|c| c.starts_with("connection refused by http://****@"))
        );
        let said = TrawlError::new(ErrorCode::Upstream, format!("reader: {e}: {}", Refused))
            .with_causes_of(&e);
        assert_eq!(said.causes().count(), 0);
    }

    #[test]
    fn scrubbing_reaches_the_causes() {
        let e = TrawlError::new(ErrorCode::Upstream, "key sk-live-4242 refused").after(
            "hosted reader `jina`",
            TrawlError::new(ErrorCode::Blocked, "echoed sk-live-4242"),
        );
        let shown = e.scrubbed(&Scrubber::new(["sk-live-4242"]));
        assert_eq!(shown.message(), "key **** refused");
        assert_eq!(
            shown.causes().collect::<Vec<_>>(),
            ["hosted reader `jina` failed: blocked: echoed ****"]
        );
    }
}
