//! One page: a throwaway browser context behind its own guard proxy, request interception
//! for what the proxy cannot see (schemes, resource types, navigations the guard refuses,
//! and which hosts the page itself asked for: the proxy refuses every other connection, so
//! the browser's own background traffic and WebSockets do not get out), navigation, a short
//! wait for the text to settle, then the DOM as HTML.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use chromiumoxide::cdp::browser_protocol::browser::{
    SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams, EventRequestPaused, FailRequestParams, RequestPattern,
    RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{
    ErrorReason, ResourceType, SetBypassServiceWorkerParams,
};
use chromiumoxide::cdp::browser_protocol::target::{
    CloseTargetParams, CreateBrowserContextParams, CreateTargetParams,
};
use chromiumoxide::{Browser, Page};
use futures_util::StreamExt;
use reqwest::header::{self, HeaderMap, HeaderValue};
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use super::actions;
use super::proxy::{GuardProxy, Policy, ProxyLog};
use crate::browse::{BrowseExtras, BrowseTask};
use crate::guard::Guard;
use crate::transport::Answer;

/// Longest wait for script-built text to stop changing after the load event.
const SETTLE_MAX: Duration = Duration::from_secs(3);
const SETTLE_STEP: Duration = Duration::from_millis(150);

pub(crate) struct Job<'a> {
    pub url: &'a Url,
    pub guard: &'a Guard,
    pub upstream: Option<&'a Url>,
    pub connect_timeout: Duration,
    pub user_agent: &'a str,
    pub load_media: bool,
    pub deadline: Duration,
    /// Actions and screenshots asked for (a plain render has none).
    pub task: Option<&'a BrowseTask>,
}

/// The rendered page.
pub(crate) struct Rendered {
    pub final_url: Url,
    pub status: u16,
    pub html: String,
    pub notes: Vec<String>,
    /// Screenshots, scrapes and the actions done, for a [`BrowseTask`].
    pub extras: BrowseExtras,
}

impl Rendered {
    pub(crate) fn into_answer(self) -> Answer {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        let body = Bytes::from(self.html.into_bytes());
        Answer {
            status: self.status,
            headers,
            content_length: Some(body.len() as u64),
            body: Box::pin(futures_util::stream::once(async move { Ok(body) })),
            final_url: Some(self.final_url),
            notes: self.notes,
        }
    }
}

/// Render one page within its deadline; the context is disposed of whatever happens.
pub(crate) async fn render(browser: &Browser, job: Job<'_>) -> Result<Rendered, TrawlError> {
    let started = tokio::time::Instant::now();
    let proxy = GuardProxy::start(Policy::Guarded {
        guard: job.guard.clone(),
        upstream: job.upstream.cloned(),
        connect_timeout: job.connect_timeout,
    })
    .await?;
    let context = browser
        .create_browser_context(
            CreateBrowserContextParams::builder()
                .dispose_on_detach(true)
                .proxy_server(proxy.url())
                .proxy_bypass_list("<-loopback>")
                .build(),
        )
        .await
        .map_err(|e| cdp_error("create a browser context", &e))?;
    let blocked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut target = None;
    let work = async {
        browser
            .execute(
                SetDownloadBehaviorParams::builder()
                    .behavior(SetDownloadBehaviorBehavior::Deny)
                    .browser_context_id(context.clone())
                    .build()
                    .map_err(|e| TrawlError::internal(format!("render: {e}")))?,
            )
            .await
            .map_err(|e| cdp_error("deny downloads", &e))?;
        let params = CreateTargetParams::builder()
            .url("about:blank")
            .browser_context_id(context.clone())
            .build()
            .map_err(|e| TrawlError::internal(format!("render: {e}")))?;
        let page = browser
            .new_page(params)
            .await
            .map_err(|e| cdp_error("open a tab", &e))?;
        target = Some(page.target_id().clone());
        intercept(&page, &job, proxy.log.clone(), blocked.clone()).await?;
        let _ = page.execute(SetBypassServiceWorkerParams::new(true)).await;
        let _ = page.set_user_agent(job.user_agent).await;
        if let Some(task) = job.task {
            actions::prepare(&page).await?;
            actions::set_viewport(&page, task.viewport).await?;
        }
        load(&page, job.url).await?;
        settle(&page).await;
        let extras = match job.task {
            Some(task) => actions::run(&page, task, started + job.deadline).await?,
            None => BrowseExtras::default(),
        };
        let html = page
            .content()
            .await
            .map_err(|e| cdp_error("read the DOM", &e))?;
        let final_url = page
            .url()
            .await
            .ok()
            .flatten()
            .and_then(|u| Url::parse(&u).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .unwrap_or_else(|| job.url.clone());
        let status = page
            .evaluate("(performance.getEntriesByType('navigation')[0] || {}).responseStatus || 200")
            .await
            .ok()
            .and_then(|v| v.into_value::<u16>().ok())
            .unwrap_or(200);
        Ok::<_, TrawlError>((final_url, status, html, extras))
    };
    let outcome = tokio::time::timeout(job.deadline, work).await;
    // Closing the target first stops a page that is still running scripts.
    if let Some(target) = target {
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            browser.execute(CloseTargetParams::new(target)),
        )
        .await;
    }
    let _ = tokio::time::timeout(
        Duration::from_secs(2),
        browser.dispose_browser_context(context),
    )
    .await;
    let mut notes: Vec<String> = proxy
        .log
        .refused
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let blocked = blocked.load(std::sync::atomic::Ordering::Relaxed);
    if blocked > 0 {
        notes.push(format!("{blocked} image/media/font requests not loaded"));
    }
    let background = proxy
        .log
        .background
        .load(std::sync::atomic::Ordering::Relaxed);
    if background > 0 {
        notes.push(format!(
            "{background} connections the page did not ask for (browser background traffic) refused"
        ));
    }
    drop(proxy);
    match outcome {
        Ok(Ok((final_url, status, html, extras))) => Ok(Rendered {
            final_url,
            status,
            html,
            notes,
            extras,
        }),
        Ok(Err(e)) => Err(with_notes(e, &notes)),
        Err(_) => Err(with_notes(
            TrawlError::new(
                ErrorCode::Timeout,
                format!(
                    "rendering {} exceeded its {} ms deadline",
                    job.url,
                    job.deadline.as_millis()
                ),
            ),
            &notes,
        )),
    }
}

fn with_notes(e: TrawlError, notes: &[String]) -> TrawlError {
    if notes.is_empty() {
        return e;
    }
    TrawlError::new(e.code, format!("{} ({})", e.message, notes.join("; ")))
}

pub(crate) fn cdp_error(what: &str, e: &chromiumoxide::error::CdpError) -> TrawlError {
    let message = e.to_string();
    let code = if message.to_ascii_lowercase().contains("timeout") {
        ErrorCode::Timeout
    } else {
        ErrorCode::Upstream
    };
    TrawlError::new(code, format!("render: could not {what}: {message}"))
}

/// Pause every request of the page before it is sent and decide: other schemes and (by
/// default) images, media and fonts are refused; a navigation the guard refuses is aborted,
/// which keeps the current document (a page that redirects itself somewhere forbidden still
/// renders). Everything else continues to the guard proxy, which has the last word.
async fn intercept(
    page: &Page,
    job: &Job<'_>,
    log: Arc<ProxyLog>,
    blocked: Arc<std::sync::atomic::AtomicUsize>,
) -> Result<(), TrawlError> {
    let mut paused = page
        .event_listener::<EventRequestPaused>()
        .await
        .map_err(|e| cdp_error("listen for requests", &e))?;
    page.execute(
        EnableParams::builder()
            .pattern(
                RequestPattern::builder()
                    .url_pattern("*")
                    .request_stage(RequestStage::Request)
                    .build(),
            )
            .build(),
    )
    .await
    .map_err(|e| cdp_error("intercept requests", &e))?;
    let page = page.clone();
    let guard = job.guard.clone();
    let load_media = job.load_media;
    let resolve = job.upstream.is_none();
    let first = job.url.clone();
    tokio::spawn(async move {
        let mut first_seen = false;
        while let Some(event) = paused.next().await {
            let url = event.request.url.clone();
            let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
            let media = matches!(
                event.resource_type,
                ResourceType::Image | ResourceType::Media | ResourceType::Font
            );
            let verdict = if !matches!(scheme.as_str(), "http" | "https" | "ws" | "wss") {
                log.refuse(format!("refused {}: scheme {scheme:?}", short(&url)));
                Some(ErrorReason::BlockedByClient)
            } else if media && !load_media {
                blocked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Some(ErrorReason::BlockedByClient)
            } else if event.resource_type == ResourceType::Document
                && (first_seen || url != first.as_str())
            {
                match check_navigation(&guard, &url, resolve).await {
                    Ok(()) => None,
                    Err(why) => {
                        log.refuse(format!("refused navigation to {}: {why}", short(&url)));
                        Some(ErrorReason::Aborted)
                    }
                }
            } else {
                None
            };
            if event.resource_type == ResourceType::Document {
                first_seen = true;
            }
            if verdict.is_none()
                && let Ok(parsed) = Url::parse(&url)
            {
                // The guard proxy lets through only what the page asked for.
                log.page_requested(&parsed);
            }
            let sent = match verdict {
                Some(reason) => page
                    .execute(FailRequestParams::new(event.request_id.clone(), reason))
                    .await
                    .map(|_| ()),
                None => page
                    .execute(ContinueRequestParams::new(event.request_id.clone()))
                    .await
                    .map(|_| ()),
            };
            if sent.is_err() {
                // The page is gone.
                break;
            }
        }
    });
    Ok(())
}

/// The guard's verdict on a navigation, as the proxy would give it.
async fn check_navigation(guard: &Guard, url: &str, resolve: bool) -> Result<(), String> {
    let parsed = guard.check_raw(url, None).map_err(|e| e.message)?;
    if resolve && let Some(host) = parsed.host_str() {
        guard.resolve_checked(host).await.map_err(|e| e.message)?;
    }
    Ok(())
}

fn short(url: &str) -> String {
    let cut = url.find('?').unwrap_or(url.len()).min(200);
    url[..cut].to_owned()
}

/// Navigate and wait for the load event. The CDP client's own wait follows the page's
/// later navigations, and one the guard aborted never finishes, so the document's
/// `readyState` is watched as well: whichever says "loaded" first wins.
async fn load(page: &Page, url: &Url) -> Result<(), TrawlError> {
    let navigation = page.goto(url.as_str());
    tokio::pin!(navigation);
    loop {
        tokio::select! {
            done = &mut navigation => {
                return done.map(|_| ()).map_err(|e| cdp_error("load the page", &e));
            }
            _ = tokio::time::sleep(SETTLE_STEP) => {
                let loaded = page
                    .evaluate("document.readyState === 'complete' && location.href !== 'about:blank'")
                    .await
                    .ok()
                    .and_then(|v| v.into_value::<bool>().ok())
                    .unwrap_or(false);
                if loaded {
                    return Ok(());
                }
            }
        }
    }
}

/// Wait until the page's visible text stops changing (scripts and XHR filling it in), at
/// most [`SETTLE_MAX`].
async fn settle(page: &Page) {
    let start = tokio::time::Instant::now();
    let mut last: Option<i64> = None;
    let mut stable = 0;
    while start.elapsed() < SETTLE_MAX {
        let len = page
            .evaluate("document.body ? document.body.innerText.length : 0")
            .await
            .ok()
            .and_then(|v| v.into_value::<i64>().ok())
            .unwrap_or(0);
        if last == Some(len) && len > 0 {
            stable += 1;
            if stable >= 2 {
                return;
            }
        } else {
            stable = 0;
        }
        last = Some(len);
        tokio::time::sleep(SETTLE_STEP).await;
    }
}
