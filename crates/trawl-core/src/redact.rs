//! Redaction: the one place that decides what of a URL, a key or an error may be shown.
//!
//! - [`SafeUrl`] is a URL whose `Display`, `Debug` and `Serialize` hide its userinfo and the
//!   values of query (and fragment) parameters that [`is_credential_param`] names, so a URL
//!   can go into a log line, an error or a record as it is; [`redact_url`] does the same for
//!   text that may or may not parse as a URL.
//! - [`Secret`] holds a key whose `Debug`, `Display` and `Serialize` show only
//!   `****(N chars)` ([`mask`]); [`Secret::expose`] is the one way to the value.
//! - [`Scrubber`] (and [`scrub`]) removes known secret values from free text (an upstream's
//!   error body that echoes the request, a cause chain) in every spelling they take on the
//!   wire: as is, percent- and form-encoded, JSON-escaped, and inside base64 (Basic auth).
//! - [`redact_text`] masks every URL inside free text (an error's causes).
//! - [`error_chain`] puts an error and its causes on one line.
//!
//! Query parameters are matched by name parts, not substrings: `api_key` and `accessToken`
//! are credentials, `keyword` and `monkey` are not (see [`is_credential_param`]).

use std::fmt;

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine as _;
use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Serialize, Serializer};
use url::Url;

use crate::canonical::is_credential_param;

/// What replaces a hidden value.
pub const MASK: &str = "****";

/// Shorter secrets are not scrubbed from text: replacing every `abc` would mangle the text
/// and protect nothing (such a value is no secret).
pub const MIN_SECRET_CHARS: usize = 4;

/// A secret shown as a hint of its length, never its characters: `****(12 chars)`.
pub fn mask(secret: &str) -> String {
    format!("{MASK}({} chars)", secret.chars().count())
}

/// A key, token or password: shown (`Debug`, `Display`, `Serialize`) only as [`mask`].
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wrap a key, token or password.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the value is empty (an empty key is usually refused by what uses it).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_owned())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({})", mask(&self.0))
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&mask(&self.0))
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&mask(&self.0))
    }
}

/// A URL that shows itself without credentials: userinfo becomes `****`, and so does the
/// value of every query or fragment parameter whose name is a credential. [`SafeUrl::url`]
/// is the URL itself, for sending.
#[derive(Clone, PartialEq, Eq)]
pub struct SafeUrl(Url);

impl SafeUrl {
    /// Wrap a URL.
    pub fn new(url: Url) -> Self {
        SafeUrl(url)
    }

    /// Parse a URL to be shown safely.
    pub fn parse(raw: &str) -> Result<Self, url::ParseError> {
        Url::parse(raw).map(SafeUrl)
    }

    /// The URL with its credentials, for the request that needs them.
    pub fn url(&self) -> &Url {
        &self.0
    }

    /// The URL with its credentials.
    pub fn into_url(self) -> Url {
        self.0
    }

    /// Whether showing the URL hides anything.
    pub fn has_credentials(&self) -> bool {
        redacted(&self.0).is_some()
    }

    /// The URL as it may be shown.
    pub fn redacted(&self) -> String {
        redacted(&self.0).unwrap_or_else(|| self.0.to_string())
    }

    /// The values that showing the URL hides (password, `user:password` as Basic auth
    /// encodes it, credential parameter values), for a [`Scrubber`].
    pub fn secrets(&self) -> Vec<String> {
        let url = &self.0;
        let mut out = Vec::new();
        let user = percent_decode(url.username());
        if let Some(password) = url.password().map(percent_decode) {
            out.push(format!("{user}:{password}"));
            out.push(password);
        } else if !user.is_empty() {
            // A lone user name is often a token (`https://TOKEN@host`).
            out.push(user);
        }
        let params = url.query().into_iter().chain(url.fragment());
        for text in params {
            for (name, value) in url::form_urlencoded::parse(text.as_bytes()) {
                if is_credential_param(&name) && !value.is_empty() {
                    out.push(value.into_owned());
                }
            }
        }
        out
    }
}

impl From<Url> for SafeUrl {
    fn from(url: Url) -> Self {
        SafeUrl(url)
    }
}

impl fmt::Display for SafeUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for SafeUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SafeUrl({:?})", self.redacted())
    }
}

impl Serialize for SafeUrl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.redacted())
    }
}

/// `raw` as it may be shown: unchanged when it holds no credential; otherwise userinfo and
/// credential parameter values masked. Text that does not parse as a URL is masked the same
/// way by its shape (`scheme://user:pw@host/…?key=…`).
pub fn redact_url(raw: &str) -> String {
    match Url::parse(raw) {
        Ok(url) => redacted(&url).unwrap_or_else(|| raw.to_owned()),
        Err(_) => redact_unparsed(raw),
    }
}

/// Free text (an error's cause, an upstream's message) with every URL in it shown as
/// [`redact_url`] shows it. A URL starts at its `scheme://` and ends at white space, a
/// quote, `<`, `>` or `)`.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(sep) = rest.find("://") {
        let start = rest[..sep]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map_or(sep, |(i, _)| i);
        let after = sep + 3;
        let end = rest[after..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | ')'))
            .map_or(rest.len(), |i| after + i);
        out.push_str(&rest[..start]);
        if start == sep {
            // No scheme before `://`: nothing to parse as a URL.
            out.push_str(&rest[sep..after]);
            rest = &rest[after..];
            continue;
        }
        out.push_str(&redact_url(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The values hidden by [`redact_url`] in `raw`, for a [`Scrubber`].
pub fn url_secrets(raw: &str) -> Vec<String> {
    SafeUrl::parse(raw).map(|u| u.secrets()).unwrap_or_default()
}

/// `url` with its credentials masked, or `None` when it has none.
fn redacted(url: &Url) -> Option<String> {
    let mut shown = url.clone();
    let mut changed = false;
    if !url.username().is_empty() || url.password().is_some() {
        changed |= shown.set_username(MASK).is_ok() && shown.set_password(None).is_ok();
    }
    if let Some(query) = url.query()
        && let Some(masked) = mask_params(query)
    {
        shown.set_query(Some(&masked));
        changed = true;
    }
    if let Some(fragment) = url.fragment()
        && let Some(masked) = mask_params(fragment)
    {
        shown.set_fragment(Some(&masked));
        changed = true;
    }
    changed.then(|| shown.to_string())
}

/// `a=1&api_key=2` → `a=1&api_key=****`, keeping every other byte as it was (no
/// re-encoding); `None` when no parameter is a credential.
fn mask_params(params: &str) -> Option<String> {
    let mut changed = false;
    let pieces: Vec<String> = params
        .split('&')
        .map(|piece| match piece.split_once('=') {
            Some((name, value)) if !value.is_empty() && is_credential_param(&form_decode(name)) => {
                changed = true;
                format!("{name}={MASK}")
            }
            _ => piece.to_owned(),
        })
        .collect();
    changed.then(|| pieces.join("&"))
}

/// [`redact_url`] for text that is not a URL: userinfo between `://` and the authority's
/// last `@`, and credential parameters after `?` or `#`.
fn redact_unparsed(raw: &str) -> String {
    let mut out = raw.to_owned();
    if let Some(start) = out.find("://").map(|i| i + 3) {
        let end = out[start..]
            .find(['/', '?', '#'])
            .map_or(out.len(), |i| start + i);
        if let Some(at) = out[start..end].rfind('@') {
            out.replace_range(start..start + at, MASK);
        }
    }
    if let Some(q) = out.find(['?', '#']) {
        let (head, tail) = out.split_at(q + 1);
        // A fragment after the query is masked with it: `mask_params` splits only at `&`.
        let masked = tail
            .split('#')
            .map(|part| mask_params(part).unwrap_or_else(|| part.to_owned()))
            .collect::<Vec<_>>()
            .join("#");
        out = format!("{head}{masked}");
    }
    out
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

fn form_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("{s}=").as_bytes())
        .next()
        .map(|(k, _)| k.into_owned())
        .unwrap_or_default()
}

/// What `url` percent-encodes in a query (WHATWG query set).
const QUERY_SET: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b'#').add(b'<').add(b'>');
/// What `url` percent-encodes in a user name or password (WHATWG userinfo set).
const USERINFO_SET: &AsciiSet = &QUERY_SET
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b':')
    .add(b';')
    .add(b'=')
    .add(b'@')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'|');

/// The spellings `secret` can take on the wire, each to be removed from text: as is,
/// percent-encoded (every way `url` and common clients encode, upper- and lower-case hex),
/// form-encoded (`+` for space), JSON-escaped, and the runs of base64 it becomes inside a
/// longer encoded value ([`base64_runs`]).
pub fn spellings(secret: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    };
    add(secret.to_owned());
    for set in [NON_ALPHANUMERIC, QUERY_SET, USERINFO_SET] {
        let upper = utf8_percent_encode(secret, set).to_string();
        add(lower_hex(&upper));
        add(upper);
    }
    add(url::form_urlencoded::byte_serialize(secret.as_bytes()).collect());
    if let Ok(json) = serde_json::to_string(secret) {
        add(json[1..json.len() - 1].to_owned());
    }
    for run in base64_runs(secret.as_bytes()) {
        add(run);
    }
    out
}

/// `%2F` → `%2f`.
fn lower_hex(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut hex_left = 0;
    for c in encoded.chars() {
        if c == '%' {
            hex_left = 2;
            out.push(c);
        } else if hex_left > 0 {
            hex_left -= 1;
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The base64 text that `secret` always becomes when it is encoded inside a longer value
/// (`user:password` in Basic auth, a token in a JWT-like blob), in each of the three
/// alignments it can start at, in the standard and URL-safe alphabets: only characters
/// made of the secret's own bits are kept, since those around it depend on its neighbours.
/// Written here because no base64 crate answers "what does this substring encode to".
fn base64_runs(secret: &[u8]) -> Vec<String> {
    let engines = [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let mut out = Vec::new();
    for engine in engines {
        for lead in 0..3usize {
            let mut bytes = vec![0u8; lead];
            bytes.extend_from_slice(secret);
            let encoded = engine.encode(&bytes);
            // The leading characters hold bits of the padding bytes (`lead` 1: two, 2: three),
            // and the last one, when the bytes do not end on a 3-byte group, bits of what
            // follows.
            let skip = [0, 2, 3][lead];
            let end = encoded.len() - usize::from(bytes.len() % 3 != 0);
            if end > skip {
                out.push(encoded[skip..end].to_owned());
            }
        }
    }
    out
}

/// Removes known secrets, in all their [`spellings`], from text and bytes. Built once per
/// set of secrets; shown (`Debug`) as the number of spellings only.
#[derive(Clone, Default)]
pub struct Scrubber {
    matcher: Option<AhoCorasick>,
    patterns: usize,
}

impl Scrubber {
    /// A scrubber for `secrets`; values shorter than [`MIN_SECRET_CHARS`] are ignored.
    pub fn new<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let mut patterns: Vec<String> = Vec::new();
        for secret in secrets {
            let secret = secret.as_ref();
            if secret.chars().count() < MIN_SECRET_CHARS {
                continue;
            }
            for spelling in spellings(secret) {
                if spelling.chars().count() >= MIN_SECRET_CHARS && !patterns.contains(&spelling) {
                    patterns.push(spelling);
                }
            }
        }
        let matcher = (!patterns.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&patterns)
                    .ok()
            })
            .flatten();
        Scrubber {
            matcher,
            patterns: patterns.len(),
        }
    }

    /// Whether there is nothing to scrub.
    pub fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }

    /// `text` with every secret spelling replaced by `****`.
    pub fn scrub(&self, text: &str) -> String {
        match &self.matcher {
            Some(m) => m.replace_all(text, &vec![MASK; self.patterns]),
            None => text.to_owned(),
        }
    }

    /// [`Scrubber::scrub`] for raw bytes (a body that may not be UTF-8).
    pub fn scrub_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        match &self.matcher {
            Some(m) => m.replace_all_bytes(bytes, &vec![MASK.as_bytes(); self.patterns]),
            None => bytes.to_vec(),
        }
    }
}

impl fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scrubber")
            .field("spellings", &self.patterns)
            .finish()
    }
}

/// `text` with every one of `secrets` removed, in all its spellings (see [`Scrubber`]).
pub fn scrub<S: AsRef<str>>(text: &str, secrets: impl IntoIterator<Item = S>) -> String {
    Scrubber::new(secrets).scrub(text)
}

/// An error and its causes on one line (`error sending request: dns error: …`): clients'
/// top-level messages alone rarely say what went wrong. A cause whose text the line
/// already holds is left out.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let msg = cause.to_string();
        if !out.contains(&msg) {
            out.push_str(": ");
            out.push_str(&msg);
        }
        source = cause.source();
    }
    out
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
