//! Helpers shared by the HTML engines: text normalisation, selector helpers and the
//! captcha/anomaly markers that turn an empty page into `blocked`.

use scraper::{ElementRef, Html, Selector};

use crate::engine::ParseError;

/// Compile a selector that is known to be valid (they are all literals in this crate).
pub(crate) fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap_or_else(|e| panic!("invalid selector {css:?}: {e}"))
}

/// Decode bytes as UTF-8, replacing invalid sequences (engines answer in UTF-8).
pub(crate) fn document(body: &[u8]) -> Html {
    Html::parse_document(&String::from_utf8_lossy(body))
}

/// Collapse whitespace and drop control characters (ENGINES.md §1.2; tags are already gone
/// because we take text nodes, entities are already decoded by the HTML parser).
pub fn clean_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
        } else if c.is_control() {
            continue;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// The cleaned text of an element.
pub(crate) fn text_of(el: ElementRef<'_>) -> String {
    clean_text(&el.text().collect::<String>())
}

/// The cleaned text of the first match of `s` under `el`, or empty.
pub(crate) fn first_text(el: ElementRef<'_>, s: &Selector) -> String {
    el.select(s).next().map(text_of).unwrap_or_default()
}

/// Strip tags from an HTML fragment (API snippets with `<strong>`, `<span class=searchmatch>`).
pub fn strip_tags(fragment: &str) -> String {
    if !fragment.contains('<') && !fragment.contains('&') {
        return clean_text(fragment);
    }
    let frag = Html::parse_fragment(fragment);
    // Block elements separate words: `a.<p>b` is "a. b", never "a.b".
    let mut text = String::with_capacity(fragment.len());
    for node in frag.root_element().descendants() {
        match node.value() {
            scraper::Node::Text(t) => text.push_str(t),
            scraper::Node::Element(e) if BLOCK_TAGS.contains(&e.name()) => text.push(' '),
            _ => {}
        }
    }
    clean_text(&text)
}

/// Elements whose start begins a new line of text.
const BLOCK_TAGS: &[&str] = &[
    "p",
    "br",
    "div",
    "li",
    "ul",
    "ol",
    "pre",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "td",
    "th",
    "hr",
    "dd",
    "dt",
];

/// Generic captcha and anti-bot markers (ENGINES.md §1.1), checked on pages that gave no
/// results so that a block is not reported as "no results".
const BLOCK_MARKERS: &[&str] = &[
    "form#challenge-form",
    "form[action*='anomaly']",
    ".anomaly-modal__title",
    "div#b_captcha",
    "div#recaptcha",
    "#challenge-running",
    ".CheckboxCaptcha",
    ".AdvancedCaptcha",
    "form[action*='captcha']",
    // ALTCHA proof-of-work captcha (Mojeek): `<altcha-widget challengeurl=…>`.
    "altcha-widget",
];

const BLOCK_PHRASES: &[&str] = &[
    "bots use duckduckgo too",
    "confirm this search was made by a human",
    "unusual traffic from your computer",
    "are you a robot",
    "please solve the challenge",
    "just a moment...",
    "attention required",
    "access denied",
    "429 too many requests",
];

/// The query box of an engine's search form (`q` almost everywhere, Yahoo's `p`).
const SEARCH_BOX: &str = "form input[name=q], form input[name=p]";

/// `Err(Blocked)` when the page carries a captcha or anomaly marker.
pub(crate) fn check_blocked(doc: &Html) -> Result<(), ParseError> {
    for m in BLOCK_MARKERS {
        if doc.select(&sel(m)).next().is_some() {
            return Err(ParseError::Blocked(format!("captcha marker `{m}`")));
        }
    }
    let title = doc
        .select(&sel("title"))
        .next()
        .map(text_of)
        .unwrap_or_default()
        .to_lowercase();
    let body = doc
        .select(&sel("body"))
        .next()
        .map(text_of)
        .unwrap_or_default()
        .to_lowercase();
    if title.trim() == "captcha" {
        return Err(ParseError::Blocked("the page is titled \"Captcha\"".into()));
    }
    for p in BLOCK_PHRASES {
        if title.contains(p) || (body.len() < 5000 && body.contains(p)) {
            return Err(ParseError::Blocked(format!("page says \"{p}\"")));
        }
    }
    Ok(())
}

/// Decide what an HTML page with no items means: a block, a genuine empty answer (one of
/// `no_results` markers present), or markup we no longer understand.
pub(crate) fn empty_page(
    doc: &Html,
    no_results: &[&str],
    phrases: &[&str],
) -> Result<(), ParseError> {
    check_blocked(doc)?;
    for m in no_results {
        if doc.select(&sel(m)).next().is_some() {
            return Ok(());
        }
    }
    let body = doc
        .select(&sel("body"))
        .next()
        .map(text_of)
        .unwrap_or_default();
    if phrases.iter().any(|p| body.contains(p)) {
        return Ok(());
    }
    // A search box and no result container is the engine's home page served instead of
    // results: a refusal (DuckDuckGo answers so when it will not search for this client).
    if doc.select(&sel(SEARCH_BOX)).next().is_some() {
        return Err(ParseError::Blocked(
            "served a search form with no results (its home page), not results".into(),
        ));
    }
    if doc.select(&sel("body *")).next().is_none() {
        return Err(ParseError::Malformed("not an HTML results page".into()));
    }
    Err(ParseError::Malformed(
        "no result items and no \"no results\" marker (markup may have changed)".into(),
    ))
}

/// Make an href absolute: scheme-relative `//x` gets `https:`, relative paths get `base`.
pub(crate) fn absolute(href: &str, base: &str) -> Option<String> {
    let href = href.trim();
    if href.starts_with("//") {
        return Some(format!("https:{href}"));
    }
    if href.starts_with("http://") || href.starts_with("https://") {
        return Some(href.to_owned());
    }
    if href.starts_with('/') {
        return Some(format!("{}{href}", base.trim_end_matches('/')));
    }
    None
}

/// Unwrap a redirect wrapper (`uddg=`, `RU=`, `ck/a?u=`) when the href has one.
pub(crate) fn unwrap_href(href: &str) -> String {
    match url::Url::parse(href) {
        Ok(u) => trawl_core::unwrap_redirect(&u)
            .map(|t| t.to_string())
            .unwrap_or_else(|| href.to_owned()),
        Err(_) => href.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_collapses() {
        assert_eq!(clean_text("  a\n\t b \u{7} c  "), "a b c");
    }

    #[test]
    fn strip_tags_handles_entities() {
        assert_eq!(
            strip_tags("<strong>Hello</strong> &amp; <span class=\"searchmatch\">world</span>"),
            "Hello & world"
        );
    }

    #[test]
    fn absolute_forms() {
        assert_eq!(absolute("//a.b/c", "x").as_deref(), Some("https://a.b/c"));
        assert_eq!(
            absolute("/p", "https://m.com").as_deref(),
            Some("https://m.com/p")
        );
        assert_eq!(absolute("javascript:void(0)", "x"), None);
    }
}
