//! Tier 2: render a page in a local headless Chromium and hand back the rendered DOM.
//!
//! Safety first: the browser never resolves or connects on its own. Each page gets a fresh
//! browser context whose proxy is a [`proxy::GuardProxy`] that applies trawl's guard (and the
//! user's proxy behind it); `<-loopback>` removes Chromium's loopback bypass; QUIC and non-
//! proxied WebRTC are off; downloads are denied and popups blocked; navigations the guard
//! refuses are aborted in the page (so the page stays and still renders); other schemes,
//! images, media and fonts are refused at the request-interception stage.
//!
//! Costs are bounded: one browser, started on first use and reused; at most `tabs` pages at
//! once; a deadline per page (a typed `timeout`); the browser restarted when it died or its
//! processes grew past the memory cap; [`RenderTransport::shutdown`] (and dropping) kills
//! every process it started.

mod actions;
mod browser;
mod page;
mod proxy;

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::sync::{Mutex, Semaphore};
use trawl_core::{ErrorCode, FetchedVia, TrawlError};
use url::Url;

use crate::browse::BrowseTask;
use crate::config::{FetchConfig, RenderConfig};
use crate::guard::Guard;
use crate::transport::{AnswerFuture, Transport};

pub use browser::{find_browser, process_alive, process_tree};

/// The browser tier. Cheap to create: nothing starts before the first page.
pub struct RenderTransport {
    config: RenderConfig,
    guard: Guard,
    upstream: Option<Url>,
    connect_timeout: Duration,
    user_agent: String,
    tabs: Semaphore,
    browser: Mutex<Slot>,
}

#[derive(Default)]
struct Slot {
    running: Option<Arc<browser::Running>>,
    /// A failed start is remembered: one hint, not one browser launch per page.
    failed: Option<TrawlError>,
    launches: u32,
}

impl std::fmt::Debug for RenderTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderTransport")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl RenderTransport {
    pub(crate) fn new(config: &FetchConfig, guard: &Guard, upstream: Option<Url>) -> Self {
        RenderTransport {
            config: config.render.clone(),
            guard: guard.clone(),
            upstream,
            connect_timeout: config.connect_timeout,
            user_agent: config.user_agent.clone(),
            tabs: Semaphore::new(config.render.tabs.max(1)),
            browser: Mutex::new(Slot::default()),
        }
    }

    /// The running browser's process id, if one runs (tests count its processes).
    pub async fn browser_pid(&self) -> Option<u32> {
        let slot = self.browser.lock().await;
        slot.running.as_ref().map(|r| r.pid())
    }

    /// Why no browser can be started, when that is already known (no binary, or a start
    /// that failed before): the caller reports it as a hint instead of trying.
    pub fn unavailable(&self) -> Option<TrawlError> {
        if let Ok(slot) = self.browser.try_lock()
            && let Some(e) = &slot.failed
        {
            return Some(e.clone());
        }
        find_browser(self.config.browser.as_deref()).err()
    }

    /// Start the browser (if not running) and ask its version: `doctor`'s check.
    pub async fn check(&self) -> Result<(std::path::PathBuf, String), TrawlError> {
        let path = find_browser(self.config.browser.as_deref())?;
        let running = self.browser().await?;
        let version = running
            .browser
            .version()
            .await
            .map_err(|e| TrawlError::new(ErrorCode::Upstream, format!("render: {e}")))?;
        Ok((path, version.product))
    }

    /// How many times a browser was started.
    pub async fn launches(&self) -> u32 {
        self.browser.lock().await.launches
    }

    /// Stop the browser and everything it runs; a later page starts a new one.
    pub async fn shutdown(&self) {
        let running = self.browser.lock().await.running.take();
        if let Some(running) = running {
            match Arc::try_unwrap(running) {
                Ok(running) => running.shutdown().await,
                // Pages still use it: the last one to finish drops it, which kills it.
                Err(shared) => browser::kill_tree(shared.pid()),
            }
        }
    }

    /// The browser to render with: the running one, or a new one when there is none, it
    /// died, or it grew past the memory cap.
    async fn browser(&self) -> Result<Arc<browser::Running>, TrawlError> {
        let mut slot = self.browser.lock().await;
        if let Some(e) = &slot.failed {
            return Err(e.clone());
        }
        if let Some(running) = &slot.running {
            let healthy = running.alive()
                && (self.config.memory_cap == 0 || running.rss() <= self.config.memory_cap);
            if healthy {
                return Ok(running.clone());
            }
            // Pages in flight keep the old one until they finish; it dies with them.
            slot.running = None;
        }
        let executable = match find_browser(self.config.browser.as_deref()) {
            Ok(path) => path,
            Err(e) => {
                slot.failed = Some(e.clone());
                return Err(e);
            }
        };
        let running = match browser::Running::launch(&executable).await {
            Ok(r) => Arc::new(r),
            Err(e) => {
                slot.failed = Some(e.clone());
                return Err(e);
            }
        };
        slot.launches += 1;
        slot.running = Some(running.clone());
        Ok(running)
    }

    /// Load `url`, carry out `task` (viewport, actions, screenshots) within its budget,
    /// and hand back the page as it stands at the end, with what the task collected.
    pub(crate) async fn browse(
        &self,
        url: &Url,
        task: &BrowseTask,
    ) -> Result<page::Rendered, TrawlError> {
        self.upstream_usable()?;
        self.render(url, Some(task)).await
    }

    /// The browser must not go around the user's proxy: only an http proxy can carry it.
    fn upstream_usable(&self) -> Result<(), TrawlError> {
        match &self.upstream {
            Some(proxy) if proxy.scheme() != "http" => Err(TrawlError::new(
                ErrorCode::Upstream,
                format!(
                    "rendering through a {} proxy is not supported (only http proxies)",
                    proxy.scheme()
                ),
            )),
            _ => Ok(()),
        }
    }

    async fn render(
        &self,
        url: &Url,
        task: Option<&BrowseTask>,
    ) -> Result<page::Rendered, TrawlError> {
        let _tab = self
            .tabs
            .acquire()
            .await
            .map_err(|_| TrawlError::internal("render: tab pool closed"))?;
        let running = self.browser().await?;
        let deadline = task.map_or(self.config.page_timeout, |t| t.budget);
        let job = page::Job {
            url,
            guard: &self.guard,
            upstream: self.upstream.as_ref(),
            connect_timeout: self.connect_timeout,
            user_agent: &self.user_agent,
            load_media: self.config.load_media || task.is_some_and(BrowseTask::wants_images),
            deadline,
            task,
        };
        page::render(&running.browser, job).await
    }
}

impl Transport for RenderTransport {
    fn get<'a>(&'a self, url: &'a Url, _extra: HeaderMap) -> AnswerFuture<'a> {
        Box::pin(async move {
            // Fail closed: the browser must not go around the user's proxy.
            self.upstream_usable()?;
            let rendered = self.render(url, None).await?;
            Ok(rendered.into_answer())
        })
    }

    fn via(&self) -> FetchedVia {
        FetchedVia::Render
    }

    fn name(&self) -> &'static str {
        "render"
    }
}
