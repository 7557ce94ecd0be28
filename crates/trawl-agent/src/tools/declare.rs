//! How a tool declares itself. Each tool is one file holding its argument type, its
//! [`Agent`] method and a unit struct implementing [`Tool`]: name, title, description,
//! hints, what it needs, and how a call is logged and shown. The table in `tools/mod.rs`
//! lists every tool once; the MCP server builds its routes from it ([`visit_tools`]), and
//! the tool names, the set of tools that need search ([`Needs`]) and the argument checks
//! ([`ToolInfo::check`]) all come from it.

use std::future::Future;
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use trawl_core::TrawlError;

use super::bounds::{ToolArgs, checked};
use super::{Agent, Progress};
use crate::fence::Fence;

/// MCP's tool annotations: hints to a client about what a call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// It changes nothing.
    pub read_only: bool,
    /// It may delete or overwrite (said only for tools that change something).
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments changes nothing more.
    pub idempotent: Option<bool>,
    /// It reaches the web (rather than only trawl's own store).
    pub open_world: bool,
}

impl Hints {
    /// A tool that only reads, from the web (`open_world`) or from the store.
    pub const fn reads(open_world: bool) -> Self {
        Hints {
            read_only: true,
            destructive: None,
            idempotent: None,
            open_world,
        }
    }
}

/// What a tool needs beyond fetching and the store; a server leaves out the tools whose
/// need is not met rather than let every call fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Nothing more: reading works whenever trawl runs.
    Nothing,
    /// Any usable search engine.
    AnyEngine,
    /// This one engine, usable.
    Engine(&'static str),
}

impl Needs {
    /// Whether the tool searches (and so is left out of a `--fetch-only` server).
    pub fn searches(self) -> bool {
        self != Needs::Nothing
    }

    /// Whether it is met, given the usable engines.
    pub fn met_by(self, usable: &[String]) -> bool {
        match self {
            Needs::Nothing => true,
            Needs::AnyEngine => !usable.is_empty(),
            Needs::Engine(name) => usable.iter().any(|e| e == name),
        }
    }
}

/// One field of what a call asked for, as the request log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// Plain text (a query, a handle, a count).
    Text(&'static str, String),
    /// A URL: the log masks its credentials.
    Url(&'static str, String),
}

/// What the request log says about a finished call beyond tool and outcome.
pub type Details = Vec<(&'static str, String)>;

/// An agent tool as the MCP faces offer it.
pub trait Tool: 'static {
    /// The name clients call it by.
    const NAME: &'static str;
    /// A short human-readable title.
    const TITLE: &'static str;
    /// What a model reads to decide when and how to call it.
    const DESCRIPTION: &'static str;
    /// MCP's annotations.
    const HINTS: Hints;
    /// What it needs to be offered.
    const NEEDS: Needs;
    /// Its arguments; their JSON Schema is the tool's input schema and their bounds its check.
    type Args: ToolArgs;
    /// Its answer; the JSON Schema is the tool's output schema.
    type Out: Serialize + JsonSchema + Send + 'static;

    /// The call's answer, or why it failed (the MCP face's rules: a single read that failed,
    /// a search no engine answered, are failures).
    fn call(
        agent: Agent,
        args: Self::Args,
        progress: Option<Progress>,
    ) -> impl Future<Output = Result<Self::Out, TrawlError>> + Send;

    /// The answer as the fenced Markdown a model reads.
    fn markdown(out: &Self::Out, fence: &Fence) -> String;

    /// What was asked, for the request log.
    fn asked(args: &Self::Args) -> Vec<Asked>;

    /// What was used and found, for the request log.
    fn details(out: &Self::Out) -> Details;

    /// Whether this call reports progress (a batch read).
    fn reports_progress(_args: &Self::Args) -> bool {
        false
    }

    /// Each engine's outcome, for the metrics (search tools).
    fn engine_outcomes(_out: &Self::Out) -> Vec<(String, &'static str)> {
        Vec::new()
    }
}

/// Something that takes every tool of the table in turn, by type (the MCP server adds a
/// route for each).
pub trait VisitTools {
    /// Take one tool.
    fn tool<T: Tool>(&mut self);
}

/// The plain facts of one tool, for code that needs no types.
#[derive(Debug, Clone, Copy)]
pub struct ToolInfo {
    /// Its name.
    pub name: &'static str,
    /// What it needs to be offered.
    pub needs: Needs,
    /// Deserializes a call's arguments into the tool's type and checks their bounds, with
    /// an `invalid_input` error naming the field; `Ok` holds them normalized, as JSON.
    pub check: fn(Option<&Map<String, Value>>) -> Result<Value, TrawlError>,
}

impl ToolInfo {
    /// The facts of tool `T`.
    pub fn of<T: Tool>() -> Self {
        ToolInfo {
            name: T::NAME,
            needs: T::NEEDS,
            check: check_arguments::<T::Args>,
        }
    }
}

/// Deserializes arguments into `A` (the error names the path: `max_results: invalid type:
/// …`), then normalizes and checks them.
pub fn parse_arguments<A: ToolArgs>(
    arguments: Option<&Map<String, Value>>,
) -> Result<A, TrawlError> {
    let value = Value::Object(arguments.cloned().unwrap_or_default());
    let args = serde_path_to_error::deserialize::<_, A>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            TrawlError::invalid_input(inner.to_string())
        } else {
            TrawlError::invalid_input(format!("{path}: {inner}"))
        }
    })?;
    checked(args)
}

fn check_arguments<A: ToolArgs>(
    arguments: Option<&Map<String, Value>>,
) -> Result<Value, TrawlError> {
    let args = parse_arguments::<A>(arguments)?;
    serde_json::to_value(args)
        .map_err(|e| TrawlError::internal(format!("cannot serialize the arguments: {e}")))
}

struct Collect(Vec<ToolInfo>);

impl VisitTools for Collect {
    fn tool<T: Tool>(&mut self) {
        self.0.push(ToolInfo::of::<T>());
    }
}

static TOOLS: LazyLock<Vec<ToolInfo>> = LazyLock::new(|| {
    let mut all = Collect(Vec::new());
    super::visit_tools(&mut all);
    all.0
});

/// Every tool of the table, in its order.
pub fn tools() -> &'static [ToolInfo] {
    &TOOLS
}

/// The tool called `name`, if there is one.
pub fn find_tool(name: &str) -> Option<&'static ToolInfo> {
    TOOLS.iter().find(|t| t.name == name)
}
