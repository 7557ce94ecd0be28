//! When a fetched page goes on to the browser (tier 2): under `--render auto`, only an HTML
//! page that is an app shell or too thin to be the page. The signals are read from the raw
//! HTML with a small scanner (this crate has no DOM, and a heuristic needs none): visible
//! text against script payload, a `<noscript>` asking for JavaScript, an empty mount node,
//! hydration data with no text around it.

use crate::config::RenderMode;
use crate::page::FetchedPage;

/// Visible text under which a page with scripts is a shell whatever else it has.
const TINY_TEXT: usize = 200;
/// Visible text under which an empty mount node or hydration data marks a shell.
const THIN_TEXT: usize = 600;
/// Visible text under which a `<noscript>` asking for JavaScript marks a shell.
const NOSCRIPT_TEXT: usize = 1500;
// `render_reason` stops counting at the largest of the three.
const _: () = assert!(NOSCRIPT_TEXT >= THIN_TEXT && NOSCRIPT_TEXT >= TINY_TEXT);

/// Why `page` should be rendered, or `None` to keep it as fetched.
pub fn render_reason(mode: RenderMode, page: &FetchedPage) -> Option<String> {
    if mode == RenderMode::Never || page.not_modified() || !is_html(page) {
        return None;
    }
    if mode == RenderMode::Always {
        return Some("--render always".into());
    }
    scan_until(&page.body, NOSCRIPT_TEXT).shell_reason()
}

fn is_html(page: &FetchedPage) -> bool {
    match page.content_type.as_deref() {
        Some(ct) => contains_ignore_case(ct.as_bytes(), b"html"),
        // Invalid UTF-8 never hides or makes an ASCII `<html`: the raw bytes are asked.
        None => contains_ignore_case(&page.body[..page.body.len().min(512)], b"<html"),
    }
}

/// What the scanner counted in one page.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ShellSignals {
    /// Characters of visible text (whitespace runs counted as one).
    pub visible_chars: usize,
    /// Bytes inside `<script>` elements (JSON data included).
    pub inline_script_bytes: usize,
    /// `<script src=…>` elements.
    pub external_scripts: usize,
    /// A `<noscript>` asks the reader to turn JavaScript on.
    pub noscript_asks_for_js: bool,
    /// The id of an empty `<div id="root|app|__next|…">`.
    pub empty_mount: Option<String>,
    /// The marker of framework hydration data (`__NEXT_DATA__`, `__NUXT__`, …).
    pub hydration: Option<&'static str>,
}

impl ShellSignals {
    /// The decision of `--render auto`, with the signal that made it.
    pub fn shell_reason(&self) -> Option<String> {
        let text = self.visible_chars;
        let scripts = self.inline_script_bytes > 0 || self.external_scripts > 0;
        if let Some(id) = &self.empty_mount
            && text < THIN_TEXT
        {
            return Some(format!("empty mount node #{id}, {text} chars of text"));
        }
        if let Some(marker) = self.hydration
            && text < THIN_TEXT
        {
            return Some(format!(
                "hydration data ({marker}) with {text} chars of text"
            ));
        }
        if self.noscript_asks_for_js && text < NOSCRIPT_TEXT {
            return Some(format!(
                "<noscript> asks for JavaScript, {text} chars of text"
            ));
        }
        if scripts && text < TINY_TEXT {
            return Some(format!(
                "{text} chars of text against {} bytes of inline script and {} script files",
                self.inline_script_bytes, self.external_scripts
            ));
        }
        None
    }
}

const MOUNT_IDS: &[&str] = &[
    "root",
    "app",
    "__next",
    "__nuxt",
    "___gatsby",
    "svelte",
    "main-app",
];
const HYDRATION: &[&str] = &[
    "__NEXT_DATA__",
    "self.__next_f",
    "__NUXT__",
    "__INITIAL_STATE__",
    "__APOLLO_STATE__",
    "__PRELOADED_STATE__",
    "__remixContext",
];

/// Scan raw HTML for the shell signals (lossy UTF-8; never fails).
pub fn scan(body: &[u8]) -> ShellSignals {
    scan_until(body, usize::MAX)
}

/// [`scan`], ending once `enough` characters of visible text are counted: no signal
/// marks a page with that much text as a shell (every page of a crawl is scanned, and
/// reading a whole page to count its scripts took more CPU than fetching it).
///
/// Tag and attribute names are matched ignoring ASCII case in place: a lowercased copy of
/// the page, or a string for each tag, cost more than the scan.
fn scan_until(body: &[u8], enough: usize) -> ShellSignals {
    // Borrowed unless the page is not UTF-8. Checked first with `from_utf8`, which steps
    // over ASCII a word at a time, where the lossy decoder reads a byte at a time.
    let html = match std::str::from_utf8(body) {
        Ok(html) => std::borrow::Cow::Borrowed(html),
        Err(_) => String::from_utf8_lossy(body),
    };
    let mut out = ShellSignals::default();
    let bytes = html.as_bytes();
    let mut i = 0;
    let mut last_space = true;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            // Text: entities count as one character, close enough for a threshold.
            let c = bytes[i];
            if c.is_ascii_whitespace() {
                if !last_space {
                    out.visible_chars += 1;
                    last_space = true;
                }
            } else if !(0x80..0xC0).contains(&c) {
                // One count per character: UTF-8 continuation bytes are skipped.
                out.visible_chars += 1;
                last_space = false;
                if out.visible_chars >= enough {
                    break;
                }
            }
            i += 1;
            continue;
        }
        if bytes[i..].starts_with(b"<!--") {
            i = memchr::memmem::find(&bytes[i..], b"-->").map_or(bytes.len(), |e| i + e + 3);
            continue;
        }
        let tag_end = memchr::memchr(b'>', &bytes[i..]).map_or(bytes.len(), |e| i + e + 1);
        let tag = &bytes[i..tag_end];
        let name_len = tag[1..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let name = &tag[1..1 + name_len];
        i = tag_end;
        if let Some(element) = RAW_TEXT
            .iter()
            .find(|e| name.eq_ignore_ascii_case(e.as_bytes()))
        {
            let end = find_close(&bytes[i..], element.as_bytes()).map_or(bytes.len(), |e| i + e);
            let inner = &html[i..end];
            match *element {
                "script" => {
                    if contains_ignore_case(tag, b" src=") {
                        out.external_scripts += 1;
                    }
                    out.inline_script_bytes += inner.trim().len();
                    if out.hydration.is_none() {
                        out.hydration = HYDRATION
                            .iter()
                            .find(|m| contains_ignore_case(tag, m.as_bytes()) || inner.contains(*m))
                            .copied();
                    }
                }
                "noscript" => {
                    let inner = inner.as_bytes();
                    out.noscript_asks_for_js |= contains_ignore_case(inner, b"javascript")
                        && ["enable", "requires", "require", "need", "turn on"]
                            .iter()
                            .any(|w| contains_ignore_case(inner, w.as_bytes()));
                }
                _ => {}
            }
            i = memchr::memchr(b'>', &bytes[end..]).map_or(bytes.len(), |e| end + e + 1);
        } else if out.empty_mount.is_none()
            && ["div", "main", "section", "body"]
                .iter()
                .any(|e| name.eq_ignore_ascii_case(e.as_bytes()))
            && let Some(id) = id_attr(tag)
            && let Some(mount) = MOUNT_IDS
                .iter()
                .find(|m| id.eq_ignore_ascii_case(m.as_bytes()))
            && html[i..].trim_start().starts_with("</")
        {
            out.empty_mount = Some((*mount).to_owned());
        }
    }
    out
}

/// Elements whose content is not visible text; the scanner skips to their end tag.
const RAW_TEXT: &[&str] = &["script", "style", "template", "noscript", "textarea", "svg"];

/// Where `</{element}` (ASCII case ignored) starts in `html`.
fn find_close(html: &[u8], element: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'<', html).find(|&at| {
        let rest = &html[at + 1..];
        rest.first() == Some(&b'/')
            && rest.len() > element.len()
            && rest[1..=element.len()].eq_ignore_ascii_case(element)
    })
}

/// Whether `needle` (not empty) occurs in `hay`, ASCII case ignored.
fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    let (first, rest) = needle.split_first().expect("a needle");
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), hay).any(|at| {
        hay.get(at + 1..at + 1 + rest.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(rest))
    })
}

/// The value of a tag's quoted `id` attribute, as written: the first ` id="` (ASCII case
/// ignored) up to its closing quote, else the first ` id='`.
fn id_attr(tag: &[u8]) -> Option<&[u8]> {
    for needle in [&b" id=\""[..], &b" id='"[..]] {
        let quote = needle[needle.len() - 1];
        if let Some(at) = tag
            .windows(needle.len())
            .position(|w| w.eq_ignore_ascii_case(needle))
        {
            let rest = &tag[at + needle.len()..];
            return memchr::memchr(quote, rest).map(|e| &rest[..e]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner as it was before it stopped copying the page, kept to check that the
    /// rewrite answers the same.
    mod before {
        use super::super::{HYDRATION, MOUNT_IDS, ShellSignals};
        use crate::page::FetchedPage;

        pub fn is_html(page: &FetchedPage) -> bool {
            match page.content_type.as_deref() {
                Some(ct) => {
                    let ct = ct.to_ascii_lowercase();
                    ct.contains("html")
                }
                None => {
                    let head = &page.body[..page.body.len().min(512)];
                    String::from_utf8_lossy(head)
                        .to_ascii_lowercase()
                        .contains("<html")
                }
            }
        }

        pub fn scan_until(body: &[u8], enough: usize) -> ShellSignals {
            let html = String::from_utf8_lossy(body);
            let lower = html.to_ascii_lowercase();
            let mut out = ShellSignals::default();
            let bytes = lower.as_bytes();
            let mut i = 0;
            let mut last_space = true;
            while i < bytes.len() {
                if bytes[i] != b'<' {
                    // Text: entities count as one character, close enough for a threshold.
                    let c = bytes[i];
                    if c.is_ascii_whitespace() {
                        if !last_space {
                            out.visible_chars += 1;
                            last_space = true;
                        }
                    } else if !(0x80..0xC0).contains(&c) {
                        // One count per character: UTF-8 continuation bytes are skipped.
                        out.visible_chars += 1;
                        last_space = false;
                        if out.visible_chars >= enough {
                            break;
                        }
                    }
                    i += 1;
                    continue;
                }
                if lower[i..].starts_with("<!--") {
                    i = lower[i..].find("-->").map_or(bytes.len(), |e| i + e + 3);
                    continue;
                }
                let tag_end = lower[i..].find('>').map_or(bytes.len(), |e| i + e + 1);
                let tag = &lower[i..tag_end];
                let name: String = tag[1..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                i = tag_end;
                match name.as_str() {
                    "script" | "style" | "template" | "noscript" | "textarea" | "svg" => {
                        let close = format!("</{name}");
                        let end = lower[i..].find(&close).map_or(bytes.len(), |e| i + e);
                        let inner = &html[i..end];
                        match name.as_str() {
                            "script" => {
                                if tag.contains(" src=") {
                                    out.external_scripts += 1;
                                }
                                out.inline_script_bytes += inner.trim().len();
                                if out.hydration.is_none() {
                                    out.hydration = HYDRATION
                                        .iter()
                                        .find(|m| {
                                            tag.contains(&m.to_ascii_lowercase())
                                                || inner.contains(*m)
                                        })
                                        .copied();
                                }
                            }
                            "noscript" => {
                                let inner = inner.to_ascii_lowercase();
                                out.noscript_asks_for_js |= inner.contains("javascript")
                                    && ["enable", "requires", "require", "need", "turn on"]
                                        .iter()
                                        .any(|w| inner.contains(w));
                            }
                            _ => {}
                        }
                        i = lower[end..].find('>').map_or(bytes.len(), |e| end + e + 1);
                    }
                    "div" | "main" | "section" | "body" if out.empty_mount.is_none() => {
                        if let Some(id) = attr(tag, "id")
                            && MOUNT_IDS.contains(&id.as_str())
                            && lower[i..].trim_start().starts_with("</")
                        {
                            out.empty_mount = Some(id);
                        }
                    }
                    _ => {}
                }
            }
            out
        }

        fn attr(tag: &str, name: &str) -> Option<String> {
            for quote in ['"', '\''] {
                let needle = format!(" {name}={quote}");
                if let Some(at) = tag.find(&needle) {
                    let rest = &tag[at + needle.len()..];
                    return rest.find(quote).map(|e| rest[..e].to_owned());
                }
            }
            None
        }
    }

    fn page(content_type: Option<&str>, body: &[u8]) -> FetchedPage {
        let url = url::Url::parse("https://example.org/").unwrap();
        FetchedPage {
            requested_url: url.clone(),
            final_url: url,
            status: 200,
            content_type: content_type.map(str::to_owned),
            etag: None,
            last_modified: None,
            body: bytes::Bytes::copy_from_slice(body),
            via: trawl_core::FetchedVia::Http,
            redirects: Vec::new(),
            attempts: Vec::new(),
        }
    }

    /// Pages made of the pieces the scanner looks at, in any case and order, with text,
    /// Unicode whitespace and bytes that are not UTF-8 between them.
    fn pages() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just(b"<html>".to_vec()),
            Just(b"<HTML lang=en>".to_vec()),
            Just(b"<div id=\"root\">".to_vec()),
            Just(b"<DIV ID='App'>".to_vec()),
            Just(b"<div class=x id=\"__next".to_vec()),
            Just(b"<main id=\"main-app\" id='root'>".to_vec()),
            Just(b"<section  id=\"svelte\">".to_vec()),
            Just(b"<body id=___Gatsby>".to_vec()),
            Just(b"</div>".to_vec()),
            Just(b"</DiV >".to_vec()),
            Just(b"<script src=\"/a.js\">".to_vec()),
            Just(b"<SCRIPT id=\"__NEXT_DATA__\" type=application/json>".to_vec()),
            Just(b"<script>self.__next_f.push(1)".to_vec()),
            Just(b"<script>window.__nuxt__={}".to_vec()),
            Just(b"</script>".to_vec()),
            Just(b"</ScRiPt".to_vec()),
            Just(b"<noscript>".to_vec()),
            Just(b"Please ENABLE JavaScript".to_vec()),
            Just(b"you need javascript".to_vec()),
            Just(b"</NOSCRIPT>".to_vec()),
            Just(b"<style>p{}</style>".to_vec()),
            Just(b"<svg><g></g></svg".to_vec()),
            Just(b"<textarea>".to_vec()),
            Just(b"<template>".to_vec()),
            Just(b"<!-- c -->".to_vec()),
            Just(b"<!--".to_vec()),
            Just(b"-->".to_vec()),
            Just(b"<".to_vec()),
            Just(b">".to_vec()),
            Just(b"<p>".to_vec()),
            Just("\u{a0}\u{3000} é € ".as_bytes().to_vec()),
            Just(vec![0xff, 0x80, 0xc3]),
            Just(vec![0xe2, 0x82]),
            "[a-z .]{0,40}".prop_map(String::into_bytes),
            proptest::collection::vec(any::<u8>(), 0..8),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(1_000))]

        /// The scanner reading the page in place answers as the one that lowercased a copy.
        #[test]
        fn scans_as_before(body in pages(), enough in proptest::prop_oneof![
            proptest::strategy::Just(usize::MAX),
            proptest::strategy::Just(NOSCRIPT_TEXT),
            0usize..200,
        ]) {
            proptest::prop_assert_eq!(scan_until(&body, enough), before::scan_until(&body, enough));
            for ct in [None, Some("text/HTML; charset=utf-8"), Some("application/json")] {
                let page = page(ct, &body);
                proptest::prop_assert_eq!(is_html(&page), before::is_html(&page));
            }
        }
    }

    #[test]
    fn scans_as_before_on_known_pages() {
        let para = "<p>The quick brown fox jumps over the lazy dog.</p>".repeat(60);
        for html in [
            r#"<html><body><div id="root"></div><script src="/app.js"></script></body></html>"#
                .to_owned(),
            r#"<HTML><BODY><DIV ID="ROOT"> </DIV><SCRIPT SRC="/app.js"></SCRIPT>"#.to_owned(),
            r#"<div id="__next"><div class="spinner"></div></div><script id="__NEXT_DATA__">{}</script>"#
                .to_owned(),
            "<noscript>You need to enable JavaScript to run this app.</noscript>".to_owned(),
            format!("<html><body>{para}<script>var x;</script></body></html>"),
            "<div id='app'>\u{3000}</div>".to_owned(),
            "<div id=\"app".to_owned(),
            "<script>".to_owned(),
        ] {
            for enough in [usize::MAX, NOSCRIPT_TEXT, 10] {
                assert_eq!(
                    scan_until(html.as_bytes(), enough),
                    before::scan_until(html.as_bytes(), enough),
                    "{html:?}"
                );
            }
        }
    }

    fn reason(html: &str) -> Option<String> {
        scan(html.as_bytes()).shell_reason()
    }

    #[test]
    fn empty_react_root_is_a_shell() {
        let r = reason(
            r#"<html><body><div id="root"></div><script src="/app.js"></script></body></html>"#,
        );
        assert!(r.unwrap().contains("#root"));
    }

    #[test]
    fn next_page_with_data_but_no_text_is_a_shell() {
        let html = r#"<html><body><div id="__next"><div class="spinner"></div></div>
            <script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"body":"long text"}}}</script></body></html>"#;
        assert!(reason(html).unwrap().contains("__NEXT_DATA__"));
    }

    #[test]
    fn noscript_plea_is_a_shell() {
        let html = "<html><body><noscript>You need to enable JavaScript to run this app.</noscript><p>Loading</p></body></html>";
        assert!(reason(html).unwrap().contains("noscript"));
    }

    #[test]
    fn plain_article_is_not_a_shell() {
        let para = "<p>The quick brown fox jumps over the lazy dog, and then some more words follow here.</p>";
        let html = format!(
            "<html><body><div id=\"root\"><article>{}</article></div><script src=\"/a.js\"></script>\
             <noscript>Please enable JavaScript for comments.</noscript></body></html>",
            para.repeat(30)
        );
        assert_eq!(reason(&html), None);
        let signals = scan(html.as_bytes());
        assert!(signals.visible_chars > 2000, "{signals:?}");
        assert_eq!(signals.empty_mount, None);
    }

    #[test]
    fn server_rendered_next_page_is_not_a_shell() {
        let html = format!(
            "<html><body><div id=\"__next\"><main>{}</main></div>\
             <script id=\"__NEXT_DATA__\" type=\"application/json\">{{}}</script></body></html>",
            "<p>Plenty of server-rendered words in this paragraph for the reader.</p>".repeat(20)
        );
        assert_eq!(reason(&html), None);
    }

    #[test]
    fn script_text_is_not_visible_text() {
        let html = format!(
            "<html><body><p>Hi</p><script>{}</script></body></html>",
            "var x = 'lots of code';".repeat(500)
        );
        let s = scan(html.as_bytes());
        assert!(s.visible_chars < 10, "{s:?}");
        assert!(reason(&html).unwrap().contains("inline script"));
    }
}
