//! What the three search tools (`web_search`, `arxiv`, `github`) share: their answer with
//! its output schema, the rule that a search no engine answered is a failure, and what the
//! request log and the metrics take from an answer.
//!
//! The answer is `trawl_search::SearchData`, which lives in a crate without schemars; its
//! schema is written out here from the JSON contract (the `search` data of the Envelope). It
//! lists every field the type writes and requires only the ones always written, so new
//! optional fields don't break clients that validate.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::json;
use trawl_core::{ErrorCode, TrawlError};
use trawl_search::SearchData;

use super::declare::Details;

/// A search tool's answer: the fused hits and one outcome per engine.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct SearchAnswer(pub SearchData);

impl JsonSchema for SearchAnswer {
    fn schema_name() -> Cow<'static, str> {
        "SearchData".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "required": ["query", "hits", "engines", "folded"],
            "properties": {
                "query": { "type": "string", "description": "The main query." },
                "hits": {
                    "type": "array",
                    "description": "Fused hits, best first.",
                    "items": {
                        "type": "object",
                        "required": ["rank", "url", "title", "snippet", "fused_score", "provenance"],
                        "properties": {
                            "rank": { "type": "integer", "minimum": 1 },
                            "url": { "type": "string" },
                            "title": { "type": "string" },
                            "snippet": { "type": "string" },
                            "fused_score": { "type": "number" },
                            "provenance": {
                                "type": "array",
                                "description": "Every engine and rank that returned this URL.",
                                "items": {
                                    "type": "object",
                                    "required": ["engine", "rank", "group"],
                                    "properties": {
                                        "engine": { "type": "string" },
                                        "rank": { "type": "integer" },
                                        "group": { "type": "string" },
                                        "query": { "type": "integer" }
                                    }
                                }
                            },
                            "published": { "type": "string" },
                            "handle": {
                                "type": "string",
                                "description": "Store handle when the page was read (read_top); open it with web_open."
                            },
                            "preview": { "type": "string" },
                            "extra": { "description": "Engine-specific fields (stars, authors, categories, …)." }
                        }
                    }
                },
                "engines": {
                    "type": "array",
                    "description": "One outcome per engine asked.",
                    "items": {
                        "type": "object",
                        "required": ["engine", "outcome", "count", "latency_ms"],
                        "properties": {
                            "engine": { "type": "string" },
                            "outcome": {
                                "type": "string",
                                "enum": ["ok", "empty", "timeout", "rate_limited", "blocked", "auth_failed",
                                         "quota_exhausted", "http_error", "parse_error", "not_configured", "skipped"]
                            },
                            "count": { "type": "integer", "minimum": 0 },
                            "latency_ms": { "type": "integer", "minimum": 0 },
                            "status": { "type": "integer" },
                            "detail": { "type": "string" },
                            "query": { "type": "integer" }
                        }
                    }
                },
                "folded": {
                    "type": "array",
                    "description": "URLs merged into other hits as duplicates.",
                    "items": {
                        "type": "object",
                        "required": ["url", "into"],
                        "properties": {
                            "url": { "type": "string" },
                            "into": { "type": "string" }
                        }
                    }
                },
                "next_page": { "type": "integer", "description": "The page to ask for next, when there is more." },
                "selection": {
                    "type": "object",
                    "description": "How the engines were chosen: the route, its engines, those disabled_engines removed, those asked.",
                    "properties": {
                        "route": { "type": "string" },
                        "route_engines": { "type": "array", "items": { "type": "string" } },
                        "disabled": { "type": "array", "items": { "type": "string" } },
                        "asked": { "type": "array", "items": { "type": "string" } }
                    },
                    "required": ["route_engines", "disabled", "asked"]
                }
            }
        });
        Schema::try_from(schema).unwrap_or_else(|_| unreachable!("the schema literal is an object"))
    }
}

/// A search where no engine answered is the call's failure, as it is for the CLI.
pub(crate) fn no_engine_answered(data: SearchData) -> Result<SearchAnswer, TrawlError> {
    if !data.all_failed() || !data.hits.is_empty() {
        return Ok(SearchAnswer(data));
    }
    let outcomes: Vec<String> = data
        .engines
        .iter()
        .map(|e| format!("{} {}", e.engine, e.outcome.as_str()))
        .collect();
    let code = if data
        .engines
        .iter()
        .all(|e| e.outcome.as_str() == "rate_limited")
    {
        ErrorCode::RateLimited
    } else if data.engines.iter().all(|e| e.outcome.as_str() == "timeout") {
        ErrorCode::Timeout
    } else {
        ErrorCode::Upstream
    };
    Err(TrawlError::new(
        code,
        format!("no search engine answered ({})", outcomes.join(", ")),
    )
    .with_retryable(true))
}

/// Engines, hit count and how many hits were read, for the request log.
pub(crate) fn search_details(answer: &SearchAnswer) -> Details {
    let data = &answer.0;
    let engines: Vec<String> = data
        .engines
        .iter()
        .map(|e| format!("{}:{}:{}", e.engine, e.outcome.as_str(), e.count))
        .collect();
    let mut details = vec![
        ("engines", engines.join(",")),
        ("hits", data.hits.len().to_string()),
    ];
    let read = data.hits.iter().filter(|h| h.handle.is_some()).count();
    if read > 0 {
        details.push(("read", read.to_string()));
    }
    details
}

/// Each engine's outcome, for the metrics.
pub(crate) fn engine_outcomes(answer: &SearchAnswer) -> Vec<(String, &'static str)> {
    answer
        .0
        .engines
        .iter()
        .map(|e| (e.engine.clone(), e.outcome.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_search_answer_has_every_required_field() {
        let data = SearchData {
            query: "q".into(),
            hits: Vec::new(),
            engines: Vec::new(),
            folded: Vec::new(),
            next_page: None,
            selection: trawl_search::Selection::default(),
        };
        let value = serde_json::to_value(SearchAnswer(data)).unwrap();
        let schema = SearchAnswer::json_schema(&mut SchemaGenerator::default());
        for field in schema.get("required").unwrap().as_array().unwrap() {
            assert!(value.get(field.as_str().unwrap()).is_some(), "{field}");
        }
    }
}
