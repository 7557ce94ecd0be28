//! The site readers in the read pipeline: a URL one of them knows (GitHub, Hacker News,
//! Stack Exchange, Wikipedia, Reddit, YouTube, X; see `trawl_sites::all`) is read through the site's
//! API before the generic tiers, unless the user pinned the site to a tier or hosted
//! reader (`trawl sites pin SITE http`). A reader that fails in a way the page itself
//! might not (a rate limit, a timeout, an API change) leaves an attempt and the generic
//! tiers go on; a page the reader refuses (a Reddit listing) is `unsupported_content`.

use trawl_core::{
    Attempt, Document, ErrorCode, FetchedVia, TrawlError, TriedFirst, handle_for_url,
};
use trawl_sites::{SiteClient, SitePage, SiteSpec};
use trawl_store::DocumentRecord;
use url::Url;

use super::Agent;

fn attempt(reader: &str, outcome: &str, detail: Option<String>) -> Attempt {
    Attempt {
        reader: reader.to_owned(),
        outcome: outcome.to_owned(),
        detail,
    }
}

impl Agent {
    /// The fetcher the generic tiers read a page with: the user's cookie files (if any)
    /// go along, each cookie only to the hosts its domain and its file's site match, asked
    /// again on every redirect hop.
    pub(super) fn page_fetcher(&self) -> Result<trawl_fetch::Fetcher, TrawlError> {
        let fetcher = self.fetcher()?;
        let jars = &self.sites.get()?.cookies;
        if jars.is_empty() {
            return Ok(fetcher.clone());
        }
        let jars = jars.clone();
        Ok(fetcher.with_cookies(std::sync::Arc::new(move |url| {
            trawl_sites::cookie_header(&jars, url)
        })))
    }

    /// Read `url` with its site reader, when one answers for it and the site is not pinned
    /// elsewhere. `Ok(None)` means the generic tiers read it (`attempts` may say why); a
    /// reader that failed is put in `failed`, to be a cause if the generic tiers fail too.
    pub(super) async fn site_reader(
        &self,
        url: &Url,
        remembered: Option<&str>,
        pinned: bool,
        attempts: &mut Vec<Attempt>,
        failed: &mut Vec<TriedFirst>,
    ) -> Result<Option<DocumentRecord>, TrawlError> {
        let Some((spec, target)) = trawl_sites::choose(url) else {
            return Ok(None);
        };
        if let Some(pin) = remembered.filter(|r| pinned && *r != spec.name) {
            attempts.push(attempt(
                spec.name,
                "not_sent",
                Some(format!("the site is pinned to {pin}")),
            ));
            return Ok(None);
        }
        let target = target.map_err(|why| TrawlError::new(ErrorCode::UnsupportedContent, why))?;
        let mut config = self.sites.get()?.clone();
        if let Some(why) = trawl_sites::unavailable(spec, &config) {
            attempts.push(attempt(spec.name, "not_sent", Some(why)));
            return Ok(None);
        }
        if spec.name == trawl_sites::github::SPEC.name {
            config.github_token = self.github_token.get()?.clone();
        }
        let client = SiteClient {
            fetcher: self.fetcher()?,
            config: &config,
            comments: self.config.extract.include_comments,
        };
        match trawl_sites::read(&client, &target).await {
            Ok(page) => {
                attempts.push(attempt(spec.name, "ok", page.note.clone()));
                let doc = site_document(url, spec, page, std::mem::take(attempts));
                Ok(Some(DocumentRecord::new(doc, std::time::SystemTime::now())))
            }
            // The page is gone, or trawl's own guard refused: the HTML would not do better.
            Err(e) if matches!(e.code, ErrorCode::NotFound | ErrorCode::BlockedByPolicy) => Err(e),
            Err(e) => {
                // An X session that was refused is `auth`, as X search reports it.
                let outcome = if e.message.starts_with("auth:") {
                    "auth"
                } else {
                    e.code.as_str()
                };
                attempts.push(attempt(spec.name, outcome, Some(e.message.clone())));
                failed.push(TriedFirst {
                    tried: format!("site reader `{}`", spec.name),
                    error: e,
                });
                Ok(None)
            }
        }
    }
}

fn site_document(url: &Url, spec: &SiteSpec, page: SitePage, attempts: Vec<Attempt>) -> Document {
    let markdown = page.markdown.trim().to_owned();
    let mut doc = Document {
        url: url.to_string(),
        final_url: url.to_string(),
        handle: handle_for_url(url),
        title: page.title,
        byline: page.byline,
        published: page.published,
        site_name: Some(spec.name.to_owned()),
        word_count: markdown.split_whitespace().count(),
        // The site's API said what the content is: nothing to guess.
        quality_score: 0.9,
        text: String::new(),
        markdown,
        fetched_via: FetchedVia::Site,
        content_type: Some("text/markdown".to_owned()),
        attempts,
        ..Document::default()
    };
    doc.cap_metadata();
    doc
}
