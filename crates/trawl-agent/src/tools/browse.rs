//! Reading a page in the browser after actions, with screenshots: `web_fetch {actions,
//! screenshot}`, `trawl read --action … --screenshot FILE`, and the compatible API's
//! `actions` and `screenshot` formats all come here.
//!
//! The page as it stands after the last action is extracted and stored like any read (its
//! handle opens later); each `scrape` action's page is extracted too. Screenshots travel
//! with the answer (an MCP `image` block, a file, base64) and are not kept in the store.

use trawl_core::{ErrorCode, TrawlError};
use trawl_fetch::browse::{Action, ActionJson, BrowseTask, ScreenshotKind, Viewport};

use super::read::attempt;
use super::types::{BrowserOut, ScrapeOut, ScreenshotOut};
use super::{Agent, NotStored};
use trawl_store::DocumentRecord;

/// A read done in the browser.
pub struct BrowserRead {
    /// The stored document (the page after the last action).
    pub record: DocumentRecord,
    /// Why it was not kept, when the store could not take it.
    pub not_stored: Option<NotStored>,
    /// Actions done, screenshots and scrapes.
    pub browser: BrowserOut,
}

/// The browser part of a call's arguments, as every face gives it.
#[derive(Debug, Clone, Default)]
pub struct BrowserAsk {
    /// Firecrawl-shaped actions (MCP, the compatible API) …
    pub actions_json: Vec<ActionJson>,
    /// … or already parsed ones (the CLI's `--action`).
    pub actions: Vec<Action>,
    /// A screenshot after the actions.
    pub screenshot: bool,
    /// Of the whole page.
    pub full_page: bool,
    /// `WIDTHxHEIGHT`.
    pub viewport: Option<String>,
}

impl BrowserAsk {
    /// Whether anything here needs a browser.
    pub fn wanted(&self) -> bool {
        self.screenshot || !self.actions.is_empty() || !self.actions_json.is_empty()
    }

    /// The checked task, before anything is fetched.
    pub fn task(&self) -> Result<BrowseTask, TrawlError> {
        if self.full_page && !self.screenshot {
            return Err(TrawlError::invalid_input(
                "full_page applies to a screenshot: ask for one too",
            ));
        }
        let mut actions = self.actions.clone();
        for json in &self.actions_json {
            actions.push(json.clone().into_action()?);
        }
        let task = BrowseTask {
            viewport: match &self.viewport {
                Some(v) => Viewport::parse(v)?,
                None => Viewport::default(),
            },
            actions,
            screenshot: self.screenshot.then_some(ScreenshotKind {
                full_page: self.full_page,
            }),
            ..BrowseTask::default()
        };
        task.validate()?;
        Ok(task)
    }
}

impl Agent {
    /// Load `raw` in the browser, carry out `task`, and read what it shows. Never from the
    /// store (actions change what a page shows); the result replaces the stored copy.
    pub async fn browse(&self, raw: &str, task: &BrowseTask) -> Result<BrowserRead, TrawlError> {
        let url = self.guard.check_raw(raw, None)?;
        let browsed = self.page_fetcher()?.browse(url.as_str(), task).await?;
        let mut doc = self.extract_fetched(&url, &browsed.page).await?;
        let mut attempts = browsed.page.attempts.clone();
        if attempts.is_empty() {
            attempts.push(attempt("render", "ok", None));
        }
        doc.attempts = attempts;
        let mut scrapes = Vec::new();
        for scrape in &browsed.extras.scrapes {
            let page = trawl_fetch::FetchedPage {
                final_url: scrape.url.clone(),
                body: scrape.html.clone().into_bytes().into(),
                content_type: Some("text/html; charset=utf-8".into()),
                ..browsed.page.clone()
            };
            let scraped = self.extract_fetched(&url, &page).await.map_err(|e| {
                TrawlError::new(
                    e.code,
                    format!("action {} (scrape): {}", scrape.action + 1, e.message),
                )
            })?;
            scrapes.push(ScrapeOut {
                action: scrape.action + 1,
                url: scrape.url.to_string(),
                markdown: scraped.markdown,
                html: scrape.html.clone(),
            });
        }
        let screenshots = browsed
            .extras
            .screenshots
            .into_iter()
            .map(|s| ScreenshotOut {
                width: s.width,
                height: s.height,
                full_page: s.full_page,
                cut_from: s.cut_from,
                action: s.action.map(|a| a + 1),
                bytes: s.png.len(),
                png: s.png,
            })
            .collect();
        let record = DocumentRecord::new(doc, std::time::SystemTime::now());
        let not_stored = match self.save_or_note(&record).await {
            Ok(note) => note,
            // The page was read: a store that does not answer is a note, not a failure.
            Err(e) if e.code == ErrorCode::StoreUnavailable => Some(NotStored {
                reason: "store_unavailable".into(),
                message: e.message,
            }),
            Err(e) => return Err(e),
        };
        Ok(BrowserRead {
            record,
            not_stored,
            browser: BrowserOut {
                done: browsed.extras.done,
                screenshots,
                scrapes,
                html: String::from_utf8_lossy(&browsed.page.body).into_owned(),
            },
        })
    }
}
