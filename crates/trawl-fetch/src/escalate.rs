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
fn scan_until(body: &[u8], enough: usize) -> ShellSignals {
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
                                    tag.contains(&m.to_ascii_lowercase()) || inner.contains(*m)
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

#[cfg(test)]
mod tests {
    use super::*;

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
