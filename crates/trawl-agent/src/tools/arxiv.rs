//! `arxiv`: papers from the arXiv API, as a search with one engine.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::TrawlError;
use trawl_search::SearchData;

use super::bounds::{ToolArgs, checked, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::search::{SearchAnswer, engine_outcomes, no_engine_answered, search_details};
use super::{Agent, Progress, WebSearchArgs, render};
use crate::fence::Fence;

/// Search arXiv papers.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct ArxivArgs {
    /// Words to find in titles, abstracts and authors.
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// How many papers (default 10).
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
    /// Result page.
    #[schemars(range(min = 1, max = 10))]
    pub page: Option<u32>,
}

impl ToolArgs for ArxivArgs {
    fn normalized(self) -> Self {
        ArxivArgs {
            query: self.query.trim().to_owned(),
            ..self
        }
    }
}

/// The `arxiv` tool.
#[derive(Debug)]
pub struct Arxiv;

impl Tool for Arxiv {
    const NAME: &'static str = "arxiv";
    const TITLE: &'static str = "Search arXiv";
    const DESCRIPTION: &'static str = "Search arXiv papers by words in titles, abstracts and authors. Each hit has title, \
abstract snippet, link and date; authors and categories in extra. Read a paper with web_fetch; \
more hits: page=next_page.";
    const HINTS: Hints = Hints::reads(true);
    const NEEDS: Needs = Needs::Engine("arxiv");
    type Args = ArxivArgs;
    type Out = SearchAnswer;

    async fn call(
        agent: Agent,
        args: ArxivArgs,
        _: Option<Progress>,
    ) -> Result<SearchAnswer, TrawlError> {
        agent.arxiv(args).await.and_then(no_engine_answered)
    }

    fn markdown(out: &SearchAnswer, fence: &Fence) -> String {
        render::search_markdown(&out.0, fence)
    }

    fn asked(args: &ArxivArgs) -> Vec<Asked> {
        vec![Asked::Text("query", args.query.clone())]
    }

    fn details(out: &SearchAnswer) -> Details {
        search_details(out)
    }

    fn engine_outcomes(out: &SearchAnswer) -> Vec<(String, &'static str)> {
        engine_outcomes(out)
    }
}

impl Agent {
    /// `arxiv`: papers from the arXiv API.
    pub async fn arxiv(&self, args: ArxivArgs) -> Result<SearchData, TrawlError> {
        let args = checked(args)?;
        self.web_search(WebSearchArgs {
            query: args.query,
            max_results: args.max_results,
            engines: Some(vec!["arxiv".to_owned()]),
            page: args.page,
            ..WebSearchArgs::default()
        })
        .await
    }
}
