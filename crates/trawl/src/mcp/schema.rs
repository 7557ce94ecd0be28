//! Output schemas of the tools whose answer type has no `JsonSchema` derive.
//!
//! `web_search`, `arxiv` and `github` answer with `trawl_search::SearchData`, which lives in
//! a crate without schemars; its schema is written out here from the JSON contract (the
//! `search` data of the Envelope). It lists every field the type writes and requires only the
//! ones always written, so new optional fields don't break clients that validate.

use std::sync::{Arc, LazyLock};

use rmcp::model::JsonObject;
use serde_json::json;

static SEARCH_OUTPUT: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
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
    match schema {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => unreachable!("the schema literal is an object"),
    }
});

/// The output schema of `web_search`, `arxiv` and `github`.
pub fn search_output() -> Arc<JsonObject> {
    SEARCH_OUTPUT.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_search_answer_has_every_required_field() {
        let data = trawl_search::SearchData {
            query: "q".into(),
            hits: Vec::new(),
            engines: Vec::new(),
            folded: Vec::new(),
            next_page: None,
            selection: trawl_search::Selection::default(),
        };
        let value = serde_json::to_value(&data).unwrap();
        let schema = search_output();
        for field in schema["required"].as_array().unwrap() {
            assert!(value.get(field.as_str().unwrap()).is_some(), "{field}");
        }
    }
}
