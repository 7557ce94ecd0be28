//! `github`: repositories from the GitHub search API, as a search with one engine.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::TrawlError;
use trawl_search::SearchData;

use super::bounds::{ToolArgs, checked, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::search::{SearchAnswer, engine_outcomes, no_engine_answered, search_details};
use super::{Agent, Progress, WebSearchArgs, invalid, render};
use crate::fence::Fence;

/// Search GitHub repositories.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct GithubArgs {
    /// Words to find in repository names, descriptions and topics.
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// How many repositories (default 10).
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
    /// Only repositories in this programming language, e.g. "rust".
    #[schemars(length(max = 100))]
    pub language: Option<String>,
    /// Result page.
    #[schemars(range(min = 1, max = 10))]
    pub page: Option<u32>,
}

impl ToolArgs for GithubArgs {
    fn normalized(self) -> Self {
        GithubArgs {
            query: self.query.trim().to_owned(),
            language: self
                .language
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty()),
            ..self
        }
    }
}

/// The `github` tool.
#[derive(Debug)]
pub struct Github;

impl Tool for Github {
    const NAME: &'static str = "github";
    const TITLE: &'static str = "Search GitHub repositories";
    const DESCRIPTION: &'static str = "Search GitHub repositories by words in names, descriptions and topics (optionally one \
language). Each hit has description and URL; stars, language and update date in extra. Read a \
README with web_fetch; more hits: page=next_page.";
    const HINTS: Hints = Hints::reads(true);
    const NEEDS: Needs = Needs::Engine("github");
    type Args = GithubArgs;
    type Out = SearchAnswer;

    async fn call(
        agent: Agent,
        args: GithubArgs,
        _: Option<Progress>,
    ) -> Result<SearchAnswer, TrawlError> {
        agent.github(args).await.and_then(no_engine_answered)
    }

    fn markdown(out: &SearchAnswer, fence: &Fence) -> String {
        render::search_markdown(&out.0, fence)
    }

    fn asked(args: &GithubArgs) -> Vec<Asked> {
        let mut asked = vec![Asked::Text("query", args.query.clone())];
        if let Some(language) = &args.language {
            asked.push(Asked::Text("language", language.clone()));
        }
        asked
    }

    fn details(out: &SearchAnswer) -> Details {
        search_details(out)
    }

    fn engine_outcomes(out: &SearchAnswer) -> Vec<(String, &'static str)> {
        engine_outcomes(out)
    }
}

impl Agent {
    /// `github`: repositories from the GitHub search API.
    pub async fn github(&self, args: GithubArgs) -> Result<SearchData, TrawlError> {
        let args = checked(args)?;
        // The language is checked under its own name (its bound above) before it is joined
        // into one GitHub query: a 600-character language was reported as a bad `query`.
        let query = match &args.language {
            Some(lang) if lang.contains(['"', '\\']) || lang.contains(char::is_control) => {
                return Err(invalid(
                    "language",
                    "must be a language name, e.g. \"rust\"",
                ));
            }
            // A name with a space ("visual basic") is quoted, so it stays one qualifier.
            Some(lang) if lang.contains(char::is_whitespace) => {
                format!("{} language:\"{lang}\"", args.query)
            }
            Some(lang) => format!("{} language:{lang}", args.query),
            None => args.query,
        };
        self.web_search(WebSearchArgs {
            query,
            max_results: args.max_results,
            engines: Some(vec!["github".to_owned()]),
            page: args.page,
            ..WebSearchArgs::default()
        })
        .await
    }
}
