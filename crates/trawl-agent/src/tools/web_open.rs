//! `web_open`: page through or search inside documents already read, without fetching
//! again.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::{TrawlError, is_valid_handle};
use trawl_store::FindScope;

use super::bounds::{ToolArgs, checked, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::page::page_out;
use super::{Agent, DEFAULT_PAGE_TOKENS, OpenOut, Progress, invalid, render};
use crate::fence::Fence;

/// Page through or search inside documents already read, without fetching again.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct WebOpenArgs {
    /// The document's handle (host~hash); not needed with all.
    pub handle: Option<String>,
    /// Which page to return.
    #[schemars(range(min = 1))]
    pub page: Option<u32>,
    /// Words to find: the best-matching passages instead of a page.
    #[schemars(length(min = 1, max = 500))]
    pub find: Option<String>,
    /// With find: search every stored document.
    pub all: Option<bool>,
    /// Tokens a page (default 4000; 0: the whole document).
    pub page_size_tokens: Option<u32>,
    /// Most passages for find (default 8).
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
    /// An older version, kept by web_fetch changes=true.
    #[schemars(range(min = 1))]
    pub version: Option<u32>,
}

impl ToolArgs for WebOpenArgs {
    fn normalized(self) -> Self {
        let find = self.find.map(|f| f.trim().to_owned());
        WebOpenArgs {
            // `limit` only counts passages of a `find`.
            limit: self.limit.filter(|_| find.is_some()),
            find,
            ..self
        }
    }
}

/// The `web_open` tool.
#[derive(Debug)]
pub struct WebOpen;

impl Tool for WebOpen {
    const NAME: &'static str = "web_open";
    const TITLE: &'static str = "Open a stored document";
    const DESCRIPTION: &'static str = "Page through or search documents already read, without fetching again. handle and \
page: that page of its Markdown. find: the passages that best match the words, in one document \
(handle) or every stored one (all=true). Use it to jump to the part of a long document you need.";
    const HINTS: Hints = Hints::reads(false);
    const NEEDS: Needs = Needs::Nothing;
    type Args = WebOpenArgs;
    type Out = OpenOut;

    async fn call(agent: Agent, args: WebOpenArgs, _: Option<Progress>) -> Result<OpenOut, TrawlError> {
        agent.web_open(args).await
    }

    fn markdown(out: &OpenOut, fence: &Fence) -> String {
        render::open_markdown(out, fence)
    }

    fn asked(args: &WebOpenArgs) -> Vec<Asked> {
        let mut asked = Vec::new();
        if let Some(handle) = &args.handle {
            asked.push(Asked::Text("handle", handle.clone()));
        }
        if let Some(page) = args.page {
            asked.push(Asked::Text("page", page.to_string()));
        }
        if let Some(find) = &args.find {
            asked.push(Asked::Text("find", find.clone()));
        }
        asked
    }

    fn details(out: &OpenOut) -> Details {
        match (&out.passages, out.page, out.pages) {
            (Some(passages), _, _) => vec![("passages", passages.len().to_string())],
            (None, Some(page), Some(pages)) => vec![("page", format!("{page}/{pages}"))],
            _ => Vec::new(),
        }
    }
}

impl Agent {
    /// `web_open`: a page of a stored document, or the passages matching `find`.
    pub async fn web_open(&self, args: WebOpenArgs) -> Result<OpenOut, TrawlError> {
        let args = checked(args)?;
        let all = args.all.unwrap_or(false);
        let page_tokens = args.page_size_tokens.unwrap_or(DEFAULT_PAGE_TOKENS);
        if let Some(h) = &args.handle
            && !is_valid_handle(h)
        {
            return Err(invalid(
                "handle",
                format!("{h:?} is not a handle (host~12hex)"),
            ));
        }
        // Bad arguments are refused before the store is asked (page 0 is not "not found"):
        // `checked` saw to the bounds.
        if let Some(find) = args.find {
            // Only letters and digits are indexed: `"` or `--` alone finds nothing.
            if !find.chars().any(char::is_alphanumeric) {
                return Err(invalid("find", "needs at least one letter or digit"));
            }
            if args.page.is_some() {
                return Err(TrawlError::invalid_input("give page or find, not both"));
            }
            if args.version.is_some() {
                return Err(TrawlError::invalid_input("give version or find, not both"));
            }
            let limit = args.limit.unwrap_or(8);
            let handle = match (&args.handle, all) {
                (Some(_), true) => {
                    return Err(TrawlError::invalid_input("give handle or all, not both"));
                }
                (None, false) => {
                    return Err(invalid("handle", "required unless all is true"));
                }
                (h, _) => h.clone(),
            };
            if let Some(h) = &handle {
                self.stored(h).await?;
            }
            let (q, h) = (find.clone(), handle.clone());
            let hits = self
                .store
                .run(move |s| {
                    let scope = match &h {
                        Some(h) => FindScope::Document(h),
                        None => FindScope::All,
                    };
                    s.find(&q, scope, limit as usize)
                })
                .await
                .map_err(super::types::store_error)?;
            // Passage page numbers are those of the default page size (what the store
            // indexed), whatever `page_size_tokens` this call gives.
            let passages = super::types::passages_out(&self.store, hits).await?;
            return Ok(OpenOut {
                handle,
                title: None,
                url: None,
                page: None,
                pages: None,
                markdown: None,
                find: Some(find),
                passages: Some(passages),
                version: None,
                crawl: None,
            });
        }
        if all {
            return Err(invalid("all", "only applies with find"));
        }
        let handle = args.handle.ok_or_else(|| invalid("handle", "required"))?;
        let record = match args.version {
            Some(version) => self.stored_version(&handle, version).await?,
            None => self.stored(&handle).await?,
        };
        let out = page_out(&record, true, args.page.unwrap_or(1), page_tokens)?;
        Ok(OpenOut {
            handle: Some(out.handle),
            title: out.title,
            url: Some(out.final_url),
            page: Some(out.page),
            pages: Some(out.pages),
            markdown: Some(out.markdown),
            find: None,
            passages: None,
            version: args.version,
            crawl: None,
        })
    }

    /// Version `version` of a stored document: an older copy, or the stored copy itself
    /// when `version` is the latest.
    async fn stored_version(
        &self,
        handle: &str,
        version: u32,
    ) -> Result<trawl_store::DocumentRecord, TrawlError> {
        let current = self.stored(handle).await?;
        let h = handle.to_owned();
        let (kept, older) = self
            .store
            .run(move |s| {
                let Some(versions) = s.versions() else {
                    return Ok((Vec::new(), None));
                };
                let kept = versions.list_versions(&h)?;
                let older = versions.get_version(&h, version)?;
                Ok((kept, older))
            })
            .await
            .map_err(super::types::store_error)?;
        let latest = kept.last().map_or(1, |v| v.version + 1);
        if version == latest {
            return Ok(current);
        }
        older.ok_or_else(|| {
            let kept = match (kept.first(), kept.last()) {
                (Some(first), Some(last)) if first.version == last.version => {
                    format!("version {} is kept", first.version)
                }
                (Some(first), Some(last)) => {
                    format!("versions {}-{} are kept", first.version, last.version)
                }
                _ => "no older version is kept".to_owned(),
            };
            TrawlError::new(
                trawl_core::ErrorCode::NotFound,
                format!(
                    "{handle} has no version {version}: {kept}, and the stored copy is version {latest}"
                ),
            )
        })
    }

}
