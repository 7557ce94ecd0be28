//! What a caller may ask of the browser beyond rendering: a viewport, a screenshot, and a
//! short declarative list of actions (wait, click, write, press, scroll, screenshot,
//! scrape). The same list serves every face: `trawl read --action`, MCP `web_fetch
//! {actions}` and Firecrawl's `actions` (their names and fields).
//!
//! No caller-supplied JavaScript is ever run: a selector or a text is passed to trawl's own
//! scripts as data (a JSON string), never spliced into code. Every bound is a constant here
//! so that the docs and the checks say the same number.

use std::time::Duration;

use serde::Deserialize;
use trawl_core::{ErrorCode, TrawlError};

/// At most this many actions in one call.
pub const MAX_ACTIONS: usize = 50;
/// A `wait` of a number of milliseconds is capped at this.
pub const MAX_WAIT: Duration = Duration::from_secs(30);
/// A `scroll` repeats at most this many times (also the cap of "to the end").
pub const MAX_SCROLLS: u32 = 50;
/// A full-page screenshot is cut at this height (CSS pixels), and says so.
pub const FULL_PAGE_MAX_HEIGHT: u32 = 8_000;
/// A screenshot's PNG may be at most this large; a bigger one is refused `too_large`.
pub const SCREENSHOT_MAX_BYTES: usize = 8 * 1024 * 1024;
/// At most this many screenshots in one call.
pub const MAX_SCREENSHOTS: usize = 5;
/// The smallest viewport side (CSS pixels).
pub const VIEWPORT_MIN: u32 = 200;
/// The largest viewport side (CSS pixels).
pub const VIEWPORT_MAX: u32 = 3_840;
/// The whole call (load, actions, screenshots) ends within this unless asked for less.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(60);
/// The longest budget a caller may ask for.
pub const MAX_BUDGET: Duration = Duration::from_secs(120);

/// The browser window's size in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    /// CSS pixels across.
    pub width: u32,
    /// CSS pixels down.
    pub height: u32,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            width: 1280,
            height: 800,
        }
    }
}

impl Viewport {
    /// `1280x800`, each side within [`VIEWPORT_MIN`]..=[`VIEWPORT_MAX`].
    pub fn parse(text: &str) -> Result<Self, TrawlError> {
        let bad = || {
            invalid(format!(
                "viewport {text:?}: expected WIDTHxHEIGHT, each {VIEWPORT_MIN} to {VIEWPORT_MAX} (e.g. 1280x800)"
            ))
        };
        let (w, h) = text.trim().split_once(['x', 'X']).ok_or_else(bad)?;
        let width: u32 = w.trim().parse().map_err(|_| bad())?;
        let height: u32 = h.trim().parse().map_err(|_| bad())?;
        Viewport::new(width, height).map_err(|_| bad())
    }

    /// A viewport whose sides are within bounds.
    pub fn new(width: u32, height: u32) -> Result<Self, TrawlError> {
        let ok = |v: u32| (VIEWPORT_MIN..=VIEWPORT_MAX).contains(&v);
        if ok(width) && ok(height) {
            Ok(Viewport { width, height })
        } else {
            Err(invalid(format!(
                "viewport {width}x{height}: each side must be {VIEWPORT_MIN} to {VIEWPORT_MAX}"
            )))
        }
    }
}

/// What a `wait` waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitFor {
    /// A fixed time (capped at [`MAX_WAIT`]).
    Millis(u64),
    /// An element matching a CSS selector; a typed `timeout` naming it when it never comes.
    Selector(String),
}

/// How far a `scroll` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollAmount {
    /// One screen, this many times.
    Screens(u32),
    /// Until the page stops growing (at most [`MAX_SCROLLS`] screens).
    ToEnd,
}

/// One step of what the browser is asked to do before (or while) reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Wait a time or for an element.
    Wait(WaitFor),
    /// Click the first element matching `selector`, or every one with `all`.
    Click {
        /// A CSS selector.
        selector: String,
        /// Click every match, not only the first.
        all: bool,
    },
    /// Type `text` into the focused field (after a click on `selector` when given).
    Write {
        /// What to type.
        text: String,
        /// A field to click first.
        selector: Option<String>,
    },
    /// Press one key (`Enter`, `Tab`, `ArrowDown`, a character …) on the focused element.
    Press {
        /// The key's name.
        key: String,
    },
    /// Scroll the window.
    Scroll {
        /// Down (else up).
        down: bool,
        /// How far.
        amount: ScrollAmount,
    },
    /// A PNG of the page at this point.
    Screenshot {
        /// The whole page (cut at [`FULL_PAGE_MAX_HEIGHT`]), not only the viewport.
        full_page: bool,
    },
    /// Keep the page's HTML at this point (read into Markdown like the final page).
    Scrape,
}

impl Action {
    /// The CLI spelling: `wait:500`, `wait:.item`, `click:#more`, `click-all:.more`,
    /// `write:TEXT`, `write:SELECTOR=>TEXT`, `press:Enter`, `scroll:down[:N]`, `scroll:end`,
    /// `scroll:up[:N]`, `screenshot`, `screenshot:full`, `scrape`.
    pub fn parse_spec(spec: &str) -> Result<Self, TrawlError> {
        let (kind, arg) = match spec.split_once(':') {
            Some((k, a)) => (k.trim(), Some(a)),
            None => (spec.trim(), None),
        };
        let need = |what: &str| {
            arg.filter(|a| !a.trim().is_empty()).ok_or_else(|| {
                invalid(format!(
                    "action {spec:?}: `{kind}` needs {what} after a colon"
                ))
            })
        };
        let action = match kind {
            "wait" => {
                let arg = need("milliseconds or a CSS selector")?.trim();
                match arg.parse::<u64>() {
                    Ok(ms) => Action::Wait(WaitFor::Millis(ms)),
                    Err(_) => Action::Wait(WaitFor::Selector(arg.to_owned())),
                }
            }
            "click" | "click-all" => Action::Click {
                selector: need("a CSS selector")?.trim().to_owned(),
                all: kind == "click-all",
            },
            "write" => {
                let arg = need("the text to type")?;
                match arg.split_once("=>") {
                    Some((sel, text)) if !sel.trim().is_empty() => Action::Write {
                        text: text.to_owned(),
                        selector: Some(sel.trim().to_owned()),
                    },
                    _ => Action::Write {
                        text: arg.to_owned(),
                        selector: None,
                    },
                }
            }
            "press" => Action::Press {
                key: need("a key name (Enter, Tab, ArrowDown …)")?
                    .trim()
                    .to_owned(),
            },
            "scroll" => {
                let arg = arg.unwrap_or("down").trim();
                let mut parts = arg.splitn(2, ':');
                let direction = parts.next().unwrap_or("down");
                let times = parts.next();
                match (direction, times) {
                    ("end", None) => Action::Scroll {
                        down: true,
                        amount: ScrollAmount::ToEnd,
                    },
                    ("down" | "up", times) => Action::Scroll {
                        down: direction == "down",
                        amount: match times {
                            None => ScrollAmount::Screens(1),
                            Some("end") => ScrollAmount::ToEnd,
                            Some(n) => ScrollAmount::Screens(n.trim().parse().map_err(|_| {
                                invalid(format!(
                                    "action {spec:?}: scroll times must be a number or `end`"
                                ))
                            })?),
                        },
                    },
                    _ => {
                        return Err(invalid(format!(
                            "action {spec:?}: scroll takes down[:N], up[:N] or end"
                        )));
                    }
                }
            }
            "screenshot" => match arg.map(str::trim) {
                None | Some("") => Action::Screenshot { full_page: false },
                Some("full" | "full-page" | "fullpage") => Action::Screenshot { full_page: true },
                Some(other) => {
                    return Err(invalid(format!(
                        "action {spec:?}: screenshot takes nothing or `full`, not {other:?}"
                    )));
                }
            },
            "scrape" => Action::Scrape,
            "js" | "script" | "executeJavascript" | "execute-javascript" => {
                return Err(refused_script());
            }
            other => {
                return Err(invalid(format!(
                    "action {spec:?}: unknown action {other:?} (wait, click, click-all, write, press, scroll, screenshot, scrape)"
                )));
            }
        };
        action.checked()
    }

    /// The checks every face shares: non-empty selectors and keys, bounded counts.
    fn checked(self) -> Result<Self, TrawlError> {
        match &self {
            Action::Wait(WaitFor::Selector(s))
            | Action::Click { selector: s, .. }
            | Action::Write {
                selector: Some(s), ..
            } if s.trim().is_empty() || s.len() > 1_000 => Err(invalid(
                "an action's selector must be 1 to 1,000 characters".to_owned(),
            )),
            Action::Write { text, .. } if text.len() > 10_000 => Err(invalid(
                "a write action's text may be at most 10,000 characters".to_owned(),
            )),
            Action::Press { key } if key.trim().is_empty() || key.len() > 40 => {
                Err(invalid(format!("press: {key:?} is not a key name")))
            }
            Action::Scroll {
                amount: ScrollAmount::Screens(n),
                ..
            } if *n == 0 || *n > MAX_SCROLLS => {
                Err(invalid(format!("scroll: times must be 1 to {MAX_SCROLLS}")))
            }
            _ => Ok(self),
        }
    }

    /// The JSON shape of this action (what MCP and the compatible API take).
    pub fn to_json(&self) -> ActionJson {
        let mut json = ActionJson {
            kind: self.name().to_owned(),
            milliseconds: None,
            selector: None,
            all: None,
            text: None,
            key: None,
            direction: None,
            times: None,
            to_end: None,
            full_page: None,
            quality: None,
            script: None,
            viewport: None,
        };
        match self {
            Action::Wait(WaitFor::Millis(ms)) => json.milliseconds = Some(*ms),
            Action::Wait(WaitFor::Selector(s)) => json.selector = Some(s.clone()),
            Action::Click { selector, all } => {
                json.selector = Some(selector.clone());
                json.all = Some(*all);
            }
            Action::Write { text, selector } => {
                json.text = Some(text.clone());
                json.selector = selector.clone();
            }
            Action::Press { key } => json.key = Some(key.clone()),
            Action::Scroll { down, amount } => {
                json.direction = Some(if *down { "down" } else { "up" }.to_owned());
                match amount {
                    ScrollAmount::Screens(n) => json.times = Some(*n),
                    ScrollAmount::ToEnd => json.to_end = Some(true),
                }
            }
            Action::Screenshot { full_page } => json.full_page = Some(*full_page),
            Action::Scrape => {}
        }
        json
    }

    /// The name used in notes and errors.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Wait(_) => "wait",
            Action::Click { .. } => "click",
            Action::Write { .. } => "write",
            Action::Press { .. } => "press",
            Action::Scroll { .. } => "scroll",
            Action::Screenshot { .. } => "screenshot",
            Action::Scrape => "scrape",
        }
    }
}

/// The JSON shape of one action (MCP and the Firecrawl-compatible API): Firecrawl's names
/// and fields (`wait {milliseconds | selector}`, `click {selector, all}`, `write {text}`,
/// `press {key}`, `scroll {direction}`, `screenshot {fullPage}`, `scrape`), plus trawl's
/// `times`/`toEnd` on scroll and `selector` on write.
#[derive(Debug, Clone, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = no_implicit_minimums)]
pub struct ActionJson {
    /// wait, click, write, press, scroll, screenshot, scrape.
    #[serde(rename = "type")]
    pub kind: String,
    /// wait: how long.
    #[serde(default)]
    pub milliseconds: Option<u64>,
    /// wait, click, write: a CSS selector.
    #[serde(default)]
    pub selector: Option<String>,
    /// click: every match.
    #[serde(default)]
    pub all: Option<bool>,
    /// write: what to type.
    #[serde(default)]
    pub text: Option<String>,
    /// press: the key.
    #[serde(default)]
    pub key: Option<String>,
    /// scroll: up or down.
    #[serde(default)]
    pub direction: Option<String>,
    /// scroll: how many screens.
    #[serde(default)]
    pub times: Option<u32>,
    /// scroll: until the page stops growing.
    #[serde(default)]
    pub to_end: Option<bool>,
    /// screenshot: the whole page.
    #[serde(default)]
    pub full_page: Option<bool>,
    /// Firecrawl's screenshot quality: accepted and ignored only because a PNG has none.
    // Not in the MCP schema: an agent has no use for it (the compatible API takes it).
    #[serde(default)]
    #[schemars(skip)]
    pub quality: Option<u32>,
    /// Firecrawl's `executeJavascript` script: always refused by name.
    // Not in the MCP schema: an agent has no use for it (the compatible API takes it).
    #[serde(default)]
    #[schemars(skip)]
    pub script: Option<String>,
    /// Firecrawl's per-screenshot window: refused when set (the window is the call's).
    // Not in the MCP schema: an agent has no use for it (the compatible API takes it).
    #[serde(default)]
    #[schemars(skip)]
    pub viewport: Option<serde_json::Value>,
}

impl ActionJson {
    /// The action, checked.
    pub fn into_action(self) -> Result<Action, TrawlError> {
        let kind = self.kind.as_str();
        if self.viewport.as_ref().is_some_and(|v| !v.is_null()) {
            return Err(invalid(
                "an action's viewport is not supported: the window is set once for the call (viewport, or the screenshot format's viewport)".into(),
            ));
        }
        let need = |field: Option<String>, name: &str| {
            field.ok_or_else(|| invalid(format!("action `{kind}` needs `{name}`")))
        };
        let action = match kind {
            "wait" => match (self.milliseconds, self.selector) {
                (Some(ms), None) => Action::Wait(WaitFor::Millis(ms)),
                (None, Some(sel)) => Action::Wait(WaitFor::Selector(sel)),
                _ => {
                    return Err(invalid(
                        "action `wait` needs exactly one of `milliseconds` or `selector`".into(),
                    ));
                }
            },
            "click" => Action::Click {
                selector: need(self.selector, "selector")?,
                all: self.all.unwrap_or(false),
            },
            "write" => Action::Write {
                text: need(self.text, "text")?,
                selector: self.selector,
            },
            "press" => Action::Press {
                key: need(self.key, "key")?,
            },
            "scroll" => {
                if self.selector.is_some() {
                    return Err(invalid(
                        "action `scroll`: `selector` (scrolling inside one element) is not supported; the window scrolls".into(),
                    ));
                }
                let down = match self.direction.as_deref().unwrap_or("down") {
                    "down" => true,
                    "up" => false,
                    other => {
                        return Err(invalid(format!(
                            "action `scroll`: direction {other:?} (up or down)"
                        )));
                    }
                };
                let amount = if self.to_end.unwrap_or(false) {
                    ScrollAmount::ToEnd
                } else {
                    ScrollAmount::Screens(self.times.unwrap_or(1))
                };
                Action::Scroll { down, amount }
            }
            "screenshot" => Action::Screenshot {
                full_page: self.full_page.unwrap_or(false),
            },
            "scrape" => Action::Scrape,
            "executeJavascript" => return Err(refused_script()),
            "pdf" => {
                return Err(invalid(
                    "action `pdf` is not supported (trawl returns Markdown and PNG screenshots)"
                        .into(),
                ));
            }
            other => {
                return Err(invalid(format!(
                    "unknown action type {other:?} (wait, click, write, press, scroll, screenshot, scrape)"
                )));
            }
        };
        action.checked()
    }
}

/// Unsigned fields get an implicit `minimum: 0` in the schema; deserializing already
/// refuses a negative number, and the tools' argument check enforces only the bounds trawl
/// declares itself, so the implicit ones are left out of what clients see.
fn no_implicit_minimums(schema: &mut schemars::Schema) {
    if let Some(properties) = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut)
    {
        for property in properties.values_mut() {
            if let Some(map) = property.as_object_mut()
                && map.get("minimum").and_then(serde_json::Value::as_f64) == Some(0.0)
            {
                map.remove("minimum");
            }
        }
    }
}

fn refused_script() -> TrawlError {
    invalid(
        "executeJavascript is refused: trawl runs no caller-supplied JavaScript in a browser that holds its guard's trust; use wait, click, write, press or scroll".to_owned(),
    )
}

/// Everything one browser call is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowseTask {
    /// The window size.
    pub viewport: Viewport,
    /// Done in order after the page loaded.
    pub actions: Vec<Action>,
    /// A screenshot of the page as it stands after the actions.
    pub screenshot: Option<ScreenshotKind>,
    /// The whole call's time budget.
    pub budget: Duration,
}

impl Default for BrowseTask {
    fn default() -> Self {
        BrowseTask {
            viewport: Viewport::default(),
            actions: Vec::new(),
            screenshot: None,
            budget: DEFAULT_BUDGET,
        }
    }
}

/// Which screenshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenshotKind {
    /// The whole page, not only the viewport.
    pub full_page: bool,
}

impl BrowseTask {
    /// The bounds every face shares, checked before a browser is started.
    pub fn validate(&self) -> Result<(), TrawlError> {
        if self.actions.len() > MAX_ACTIONS {
            return Err(invalid(format!(
                "{} actions: at most {MAX_ACTIONS} in one call",
                self.actions.len()
            )));
        }
        let shots = self
            .actions
            .iter()
            .filter(|a| matches!(a, Action::Screenshot { .. }))
            .count()
            + usize::from(self.screenshot.is_some());
        if shots > MAX_SCREENSHOTS {
            return Err(invalid(format!(
                "{shots} screenshots: at most {MAX_SCREENSHOTS} in one call"
            )));
        }
        if self.budget.is_zero() || self.budget > MAX_BUDGET {
            return Err(invalid(format!(
                "a browser call's budget must be 1 ms to {} s",
                MAX_BUDGET.as_secs()
            )));
        }
        Ok(())
    }

    /// Whether the page must be loaded with images (a screenshot shows them).
    pub fn wants_images(&self) -> bool {
        self.screenshot.is_some()
            || self
                .actions
                .iter()
                .any(|a| matches!(a, Action::Screenshot { .. }))
    }
}

/// One PNG screenshot.
#[derive(Clone, PartialEq, Eq)]
pub struct Screenshot {
    /// The image.
    pub png: Vec<u8>,
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// Whether it shows the whole page.
    pub full_page: bool,
    /// The page's full height when a full-page shot was cut at [`FULL_PAGE_MAX_HEIGHT`].
    pub cut_from: Option<u32>,
    /// Which action took it (its index), or `None` for the final one.
    pub action: Option<usize>,
}

impl std::fmt::Debug for Screenshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screenshot")
            .field("bytes", &self.png.len())
            .field("width", &self.width)
            .field("height", &self.height)
            .field("full_page", &self.full_page)
            .field("cut_from", &self.cut_from)
            .finish()
    }
}

/// The page's HTML as a `scrape` action found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scrape {
    /// Which action (its index).
    pub action: usize,
    /// The page's address at that point.
    pub url: url::Url,
    /// Its DOM as HTML.
    pub html: String,
}

/// What a browser call brought back besides the final page.
#[derive(Debug, Clone, Default)]
pub struct BrowseExtras {
    /// Every screenshot, the final one last.
    pub screenshots: Vec<Screenshot>,
    /// Every `scrape` action's page.
    pub scrapes: Vec<Scrape>,
    /// One line per action done (`click #more: 1 element`), in order.
    pub done: Vec<String>,
}

fn invalid(message: String) -> TrawlError {
    TrawlError::new(ErrorCode::InvalidInput, message)
}

/// Width and height from a PNG's header (the IHDR chunk), without decoding it.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_specs_parse_into_actions() {
        assert_eq!(
            Action::parse_spec("click:#more").unwrap(),
            Action::Click {
                selector: "#more".into(),
                all: false
            }
        );
        assert_eq!(
            Action::parse_spec("wait:.item").unwrap(),
            Action::Wait(WaitFor::Selector(".item".into()))
        );
        assert_eq!(
            Action::parse_spec("wait:250").unwrap(),
            Action::Wait(WaitFor::Millis(250))
        );
        assert_eq!(
            Action::parse_spec("write:#q=>otters").unwrap(),
            Action::Write {
                text: "otters".into(),
                selector: Some("#q".into())
            }
        );
        assert_eq!(
            Action::parse_spec("scroll:down:3").unwrap(),
            Action::Scroll {
                down: true,
                amount: ScrollAmount::Screens(3)
            }
        );
        assert_eq!(
            Action::parse_spec("scroll:end").unwrap(),
            Action::Scroll {
                down: true,
                amount: ScrollAmount::ToEnd
            }
        );
        assert_eq!(
            Action::parse_spec("screenshot:full").unwrap(),
            Action::Screenshot { full_page: true }
        );
        for bad in [
            "click",
            "dance:now",
            "scroll:sideways",
            "scroll:down:0",
            "js:alert(1)",
        ] {
            let e = Action::parse_spec(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{bad}");
        }
        assert!(
            Action::parse_spec("js:alert(1)")
                .unwrap_err()
                .message
                .contains("executeJavascript is refused")
        );
    }

    #[test]
    fn firecrawl_json_actions_parse_and_scripts_are_refused() {
        let parse = |v: serde_json::Value| {
            serde_json::from_value::<ActionJson>(v)
                .map_err(|e| TrawlError::new(ErrorCode::InvalidInput, e.to_string()))
                .and_then(ActionJson::into_action)
        };
        assert_eq!(
            parse(serde_json::json!({"type": "wait", "milliseconds": 500})).unwrap(),
            Action::Wait(WaitFor::Millis(500))
        );
        assert_eq!(
            parse(serde_json::json!({"type": "screenshot", "fullPage": true})).unwrap(),
            Action::Screenshot { full_page: true }
        );
        assert_eq!(
            parse(serde_json::json!({"type": "click", "selector": ".tab", "all": true})).unwrap(),
            Action::Click {
                selector: ".tab".into(),
                all: true
            }
        );
        let e = parse(serde_json::json!({"type": "executeJavascript", "script": "1"})).unwrap_err();
        assert!(e.message.contains("executeJavascript"), "{}", e.message);
        let e = parse(serde_json::json!({"type": "wait"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(parse(serde_json::json!({"type": "click", "selektor": "x"})).is_err());
        for spec in [
            "wait:.x",
            "wait:20",
            "click-all:.a",
            "write:#q=>hi",
            "press:Enter",
            "scroll:up:2",
            "scroll:end",
            "screenshot:full",
            "scrape",
        ] {
            let action = Action::parse_spec(spec).unwrap();
            assert_eq!(action.to_json().into_action().unwrap(), action, "{spec}");
        }
    }

    #[test]
    fn bounds_are_checked_before_any_browser() {
        let mut task = BrowseTask {
            actions: vec![Action::Scrape; MAX_ACTIONS + 1],
            ..BrowseTask::default()
        };
        assert!(task.validate().is_err());
        task.actions = vec![Action::Screenshot { full_page: false }; MAX_SCREENSHOTS];
        task.screenshot = Some(ScreenshotKind { full_page: false });
        assert!(task.validate().is_err());
        task.screenshot = None;
        assert!(task.validate().is_ok());
        assert!(Viewport::parse("1280x800").is_ok());
        assert!(Viewport::parse("10x800").is_err());
        assert!(Viewport::parse("wide").is_err());
    }

    #[test]
    fn png_size_reads_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1280u32.to_be_bytes());
        png.extend_from_slice(&800u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((1280, 800)));
        assert_eq!(png_size(b"GIF89a"), None);
    }
}
