//! Carrying out a [`BrowseTask`]'s actions and screenshots in a loaded page.
//!
//! Selectors and texts reach the page only as JSON string literals inside trawl's own
//! scripts (`document.querySelector(<json>)`), so a caller's input is data, never code.
//! Clicks, typing and key presses go through CDP's input events (what a user's mouse and
//! keyboard would send), so pages react as they would to a person.

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, Viewport as Clip,
};
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::browse::{
    Action, BrowseExtras, BrowseTask, FULL_PAGE_MAX_HEIGHT, MAX_SCROLLS, MAX_WAIT,
    SCREENSHOT_MAX_BYTES, Scrape, Screenshot, ScrollAmount, Viewport, WaitFor, png_size,
};

use super::page::cdp_error;

const POLL: Duration = Duration::from_millis(100);
/// After an action that may change the page, wait this long at most for it to settle.
const AFTER_ACTION: Duration = Duration::from_millis(1_500);

/// Run in every document of a page that will be clicked: no new windows. A click is a
/// user gesture, which Chromium's popup blocker lets through, so `window.open` answers
/// nothing and links or forms aimed at another window open in this one (where every
/// navigation passes the guard).
const NO_NEW_WINDOWS: &str = r#"(() => {
  window.open = function () { return null; };
  const same = (e) => {
    const el = e.target && e.target.closest && e.target.closest('a[target], area[target], form[target]');
    if (el) el.target = '_self';
  };
  document.addEventListener('click', same, true);
  document.addEventListener('submit', same, true);
})();"#;

/// Before the page loads: no new windows from its documents.
pub(crate) async fn prepare(page: &Page) -> Result<(), TrawlError> {
    page.evaluate_on_new_document(NO_NEW_WINDOWS)
        .await
        .map_err(|e| cdp_error("prepare the page", &e))?;
    Ok(())
}

/// Give the page the task's window size before it loads (layout depends on it).
pub(crate) async fn set_viewport(page: &Page, viewport: Viewport) -> Result<(), TrawlError> {
    page.execute(SetDeviceMetricsOverrideParams::new(
        i64::from(viewport.width),
        i64::from(viewport.height),
        1.0,
        false,
    ))
    .await
    .map_err(|e| cdp_error("set the viewport", &e))?;
    Ok(())
}

/// Run every action in order, then the final screenshot. Stops at the first action that
/// fails (a selector that never appears is a `timeout` naming it).
pub(crate) async fn run(
    page: &Page,
    task: &BrowseTask,
    deadline: tokio::time::Instant,
) -> Result<BrowseExtras, TrawlError> {
    let mut extras = BrowseExtras::default();
    for (index, action) in task.actions.iter().enumerate() {
        let done = step(page, task, index, action, deadline, &mut extras)
            .await
            .map_err(|e| {
                TrawlError::new(
                    e.code,
                    format!("action {} ({}): {}", index + 1, action.name(), e.message),
                )
            })?;
        extras.done.push(done);
    }
    if let Some(kind) = task.screenshot {
        let shot = screenshot(page, task.viewport, kind.full_page, None).await?;
        extras.screenshots.push(shot);
    }
    Ok(extras)
}

async fn step(
    page: &Page,
    task: &BrowseTask,
    index: usize,
    action: &Action,
    deadline: tokio::time::Instant,
    extras: &mut BrowseExtras,
) -> Result<String, TrawlError> {
    match action {
        Action::Wait(WaitFor::Millis(ms)) => {
            let wait = Duration::from_millis(*ms).min(MAX_WAIT);
            tokio::time::sleep(wait).await;
            Ok(format!("waited {} ms", wait.as_millis()))
        }
        Action::Wait(WaitFor::Selector(selector)) => {
            wait_for_selector(page, selector, deadline).await?;
            Ok(format!("waited for {selector}"))
        }
        Action::Click { selector, all } => {
            let count = click(page, selector, *all).await?;
            settle_after(page).await;
            Ok(format!("clicked {selector}: {count} element(s)"))
        }
        Action::Write { text, selector } => {
            if let Some(selector) = selector {
                click(page, selector, false).await?;
            }
            let target = focused(page).await?;
            target
                .type_str(text)
                .await
                .map_err(|e| cdp_error("type the text", &e))?;
            Ok(format!("typed {} characters", text.chars().count()))
        }
        Action::Press { key } => {
            let target = focused(page).await?;
            target.press_key(key).await.map_err(|e| {
                TrawlError::new(
                    ErrorCode::InvalidInput,
                    format!("could not press {key:?}: {e}"),
                )
            })?;
            settle_after(page).await;
            Ok(format!("pressed {key}"))
        }
        Action::Scroll { down, amount } => {
            let screens = scroll(page, *down, *amount).await?;
            Ok(format!(
                "scrolled {} {screens} screen(s)",
                if *down { "down" } else { "up" }
            ))
        }
        Action::Screenshot { full_page } => {
            let shot = screenshot(page, task.viewport, *full_page, Some(index)).await?;
            let line = format!("screenshot {}x{}", shot.width, shot.height);
            extras.screenshots.push(shot);
            Ok(line)
        }
        Action::Scrape => {
            let html = page
                .content()
                .await
                .map_err(|e| cdp_error("read the DOM", &e))?;
            let url = current_url(page).await;
            extras.scrapes.push(Scrape {
                action: index,
                url: url.clone(),
                html,
            });
            Ok(format!("scraped {url}"))
        }
    }
}

/// A JSON string literal: how a caller's selector reaches trawl's scripts.
fn literal(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

async fn eval_bool(page: &Page, script: &str) -> Result<bool, TrawlError> {
    let value = page.evaluate(script).await.map_err(|e| {
        let message = e.to_string();
        if message.contains("SyntaxError") || message.contains("not a valid selector") {
            TrawlError::new(
                ErrorCode::InvalidInput,
                format!("not a valid CSS selector ({message})"),
            )
        } else {
            cdp_error("run a check in the page", &e)
        }
    })?;
    Ok(value.into_value::<bool>().unwrap_or(false))
}

/// Poll until an element matches, within [`MAX_WAIT`] and ahead of the call's deadline
/// (kept back a little so that the `timeout` can name the selector).
async fn wait_for_selector(
    page: &Page,
    selector: &str,
    deadline: tokio::time::Instant,
) -> Result<(), TrawlError> {
    let script = format!("document.querySelector({}) !== null", literal(selector));
    let started = tokio::time::Instant::now();
    let until = (started + MAX_WAIT).min(deadline - Duration::from_millis(750));
    loop {
        if eval_bool(page, &script).await? {
            return Ok(());
        }
        if tokio::time::Instant::now() >= until {
            return Err(TrawlError::new(
                ErrorCode::Timeout,
                format!(
                    "no element matched {selector:?} within {:.1} s",
                    started.elapsed().as_secs_f64()
                ),
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn click(page: &Page, selector: &str, all: bool) -> Result<usize, TrawlError> {
    // Check the selector's syntax and presence first: a clear error beats CDP's.
    let present = eval_bool(
        page,
        &format!("document.querySelector({}) !== null", literal(selector)),
    )
    .await?;
    if !present {
        return Err(TrawlError::new(
            ErrorCode::NotFound,
            format!("no element matches {selector:?}"),
        ));
    }
    let elements = if all {
        page.find_elements(selector)
            .await
            .map_err(|e| cdp_error("find the elements", &e))?
    } else {
        vec![
            page.find_element(selector)
                .await
                .map_err(|e| cdp_error("find the element", &e))?,
        ]
    };
    let mut clicked = 0;
    for element in elements.iter().take(MAX_SCROLLS as usize * 4) {
        // An element hidden or gone by now (an earlier click changed the page) is skipped.
        if element.click().await.is_ok() {
            clicked += 1;
        }
    }
    if clicked == 0 {
        return Err(TrawlError::new(
            ErrorCode::NotFound,
            format!("no element matching {selector:?} could be clicked (hidden or covered)"),
        ));
    }
    Ok(clicked)
}

/// The focused element, or the body when nothing is focused.
async fn focused(page: &Page) -> Result<chromiumoxide::Element, TrawlError> {
    match page.find_element("*:focus").await {
        Ok(el) => Ok(el),
        Err(_) => page
            .find_element("body")
            .await
            .map_err(|e| cdp_error("find the focused element", &e)),
    }
}

/// Wait briefly for what an action started (a navigation, a fetch filling a list).
async fn settle_after(page: &Page) {
    let started = tokio::time::Instant::now();
    let mut last = None;
    while started.elapsed() < AFTER_ACTION {
        tokio::time::sleep(POLL * 2).await;
        let state = page
            .evaluate(
                "document.readyState + ':' + (document.body ? document.body.innerHTML.length : 0)",
            )
            .await
            .ok()
            .and_then(|v| v.into_value::<String>().ok());
        if state.is_some()
            && state == last
            && state.as_deref().is_some_and(|s| s.starts_with("complete"))
        {
            return;
        }
        last = state;
    }
}

async fn scroll(page: &Page, down: bool, amount: ScrollAmount) -> Result<u32, TrawlError> {
    let sign = if down { "" } else { "-" };
    let script = format!("window.scrollBy(0, {sign}window.innerHeight); true");
    let (times, to_end) = match amount {
        ScrollAmount::Screens(n) => (n.min(MAX_SCROLLS), false),
        ScrollAmount::ToEnd => (MAX_SCROLLS, true),
    };
    let height = "Math.max(document.body ? document.body.scrollHeight : 0, document.documentElement.scrollHeight)";
    let mut done = 0;
    for _ in 0..times {
        let before = page
            .evaluate(format!("{height} + ':' + window.scrollY"))
            .await
            .ok()
            .and_then(|v| v.into_value::<String>().ok());
        page.evaluate(script.as_str())
            .await
            .map_err(|e| cdp_error("scroll", &e))?;
        done += 1;
        // Infinite-scroll pages load the next items when the bottom comes into view.
        settle_after(page).await;
        if to_end {
            let after = page
                .evaluate(format!("{height} + ':' + window.scrollY"))
                .await
                .ok()
                .and_then(|v| v.into_value::<String>().ok());
            if after == before {
                break;
            }
        }
    }
    Ok(done)
}

async fn current_url(page: &Page) -> Url {
    page.url()
        .await
        .ok()
        .flatten()
        .and_then(|u| Url::parse(&u).ok())
        .unwrap_or_else(|| Url::parse("about:blank").expect("a valid URL"))
}

/// A PNG of the viewport, or of the whole page cut at [`FULL_PAGE_MAX_HEIGHT`].
async fn screenshot(
    page: &Page,
    viewport: Viewport,
    full_page: bool,
    action: Option<usize>,
) -> Result<Screenshot, TrawlError> {
    let mut params = CaptureScreenshotParams::builder().format(CaptureScreenshotFormat::Png);
    let mut cut_from = None;
    if full_page {
        let metrics = page
            .layout_metrics()
            .await
            .map_err(|e| cdp_error("measure the page", &e))?;
        let page_height = metrics.css_content_size.height.ceil().max(1.0) as u32;
        let height = page_height.min(FULL_PAGE_MAX_HEIGHT).max(viewport.height);
        if page_height > FULL_PAGE_MAX_HEIGHT {
            cut_from = Some(page_height);
        }
        // Grow the window to the page so that everything is laid out and painted.
        page.execute(SetDeviceMetricsOverrideParams::new(
            i64::from(viewport.width),
            i64::from(height),
            1.0,
            false,
        ))
        .await
        .map_err(|e| cdp_error("resize for a full-page screenshot", &e))?;
        params = params
            .clip(Clip {
                x: 0.0,
                y: 0.0,
                width: f64::from(viewport.width),
                height: f64::from(height),
                scale: 1.0,
            })
            .capture_beyond_viewport(true);
    }
    let shot = page.execute(params.build()).await;
    if full_page {
        // Back to the asked window whatever happened.
        let _ = set_viewport(page, viewport).await;
    }
    let data = shot
        .map_err(|e| cdp_error("take a screenshot", &e))?
        .result
        .data;
    let png = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        AsRef::<str>::as_ref(&data),
    )
    .map_err(|e| TrawlError::internal(format!("screenshot: {e}")))?;
    if png.len() > SCREENSHOT_MAX_BYTES {
        return Err(TrawlError::new(
            ErrorCode::TooLarge,
            format!(
                "a screenshot of {} bytes is larger than the {} byte cap",
                png.len(),
                SCREENSHOT_MAX_BYTES
            ),
        ));
    }
    let (width, height) = png_size(&png)
        .ok_or_else(|| TrawlError::internal("screenshot: the browser did not answer a PNG"))?;
    Ok(Screenshot {
        png,
        width,
        height,
        full_page,
        cut_from,
        action,
    })
}
