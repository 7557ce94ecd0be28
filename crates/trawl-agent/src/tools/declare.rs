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

    /// PNG images the answer carries besides its text (screenshots), in order: an MCP
    /// client gets each as an `image` content block.
    fn images(_out: &Self::Out) -> Vec<Vec<u8>> {
        Vec::new()
    }

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
    pub check: CheckFn,
}

/// A tool's argument check, without its types: arguments in, normalized arguments out.
pub type CheckFn = fn(Option<&Map<String, Value>>) -> Result<Value, TrawlError>;

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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::tools::bounds::{Bound, CHECKED_KEYWORDS, Counted, input_schema};

    /// Every JSON Schema keyword that constrains a value (rather than describing it).
    const VALIDATION_KEYWORDS: [&str; 14] = [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minContains",
        "minProperties",
        "maxProperties",
    ];

    /// One tool's name and input schema, for tests that need no types.
    struct Schemas(Vec<(&'static str, Value)>);

    impl VisitTools for Schemas {
        fn tool<T: Tool>(&mut self) {
            self.0.push((T::NAME, input_schema::<T::Args>().to_value()));
        }
    }

    fn schemas() -> Vec<(&'static str, Value)> {
        let mut all = Schemas(Vec::new());
        super::super::visit_tools(&mut all);
        all.0
    }

    /// Where in a schema each validation keyword sits (`properties/page/minimum`).
    fn keywords(value: &Value, path: &str, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    if VALIDATION_KEYWORDS.contains(&key.as_str()) {
                        found.push(format!("{path}/{key}"));
                    }
                    keywords(v, &format!("{path}/{key}"), found);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    keywords(v, &format!("{path}/{i}"), found);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn the_table_names_each_tool_once() {
        let names: Vec<&str> = tools().iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "web_search",
                "web_fetch",
                "web_open",
                "arxiv",
                "github",
                "sites",
                "web_map",
                "web_crawl"
            ]
        );
        for tool in tools() {
            assert_eq!(find_tool(tool.name).map(|t| t.name), Some(tool.name));
        }
        assert!(find_tool("no_such_tool").is_none());
        let searching: Vec<&str> = tools()
            .iter()
            .filter(|t| t.needs.searches())
            .map(|t| t.name)
            .collect();
        assert_eq!(searching, ["web_search", "arxiv", "github"]);
    }

    /// The check reads bounds only where trawl's argument types put them; any other bound
    /// would be published and not enforced.
    #[test]
    fn every_bound_in_a_tool_schema_is_one_the_check_enforces() {
        for (name, schema) in schemas() {
            let mut found = Vec::new();
            keywords(&schema, "", &mut found);
            for at in found {
                let parts: Vec<&str> = at.trim_start_matches('/').split('/').collect();
                let enforced = match parts.as_slice() {
                    ["properties", _, keyword] | ["properties", _, "items", keyword] => {
                        CHECKED_KEYWORDS.contains(keyword)
                    }
                    _ => false,
                };
                assert!(enforced, "{name}: {at} is published but not checked");
            }
        }
    }

    /// Arguments holding the least each required property allows, plus `extra`.
    fn arguments(schema: &Value, extra: Option<(&str, Value)>) -> Map<String, Value> {
        let mut args = Map::new();
        for required in schema["required"].as_array().into_iter().flatten() {
            let name = required.as_str().unwrap();
            let property = &schema["properties"][name];
            let least = property["minLength"].as_u64().unwrap_or(1).max(1) as usize;
            assert_eq!(property["type"], "string", "{name}: only text is required");
            args.insert(name.to_owned(), json!("a".repeat(least)));
        }
        if let Some((name, value)) = extra {
            args.insert(name.to_owned(), value);
        }
        args
    }

    /// A value of `n` for a bound: the number, `n` characters, or `n` items each `item` long.
    fn value_of(bound: &Bound, n: u64, item: u64) -> Value {
        match bound.counted {
            Counted::Value => json!(n),
            Counted::Chars => json!("a".repeat(n as usize)),
            Counted::Items => json!(vec!["a".repeat(item as usize); n as usize]),
        }
    }

    /// What a tool's check makes of one property's value: `Ok(kept)`, or the refusal's message.
    fn verdict(tool: &str, schema: &Value, name: &str, value: Value) -> Result<bool, String> {
        let args = arguments(schema, Some((name, value)));
        let check = find_tool(tool).unwrap().check;
        check(Some(&args))
            .map(|normalized| !normalized[name].is_null())
            .map_err(|e| e.message)
    }

    /// Each bounded property of each tool: `(tool, schema, property, bound)`.
    fn bounded() -> Vec<(&'static str, Value, String, Bound)> {
        let mut out = Vec::new();
        for (tool, schema) in schemas() {
            for (name, property) in schema["properties"].as_object().unwrap() {
                if let Some(bound) = Bound::of(property) {
                    out.push((tool, schema.clone(), name.clone(), bound));
                }
            }
        }
        out
    }

    fn holds(bound: &Bound, n: u64) -> bool {
        let n = n as f64;
        bound.min.is_none_or(|min| n >= min) && bound.max.is_none_or(|max| n <= max)
    }

    /// At the edges of every bound the schema declares, the check accepts what is inside and
    /// refuses (naming the property) or drops what is outside.
    #[test]
    fn bounds_in_the_schema_are_what_the_check_refuses_at_the_edges() {
        let all = bounded();
        assert!(all.len() >= 15, "{} bounded properties", all.len());
        for (tool, schema, name, bound) in all {
            let item = bound.each.as_ref().and_then(|e| e.min).unwrap_or(1.0) as u64;
            let mut edges = Vec::new();
            if let Some(min) = bound.min {
                edges.extend([min as u64, (min as u64).saturating_sub(1)]);
            }
            if let Some(max) = bound.max {
                edges.extend([max as u64, max as u64 + 1]);
            }
            for n in edges {
                let verdict = verdict(tool, &schema, &name, value_of(&bound, n, item.max(1)));
                check_verdict(tool, &name, &bound, n, verdict);
            }
            if let Some(each) = &bound.each {
                let n = bound.min.unwrap_or(1.0).max(1.0) as u64;
                for len in [each.min, each.max.map(|m| m + 1.0)].into_iter().flatten() {
                    let len = len as u64;
                    let verdict = verdict(tool, &schema, &name, value_of(&bound, n, len));
                    let inside = holds(each, len);
                    match verdict {
                        Ok(_) => assert!(inside, "{tool}.{name}: item of {len} accepted"),
                        Err(why) => assert!(
                            !inside && why.starts_with(&format!("{name}[")),
                            "{tool}.{name}: item of {len}: {why}"
                        ),
                    }
                }
            }
        }
    }

    fn check_verdict(tool: &str, name: &str, bound: &Bound, n: u64, verdict: Result<bool, String>) {
        match verdict {
            Ok(kept) => assert!(
                holds(bound, n) || !kept,
                "{tool}.{name}: {n} is outside {} and was used",
                bound.words()
            ),
            Err(why) => assert!(
                !holds(bound, n) && why.starts_with(&format!("{name}:")),
                "{tool}.{name}: {n} refused: {why}"
            ),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Anywhere in (and past) its range, a property's value is refused exactly when it
        /// breaks the schema's bound.
        #[test]
        fn bounds_in_the_schema_are_what_the_check_refuses(pick in any::<prop::sample::Index>(), n in 0u64..600) {
            let all = bounded();
            let (tool, schema, name, bound) = &all[pick.index(all.len())];
            // Arrays stay short: their bounds are small.
            let n = if bound.counted == Counted::Items { n % 25 } else { n };
            let item = bound.each.as_ref().and_then(|e| e.min).unwrap_or(1.0).max(1.0) as u64;
            let verdict = verdict(tool, schema, name, value_of(bound, n, item));
            check_verdict(tool, name, bound, n, verdict);
        }
    }
}
