//! Firecrawl's request and response shapes (field names from its published API
//! reference), typed. Options trawl cannot honour and that would change the result are
//! refused by [`ScrapeOptions::check`]; options that only tune Firecrawl's own service
//! (ad blocking, its cache switch) are accepted and have nothing to change here.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::CompatError;

/// A random UUID (v4), as Firecrawl's job ids are.
pub fn job_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// One entry of `formats`: `"markdown"` or `{"type": "markdown", …}` (v2 allows both).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum FormatSpec {
    Name(String),
    /// A format's own options: only `changeTracking`'s `modes` and `tag` are read; the
    /// other formats that take options are the ones refused.
    Object {
        #[serde(rename = "type")]
        kind: String,
        /// `changeTracking`: `git-diff` and/or `json`.
        #[serde(default)]
        modes: Option<Vec<String>>,
        /// `changeTracking`: a separate history per tag (trawl keeps one per URL).
        #[serde(default)]
        tag: Option<Value>,
        /// `changeTracking`'s json mode (an LLM's comparison): refused when given.
        #[serde(default)]
        schema: Option<Value>,
        /// As `schema`.
        #[serde(default)]
        prompt: Option<Value>,
        /// `screenshot`: the whole page.
        #[serde(default, rename = "fullPage")]
        full_page: Option<bool>,
        /// `screenshot`: `{width, height}` of the browser window.
        #[serde(default)]
        viewport: Option<Value>,
    },
}

/// What `changeTracking` asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeTracking {
    /// `git-diff` mode: the answer carries the diff's text.
    pub git_diff: bool,
}

/// The formats trawl answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Formats {
    pub markdown: bool,
    pub html: bool,
    pub raw_html: bool,
    pub links: bool,
    /// `changeTracking`: compare with the stored copy (trawl's `web_fetch changes`).
    pub change_tracking: Option<ChangeTracking>,
    /// `screenshot` / `screenshot@fullPage`: a PNG of the page, read in the browser.
    pub screenshot: Option<ScreenshotFormat>,
}

/// The `screenshot` format's options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScreenshotFormat {
    /// The whole page, not only the window.
    pub full_page: bool,
    /// The window, when the format object gives one.
    pub viewport: Option<(u32, u32)>,
}

impl Formats {
    /// Needs the page's own HTML, not only the stored Markdown.
    pub fn need_raw(self) -> bool {
        self.raw_html || self.links
    }
}

/// What a scrape is asked for: the body of `/scrape`, and `scrapeOptions` elsewhere.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrapeOptions {
    /// Output formats (default `["markdown"]`).
    pub formats: Option<Vec<FormatSpec>>,
    /// Only the main content (default true); false reads the whole page's text.
    pub only_main_content: Option<bool>,
    /// CSS selectors: keep only what matches.
    pub include_tags: Option<Vec<String>>,
    /// CSS selectors: drop what matches.
    pub exclude_tags: Option<Vec<String>>,
    /// Milliseconds to let scripts run: read through the browser tier.
    pub wait_for: Option<u64>,
    /// Browser steps before reading (Firecrawl's names and fields; no JavaScript).
    pub actions: Option<Vec<trawl_fetch::browse::ActionJson>>,
    /// Milliseconds the whole scrape may take.
    pub timeout: Option<u64>,
    /// Accept a stored copy up to this many milliseconds old (0 = always fetch).
    pub max_age: Option<u64>,
    /// Every other field, checked by [`ScrapeOptions::check`].
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Fields that only tune Firecrawl's own service; they change nothing trawl returns.
const NO_EFFECT: &[&str] = &[
    "blockAds",
    "removeBase64Images",
    "storeInCache",
    "proxy",
    "fastMode",
    "parsers",
    "integration",
    "origin",
    "useMock",
    // trawl always verifies certificates: a page with a bad one fails with an error that
    // says so, never a silently different page (the SDKs send `true` by default).
    "skipTlsVerification",
];

/// Fields allowed only at the value that asks for nothing (`false`, `[]`, `{}`).
const ONLY_WHEN_OFF: &[&str] = &[
    "mobile",
    "ignoreRobotsTxt",
    "regexOnFullURL",
    "zeroDataRetention",
    "headers",
    "location",
    "jsonOptions",
    "extract",
];

fn is_off(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Refuses, by name, any field of `other` that would change a result trawl cannot
/// produce; `allowed` are fields the route itself reads.
pub fn check_other(other: &Map<String, Value>, allowed: &[&str]) -> Result<(), CompatError> {
    for (key, value) in other {
        if NO_EFFECT.contains(&key.as_str()) || allowed.contains(&key.as_str()) {
            continue;
        }
        if ONLY_WHEN_OFF.contains(&key.as_str()) {
            if is_off(value) {
                continue;
            }
            return Err(CompatError::unsupported(format!("{key} (given {value})")));
        }
        if value.is_null() {
            continue;
        }
        return Err(CompatError::unsupported(format!("the field {key}")));
    }
    Ok(())
}

impl ScrapeOptions {
    /// The formats asked for, or a 400 naming one trawl does not produce.
    pub fn formats(&self) -> Result<Formats, CompatError> {
        let Some(list) = &self.formats else {
            return Ok(Formats {
                markdown: true,
                ..Formats::default()
            });
        };
        let mut formats = Formats::default();
        for spec in list {
            let (name, modes, tag, shot) = match spec {
                FormatSpec::Name(name) => (name.as_str(), None, None, (None, None)),
                FormatSpec::Object {
                    kind,
                    modes,
                    tag,
                    schema,
                    prompt,
                    full_page,
                    viewport,
                } => {
                    if [schema, prompt]
                        .iter()
                        .any(|v| v.as_ref().is_some_and(|v| !v.is_null()))
                    {
                        return Err(CompatError::unsupported(format!(
                            "schema and prompt in the {kind} format (trawl has no LLM formats)"
                        )));
                    }
                    (
                        kind.as_str(),
                        modes.as_deref(),
                        tag.as_ref(),
                        (*full_page, viewport.as_ref()),
                    )
                }
            };
            match name {
                "changeTracking" => {
                    formats.change_tracking = Some(self.change_tracking(modes, tag)?);
                }
                "markdown" => formats.markdown = true,
                "html" => formats.html = true,
                "rawHtml" => formats.raw_html = true,
                "links" => formats.links = true,
                "screenshot" | "screenshot@fullPage" => {
                    formats.screenshot = Some(ScreenshotFormat {
                        full_page: name == "screenshot@fullPage" || shot.0 == Some(true),
                        viewport: shot.1.map(viewport).transpose()?,
                    });
                }
                "json" | "extract" | "summary" | "branding" | "images" | "attributes" => {
                    return Err(CompatError::unsupported(format!(
                        "the {name} format (trawl has no LLM or page-analysis formats)"
                    )));
                }
                other => {
                    return Err(CompatError::bad_request(format!(
                        "formats: unknown format {other:?} (trawl answers markdown, html, \
                         rawHtml, links, screenshot and changeTracking)"
                    )));
                }
            }
        }
        if formats == Formats::default() {
            return Err(CompatError::bad_request(
                "formats: ask for at least one format",
            ));
        }
        if formats.change_tracking.is_some() && !formats.markdown {
            return Err(CompatError::bad_request(
                "formats: changeTracking compares the Markdown; ask for markdown too",
            ));
        }
        if self
            .other
            .get("changeTrackingOptions")
            .is_some_and(|v| !is_off(v))
            && formats.change_tracking.is_none()
        {
            return Err(CompatError::bad_request(
                "changeTrackingOptions without the changeTracking format",
            ));
        }
        Ok(formats)
    }

    /// `changeTracking`'s modes and tag, from the format object (v2) or
    /// `changeTrackingOptions` (v1).
    fn change_tracking(
        &self,
        modes: Option<&[String]>,
        tag: Option<&Value>,
    ) -> Result<ChangeTracking, CompatError> {
        let options = self.other.get("changeTrackingOptions");
        let field = |name: &str| options.and_then(|o| o.get(name)).filter(|v| !v.is_null());
        let v1_modes: Option<Vec<String>> = match field("modes") {
            Some(v) => Some(serde_json::from_value(v.clone()).map_err(|_| {
                CompatError::bad_request("changeTrackingOptions.modes: a list of names")
            })?),
            None => None,
        };
        if let Some(tag) = tag.filter(|t| !t.is_null()).or(field("tag")) {
            return Err(CompatError::unsupported(format!(
                "changeTracking's tag (given {tag}; trawl keeps one history per URL)"
            )));
        }
        for name in ["schema", "prompt"] {
            if field(name).is_some() {
                return Err(CompatError::unsupported(format!(
                    "changeTrackingOptions.{name} (trawl has no LLM formats)"
                )));
            }
        }
        let mut tracking = ChangeTracking::default();
        for mode in modes.into_iter().flatten().chain(v1_modes.iter().flatten()) {
            match mode.as_str() {
                "git-diff" => tracking.git_diff = true,
                "json" => {
                    return Err(CompatError::unsupported(
                        "changeTracking's json mode (trawl has no LLM formats; git-diff is \
                         supported)",
                    ));
                }
                other => {
                    return Err(CompatError::bad_request(format!(
                        "changeTracking: unknown mode {other:?} (git-diff or json)"
                    )));
                }
            }
        }
        Ok(tracking)
    }

    /// Refuses what trawl cannot honour, naming it.
    pub fn check(&self, allowed: &[&str]) -> Result<Formats, CompatError> {
        let mut allowed = allowed.to_vec();
        // Read by `formats` itself, with the changeTracking format.
        allowed.push("changeTrackingOptions");
        check_other(&self.other, &allowed)?;
        self.formats()
    }

    /// Options that make the stored Markdown the wrong answer: the page must be read
    /// from its HTML again.
    pub fn reshapes(&self) -> bool {
        self.only_main_content == Some(false)
            || self.include_tags.as_ref().is_some_and(|t| !t.is_empty())
            || self.exclude_tags.as_ref().is_some_and(|t| !t.is_empty())
    }
}

/// A screenshot format's `viewport: {width, height}`.
fn viewport(value: &Value) -> Result<(u32, u32), CompatError> {
    let side = |name: &str| {
        value
            .get(name)
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
    };
    match (side("width"), side("height")) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(CompatError::bad_request(
            "screenshot viewport: {\"width\": N, \"height\": N}",
        )),
    }
}

/// The `metadata` of a document, named as Firecrawl names it.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub og_site_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The URL as asked for.
    #[serde(rename = "sourceURL")]
    pub source_url: String,
    /// The URL after redirects.
    pub url: String,
    pub status_code: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// `hit` when the answer came from trawl's store without a request.
    pub cache_state: &'static str,
    /// trawl's handle of the stored document.
    pub handle: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// This answer's id (Firecrawl gives each scrape one).
    pub scrape_id: String,
    /// Always 1: a self-hosted server counts no credits, but the SDKs read the field.
    pub credits_used: u32,
    /// `stealth` when the page was read through TLS impersonation, else `basic`.
    pub proxy_used: &'static str,
    /// The page's head as written: `ogTitle`, `ogDescription`, `ogImage`, `ogUrl`,
    /// `keywords`, `robots`, `favicon` (Firecrawl's names), each left out when absent.
    #[serde(flatten)]
    pub head: HeadFields,
    /// A PDF's page count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_pages: Option<u32>,
    /// When the stored copy answered (`cacheState: hit`) was fetched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_at: Option<String>,
}

/// [`trawl_core::HeadMeta`] under Firecrawl's names.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadFields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub og_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub og_description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub og_image: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub og_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keywords: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub favicon: Option<String>,
}

impl From<&trawl_core::HeadMeta> for HeadFields {
    fn from(h: &trawl_core::HeadMeta) -> Self {
        HeadFields {
            og_title: h.og_title.clone(),
            og_description: h.og_description.clone(),
            og_image: h.og_image.clone(),
            og_url: h.og_url.clone(),
            keywords: h.keywords.clone(),
            robots: h.robots.clone(),
            favicon: h.favicon.clone(),
        }
    }
}

impl Metadata {
    /// Firecrawl's name for how a page was fetched.
    pub fn proxy_of(via: trawl_core::FetchedVia) -> &'static str {
        match via {
            trawl_core::FetchedVia::Impersonate => "stealth",
            _ => "basic",
        }
    }
}

/// One scraped page.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FcDocument {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_tracking: Option<FcChangeTracking>,
    /// The `screenshot` format: a `data:image/png;base64,…` URL (trawl serves no image
    /// files; the SDKs take the string as Firecrawl's hosted URL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// What `actions` collected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actions: Option<FcActions>,
    pub metadata: Metadata,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

impl FcDocument {
    /// A crawled page that answered an HTTP error (`status` 404, 500 …): its content is not
    /// stored, so the document is its address, status and why (Firecrawl lists such pages
    /// with their content; trawl keeps only pages that were there).
    pub fn error_page(url: &str, status: u16, why: Option<String>) -> Self {
        FcDocument {
            markdown: Some(String::new()),
            metadata: Metadata {
                source_url: url.to_owned(),
                url: url.to_owned(),
                status_code: status,
                cache_state: "miss",
                error: Some(why.unwrap_or_else(|| format!("HTTP {status}"))),
                scrape_id: job_id(),
                credits_used: 1,
                proxy_used: "basic",
                ..Metadata::default()
            },
            ..FcDocument::default()
        }
    }
}

/// The `actions` object of a document, as Firecrawl names it.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FcActions {
    /// Each `screenshot` action's image, a `data:` URL.
    pub screenshots: Vec<String>,
    /// Each `scrape` action's page.
    pub scrapes: Vec<FcScrape>,
    /// Always empty: trawl runs no caller JavaScript.
    pub javascript_returns: Vec<Value>,
    /// Always empty: trawl prints no PDFs.
    pub pdfs: Vec<Value>,
}

/// One `scrape` action's page.
#[derive(Debug, Clone, Serialize)]
pub struct FcScrape {
    pub url: String,
    pub html: String,
}

/// The `changeTracking` object of a document, as Firecrawl names it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FcChangeTracking {
    /// When the copy compared with was fetched (ISO 8601); null for a new page.
    pub previous_scrape_at: Option<String>,
    /// new, same, changed or removed.
    pub change_status: &'static str,
    /// Always `visible`: trawl finds pages by being asked for them, not from history.
    pub visibility: &'static str,
    /// `git-diff` mode, changed pages only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<FcDiff>,
}

/// The `diff` of a changed page: unified diff text of the Markdown, old → new.
#[derive(Debug, Clone, Serialize)]
pub struct FcDiff {
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(json: Value) -> ScrapeOptions {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn formats_are_read_in_both_spellings_and_llm_ones_refused() {
        let f = options(serde_json::json!({"formats": ["markdown", {"type": "rawHtml"}]}))
            .check(&[])
            .unwrap();
        assert!(f.markdown && f.raw_html && !f.html && !f.links);
        let err = options(serde_json::json!({"formats": ["json"]}))
            .check(&[])
            .unwrap_err();
        assert_eq!(err.status, 400);
        assert!(err.message.contains("json format"), "{}", err.message);
        assert!(
            options(serde_json::json!({"formats": ["bogus"]}))
                .check(&[])
                .is_err()
        );
    }

    #[test]
    fn change_tracking_reads_its_modes_in_both_spellings() {
        let v2 = options(serde_json::json!({"formats": ["markdown",
            {"type": "changeTracking", "modes": ["git-diff"]}]}))
        .check(&[])
        .unwrap();
        assert_eq!(v2.change_tracking, Some(ChangeTracking { git_diff: true }));
        let v1 = options(
            serde_json::json!({"formats": ["markdown", "changeTracking"],
            "changeTrackingOptions": {"modes": ["git-diff"]}}),
        )
        .check(&[])
        .unwrap();
        assert_eq!(v1.change_tracking, Some(ChangeTracking { git_diff: true }));
        let plain = options(serde_json::json!({"formats": ["markdown", "changeTracking"]}))
            .check(&[])
            .unwrap();
        assert_eq!(
            plain.change_tracking,
            Some(ChangeTracking { git_diff: false })
        );
        for refused in [
            serde_json::json!({"formats": ["markdown", {"type": "changeTracking", "tag": "x"}]}),
            serde_json::json!({"formats": ["markdown",
                {"type": "changeTracking", "modes": ["git-diff"], "prompt": "what changed"}]}),
            serde_json::json!({"formats": ["markdown", "changeTracking"],
                "changeTrackingOptions": {"modes": ["json"]}}),
            serde_json::json!({"formats": ["markdown", "changeTracking"],
                "changeTrackingOptions": {"prompt": "what changed"}}),
            serde_json::json!({"formats": ["markdown"],
                "changeTrackingOptions": {"modes": ["git-diff"]}}),
        ] {
            assert!(options(refused.clone()).check(&[]).is_err(), "{refused}");
        }
    }

    #[test]
    fn options_that_change_the_result_are_refused_not_ignored() {
        let err = options(serde_json::json!({"headers": {"x-seal": "1"}}))
            .check(&[])
            .unwrap_err();
        assert!(err.message.contains("headers"), "{}", err.message);
        assert!(
            options(serde_json::json!({"mobile": true}))
                .check(&[])
                .is_err()
        );
        assert!(
            options(serde_json::json!({"surprise": 1}))
                .check(&[])
                .is_err()
        );
        // Asking for nothing, or for what only tunes Firecrawl's service, is fine.
        options(serde_json::json!({"mobile": false, "actions": [], "blockAds": true}))
            .check(&[])
            .unwrap();
    }
}
